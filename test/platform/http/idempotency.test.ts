/**
 * Idempotency-Key after a crash: the process serving the first request with a key dies (SIGKILL)
 * right after claiming the key. A retry on another replica gets 409 `idempotency_in_progress`
 * with `Retry-After` (not the `conflict` of "same key, other body") only until the claim's short
 * lease lapses — within seconds — and then performs the order, exactly once.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { pgLayer } from "../../../src/platform/db/Database.js"
import { createPartner, seedListings, signed } from "../../support/PartnerKit.js"
import { startServiceProcess } from "../../support/ServiceProcess.js"
import { startTcpProxy } from "../../support/TcpProxy.js"
import { sharedDatabaseUrl, TestServer } from "../../support/TestServer.js"

const orderBody = (domain: string, price = 150_000) => ({
  domain,
  expected_price: price,
  currency: "USD",
  external_payment_ref: `pay-${domain}`,
  buyer: { email: "b@example.org" }
})

describe("Idempotency-Key after a crash", () => {
  it.scopedLive(
    "409 idempotency_in_progress + Retry-After while the key is held; a crashed request frees it within seconds",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* sharedDatabaseUrl
        const direct = new URL(databaseUrl)
        const proxy = yield* startTcpProxy("127.0.0.1", Number(direct.port || 5432))
        const viaProxy = new URL(databaseUrl)
        viaProxy.hostname = "127.0.0.1"
        viaProxy.port = String(proxy.port)

        // Replica A reaches the database through the proxy (to freeze it mid-request); B directly.
        const a = yield* startServiceProcess({ DATABASE_URL: viaProxy.toString(), WORKERS: "false" })
        const b = yield* startServiceProcess({ DATABASE_URL: databaseUrl, WORKERS: "false" })
        const db = yield* Layer.build(pgLayer({ url: Redacted.make(databaseUrl) }, 2))
        const withDb = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.provide(effect, db)
        const partner = yield* withDb(createPartner())
        yield* withDb(seedListings([{ domain: "crash.com" }]))
        const sql = yield* withDb(SqlClient.SqlClient)
        const order = (baseUrl: string, body = orderBody("crash.com")) =>
          signed(partner, "POST", "/api/partner/v1/orders", {
            baseUrl,
            body,
            headers: { "idempotency-key": "crash-key-1" }
          })

        // A claims the key, then freezes (nothing it sends after the claim reaches the database)…
        proxy.holdAfter("idempotency_keys")
        const first = yield* Effect.fork(order(a.baseUrl))
        for (let i = 0;; i++) {
          const rows = yield* withDb(
            sql<{ state: string }>`select state from idempotency_keys where key = 'crash-key-1'`
          )
          if (rows[0]?.state === "in_flight") break
          expect(i).toBeLessThan(600)
          yield* Effect.sleep("100 millis")
        }
        // …and crashes.
        a.child.kill("SIGKILL")
        const killedAt = Date.now()
        yield* Fiber.interruptFork(first)

        // The key is held: in progress, with Retry-After; another body with it is a plain conflict.
        const held = yield* order(b.baseUrl)
        expect(held.status, held.text).toBe(409)
        expect(held.json.error.code).toBe("idempotency_in_progress")
        const retryAfter = Number(held.headers.get("retry-after"))
        expect(retryAfter).toBeGreaterThanOrEqual(1)
        expect(retryAfter).toBeLessThanOrEqual(5)
        const other = yield* order(b.baseUrl, orderBody("crash.com", 150_001))
        expect(other.status).toBe(409)
        expect(other.json.error.code).toBe("conflict")

        // Retrying as told, the order goes through within seconds of the crash (lease 5 s).
        let reply = held
        while (reply.status === 409 && reply.json?.error?.code === "idempotency_in_progress") {
          expect(Date.now() - killedAt).toBeLessThan(20_000)
          yield* Effect.sleep(`${Number(reply.headers.get("retry-after") ?? "1")} seconds`)
          reply = yield* order(b.baseUrl)
        }
        expect(reply.status, reply.text).toBe(201)
        expect(Date.now() - killedAt).toBeLessThan(15_000)
        const replay = yield* order(b.baseUrl)
        expect(replay.status).toBe(201)
        expect(replay.headers.get("idempotent-replayed")).toBe("true")

        const orders = yield* withDb(
          sql<{ n: number }>`select count(*)::int as n from partner_orders where domain = 'crash.com'`
        )
        expect(orders[0].n).toBe(1)
      }).pipe(Effect.provideService(TestServer, { baseUrl: "http://unused", port: 0, databaseUrl: undefined })),
    { timeout: 240_000 }
  )
})
