/**
 * The sandbox's advance (src/partner/sandbox/Http.ts) drives a sandbox order through every step
 * a partner will see in production, deliveries included: each call runs the delivery's next step
 * at once (deliveries do not start by themselves in these tests, DELIVERY_AUTOSTART=false), with
 * the events a worker would write, then settles the delivered order; a delivery that failed for
 * good stops it with 409 naming what happens next.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { IssuedCredential } from "../../../src/partner/Credentials.js"
import { buy, createPartner, expectError, seedListings, signed } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

const advance = (cred: IssuedCredential, id: string) =>
  signed(cred, "POST", `/api/partner/v1/sandbox/orders/${id}/advance`)

/** The types of the order's events since the last call. */
const eventsOf = (cred: IssuedCredential, id: string) => {
  let seen = 0
  return Effect.map(signed(cred, "GET", "/api/partner/v1/events?limit=100"), (r) => {
    const all = (r.json.events as Array<{ type: string; data: any }>).filter((e) => e.data?.order?.public_id === id)
    const fresh = all.slice(seen)
    seen = all.length
    return fresh.map((e) => e.type === "transfer.failed" ? `transfer.failed:${e.data.will_retry}` : e.type)
  })
}

layer(TestServer.layer({ REVIEW_THRESHOLD_CENTS: "500000" }), { timeout: 120_000 })("sandbox advance", (it) => {
  it.effect("walks an auth-code delivery: requested and code ready, then completed, then settled", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "advance-code.com", bin: 10_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "advance-code.com", 10_000)
      const events = eventsOf(cred, id)
      expect(yield* events).toEqual(["order.recorded"])

      const first = yield* advance(cred, id)
      expect(first.status).toBe(200)
      expect(first.json).toMatchObject({
        status: "TRANSFER_IN_PROGRESS",
        transfer: { state: "auth_code_ready", method: "auth_code", attempts: 0, last_error: null }
      })
      expect(yield* events).toEqual(["transfer.requested", "order.transfer_started", "transfer.auth_code_ready"])

      const second = yield* advance(cred, id)
      expect(second.json).toMatchObject({ status: "TRANSFER_COMPLETED", transfer: { state: "completed" } })
      expect(yield* events).toEqual(["transfer.pending", "order.transfer_completed", "transfer.completed"])

      expect((yield* advance(cred, id)).json.status).toBe("SETTLED")
      expectError(yield* advance(cred, id), 409, "conflict")
    }))

  it.effect("walks a push to the partner's account: pushed and pending, then completed", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "advance-push.com", bin: 10_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "advance-push.com", 10_000)
      const chosen = yield* signed(cred, "PUT", `/api/partner/v1/orders/${id}/delivery`, {
        body: { method: "push", target_account: "acme-registrar" }
      })
      expect(chosen.status).toBe(200)
      const events = eventsOf(cred, id)
      yield* events

      expect((yield* advance(cred, id)).json).toMatchObject({
        status: "TRANSFER_IN_PROGRESS",
        transfer: { state: "awaiting_registrar", method: "push", target: "acme-registrar" }
      })
      expect(yield* events).toEqual(["transfer.requested", "order.transfer_started", "transfer.pending"])
      expect((yield* advance(cred, id)).json.status).toBe("TRANSFER_COMPLETED")
      expect(yield* events).toEqual(["order.transfer_completed", "transfer.completed"])
    }))

  it.effect("a held order is cleared first; a flaky registrar is retried call by call", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "advance-transferflaky.com", bin: 600_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "advance-transferflaky.com", 600_000)
      const events = eventsOf(cred, id)
      expect(yield* events).toEqual(["order.recorded"])
      expect((yield* signed(cred, "GET", `/api/partner/v1/orders/${id}`)).json.status).toBe("MANUAL_REVIEW")

      expect((yield* advance(cred, id)).json.status).toBe("EXTERNALLY_PAID")
      expect(yield* events).toEqual(["order.manual_review_cleared"])
      // Unreachable twice (announced with will_retry: true), then delivered.
      expect((yield* advance(cred, id)).json.transfer).toMatchObject({ state: "pending", attempts: 1 })
      expect(yield* events).toEqual(["transfer.requested", "transfer.failed:true"])
      yield* advance(cred, id)
      expect(yield* events).toEqual(["transfer.failed:true"])
      expect((yield* advance(cred, id)).json.transfer.state).toBe("auth_code_ready")
      expect((yield* advance(cred, id)).json.status).toBe("TRANSFER_COMPLETED")
    }))

  it.effect("a refused transfer fails for good, and advance then answers 409 saying an operator decides", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "advance-transferfail.com", bin: 10_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "advance-transferfail.com", 10_000)
      const events = eventsOf(cred, id)
      yield* events

      const failed = yield* advance(cred, id)
      expect(failed.json).toMatchObject({ status: "EXTERNALLY_PAID", transfer: { state: "failed", attempts: 1 } })
      expect(yield* events).toEqual(["transfer.requested", "transfer.failed:false"])
      const refused = expectError(yield* advance(cred, id), 409, "conflict")
      expect(refused.message).toContain("an operator retries it, delivers by hand or refunds the order")
      expect(refused.message).toContain("60 days")
    }))

  it.effect("live credentials are refused (403) and nothing moves", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "advance-live.com", bin: 10_000, environment: "live" }])
      const cred = yield* createPartner({ environment: "live" })
      const id = yield* buy(cred, "advance-live.com", 10_000)
      expect((yield* advance(cred, id)).status).toBe(403)
      expect((yield* signed(cred, "GET", `/api/partner/v1/orders/${id}`)).json.transfer.state).toBe("pending")
    }))
})
