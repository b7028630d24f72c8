/**
 * Rate limits at the edge (platform/http/RateLimitEdge.ts): the request guard counts an endpoint's
 * `rateLimited` policy once the route is known, before the body is read or decoded. Through the
 * guard and a tiny Api on the in-memory server, with a stand-in limiter that counts in a Map.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, Schema } from "effect"
import { rateLimited } from "../../../src/platform/http/ApiAnnotations.js"
import { RateLimited } from "../../../src/platform/http/Errors.js"
import {
  policy,
  type RateLimitDecision,
  RateLimiter,
  type RateLimitPolicy
} from "../../../src/platform/http/RateLimit.js"
import { retryAfterOf } from "../../../src/platform/http/RateLimitEdge.js"
import { RequestGuardLive } from "../../../src/platform/http/RequestGuard.js"
import { makeRouteTable } from "../../../src/platform/http/RouteTable.js"

const things = policy("things", 2, 60)
const pages = policy("pages", 1, 60)
const counted = policy("counted_by_service", 1, 60)

const Api = HttpApi.make("edge").add(
  HttpApiGroup.make("g")
    .add(
      HttpApiEndpoint.post("create", "/things")
        .setPayload(Schema.Struct({ name: Schema.NonEmptyString }))
        .addSuccess(Schema.Struct({ ok: Schema.Boolean }))
        .addError(RateLimited)
        .pipe(rateLimited(things))
    )
    .add(
      HttpApiEndpoint.get("page", "/page")
        .addSuccess(Schema.String)
        .pipe(rateLimited(pages, {
          refusal: (request, error) =>
            Effect.succeed(
              HttpServerResponse.text(`wait ${retryAfterOf(error)} s (${request.url})`, { status: 429 })
            )
        }))
    )
    .add(
      HttpApiEndpoint.get("service", "/service")
        .addSuccess(Schema.Struct({ ok: Schema.Boolean }))
        .pipe(rateLimited(counted, { enforcedBy: "service" }))
    )
    .add(HttpApiEndpoint.get("free", "/free").addSuccess(Schema.Struct({ ok: Schema.Boolean })))
)

const GroupLive = HttpApiBuilder.group(Api, "g", (handlers) =>
  handlers
    .handle("create", () => Effect.succeed({ ok: true }))
    .handle("page", () => Effect.succeed("the page"))
    .handle("service", () => Effect.succeed({ ok: true }))
    .handle("free", () => Effect.succeed({ ok: true })))

/** A limiter that counts per policy and key in memory, and remembers what it was asked. */
const counts = new Map<string, number>()
const StandInLimiter = Layer.succeed(RateLimiter, {
  consume: (p: RateLimitPolicy, key: string) =>
    Effect.sync((): RateLimitDecision => {
      const n = (counts.get(`${p.id} ${key}`) ?? 0) + 1
      counts.set(`${p.id} ${key}`, n)
      return {
        allowed: n <= p.limit,
        limit: p.limit,
        remaining: Math.max(0, p.limit - n),
        resetSeconds: 42,
        windowSeconds: p.windowSeconds
      }
    }),
  limitOf: (p) => p.limit,
  leasedUnused: () => 0,
  countedElsewhere: false,
  windowOf: () => {
    throw new Error("not used at the edge")
  },
  settle: () => {
    throw new Error("not used at the edge")
  }
})

const settings = {
  maxBodyBytes: 1024,
  requestTimeout: Duration.seconds(5),
  bodyTimeout: Duration.seconds(5),
  trustProxy: 1
}

const ServerLive = HttpApiBuilder.serve().pipe(
  Layer.provide(RequestGuardLive(settings, makeRouteTable(Api))),
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(GroupLive))),
  Layer.provide(StandInLimiter),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

const from = (ip: string) => HttpClientRequest.setHeader("x-forwarded-for", ip)

describe("rate limits at the edge", () => {
  it.layer(ServerLive)((it) => {
    it.effect("count bad input like any request, and refuse with the typed 429 and its headers", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const post = (body: unknown) =>
          client.execute(
            HttpClientRequest.post("/things").pipe(from("198.51.100.1"), HttpClientRequest.bodyUnsafeJson(body))
          )
        // Input refused after the count (nested deeper than any endpoint takes): it used one up.
        // (A payload that fails its schema counts the same way: test/storefront/market-pages.)
        const tooDeep = JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`)
        const bad = yield* post({ name: tooDeep })
        expect(bad.status, yield* bad.text).toBe(400)
        expect(bad.headers["ratelimit-remaining"]).toBe("1")
        const good = yield* post({ name: "a" })
        expect(good.status).toBe(200)
        expect(good.headers["ratelimit-remaining"]).toBe("0")
        const refused = yield* post({ name: "a" })
        expect(refused.status).toBe(429)
        expect(refused.headers["retry-after"]).toBe("42")
        expect(refused.headers["ratelimit-policy"]).toBe("2;w=60")
        expect(yield* refused.json).toEqual({
          error: {
            code: "rate_limited",
            message: "Rate limit of 2 requests per 60s exceeded; retry in 42s",
            request_id: expect.any(String),
            details: { limit: 2, window_seconds: 60, retry_after: 42 }
          }
        })
        // Another caller has its own count.
        const other = yield* client.execute(
          HttpClientRequest.post("/things").pipe(from("198.51.100.2"), HttpClientRequest.bodyUnsafeJson({ name: "a" }))
        )
        expect(other.status).toBe(200)
      }))

    it.effect("refuse before reading the body: an over-limit caller's oversized body is a 429, not a 413", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const big = (ip: string) =>
          client.execute(
            HttpClientRequest.post("/things").pipe(
              from(ip),
              HttpClientRequest.bodyText(JSON.stringify({ name: "x".repeat(4096) }), "application/json")
            )
          )
        expect((yield* big("198.51.100.3")).status).toBe(413)
        expect((yield* big("198.51.100.3")).status).toBe(413)
        expect((yield* big("198.51.100.3")).status).toBe(429)
      }))

    it.effect("answer with the endpoint's own refusal when it names one", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const get = () => client.execute(HttpClientRequest.get("/page?q=a.com").pipe(from("198.51.100.4")))
        expect(yield* (yield* get()).json).toBe("the page")
        const refused = yield* get()
        expect(refused.status).toBe(429)
        expect(yield* refused.text).toBe("wait 42 s (/page?q=a.com)")
        expect(refused.headers["retry-after"]).toBe("42")
      }))

    it.effect("leave alone what a service counts, and endpoints without a limit", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        for (let i = 0; i < 3; i++) {
          const service = yield* client.execute(HttpClientRequest.get("/service").pipe(from("198.51.100.5")))
          expect(service.status).toBe(200)
          expect(service.headers["ratelimit-limit"]).toBeUndefined()
          expect((yield* client.execute(HttpClientRequest.get("/free").pipe(from("198.51.100.5")))).status).toBe(200)
        }
        expect([...counts.keys()].filter((k) => k.includes("198.51.100.5"))).toEqual([])
      }))
  })
})
