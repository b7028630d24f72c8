import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { get, request, typedError } from "../support/http.js"
import * as TestServer from "../support/TestServer.js"

layer(TestServer.layer({ BASE_URL: "https://api.example.test" }))("service endpoints", (it) => {
  it.effect("/healthz is alive and /readyz checks the database", () =>
    Effect.gen(function*() {
      const live = yield* get("/healthz")
      expect(live.status).toBe(200)
      expect(live.json).toEqual({ status: "ok" })
      const ready = yield* get("/readyz")
      expect(ready.status).toBe(200)
      expect(ready.json).toEqual({ status: "ok", checks: { database: "ok" } })
    }))

  it.effect("GET /api answers 401 with a Bearer challenge pointing at the protected-resource metadata", () =>
    Effect.gen(function*() {
      const reply = yield* get("/api")
      expect(reply.status).toBe(401)
      expect(reply.headers.get("www-authenticate")).toBe(
        "Bearer resource_metadata=\"https://api.example.test/.well-known/oauth-protected-resource\""
      )
      expect(typedError(reply).code).toBe("unauthorized")
    }))

  it.effect("GET /api/v1 indexes the public operations with their limits and docs", () =>
    Effect.gen(function*() {
      const reply = yield* get("/api/v1")
      expect(reply.status).toBe(200)
      expect(reply.json.version).toBe("1.3.0")
      expect(reply.json.openapi).toBe("https://api.example.test/api/openapi.json")
      const pricing = reply.json.operations.find((o: any) => o.path === "/api/pricing/tld")
      expect(pricing).toMatchObject({
        method: "GET",
        operationId: "catalogue.getTldPrice",
        rateLimit: { limit: 120, windowSeconds: 60, scope: "ip", policy: "pricing_tld" }
      })
      expect(pricing.docs).toMatch(/^https:\/\/api\.example\.test\/docs/)
      const metadata = reply.json.operations.find((o: any) => o.path === "/api/tlds/:tld/metadata")
      expect(metadata.rateLimit.limit).toBe(120)
      // Operator and health endpoints are not part of the public index.
      expect(reply.json.operations.some((o: any) => o.path === "/healthz")).toBe(false)
    }))

  it.effect("OpenAPI 3.1, version 1.3.0, lists every path, with our error shapes", () =>
    Effect.gen(function*() {
      const reply = yield* get("/api/openapi.json")
      expect(reply.status).toBe(200)
      const doc = reply.json
      expect(doc.openapi).toMatch(/^3\.1\.\d+$/)
      expect(doc.info.version).toBe("1.3.0")
      for (const path of ["/api/pricing/tld", "/api/tlds/{tld}/metadata", "/api", "/api/v1", "/healthz", "/readyz"]) {
        expect(Object.keys(doc.paths), path).toContain(path)
      }
      const pricing = doc.paths["/api/pricing/tld"].get
      expect(pricing.parameters.map((p: any) => p.name).sort()).toEqual(["op", "tld"])
      expect(Object.keys(pricing.responses).sort()).toEqual(["200", "400", "429", "503"])
      expect(JSON.stringify(pricing.responses["400"])).toContain("LegacyBadRequest")
      expect(pricing["x-rate-limit"]).toMatchObject({ limit: 120, window_seconds: 60 })
      expect(JSON.stringify(doc)).not.toContain("HttpApiDecodeError")
      const metadata = doc.paths["/api/tlds/{tld}/metadata"].get
      expect(Object.keys(metadata.responses)).toEqual(expect.arrayContaining(["200", "400", "404", "429"]))
    }))

  it.effect("OpenAPI declares what each guarded operation needs: key pair, signing headers, optional bearer, admin token", () =>
    Effect.gen(function*() {
      const doc = (yield* get("/api/openapi.json")).json
      const schemes = doc.components.securitySchemes
      const header = (scheme: string) => ({
        type: schemes[scheme].type,
        in: schemes[scheme].in,
        name: schemes[scheme].name
      })
      // Keyed availability: both headers of the pair, in one requirement (they go together).
      expect(doc.paths["/api/v1/domains/available"].get.security).toEqual([{ apiKey: [], apiSecret: [] }])
      expect(header("apiKey")).toEqual({ type: "apiKey", in: "header", name: "x-api-key" })
      expect(header("apiSecret")).toEqual({ type: "apiKey", in: "header", name: "x-api-secret" })
      // Partner API: the four signing headers on every operation.
      const signing = { partnerKeyId: [], partnerTimestamp: [], partnerNonce: [], partnerSignature: [] }
      const partnerOps = Object.entries<any>(doc.paths).filter(([path]) => path.startsWith("/api/partner/"))
        .flatMap(([, item]) => Object.values<any>(item))
      expect(partnerOps.length).toBeGreaterThanOrEqual(12)
      for (const op of partnerOps) expect(op.security, op.operationId).toEqual([signing])
      expect(Object.keys(signing).map((s) => schemes[s].name)).toEqual([
        "x-service-key-id",
        "x-service-timestamp",
        "x-service-nonce",
        "x-service-signature"
      ])
      // The bearer token is optional where accepted: anonymous callers are served (prices masked).
      expect(doc.paths["/api/domain/search"].post.security).toEqual([{ bearer: [] }, {}])
      expect(doc.paths["/api/market/listings"].get.security).toEqual([{ bearer: [] }, {}])
      // Operators: a bearer token of its own, not the OAuth one.
      expect(doc.paths["/api/admin/orders/{id}"].get.security).toEqual([{ adminToken: [] }])
      expect(schemes.adminToken).toMatchObject({ type: "http", scheme: "bearer" })
      // Unguarded operations declare nothing.
      expect(doc.paths["/api/pricing/tld"].get.security ?? []).toEqual([])
    }))

  it.effect("interactive docs at /docs are served with bundled assets (no CDN)", () =>
    Effect.gen(function*() {
      const reply = yield* get("/docs")
      expect(reply.status).toBe(200)
      expect(reply.headers.get("content-type")).toContain("text/html")
      expect(reply.text).toContain("SwaggerUIBundle")
      expect(reply.text).not.toMatch(/<script[^>]+src=["']https?:/)
      expect(reply.text).not.toMatch(/<link[^>]+href=["']https?:/)
    }))

  it.effect("every response carries X-Request-Id, echoing a valid incoming one", () =>
    Effect.gen(function*() {
      const generated = yield* get("/healthz")
      expect(generated.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]{26}$/)
      const echoed = yield* get("/healthz", { "x-request-id": "client-abc_123" })
      expect(echoed.headers.get("x-request-id")).toBe("client-abc_123")
      const invalid = yield* get("/healthz", { "x-request-id": "bad id with spaces" })
      expect(invalid.headers.get("x-request-id")).toMatch(/^req_/)
      const error = yield* get("/api/tlds/nope/metadata", { "x-request-id": "trace-42" })
      expect(typedError(error).request_id).toBe("trace-42")
    }))

  it.effect("unknown routes are a typed 404, never an empty body or a stack trace", () =>
    Effect.gen(function*() {
      const reply = yield* request("/no/such/route", { method: "DELETE" })
      expect(reply.status).toBe(404)
      expect(typedError(reply).code).toBe("not_found")
    }))

  it.effect("GET /favicon.ico is 204 No Content, cacheable, with no credentials and no rate limit", () =>
    Effect.gen(function*() {
      const replies = yield* Effect.forEach(Array.from({ length: 40 }), () => get("/favicon.ico"), { concurrency: 8 })
      for (const reply of replies) {
        expect(reply.status, reply.text).toBe(204)
        expect(reply.text).toBe("")
        expect(reply.headers.get("cache-control")).toContain("max-age=86400")
        expect(reply.headers.get("ratelimit-limit") ?? reply.headers.get("x-ratelimit-limit")).toBeNull()
      }
    }))

  it.effect("operations that are not deprecated carry no deprecation headers", () =>
    Effect.gen(function*() {
      const reply = yield* get("/api/pricing/tld?tld=com")
      expect(reply.headers.get("deprecation")).toBeNull()
      expect(reply.headers.get("sunset")).toBeNull()
      expect(reply.headers.get("link")).toBeNull()
    }))
})

describe("deprecation headers driven by configuration", () => {
  const DEPRECATIONS = JSON.stringify({
    "catalogue.getTldPrice": {
      deprecation: "2026-10-01T00:00:00Z",
      sunset: "2027-03-01T00:00:00Z",
      link: "https://api.example.test/docs/catalogue.md#migrating"
    }
  })
  layer(TestServer.layer({ DEPRECATIONS }))("with catalogue.getTldPrice deprecated", (it) => {
    it.effect("the deprecated operation carries Deprecation, Sunset and Link — also on errors", () =>
      Effect.gen(function*() {
        for (const path of ["/api/pricing/tld?tld=com", "/api/pricing/tld"]) {
          const reply = yield* get(path)
          expect(reply.headers.get("deprecation"), path).toBe(`@${Date.parse("2026-10-01T00:00:00Z") / 1000}`)
          expect(reply.headers.get("sunset"), path).toBe("Mon, 01 Mar 2027 00:00:00 GMT")
          expect(reply.headers.get("link"), path).toBe(
            "<https://api.example.test/docs/catalogue.md#migrating>; rel=\"deprecation\""
          )
        }
      }))
    it.effect("the index marks it deprecated", () =>
      Effect.gen(function*() {
        const ops = (yield* get("/api/v1")).json.operations
        expect(ops.find((o: any) => o.operationId === "catalogue.getTldPrice").deprecated).toBe(true)
        expect(ops.find((o: any) => o.operationId === "catalogue.getTldMetadata").deprecated).toBe(false)
      }))
    it.effect("other operations do not", () =>
      Effect.gen(function*() {
        const reply = yield* get("/api/tlds/com/metadata")
        expect(reply.headers.get("deprecation")).toBeNull()
        expect(reply.headers.get("sunset")).toBeNull()
      }))
  })
})

layer(TestServer.layer())("CORS for browser-based clients", (it) => {
  it.effect("preflight requests are answered for any path, with the requested headers allowed", () =>
    Effect.gen(function*() {
      for (
        const path of [
          "/api/oauth/register",
          "/.well-known/oauth-authorization-server",
          "/api/domain/search",
          "/api/pricing/tld"
        ]
      ) {
        const reply = yield* request(path, {
          method: "OPTIONS",
          headers: {
            origin: "https://app.example",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type, mcp-protocol-version"
          }
        })
        expect(reply.status, path).toBe(204)
        expect(reply.headers.get("access-control-allow-origin"), path).toBe("*")
        expect(reply.headers.get("access-control-allow-methods"), path).toContain("POST")
        expect(reply.headers.get("access-control-allow-headers"), path).toBe("content-type, mcp-protocol-version")
        expect(reply.headers.get("access-control-allow-credentials"), path).toBeNull()
      }
    }))

  it.effect("cross-origin responses expose the rate-limit, request-id and challenge headers", () =>
    Effect.gen(function*() {
      const reply = yield* get("/api/pricing/tld?tld=com", { origin: "https://app.example" })
      expect(reply.status).toBe(200)
      expect(reply.headers.get("access-control-allow-origin")).toBe("*")
      const exposed = reply.headers.get("access-control-expose-headers")!.split(/,\s*/)
      for (const h of ["x-request-id", "ratelimit-remaining", "retry-after", "www-authenticate"]) {
        expect(exposed).toContain(h)
      }
      // Same-origin and non-browser callers get no CORS headers at all.
      expect((yield* get("/api/pricing/tld?tld=com")).headers.get("access-control-allow-origin")).toBeNull()
    }))
})

layer(TestServer.layer())("malformed request bodies", (it) => {
  it.effect("a body that is not JSON is a typed 400 invalid_body on every JSON endpoint, never a 500", () =>
    Effect.gen(function*() {
      for (const path of ["/api/batch", "/api/domain/search", "/api/tools/whois", "/api/auth/login"]) {
        const reply = yield* request(path, {
          method: "POST",
          body: "{not json",
          headers: { "content-type": "application/json" }
        })
        expect(reply.status, path).toBe(400)
        expect(typedError(reply).code, path).toBe("invalid_body")
      }
    }))
})
