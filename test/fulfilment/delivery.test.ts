/**
 * Fulfilment through the sandbox registrar, whole process: a paid order is delivered with no
 * operator (transfer.* events in order), exactly once even with a second service process on the
 * same database; the partner's delivery choice (PUT /orders/{id}/delivery) and the one-time auth
 * code; a `-transferfail` name fails with its reason and is listed for operators, who retry or
 * mark it delivered.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
import { runCli } from "../support/cli.js"
import { fetchReply } from "../support/http.js"
import { buy, createPartner, expectError, seedListings, signed, waitUntil } from "../support/PartnerKit.js"
import { startServiceProcess } from "../support/ServiceProcess.js"
import * as TestServer from "../support/TestServer.js"

const ENV = {
  DELIVERY_AUTOSTART: "true",
  DELIVERY_SANDBOX_TRANSFER: "300 millis",
  DELIVERY_STATUS_POLL: "200 millis",
  DELIVERY_RETRY_BASE: "100 millis",
  REVIEW_THRESHOLD_CENTS: "500000"
}
const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }

class SharedDb extends Context.Tag("test/SharedDb")<SharedDb, string>() {}

const ServerLive = Layer.unwrapScoped(
  Effect.map(
    TestServer.sharedDatabaseUrl,
    (url) => Layer.merge(TestServer.layer(ENV, { databaseUrl: url }), Layer.succeed(SharedDb, url))
  )
)

const eventTypes = (cred: IssuedCredential, orderId: string) =>
  Effect.map(
    signed(cred, "GET", "/api/partner/v1/events?limit=100"),
    (r) =>
      (r.json.events as Array<{ type: string; data: any }>)
        .filter((e) => e.data?.order?.public_id === orderId)
        .map((e) => e.type)
  )

const detail = (cred: IssuedCredential, id: string) =>
  Effect.map(signed(cred, "GET", `/api/partner/v1/orders/${id}`), (r) => r.json)

const pushes = (domain: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number }>`select count(*)::int as n from sandbox_registrar_transfers
                       where domain = ${domain} and kind in ('push', 'auth_code')`
  ).pipe(
    Effect.map((r) => r[0]!.n),
    Effect.orDie
  )

layer(ServerLive, { timeout: 180_000 })("fulfilment", (it) => {
  it.effect("a paid order is delivered by itself: transfer.* events in order, TRANSFER_COMPLETED, the auth code once", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "auto-deliver.com", bin: 10_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "auto-deliver.com", 10_000)
      const done = yield* waitUntil(detail(cred, id), (d) => d.status === "TRANSFER_COMPLETED")
      expect(done.status).toBe("TRANSFER_COMPLETED")
      expect(done.transfer).toMatchObject({ state: "completed", method: "auth_code", attempts: 0, last_error: null })
      const types = yield* eventTypes(cred, id)
      expect(types).toEqual([
        "order.recorded",
        "transfer.requested",
        "order.transfer_started",
        "transfer.auth_code_ready",
        "transfer.pending",
        "order.transfer_completed",
        "transfer.completed"
      ])
      // The code is never in an event: a one-time link, GET signed by the partner it was issued to.
      const events = yield* signed(cred, "GET", "/api/partner/v1/events?limit=100")
      const ready = (events.json.events as Array<any>).find((e) =>
        e.type === "transfer.auth_code_ready" && e.data.order.public_id === id
      )
      expect(Object.keys(ready.data).sort()).toEqual(["expires_at", "order", "retrieve_url"])
      const url = new URL(ready.data.retrieve_url)
      const path = `${url.pathname}${url.search}`
      const other = yield* createPartner()
      expectError(yield* signed(other, "GET", path), 404, "not_found")
      const first = yield* signed(cred, "GET", path)
      expect(first.status).toBe(200)
      expect(first.json).toMatchObject({ order_id: id, domain: "auto-deliver.com" })
      expect(first.json.auth_code).toMatch(/^SBX-/)
      expect(events.text).not.toContain(first.json.auth_code)
      expectError(yield* signed(cred, "GET", path), 404, "not_found")
      // The timeline names each step.
      const steps = done.timeline.filter((t: any) => t.type === "transfer_step").map((t: any) => t.step)
      expect(steps).toEqual(expect.arrayContaining(["transfer_requested", "auth_code_ready", "transfer_completed"]))
    }))

  it.effect("PUT /delivery: push to the partner's account until the start; 400, 404, 409", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "held-push.com", bin: 600_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "held-push.com", 600_000)
      // Held for review: the choice is accepted, nothing starts.
      const bad = yield* signed(cred, "PUT", `/api/partner/v1/orders/${id}/delivery`, { body: { method: "fax" } })
      expect(bad.status).toBe(400)
      const noTarget = yield* signed(cred, "PUT", `/api/partner/v1/orders/${id}/delivery`, { body: { method: "push" } })
      expect(noTarget.status).toBe(400)
      const other = yield* createPartner()
      expectError(
        yield* signed(other, "PUT", `/api/partner/v1/orders/${id}/delivery`, {
          body: { method: "push", target_account: "acme" }
        }),
        404,
        "not_found"
      )
      const chosen = yield* signed(cred, "PUT", `/api/partner/v1/orders/${id}/delivery`, {
        body: { method: "push", target_account: "acme" }
      })
      expect(chosen.status).toBe(200)
      expect(chosen.json.status).toBe("MANUAL_REVIEW")
      expect(chosen.json.transfer).toMatchObject({ state: "pending", method: "push", target: "acme", attempts: 0 })
      // Cleared: delivered by push, the registrar asked once.
      const { baseUrl } = yield* TestServer.TestServer
      const cleared = yield* Effect.promise(() =>
        fetchReply(`${baseUrl}/api/admin/orders/${id}/clear-review`, {
          method: "POST",
          headers: ADMIN
        })
      )
      expect(cleared.status).toBe(200)
      const done = yield* waitUntil(detail(cred, id), (d) => d.status === "TRANSFER_COMPLETED")
      expect(done.transfer).toMatchObject({ state: "completed", method: "push", target: "acme" })
      expect(yield* pushes("held-push.com")).toBe(1)
      expect(yield* eventTypes(cred, id)).toEqual([
        "order.recorded",
        "order.manual_review_cleared",
        "transfer.requested",
        "order.transfer_started",
        "transfer.pending",
        "order.transfer_completed",
        "transfer.completed"
      ])
      expectError(
        yield* signed(cred, "PUT", `/api/partner/v1/orders/${id}/delivery`, { body: { method: "auth_code" } }),
        409,
        "conflict"
      )
    }))

  it.effect(
    "a -transferfail name fails with registrar_lock_60_days, is listed, and operators act on it",
    () =>
      Effect.gen(function*() {
        yield* seedListings([{ domain: "lock-transferfail.com", bin: 10_000 }])
        const cred = yield* createPartner()
        const id = yield* buy(cred, "lock-transferfail.com", 10_000)
        const failed = yield* waitUntil(detail(cred, id), (d) => d.transfer.state === "failed")
        expect(failed.transfer.state).toBe("failed")
        expect(failed.status).toBe("EXTERNALLY_PAID")
        const events = yield* signed(cred, "GET", "/api/partner/v1/events?limit=100")
        const f = (events.json.events as Array<any>).find((e) =>
          e.type === "transfer.failed" && e.data.order.public_id === id
        )
        expect(f.data).toMatchObject({ reason: "registrar_lock_60_days", will_retry: false })
        expect(f.data.action_required).toMatch(/60 days/)

        const db = yield* SharedDb
        const listed = yield* runCli(db, ["order", "deliveries", "--state", "failed", "--json"])
        expect(listed.code).toBe(0)
        const rows = JSON.parse(listed.stdout) as Array<any>
        expect(rows.map((r) => r.order_id)).toContain(id)
        expect(rows.find((r) => r.order_id === id)).toMatchObject({ state: "failed", domain: "lock-transferfail.com" })

        // Retried, it fails again (the lock holds); delivered by hand, the order completes.
        const retried = yield* runCli(db, ["order", "retry-delivery", id, "--note", "lock may be over", "--json"])
        expect(retried.code).toBe(0)
        yield* waitUntil(
          detail(cred, id),
          (d) => d.transfer.state === "failed" && d.timeline.some((t: any) => t.step === "delivery_retried")
        )
        const { baseUrl } = yield* TestServer.TestServer
        const marked = yield* Effect.promise(() =>
          fetchReply(`${baseUrl}/api/admin/orders/${id}/delivery/mark-delivered?note=moved%20by%20phone`, {
            method: "POST",
            headers: ADMIN
          })
        )
        expect(marked.status).toBe(200)
        expect(marked.json.status).toBe("TRANSFER_COMPLETED")
        expect(marked.json.transfer.state).toBe("completed")
        const steps = marked.json.timeline.map((t: any) => [t.step ?? t.status, t.actor, t.note])
        expect(steps).toContainEqual(["delivery_retried", "operator-cli", "lock may be over"])
        expect(steps).toContainEqual(["delivered_by_operator", "admin", "moved by phone"])
      }),
    240_000
  )

  it.effect("two service processes on one database push each name exactly once", () =>
    Effect.gen(function*() {
      const db = yield* SharedDb
      yield* startServiceProcess({ DATABASE_URL: db, ...ENV, LOG_LEVEL: "warn" })
      const cred = yield* createPartner()
      const domains = Array.from({ length: 8 }, (_, i) => `twice-${i}.com`)
      yield* seedListings(domains.map((domain) => ({ domain, bin: 10_000 })))
      const ids = yield* Effect.forEach(domains, (d) => buy(cred, d, 10_000), { concurrency: 4 })
      yield* Effect.forEach(ids, (id) =>
        signed(cred, "PUT", `/api/partner/v1/orders/${id}/delivery`, {
          body: { method: "push", target_account: "acme" }
        }))
      for (const id of ids) {
        const d = yield* waitUntil(detail(cred, id), (x) => x.status === "TRANSFER_COMPLETED", 60_000)
        expect(d.status).toBe("TRANSFER_COMPLETED")
      }
      for (const domain of domains) expect(yield* pushes(domain)).toBe(1)
      for (const id of ids) {
        const types = yield* eventTypes(cred, id)
        expect(types.filter((t) => t === "transfer.completed")).toHaveLength(1)
        expect(types.filter((t) => t === "transfer.requested")).toHaveLength(1)
      }
    }).pipe(Effect.scoped), 240_000)
})
