/**
 * A database outage, through a TCP proxy the test controls between the service and its database
 * (PostgreSQL, or the embedded one served on a loopback socket): while the database refuses
 * connections or stops answering, requests are answered 503 `unavailable` with `Retry-After`
 * within the configured time limits (never a 500, never a hang), `/readyz` says 503 within 2 s,
 * the service recovers by itself as soon as the database is back, an order acknowledged before
 * the outage is still there, and an order refused during it left nothing behind.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { fetchReply, type Reply } from "../../support/http.js"
import { buy, createPartner, seedListings, signed } from "../../support/PartnerKit.js"
import { startTcpProxy } from "../../support/TcpProxy.js"
import { layer as testServerLayer, sharedDatabaseUrl, TestServer } from "../../support/TestServer.js"

const timed = <A>(effect: Effect.Effect<A>) =>
  Effect.map(
    Effect.timed(effect),
    ([duration, value]) => ({ value, ms: Number(duration.value._tag === "Millis" ? duration.value.millis : 0) })
  )

const orderBody = (domain: string) => ({
  domain,
  expected_price: 150_000,
  currency: "USD",
  external_payment_ref: `pay-${domain}`,
  buyer: { email: "b@example.org" }
})

const expectUnavailable = (reply: Reply, legacy = false) => {
  expect(reply.status, reply.text).toBe(503)
  expect(reply.headers.get("retry-after"), reply.text).toBe("5")
  if (legacy) expect(typeof reply.json.error).toBe("string")
  else {
    expect(reply.json.error.code).toBe("unavailable")
    expect(reply.json.error.request_id).toBe(reply.headers.get("x-request-id"))
  }
}

describe("database outage", () => {
  it.scopedLive(
    "503 + Retry-After while the database refuses or stops answering, no hang, recovery, nothing lost or half-written",
    () =>
      Effect.gen(function*() {
        const database = new URL(yield* sharedDatabaseUrl)
        const proxy = yield* startTcpProxy("127.0.0.1", Number(database.port || 5432))
        const viaProxy = new URL(database.toString())
        viaProxy.hostname = "127.0.0.1"
        viaProxy.port = String(proxy.port)
        const context = yield* Layer.build(testServerLayer({
          DB_CONNECT_TIMEOUT: "1 second",
          DB_ACQUIRE_TIMEOUT: "2 seconds",
          DB_STATEMENT_TIMEOUT: "2 seconds",
          // Only this test's requests; the outage must not be hidden by other workers' queries.
          WORKERS: "false"
        }, { databaseUrl: viaProxy.toString() }))
        const server = Context.get(context, TestServer)
        const sql = Context.get(context, SqlClient.SqlClient)
        const inService = <A, E>(effect: Effect.Effect<A, E, TestServer | SqlClient.SqlClient>) =>
          Effect.provide(effect, context)
        const get = (path: string) => Effect.promise(() => fetchReply(`${server.baseUrl}${path}`))
        const readyz = () => timed(get("/readyz"))
        const pricing = "/api/pricing/tld?tld=com&op=register"

        // Before: an acknowledged order.
        const partner = yield* inService(createPartner())
        yield* inService(seedListings([{ domain: "before.com" }, { domain: "refused.com" }, { domain: "silent.com" }]))
        const acknowledged = yield* inService(buy(partner, "before.com", 150_000))
        expect((yield* get("/readyz")).status).toBe(200)

        // 1. The database refuses connections.
        yield* proxy.refuse()
        const ready1 = yield* readyz()
        expect(ready1.value.status).toBe(503)
        expect(ready1.ms).toBeLessThan(2_000)
        const read1 = yield* timed(get(pricing))
        expectUnavailable(read1.value, true)
        expect(read1.ms).toBeLessThan(5_000)
        const write1 = yield* timed(inService(signed(partner, "POST", "/api/partner/v1/orders", {
          body: orderBody("refused.com"),
          headers: { "idempotency-key": "outage-refused" }
        })))
        expectUnavailable(write1.value)
        expect(write1.ms).toBeLessThan(5_000)

        // Back: ready again within about a second, without a restart.
        yield* proxy.forward()
        const back1 = Date.now()
        while ((yield* get("/readyz")).status !== 200) {
          expect(Date.now() - back1).toBeLessThan(5_000)
          yield* Effect.sleep("50 millis")
        }
        expect(Date.now() - back1).toBeLessThan(3_000)
        expect((yield* get(pricing)).status).toBe(200)

        // 2. The database stops answering: connections open but nothing comes back.
        yield* proxy.blackhole()
        const ready2 = yield* readyz()
        expect(ready2.value.status).toBe(503)
        expect(ready2.ms).toBeLessThan(2_000)
        const [read2, write2] = yield* Effect.all([
          timed(get(pricing)),
          timed(inService(signed(partner, "POST", "/api/partner/v1/orders", {
            body: orderBody("silent.com"),
            headers: { "idempotency-key": "outage-silent" }
          })))
        ], { concurrency: "unbounded" })
        expectUnavailable(read2.value, true)
        expectUnavailable(write2.value)
        // Bounded by the time limits (1 s connect, 2 s acquire, 2 s statement), not by the outage.
        expect(read2.ms).toBeLessThan(8_000)
        expect(write2.ms).toBeLessThan(8_000)

        // Back again: the connections silenced by the outage are dropped, fresh ones serve.
        yield* proxy.forward()
        const back2 = Date.now()
        while ((yield* get("/readyz")).status !== 200) {
          expect(Date.now() - back2).toBeLessThan(8_000)
          yield* Effect.sleep("50 millis")
        }
        expect(Date.now() - back2).toBeLessThan(3_000)
        expect((yield* get(pricing)).status).toBe(200)

        // Nothing acknowledged is lost; nothing refused was half-written.
        const rows = yield* sql<{ domain: string; id: string }>`select domain, id from partner_orders order by domain`
        expect(rows.map((r) => r.domain)).toEqual(["before.com"])
        expect(rows[0].id).toBe(acknowledged)
        // The refused orders can be placed again with the same key: exactly one order each.
        for (const [domain, key] of [["refused.com", "outage-refused"], ["silent.com", "outage-silent"]] as const) {
          let reply = yield* inService(
            signed(partner, "POST", "/api/partner/v1/orders", {
              body: orderBody(domain),
              headers: { "idempotency-key": key }
            })
          )
          for (
            let i = 0;
            i < 20 && reply.status === 409 && reply.json?.error?.code === "idempotency_in_progress";
            i++
          ) {
            yield* Effect.sleep(`${Number(reply.headers.get("retry-after") ?? "1")} seconds`)
            reply = yield* inService(
              signed(partner, "POST", "/api/partner/v1/orders", {
                body: orderBody(domain),
                headers: { "idempotency-key": key }
              })
            )
          }
          expect(reply.status, reply.text).toBe(201)
        }
        const after = yield* sql<
          { domain: string; n: number }
        >`select domain, count(*)::int as n from partner_orders group by domain order by domain`
        expect(after).toEqual([{ domain: "before.com", n: 1 }, { domain: "refused.com", n: 1 }, {
          domain: "silent.com",
          n: 1
        }])

        // Documented: every operation lists the 503 and its Retry-After.
        const doc = (yield* get("/api/openapi.json")).json
        const missing: Array<string> = []
        for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
          for (const [method, op] of Object.entries<any>(item)) {
            if (op?.responses?.["503"]?.headers?.["Retry-After"] === undefined) missing.push(`${method} ${path}`)
          }
        }
        expect(missing).toEqual([])
      }),
    { timeout: 120_000 }
  )
})
