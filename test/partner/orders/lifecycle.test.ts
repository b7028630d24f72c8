/**
 * The order lifecycle over HTTP: admin actions (bearer ADMIN_TOKEN), sandbox advance, refunds;
 * every status, every event, every forbidden move (409); /events paging.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { IssuedCredential } from "../../../src/partner/Credentials.js"
import type { EventPage, PartnerEvent } from "../../../src/partner/events/Api.js"
import type { ADMIN_ORDER_ACTIONS } from "../../../src/partner/orders/AdminApi.js"
import { apiClient, expectFailure } from "../../support/ApiClient.js"
import { post } from "../../support/http.js"
import { buy, createPartner, expectError, seedListings, signed } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }

/** Admin actions on orders through the typed client (bearer ADMIN_TOKEN). */
const adminActions = Effect.map(
  apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN }),
  (client) => (id: string, action: typeof ADMIN_ORDER_ACTIONS[number]) =>
    client.adminOrders.orderAction({ path: { id, action }, urlParams: {} })
)

type Event = typeof PartnerEvent.Type

/** The order of an order event (`data` is `unknown` in the event schema). */
const orderOf = (e: Event) => (e.data as { order: { public_id: string; status: string } }).order

const allEvents = (cred: IssuedCredential) =>
  Effect.gen(function*() {
    const client = yield* apiClient({ partner: cred })
    const out: Array<Event> = []
    let after: string | null = null
    for (let i = 0; i < 100; i++) {
      const page: typeof EventPage.Type = yield* client.partnerEvents.listEvents({
        urlParams: after ? { limit: "3", after_id: after } : { limit: "3" }
      })
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
      const client = yield* apiClient({ partner: cred })
      const admin = yield* adminActions

      const startTransfer = { path: { id, action: "start-transfer" as const }, urlParams: {} }
      yield* expectFailure(
        Effect.flatMap(apiClient(), (anonymous) => anonymous.adminOrders.orderAction(startTransfer)),
        401,
        "unauthorized"
      )
      yield* expectFailure(
        Effect.flatMap(apiClient({ bearer: "wrong" }), (wrong) => wrong.adminOrders.orderAction(startTransfer)),
        401,
        "unauthorized"
      )
      yield* expectFailure(admin("ord_nope", "start-transfer"), 404, "not_found")
      // Raw: an action the path schema refuses (the typed client would not send it).
      expectError(yield* post(`/api/admin/orders/${id}/fly`, undefined, ADMIN), 400, "validation_error")

      expect((yield* expectFailure(admin(id, "clear-review"), 409, "conflict")).message).toContain("EXTERNALLY_PAID")
      yield* expectFailure(admin(id, "confirm-delivery"), 409, "conflict")

      const held = yield* admin(id, "hold")
      expect(held.status).toBe("MANUAL_REVIEW")
      yield* expectFailure(admin(id, "start-transfer"), 409, "conflict")
      expect((yield* admin(id, "clear-review")).status).toBe("EXTERNALLY_PAID")
      const started = yield* admin(id, "start-transfer")
      expect(started.status).toBe("TRANSFER_IN_PROGRESS")
      expect(started.transfer.status).toBe("in_progress")
      yield* expectFailure(admin(id, "start-transfer"), 409, "conflict")
      const done = yield* admin(id, "confirm-delivery")
      expect(done.status).toBe("TRANSFER_COMPLETED")
      expect(done.transfer.status).toBe("completed")
      expect(done.transfer.completed_at).toMatch(/Z$/)

      // No refund or cancellation after delivery.
      const refund = yield* expectFailure(
        client.partnerOrders.createRefund({ payload: { order_id: id, reason: "changed mind" } }),
        409,
        "conflict"
      )
      expect(refund.message).toContain("only before TRANSFER_COMPLETED")
      expect((yield* expectFailure(admin(id, "cancel"), 409, "conflict")).message).toContain(
        "only before TRANSFER_COMPLETED"
      )

      const detail = yield* client.partnerOrders.getOrder({ path: { public_id: id } })
      expect(detail.timeline.map((t) => t.type === "status" ? t.status : `step:${t.step}`)).toEqual([
        "EXTERNALLY_PAID",
        "MANUAL_REVIEW",
        "EXTERNALLY_PAID",
        "step:push_initiated",
        "TRANSFER_IN_PROGRESS",
        "step:delivered",
        "TRANSFER_COMPLETED"
      ])
      const events = (yield* allEvents(cred)).filter((e) => orderOf(e).public_id === id)
      expect(events.map((e) => [e.type, orderOf(e).status])).toEqual([
        ["order.recorded", "EXTERNALLY_PAID"],
        ["order.held", "MANUAL_REVIEW"],
        ["order.manual_review_cleared", "EXTERNALLY_PAID"],
        ["order.transfer_started", "TRANSFER_IN_PROGRESS"],
        ["order.transfer_completed", "TRANSFER_COMPLETED"]
      ])
      expect(orderOf(events[0]!)).toEqual({
        public_id: id,
        domain: "walk.com",
        status: "EXTERNALLY_PAID",
        sale_price_cents: 10_000,
        currency: "USD"
      })
      // Raw: an event's exact key set is the wire form (the typed client drops keys its schema lacks).
      // The partner's first event is that same order.recorded.
      const wire = yield* signed(cred, "GET", "/api/partner/v1/events?limit=1")
      expect(wire.json.events[0].id).toBe(events[0]!.id)
      expect(Object.keys(wire.json.events[0]).sort()).toEqual(["created_at", "data", "id", "type"])
      // The admin view sees the same order.
      const adminClient = yield* apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN })
      expect((yield* adminClient.adminOrders.getOrder({ path: { id } })).status).toBe("TRANSFER_COMPLETED")
    }))

  it.effect("sandbox advance: MANUAL_REVIEW → … → SETTLED, each step's events, then 409; live credentials get 403", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "advance.com", bin: 600_000 }, {
        domain: "advance.com",
        bin: 600_000,
        environment: "live"
      }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "advance.com", 600_000)
      const client = yield* apiClient({ partner: cred })
      const statuses: Array<string> = []
      for (let i = 0; i < 4; i++) {
        const [order, response] = yield* client.partnerSandbox.advance({ path: { public_id: id }, withResponse: true })
        expect(response.status).toBe(200)
        statuses.push(order.status)
      }
      expect(statuses).toEqual(["EXTERNALLY_PAID", "TRANSFER_IN_PROGRESS", "TRANSFER_COMPLETED", "SETTLED"])
      yield* expectFailure(client.partnerSandbox.advance({ path: { public_id: id } }), 409, "conflict")
      const types = (yield* allEvents(cred)).filter((e) => orderOf(e).public_id === id).map((e) => e.type)
      // The transfer steps are the delivery's (test/partner/sandbox/advance.test.ts walks them).
      expect(types).toEqual([
        "order.recorded",
        "order.manual_review_cleared",
        "transfer.requested",
        "order.transfer_started",
        "transfer.auth_code_ready",
        "transfer.pending",
        "order.transfer_completed",
        "transfer.completed",
        "order.settled"
      ])
      const live = yield* createPartner({ environment: "live" })
      const liveId = yield* buy(live, "advance.com", 600_000)
      const liveClient = yield* apiClient({ partner: live })
      yield* expectFailure(liveClient.partnerSandbox.advance({ path: { public_id: liveId } }), 403, "forbidden")
      // Another partner's order is not found.
      yield* expectFailure(client.partnerSandbox.advance({ path: { public_id: liveId } }), 404, "not_found")
    }))

  it.effect("POST /refunds before delivery: 201, order REFUNDED, order.refunded, listing available again; twice → 409; admin cancel → CANCELLED", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "refund-me.com", bin: 3_000 }, { domain: "cancel-me.com", bin: 3_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "refund-me.com", 3_000)
      const client = yield* apiClient({ partner: cred })
      const admin = yield* adminActions
      const available = (domain: string) =>
        Effect.map(client.partnerInventory.availability({ urlParams: { domain } }), (a) => a.available)
      expect(yield* available("refund-me.com")).toBe(false)
      expect((yield* admin(id, "start-transfer")).status).toBe("TRANSFER_IN_PROGRESS")
      const [r, response] = yield* client.partnerOrders.createRefund({
        payload: { order_id: id, reason: "buyer chargeback" },
        withResponse: true
      })
      expect(response.status).toBe(201)
      expect(r).toMatchObject({ order_id: id, amount_cents: 3_000, currency: "USD", status: "REFUNDED" })
      expect(r.refund_id).toMatch(/^rf_/)
      expect(r.order.status).toBe("REFUNDED")
      expect(yield* available("refund-me.com")).toBe(true)
      expect(
        (yield* expectFailure(client.partnerOrders.createRefund({ payload: { order_id: id } }), 409, "conflict"))
          .message
      ).toContain("REFUNDED")
      yield* expectFailure(
        client.partnerOrders.createRefund({ payload: { order_id: "ord_unknown" } }),
        404,
        "not_found"
      )
      // Raw: a body without order_id, which the request schema refuses (the typed client would not send it).
      expectError(yield* signed(cred, "POST", "/api/partner/v1/refunds", { body: {} }), 400, "validation_error")

      const other = yield* buy(cred, "cancel-me.com", 3_000)
      expect((yield* admin(other, "cancel")).status).toBe("CANCELLED")
      yield* expectFailure(admin(other, "start-transfer"), 409, "conflict")
      const types = (yield* allEvents(cred)).filter((e) => [id, other].includes(orderOf(e).public_id)).map((e) =>
        `${e.type}:${orderOf(e).status}`
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
      const client = yield* apiClient({ partner: cred })
      const first = yield* client.partnerEvents.listEvents({ urlParams: {} })
      expect(first.events).toHaveLength(50)
      expect(first.next_cursor).toBe(first.events[49]!.id)
      const rest = yield* client.partnerEvents.listEvents({
        urlParams: { after_id: first.next_cursor ?? "", limit: "100" }
      })
      expect(rest.events).toHaveLength(5)
      const ids = [...first.events, ...rest.events].map((e) => e.id)
      expect([...ids].sort()).toEqual(ids)
      expect(new Set(ids).size).toBe(55)
      const empty = yield* client.partnerEvents.listEvents({ urlParams: { after_id: rest.next_cursor ?? "" } })
      expect(empty).toEqual({ events: [], next_cursor: null })
      for (const q of [{ limit: "0" }, { limit: "101" }, { limit: "abc" }, { after_id: "nope" }]) {
        yield* expectFailure(client.partnerEvents.listEvents({ urlParams: q }), 400, "validation_error")
      }
      // Another partner sees none of these.
      const other = yield* apiClient({ partner: yield* createPartner() })
      expect((yield* other.partnerEvents.listEvents({ urlParams: {} })).events).toEqual([])
    }))
})
