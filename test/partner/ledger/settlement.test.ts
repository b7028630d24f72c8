/**
 * The ledger through HTTP: sales and refunds post balanced transactions with the order change;
 * the settlement run (admin endpoint) settles due orders once, into one statement per partner and
 * environment; statements, transactions and payouts are the caller's only; bad input is a typed 400;
 * the reconciliation check passes.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { apiClient } from "../../support/ApiClient.js"
import { post, request } from "../../support/http.js"
import { buy, createPartner, expectError, seedListings, signed } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
/** The operator's typed client (bearer ADMIN_TOKEN): answers decoded by the success schemas. */
const adminClient = apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN })
const settle = (asOf: Date) =>
  Effect.flatMap(adminClient, (c) => c.adminMoney.runSettlement({ urlParams: { as_of: asOf.toISOString() } }))
const balanceOf = (partner: string, env: "live" | "sandbox") =>
  Effect.flatMap(adminClient, (c) => c.adminMoney.ledgerBalance({ urlParams: { partner, env } }))
const DAY = 86_400_000
const deliver = (id: string) =>
  Effect.gen(function*() {
    const admin = yield* adminClient
    yield* admin.adminOrders.orderAction({ path: { id, action: "start-transfer" }, urlParams: {} })
    expect(
      (yield* admin.adminOrders.orderAction({ path: { id, action: "confirm-delivery" }, urlParams: {} })).status
    ).toBe("TRANSFER_COMPLETED")
  })
const verify = Effect.gen(function*() {
  const report = yield* (yield* adminClient).adminMoney.verifyLedger()
  expect(report.problems).toEqual([])
  expect(report.ok).toBe(true)
  return report
})

layer(TestServer.layer({ SETTLEMENT_INTERVAL: "0 seconds" }))("ledger and settlement", (it) => {
  it.effect("sale, refund, delivery; settle after the hold: one statement, once; statements and transactions to the contract", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "ledger-a.com", bin: 150_000 }, { domain: "ledger-b.com", bin: 99_999 }, {
        domain: "ledger-c.com",
        bin: 1_000
      }])
      const cred = yield* createPartner({ scopes: ["buy", "report", "webhook"] })
      const a = yield* buy(cred, "ledger-a.com", 150_000)
      const b = yield* buy(cred, "ledger-b.com", 99_999)
      const c = yield* buy(cred, "ledger-c.com", 1_000)
      expect(
        (yield* signed(cred, "POST", "/api/partner/v1/refunds", { body: { order_id: c, reason: "chargeback" } })).status
      ).toBe(201)
      yield* deliver(a)
      yield* deliver(b)
      const balance = yield* balanceOf(cred.partner_id, "sandbox")
      // 10 % default: 150000 → 15000 kept, 135000 owed; 99999 → 9999 kept, 90000 owed.
      expect(balance.owed_by_partner_cents).toBe(135_000 + 90_000)
      yield* verify

      // Not yet: completion is younger than SETTLEMENT_HOLD_DAYS (7).
      const early = yield* settle(new Date(Date.now() + 6 * DAY))
      expect(early).toMatchObject({ status: "completed", orders_settled: 0, statements: [] })
      const run = yield* settle(new Date(Date.now() + 8 * DAY))
      expect(run.orders_settled).toBe(2)
      expect(run.statements).toHaveLength(1)
      const again = yield* settle(new Date(Date.now() + 30 * DAY))
      expect(again.orders_settled).toBe(0)

      // Reads through the typed client (HttpApiClient.make(Api), signed like a partner's code):
      // each answer decoded by its endpoint's success schema.
      const client = yield* apiClient({ partner: cred })
      expect((yield* client.partnerOrders.getOrder({ path: { public_id: a } })).status).toBe("SETTLED")
      const { events } = yield* client.partnerEvents.listEvents({ urlParams: { limit: "100" } })
      const settledIds = events.filter((e) => e.type === "order.settled").map((e) =>
        (e.data as { order: { public_id: string } }).order.public_id
      )
      expect(settledIds.sort()).toEqual([a, b].sort())

      const list = yield* client.partnerMoney.listSettlements({ urlParams: {} })
      expect(list.next_cursor).toBeNull()
      expect(list.settlements).toHaveLength(1)
      const s = list.settlements[0]!
      expect(s).toMatchObject({
        currency: "USD",
        orders_count: 2,
        gross_sold_cents: 249_999,
        commission_retained_cents: 24_999,
        amount_owed_cents: 225_000,
        commission_payable_cents: 0,
        refunds_cents: 1_000,
        status: "closed"
      })
      expect(s.id).toMatch(/^stl_/)
      expect(s.lines).toBeUndefined()
      const one = yield* client.partnerMoney.getSettlement({ path: { id: s.id } })
      expect(
        (one.lines ?? []).map((l) => [l.domain, l.payment_model, l.sale_price_cents, l.commission_cents, l.owed_cents])
          .sort()
      ).toEqual([
        ["ledger-a.com", "partner_collected", 150_000, 15_000, 135_000],
        ["ledger-b.com", "partner_collected", 99_999, 9_999, 90_000]
      ])

      const tx = yield* client.partnerMoney.listTransactions({ urlParams: { limit: 2 } })
      expect(tx.transactions).toHaveLength(2)
      expect(tx.totals).toEqual({ count: 3, gmv_cents: 250_999, commission_cents: 25_099 })
      expect(tx.transactions[0]).toMatchObject({
        order_id: c,
        status: "REFUNDED",
        payment_model: "partner_collected",
        settled_at: null
      })
      expect(tx.transactions[0]!.id).toMatch(/^ltx_/)
      const page2 = yield* client.partnerMoney.listTransactions({
        urlParams: { limit: 2, cursor: tx.next_cursor ?? "" }
      })
      expect(page2.transactions.map((t) => t.order_id)).toEqual([a])
      expect(page2.transactions[0]!.settled_at).toBeInstanceOf(Date)
      expect(page2.next_cursor).toBeNull()
      // On the wire a time is RFC 3339 UTC (the typed client decodes it to a Date).
      const wire = yield* signed(
        cred,
        "GET",
        `/api/partner/v1/transactions?limit=2&cursor=${encodeURIComponent(tx.next_cursor ?? "")}`
      )
      expect(wire.json.transactions[0].settled_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      const settledOnly = yield* client.partnerMoney.listTransactions({
        urlParams: { status: "SETTLED", payment_model: "partner_collected" }
      })
      expect(settledOnly.totals).toEqual({ count: 2, gmv_cents: 249_999, commission_cents: 24_999 })

      // Bad input: typed 400s.
      expectError(
        yield* signed(cred, "GET", "/api/partner/v1/transactions?from=2026-02-01&to=2026-01-01"),
        400,
        "validation_error"
      )
      expectError(
        yield* signed(cred, "GET", "/api/partner/v1/transactions?payment_model=barter"),
        400,
        "validation_error"
      )
      expectError(
        yield* signed(
          cred,
          "GET",
          "/api/partner/v1/transactions?status=SETTLED&cursor=" + encodeURIComponent(tx.next_cursor ?? "")
        ),
        400,
        "invalid_cursor"
      )
      expectError(yield* signed(cred, "GET", "/api/partner/v1/settlements?cursor=forged"), 400, "invalid_cursor")
      expectError(
        yield* signed(cred, "GET", "/api/partner/v1/settlements?from=2026-02-01&to=2026-01-01"),
        400,
        "validation_error"
      )

      // Other partners, and the same partner's live credential, see nothing of it.
      const other = yield* createPartner({ scopes: ["buy", "report"] })
      expectError(yield* signed(other, "GET", `/api/partner/v1/settlements/${s.id}`), 404, "not_found")
      const otherClient = yield* apiClient({ partner: other })
      expect((yield* otherClient.partnerMoney.listSettlements({ urlParams: {} })).settlements).toEqual([])
      expect((yield* otherClient.partnerMoney.listTransactions({ urlParams: {} })).totals).toEqual({
        count: 0,
        gmv_cents: 0,
        commission_cents: 0
      })
      expectError(
        yield* signed(other, "GET", `/api/partner/v1/transactions?cursor=${encodeURIComponent(tx.next_cursor ?? "")}`),
        400,
        "invalid_cursor"
      )
      // Scopes: statements need buy, transactions and payouts need report.
      const buyOnly = yield* createPartner({ scopes: ["buy"] })
      expect((yield* signed(buyOnly, "GET", "/api/partner/v1/transactions")).status).toBe(403)
      expect((yield* signed(buyOnly, "GET", "/api/partner/v1/payouts")).status).toBe(403)
      const payouts = yield* client.partnerMoney.listPayouts({ urlParams: {} })
      expect(payouts).toEqual({ payouts: [], total_paid_cents: 0, next_cursor: null })
      expectError(yield* signed(cred, "GET", "/api/partner/v1/me/payouts"), 403, "forbidden")

      const verified = yield* verify
      expect(verified.checked.statements).toBeGreaterThanOrEqual(1)
      expectError(yield* post("/api/admin/settlements/run"), 401, "unauthorized")
      expectError(yield* post("/api/admin/settlements/run?as_of=yesterday", undefined, ADMIN), 400, "validation_error")
    }))

  it.effect("sandbox advance settles through the same code: a one-line statement and its postings", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "ledger-sandbox.com", bin: 5_000 }])
      const cred = yield* createPartner({ scopes: ["buy", "report", "webhook"] })
      const id = yield* buy(cred, "ledger-sandbox.com", 5_000)
      const client = yield* apiClient({ partner: cred })
      const advance = client.partnerSandbox.advance({ path: { public_id: id } })
      for (let i = 0; i < 2; i++) yield* advance
      expect((yield* advance).status).toBe("SETTLED")
      const list = (yield* client.partnerMoney.listSettlements({ urlParams: {} })).settlements
      expect(list).toHaveLength(1)
      expect(list[0]).toMatchObject({
        orders_count: 1,
        gross_sold_cents: 5_000,
        amount_owed_cents: 4_500,
        commission_retained_cents: 500
      })
      const balance = yield* balanceOf(cred.partner_id, "sandbox")
      expect(balance.accounts.partner_receivable).toBe(0)
      expect(balance.accounts.partner_receivable_settled).toBe(4_500)
      yield* verify
    }))

  it.effect("the balance of a partner id that no partner has is 404 not_found, not a page of zeros", () =>
    Effect.gen(function*() {
      const reply = yield* request("/api/admin/ledger/balance?partner=ptn_nobody&env=live", { headers: ADMIN })
      const error = expectError(reply, 404, "not_found")
      expect(error.message).toContain("ptn_nobody")
      const cred = yield* createPartner({ scopes: ["report"] })
      expect((yield* balanceOf(cred.partner_id, "live")).owed_by_partner_cents).toBe(0)
    }))
})
