/**
 * The order lifecycle over HTTP: admin actions (bearer ADMIN_TOKEN), sandbox advance, refunds;
 * every status, every event, every forbidden move (409); /events paging.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
import { post, request } from "../support/http.js"
import { buy, createPartner, expectError, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }

const admin = (id: string, action: string) => post(`/api/admin/orders/${id}/${action}`, undefined, ADMIN)

const allEvents = (cred: IssuedCredential) =>
  Effect.gen(function*() {
    const out: Array<any> = []
    let after: string | null = null
    for (let i = 0; i < 100; i++) {
      const page: any =
        (yield* signed(cred, "GET", `/api/partner/v1/events?limit=3${after ? `&after_id=${after}` : ""}`)).json
      if (page.events.length === 0) {
        expect(page.next_cursor).toBeNull()
        break
      }
      out.push(...page.events)
      after = page.next_cursor
    }
    return out
  })

layer(TestServer.layer({ REVIEW_THRESHOLD_CENTS: "500000" }))("order lifecycle", (it) => {
  it.effect("admin actions walk an order through every status with its events; forbidden moves are 409", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "walk.com", bin: 10_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "walk.com", 10_000)

      expectError(yield* post(`/api/admin/orders/${id}/start-transfer`), 401, "unauthorized")
      expectError(
        yield* post(`/api/admin/orders/${id}/start-transfer`, undefined, { authorization: "Bearer wrong" }),
        401,
        "unauthorized"
      )
      expectError(yield* admin("ord_nope", "start-transfer"), 404, "not_found")
      expectError(yield* admin(id, "fly"), 400, "validation_error")

      expect(expectError(yield* admin(id, "clear-review"), 409, "conflict").message).toContain("EXTERNALLY_PAID")
      expectError(yield* admin(id, "confirm-delivery"), 409, "conflict")

      const held = yield* admin(id, "hold")
      expect(held.json.status).toBe("MANUAL_REVIEW")
      expectError(yield* admin(id, "start-transfer"), 409, "conflict")
      expect((yield* admin(id, "clear-review")).json.status).toBe("EXTERNALLY_PAID")
      const started = yield* admin(id, "start-transfer")
      expect(started.json.status).toBe("TRANSFER_IN_PROGRESS")
      expect(started.json.transfer.status).toBe("in_progress")
      expectError(yield* admin(id, "start-transfer"), 409, "conflict")
      const done = yield* admin(id, "confirm-delivery")
      expect(done.json.status).toBe("TRANSFER_COMPLETED")
      expect(done.json.transfer.status).toBe("completed")
      expect(done.json.transfer.completed_at).toMatch(/Z$/)

      // No refund or cancellation after delivery.
      const refund = yield* signed(cred, "POST", "/api/partner/v1/refunds", {
        body: { order_id: id, reason: "changed mind" }
      })
      expect(expectError(refund, 409, "conflict").message).toContain("only before TRANSFER_COMPLETED")
      expect(expectError(yield* admin(id, "cancel"), 409, "conflict").message).toContain(
        "only before TRANSFER_COMPLETED"
      )

      const detail = yield* signed(cred, "GET", `/api/partner/v1/orders/${id}`)
      expect(detail.json.timeline.map((t: any) => t.type === "status" ? t.status : `step:${t.step}`)).toEqual([
        "EXTERNALLY_PAID",
        "MANUAL_REVIEW",
        "EXTERNALLY_PAID",
        "step:push_initiated",
        "TRANSFER_IN_PROGRESS",
        "step:delivered",
        "TRANSFER_COMPLETED"
      ])
      const events = (yield* allEvents(cred)).filter((e) => e.data.order.public_id === id)
      expect(events.map((e) => [e.type, e.data.order.status])).toEqual([
        ["order.recorded", "EXTERNALLY_PAID"],
        ["order.held", "MANUAL_REVIEW"],
        ["order.manual_review_cleared", "EXTERNALLY_PAID"],
        ["order.transfer_started", "TRANSFER_IN_PROGRESS"],
        ["order.transfer_completed", "TRANSFER_COMPLETED"]
      ])
      expect(events[0].data.order).toEqual({
        public_id: id,
        domain: "walk.com",
        status: "EXTERNALLY_PAID",
        sale_price_cents: 10_000,
        currency: "USD"
      })
      expect(Object.keys(events[0]).sort()).toEqual(["created_at", "data", "id", "type"])
      // The admin view sees the same order.
      expect((yield* request(`/api/admin/orders/${id}`, { headers: ADMIN })).json.status).toBe("TRANSFER_COMPLETED")
    }))

  it.effect("sandbox advance: MANUAL_REVIEW → … → SETTLED, one event per step, then 409; live credentials get 403", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "advance.com", bin: 600_000 }, {
        domain: "advance.com",
        bin: 600_000,
        environment: "live"
      }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "advance.com", 600_000)
      const statuses: Array<string> = []
      for (let i = 0; i < 4; i++) {
        const r = yield* signed(cred, "POST", `/api/partner/v1/sandbox/orders/${id}/advance`)
        expect(r.status, r.text).toBe(200)
        statuses.push(r.json.status)
      }
      expect(statuses).toEqual(["EXTERNALLY_PAID", "TRANSFER_IN_PROGRESS", "TRANSFER_COMPLETED", "SETTLED"])
      expectError(yield* signed(cred, "POST", `/api/partner/v1/sandbox/orders/${id}/advance`), 409, "conflict")
      const types = (yield* allEvents(cred)).filter((e) => e.data.order.public_id === id).map((e) => e.type)
      expect(types).toEqual([
        "order.recorded",
        "order.manual_review_cleared",
        "order.transfer_started",
        "order.transfer_completed",
        "order.settled"
      ])
      const live = yield* createPartner({ environment: "live" })
      const liveId = yield* buy(live, "advance.com", 600_000)
      expectError(yield* signed(live, "POST", `/api/partner/v1/sandbox/orders/${liveId}/advance`), 403, "forbidden")
      // Another partner's order is not found.
      expectError(yield* signed(cred, "POST", `/api/partner/v1/sandbox/orders/${liveId}/advance`), 404, "not_found")
    }))

  it.effect("POST /refunds before delivery: 201, order REFUNDED, order.refunded, listing available again; twice → 409; admin cancel → CANCELLED", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "refund-me.com", bin: 3_000 }, { domain: "cancel-me.com", bin: 3_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "refund-me.com", 3_000)
      expect((yield* signed(cred, "GET", "/api/partner/v1/availability?domain=refund-me.com")).json.available).toBe(
        false
      )
      expect((yield* admin(id, "start-transfer")).json.status).toBe("TRANSFER_IN_PROGRESS")
      const r = yield* signed(cred, "POST", "/api/partner/v1/refunds", {
        body: { order_id: id, reason: "buyer chargeback" }
      })
      expect(r.status, r.text).toBe(201)
      expect(r.json).toMatchObject({ order_id: id, amount_cents: 3_000, currency: "USD", status: "REFUNDED" })
      expect(r.json.refund_id).toMatch(/^rf_/)
      expect(r.json.order.status).toBe("REFUNDED")
      expect((yield* signed(cred, "GET", "/api/partner/v1/availability?domain=refund-me.com")).json.available).toBe(
        true
      )
      expect(
        expectError(yield* signed(cred, "POST", "/api/partner/v1/refunds", { body: { order_id: id } }), 409, "conflict")
          .message
      ).toContain("REFUNDED")
      expectError(
        yield* signed(cred, "POST", "/api/partner/v1/refunds", { body: { order_id: "ord_unknown" } }),
        404,
        "not_found"
      )
      expectError(yield* signed(cred, "POST", "/api/partner/v1/refunds", { body: {} }), 400, "validation_error")

      const other = yield* buy(cred, "cancel-me.com", 3_000)
      expect((yield* admin(other, "cancel")).json.status).toBe("CANCELLED")
      expectError(yield* admin(other, "start-transfer"), 409, "conflict")
      const types = (yield* allEvents(cred)).filter((e) => [id, other].includes(e.data.order.public_id)).map((e) =>
        `${e.type}:${e.data.order.status}`
      )
      expect(types).toEqual([
        "order.recorded:EXTERNALLY_PAID",
        "order.transfer_started:TRANSFER_IN_PROGRESS",
        "order.refunded:REFUNDED",
        "order.recorded:EXTERNALLY_PAID",
        "order.refunded:CANCELLED"
      ])
    }))

  it.effect("GET /events: limit bounds, default 50, after_id paging returns everything once, in order", () =>
    Effect.gen(function*() {
      const domains = Array.from({ length: 55 }, (_, i) => `ev${i}.com`)
      yield* seedListings(domains.map((domain) => ({ domain, bin: 100 })))
      const cred = yield* createPartner()
      for (const d of domains) yield* buy(cred, d, 100)
      const first = yield* signed(cred, "GET", "/api/partner/v1/events")
      expect(first.json.events).toHaveLength(50)
      expect(first.json.next_cursor).toBe(first.json.events[49].id)
      const rest = yield* signed(cred, "GET", `/api/partner/v1/events?after_id=${first.json.next_cursor}&limit=100`)
      expect(rest.json.events).toHaveLength(5)
      const ids = [...first.json.events, ...rest.json.events].map((e: any) => e.id)
      expect([...ids].sort()).toEqual(ids)
      expect(new Set(ids).size).toBe(55)
      const empty = yield* signed(cred, "GET", `/api/partner/v1/events?after_id=${rest.json.next_cursor}`)
      expect(empty.json).toEqual({ events: [], next_cursor: null })
      for (const q of ["limit=0", "limit=101", "limit=abc", "after_id=nope"]) {
        expectError(yield* signed(cred, "GET", `/api/partner/v1/events?${q}`), 400, "validation_error")
      }
      // Another partner sees none of these.
      const other = yield* createPartner()
      expect((yield* signed(other, "GET", "/api/partner/v1/events")).json.events).toEqual([])
    }))
})
