/**
 * The engine against misbehaving upstreams: a client that goes away cancels the upstream work;
 * a slow RDAP server yields `unknown` with a reason, then its circuit opens; RDAP-only answers
 * when no registrar is configured.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as DelayedRdap from "../support/DelayedRdap.js"
import { rowsOf, search } from "../support/ndjson.js"
import * as TestServer from "../support/TestServer.js"

class Rdap extends Context.Tag("test/Rdap")<Rdap, DelayedRdap.DelayedRdapShape>() {}

const withRdap = (tlds: Record<string, DelayedRdap.TldBehaviour>, env: Record<string, string>) =>
  Layer.unwrapScoped(
    Effect.map(DelayedRdap.start(tlds), (rdap) =>
      TestServer.layer({ RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl, ...env }).pipe(Layer.merge(Layer.succeed(Rdap, rdap))))
  )

/** Polls a condition every 50 ms, up to `ms`. */
const eventually = (condition: () => boolean, ms: number) =>
  Effect.gen(function*() {
    for (let waited = 0; waited < ms && !condition(); waited += 50) yield* Effect.sleep("50 millis")
    return condition()
  })

const SLOW = { delayMs: 20_000 }

describe("client disconnect", () => {
  layer(
    withRdap({ com: SLOW, net: SLOW, org: SLOW, io: SLOW, dev: SLOW }, {
      ALTERNATE_TLDS: "net,org,io,dev",
      AVAILABILITY_UPSTREAM_TIMEOUT: "60 seconds",
      RDAP_TIMEOUT: "60 seconds"
    }),
    { timeout: 120_000 }
  )("a client that goes away", (it) => {
    it.effect("stops every upstream call still in flight, and none starts afterwards", () =>
      Effect.gen(function*() {
        const rdap = yield* Rdap
        const server = yield* TestServer.TestServer
        const controller = new AbortController()
        const pending = fetch(`${server.baseUrl}/api/domain/search`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ q: "goingaway.com" }),
          signal: controller.signal
        }).then(async (res) => {
          const reader = res.body!.getReader()
          await reader.read() // the header line
          return res.status
        })
        expect(yield* Effect.promise(() => pending)).toBe(200)
        // All five lookups reach the RDAP server and wait there (20 s each).
        expect(yield* eventually(() => rdap.lookups().length === 5, 10_000)).toBe(true)
        expect(rdap.lookups().every((r) => r.state === "pending")).toBe(true)

        controller.abort()
        // The service notices the closed connection and interrupts the checks: each RDAP request
        // is abandoned long before its answer would come.
        expect(yield* eventually(() => rdap.lookups().every((r) => r.state === "abandoned"), 10_000)).toBe(true)
        yield* Effect.sleep("500 millis")
        expect(rdap.lookups()).toHaveLength(5)
        expect(rdap.lookups().map((r) => r.domain).sort()).toEqual(
          ["goingaway.com", "goingaway.dev", "goingaway.io", "goingaway.net", "goingaway.org"]
        )
      }))
  })
})

describe("slow upstream and circuit breaker", () => {
  layer(
    withRdap({ dev: SLOW, io: { registered: ["taken.io"] } }, {
      ALTERNATE_TLDS: "",
      AVAILABILITY_UPSTREAM_TIMEOUT: "1 second",
      AVAILABILITY_BREAKER_FAILURES: "2",
      AVAILABILITY_BREAKER_COOLDOWN: "10 minutes"
    }),
    { timeout: 120_000 }
  )("RDAP only (no registrar configured)", (it) => {
    it.effect("a slow RDAP server yields unknown with a reason; after 2 failures its circuit opens and it is not asked", () =>
      Effect.gen(function*() {
        const rdap = yield* Rdap
        const first = rowsOf(yield* search("one.dev")).get("one.dev")
        expect(first).toMatchObject({ state: "unknown", available: null, price: null, cached: false })
        expect(first.meta.reason).toBe("rdap: RDAP server did not answer within 1000 ms")
        const second = rowsOf(yield* search("two.dev")).get("two.dev")
        expect(second.state).toBe("unknown")
        expect(rdap.lookups().filter((r) => r.tld === "dev")).toHaveLength(2)
        // The two timed-out requests were abandoned, not left hanging.
        expect(yield* eventually(() => rdap.lookups().every((r) => r.tld !== "dev" || r.state === "abandoned"), 5_000))
          .toBe(true)

        const third = rowsOf(yield* search("three.dev")).get("three.dev")
        expect(third.state).toBe("unknown")
        expect(third.meta.reason).toMatch(
          /^rdap: RDAP server circuit open after 2 consecutive failures; retrying in \d+ s$/
        )
        expect(rdap.lookups().filter((r) => r.tld === "dev")).toHaveLength(2)

        // Other servers are unaffected.
        const other = rowsOf(yield* search("free.io")).get("free.io")
        expect(other.state).toBe("available")
      }))

    it.effect("without a registrar, a 404 from the authoritative server is available at the catalogue price; a record is registered", () =>
      Effect.gen(function*() {
        const free = rowsOf(yield* search("unclaimed.io")).get("unclaimed.io")
        expect(free).toMatchObject({ state: "available", available: true, price: 44.99, meta: { source: "rdap" } })
        expect(free.meta.reason).toBeUndefined()
        const taken = rowsOf(yield* search("taken.io")).get("taken.io")
        expect(taken).toMatchObject({ state: "registered", available: false, price: null, meta: { source: "rdap" } })
        expect(taken.whois_summary.registrar).toBe("Loopback Registrar Inc.")
      }))

    it.effect("a suffix without an RDAP service or off the public suffix list is unsupported; special-use names are reserved", () =>
      Effect.gen(function*() {
        const museum = rowsOf(yield* search("art.museum")).get("art.museum")
        expect(museum).toMatchObject({
          state: "unsupported",
          state_label: "TLD not supported",
          available: false,
          price: null
        })
        expect(museum.meta.reason).toContain("no RDAP service")
        const made_up = rowsOf(yield* search("name.notarealtld")).get("name.notarealtld")
        expect(made_up).toMatchObject({ state: "unsupported", available: false })
        const special = rowsOf(yield* search("my.test")).get("my.test")
        expect(special).toMatchObject({ state: "reserved", available: false, meta: { source: "reserved_list" } })
        expect(special.meta.reason).toContain("RFC 6761")
      }))
  })
})
