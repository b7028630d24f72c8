/**
 * GET/POST /api/batch: the catalogue, 20 mixed operations dispatched to the single-call handlers,
 * per-operation rate-limit accounting, envelope validation, and no credentials passed through.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { BatchResult } from "../../src/batch/Api.js"
import { apiClient } from "../support/ApiClient.js"
import * as DelayedRdap from "../support/DelayedRdap.js"
import { get, request } from "../support/http.js"
import { accessToken } from "../support/identity.js"
import { rowsOf, search } from "../support/ndjson.js"
import * as TestServer from "../support/TestServer.js"

const serverWith = (extra: Record<string, string>) =>
  Layer.unwrapScoped(
    Effect.map(
      DelayedRdap.start({ com: { registered: ["taken.com"] }, net: {}, io: {} }),
      (rdap) => TestServer.layer({ RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl, ALTERNATE_TLDS: "net", ...extra })
    )
  )

const listed = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql`insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents)
      values ('lst_batch_1', 'live', 'onsale.io', 'onsale.io', 'io', 'onsale', 500000, 300000)
      on conflict do nothing`
).pipe(Effect.orDie)

/**
 * An operation's body: the single call's wire JSON, embedded as is (`body` is Schema.Unknown in
 * BatchResult), so it is read untyped; the envelope around it is decoded by BatchResponse.
 */
const bodyOf = (result: BatchResult): any => result.body

layer(serverWith({}), { timeout: 120_000 })("POST /api/batch", (it) => {
  it.effect("GET /api/batch describes the operations, their params, the cap and an example", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const reply = yield* client.batch.batchCatalogue()
      expect(reply.max_operations).toBe(20)
      expect(reply.min_operations).toBe(1)
      const ops = Object.fromEntries(reply.operations.map((o) => [o.op, o]))
      expect(Object.keys(ops).sort()).toEqual([
        "search_domain",
        "tld_registration_price",
        "tld_requirements",
        "whois_lookup"
      ])
      expect(ops.search_domain).toMatchObject({
        endpoint: "POST /api/domain/search",
        available: true,
        params: { q: { type: "string", required: true } },
        rate_limit: { policy: "domain_search", limit: 60, window_seconds: 60, scope: "ip" }
      })
      expect(ops.tld_registration_price!.params.op).toMatchObject({ required: false, default: "register" })
      expect(ops.tld_requirements!.endpoint).toBe("GET /api/tlds/{tld}/metadata")
      expect(ops.whois_lookup!.params.domain!.required).toBe(true)
      // The example is itself a valid batch.
      const run = yield* client.batch.runBatch({ payload: reply.example })
      expect(run.count).toBe(reply.example.operations.length)
    }))

  it.effect("20 mixed operations, one failing: each result is what its single call answers, in request order", () =>
    Effect.gen(function*() {
      const operations = [
        ...["alpha.com", "taken.com", "gamma.io", "delta.net", "epsilon.com"].map((q, i) => ({
          id: `s${i}`,
          op: "search_domain",
          params: { q }
        })),
        ...["com", "net", "io", "org", "xyz"].map((tld) => ({ op: "tld_registration_price", params: { tld } })),
        ...["com", "net", "io"].map((tld) => ({ op: "tld_registration_price", params: { tld, op: "renew" } })),
        ...["com", "net", "io", "org", "de", "uk"].map((tld) => ({ op: "tld_requirements", params: { tld } })),
        { id: "broken", op: "tld_requirements", params: { tld: "doesnotexist" } }
      ]
      expect(operations).toHaveLength(20)
      const client = yield* apiClient()
      const [reply, response] = yield* client.batch.runBatch({ payload: { operations }, withResponse: true })
      // No other keys on the wire (decoding would drop them): the same answer's JSON, as sent (the
      // response's bytes, which the client read and keeps).
      const wire = JSON.parse(new TextDecoder().decode(yield* response.arrayBuffer)) as { results: Array<object> }
      expect(Object.keys(wire).sort()).toEqual(["count", "failed", "results"])
      for (const r of wire.results) expect(Object.keys(r).sort()).toEqual(["body", "id", "op", "status"])
      expect(reply.count).toBe(20)
      expect(reply.failed).toBe(1)
      const results = reply.results
      // Ids: as given, else the operation's index.
      expect(results.map((r) => r.id)).toEqual([
        "s0",
        "s1",
        "s2",
        "s3",
        "s4",
        ...Array.from({ length: 14 }, (_, i) => String(i + 5)),
        "broken"
      ])
      expect(results.map((r) => r.op)).toEqual(operations.map((o) => o.op))

      // search_domain: {query, results: rows} — the rows of the stream, primary first.
      const s1 = results[1]!
      expect(s1.status).toBe(200)
      expect(bodyOf(s1).query).toBe("taken.com")
      expect(bodyOf(s1).results.map((r: any) => r.domain)).toEqual(["taken.com", "taken.net"])
      expect(bodyOf(s1).results[0]).toMatchObject({ kind: "row", state: "registered", available: false })
      expect(bodyOf(s1).results[1]).toMatchObject({ kind: "row", state: "available", price: 12.99 })
      const direct = yield* search("taken.com")
      const directRows = rowsOf(direct)
      expect(bodyOf(s1).results[0].whois_summary).toEqual(directRows.get("taken.com").whois_summary)

      // tld_registration_price: the pricing endpoint's body; op defaults to register here.
      expect(results[5]).toEqual({
        id: "5",
        op: "tld_registration_price",
        status: 200,
        body: { tld: "com", op: "register", priceCents: 1099 }
      })
      // Raw direct calls: the operation's body is the single call's wire body, byte for byte.
      expect(results[10]!.body).toEqual((yield* get("/api/pricing/tld?tld=com&op=renew")).json)

      // tld_requirements: the metadata endpoint's body.
      const io = results[15]!
      expect(io.status).toBe(200)
      expect(io.body).toEqual({ ...(yield* get("/api/tlds/io/metadata")).json, stale: bodyOf(io).stale })

      // The failing one carries the single call's error, and fails nothing else.
      expect(results[19]).toMatchObject({ id: "broken", status: 404, body: { error: { code: "tld_not_found" } } })
      expect(results.filter((r) => r.status >= 400)).toHaveLength(1)
    }))

  it.effect("operation-level failures stay inside the envelope: unknown op, unusable params, handler 400s (whois_lookup included)", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const reply = yield* client.batch.runBatch({
        payload: {
          operations: [
            { op: "drop_tables", params: {} },
            { op: "search_domain", params: { q: { nested: true } } },
            { op: "search_domain", params: { q: "not a domain" } },
            { op: "search_domain" },
            { op: "tld_registration_price", params: { tld: "com", op: "buy" } },
            { op: "whois_lookup", params: { domain: "not a domain" } },
            { op: "tld_registration_price", params: { tld: "com" } }
          ]
        }
      })
      expect(reply.count).toBe(7)
      expect(reply.failed).toBe(6)
      const [unknown, nested, invalid, missing, badOp, whois, ok] = reply.results
      expect(unknown).toMatchObject({ status: 400, body: { error: { code: "unknown_operation" } } })
      expect(nested).toMatchObject({ status: 400, body: { error: { code: "invalid_params" } } })
      expect(invalid).toMatchObject({
        status: 400,
        body: { error: { code: "invalid_domain", details: { field: "q", problem: "invalid_character" } } }
      })
      expect(missing).toMatchObject({ status: 400, body: { error: { code: "validation_error" } } })
      // The pricing endpoint answers in its legacy error shape, in a batch too.
      expect(badOp!.status).toBe(400)
      expect(typeof bodyOf(badOp!).error).toBe("string")
      expect(whois).toMatchObject({ status: 400, body: { error: { code: "invalid_domain" } } })
      expect(ok!.status).toBe(200)
    }))

  it.effect("a malformed envelope is 400: 0 or 21 operations, no operations array, an operation without op", () =>
    Effect.gen(function*() {
      const op = { op: "tld_registration_price", params: { tld: "com" } }
      const bodies: Array<unknown> = [
        { operations: Array.from({ length: 21 }, () => op) },
        { operations: [] },
        {},
        { operations: "search" },
        { operations: [{ params: { tld: "com" } }] }
      ]
      // Raw: envelopes the schema refuses, so the typed client would not send them.
      for (const body of bodies) {
        const reply = yield* request("/api/batch", {
          method: "POST",
          body,
          headers: { "content-type": "application/json" }
        })
        expect(reply.status, JSON.stringify(body)).toBe(400)
        expect(reply.json.error.code, JSON.stringify(body)).toBe("validation_error")
        expect(reply.json.error.request_id).toBe(reply.headers.get("x-request-id"))
      }
      const client = yield* apiClient()
      // Decoded as BatchResponse: only a 200 decodes as a success.
      const twenty = yield* client.batch.runBatch({ payload: { operations: Array.from({ length: 20 }, () => op) } })
      expect(twenty.count).toBe(20)
    }))

  it.effect("operations run anonymously: a bearer token on the envelope unmasks nothing inside it", () =>
    Effect.gen(function*() {
      yield* listed
      const token = yield* accessToken(["pricing:read"])
      const auth = { authorization: `Bearer ${token}` }
      const direct = rowsOf(yield* search("onsale.io", auth)).get("onsale.io")
      expect(direct.price).toEqual({ bin: 5000, floor: 3000, currency: "USD" })
      const client = yield* apiClient({ bearer: token })
      const batched = yield* client.batch.runBatch({
        payload: { operations: [{ op: "search_domain", params: { q: "onsale.io" } }] }
      })
      const row = bodyOf(batched.results[0]!).results[0]
      expect(row).toMatchObject({
        domain: "onsale.io",
        state: "for_sale",
        price: { bin: null, floor: null, currency: "USD" }
      })
    }))
})

describe("per-operation rate limits", () => {
  layer(serverWith({ RATE_LIMITS: JSON.stringify({ domain_search: 3, pricing_tld: 50 }) }), { timeout: 120_000 })(
    "with a search limit of 3",
    (it) => {
      it.effect("each operation counts against its single call's per-IP limit, shared with direct calls", () =>
        Effect.gen(function*() {
          // The counters are fixed 60 s windows: start in a fresh one, so the window cannot turn
          // between `before` and `after` (it did once in CI: 5 counted in the next window, 45 ≠ 44).
          const probe = yield* get("/api/pricing/tld?tld=com")
          const reset = Number(probe.headers.get("ratelimit-reset"))
          // (`it.effect` runs on the TestClock: wait in real time.)
          if (reset < 15) yield* Effect.promise(() => new Promise((r) => setTimeout(r, (reset + 1) * 1000)))
          const before = yield* get("/api/pricing/tld?tld=com")
          const remainingBefore = Number(before.headers.get("ratelimit-remaining"))

          const client = yield* apiClient()
          const [reply, response] = yield* client.batch.runBatch({
            payload: {
              operations: [
                ...Array.from({ length: 5 }, (_, i) => ({ op: "search_domain", params: { q: `name${i}.com` } })),
                ...Array.from({ length: 4 }, () => ({ op: "tld_registration_price", params: { tld: "net" } }))
              ]
            },
            withResponse: true
          })
          expect(response.status).toBe(200)
          const searches = reply.results.slice(0, 5)
          expect(searches.filter((r) => r.status === 200)).toHaveLength(3)
          const refused = searches.filter((r) => r.status === 429)
          expect(refused).toHaveLength(2)
          for (const r of refused) expect(bodyOf(r).error.code).toBe("rate_limited")
          expect(reply.failed).toBe(2)

          // The direct call shares the bucket: the search limit is spent.
          const directSearch = yield* search("another.com")
          expect(directSearch.status).toBe(429)
          // Four pricing operations were counted: the next direct call sees 4 + 1 fewer.
          const after = yield* get("/api/pricing/tld?tld=com")
          expect(Number(after.headers.get("ratelimit-remaining"))).toBe(remainingBefore - 5)
          // The envelope has its own limit, and its headers.
          expect(response.headers["ratelimit-policy"]).toBe("60;w=60")
        }))
    }
  )
})
