/**
 * Payouts through HTTP: settled commission on service-collected sales is paid by the payout run,
 * live money through the Stripe transfers protocol (loopback fake), sandbox money never leaves;
 * a refused transfer returns the amount to payable; an unanswered one is re-sent with the same
 * idempotency key and paid once; concurrent runs never pay twice; GET /payouts to the contract.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Books } from "../../../src/partner/ledger/Books.js"
import { makeId } from "../../../src/platform/Ids.js"
import { apiClient } from "../../support/ApiClient.js"
import { createPartner, signed } from "../../support/PartnerKit.js"
import { capturedPayment } from "../../support/PaymentKit.js"
import { startStripeFake } from "../../support/StripeServer.js"
import * as TestServer from "../../support/TestServer.js"

const DAY = 86_400_000

/**
 * A delivered service-collected sale (hosted checkout is not built yet): the order row as the
 * checkout would write it, and its sale posted by the project's own Books service.
 */
const deliveredCheckoutSale = (
  partnerId: string,
  environment: "live" | "sandbox",
  saleCents: number,
  model = "hosted_checkout"
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = makeId("ord")
    const [order] = yield* sql<any>`
      insert into partner_orders (id, partner_id, credential_id, environment, listing_id, domain, status, sale_price_cents, currency,
        external_payment_ref, buyer, payment_model, commission_bps, commission_cents, transfer_completed_at)
      values (${id}, ${partnerId}, 'cred_test', ${environment}, ${`lst_${id}`}, ${`${id}.com`}, 'TRANSFER_COMPLETED', ${saleCents}, 'USD',
        'cs_test', '{"email":"b@example.org"}'::jsonb, ${model}, 1000, ${saleCents} * 1000 / 10000, now())
      returning *`
    yield* Effect.flatMap(Books, (b) => b.recordSale(order)).pipe(Effect.provide(Books.Live))
    if (model !== "brokerage") yield* capturedPayment({ orderId: id, environment: environment, cents: saleCents })
    return id
  }).pipe(Effect.orDie)

/** The status of each statement of a partner, oldest first. */
const statementStatuses = (partnerId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ status: string }>`select status from settlement_statements where partner_id = ${partnerId} order by id`
  ).pipe(
    Effect.map((rows) => rows.map((r) => r.status)),
    Effect.orDie
  )

const setAccount = (partnerId: string, account: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`update partners set payout_account = ${account} where id = ${partnerId}`
  ).pipe(Effect.orDie)

/** A server paying live money through the Stripe transfers fake, schedules off (runs on demand). */
const payoutsServer = Effect.gen(function*() {
  const stripe = yield* startStripeFake()
  const server = yield* Layer.build(TestServer.layer({
    SETTLEMENT_INTERVAL: "0 seconds",
    PAYOUT_INTERVAL: "0 seconds",
    PAYOUT_MINIMUM_CENTS: "5000",
    PAYOUT_PROVIDER: "stripe",
    STRIPE_API_KEY: stripe.apiKey,
    STRIPE_API_BASE: stripe.baseUrl
  }))
  const run = <A, E>(e: Effect.Effect<A, E, any>) => Effect.provide(e, server) as Effect.Effect<A, E>
  return { stripe, run }
})

layer(Layer.empty)("payouts", (it) => {
  it.scoped(
    "settled commission is paid: Stripe for live, sandbox for sandbox; failures return to payable; retries never pay twice",
    () =>
      Effect.gen(function*() {
        const { stripe, run } = yield* payoutsServer
        const good = yield* run(createPartner({ environment: "live", scopes: ["report", "buy"], affiliate: true }))
        const failing = yield* run(createPartner({ environment: "live", scopes: ["report"] }))
        const flaky = yield* run(createPartner({ environment: "live", scopes: ["report"] }))
        const small = yield* run(createPartner({ environment: "live", scopes: ["report"] }))
        const sandbox = yield* run(createPartner({ environment: "sandbox", scopes: ["report"] }))
        // The admin and partner endpoints through the typed client: answers decoded by their schemas.
        const admin = yield* run(apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN }))
        const runPayouts = () => admin.adminMoney.runPayouts({ withResponse: true })
        const runSettlement = (asOf: Date) =>
          admin.adminMoney.runSettlement({ urlParams: { as_of: asOf.toISOString() } })
        const goodClient = yield* run(apiClient({ partner: good }))
        yield* run(setAccount(good.partner_id, "acct_good1"))
        yield* run(setAccount(failing.partner_id, "acct_fail1"))
        yield* run(setAccount(flaky.partner_id, "acct_flaky1"))
        yield* run(setAccount(small.partner_id, "acct_small1"))
        // good: 10 % of 300000 + 10 % of 200000 (referral) = 50000; small: 10 % of 40000 = 4000 < minimum.
        yield* run(deliveredCheckoutSale(good.partner_id, "live", 300_000))
        yield* run(deliveredCheckoutSale(good.partner_id, "live", 200_000, "referral"))
        yield* run(deliveredCheckoutSale(failing.partner_id, "live", 100_000))
        yield* run(deliveredCheckoutSale(flaky.partner_id, "live", 100_000, "brokerage"))
        yield* run(deliveredCheckoutSale(small.partner_id, "live", 40_000))
        yield* run(deliveredCheckoutSale(sandbox.partner_id, "sandbox", 100_000))

        // Accrued, not payable: nothing to pay before settlement.
        expect((yield* runPayouts())[0]).toEqual({
          status: "completed",
          payouts: []
        })
        const settled = yield* runSettlement(new Date(Date.now() + 8 * DAY))
        expect(settled.orders_settled).toBe(6)
        const statement = settled.statements.find((s) => s.partner_id === good.partner_id)
        expect(statement).toMatchObject({
          commission_payable_cents: 50_000,
          amount_owed_cents: 0,
          gross_sold_cents: 500_000
        })

        // Two runs at once: one pays, the other is skipped or finds nothing left.
        const [[r1, response1], [r2, response2]] = yield* Effect.all([runPayouts(), runPayouts()], { concurrency: 2 })
        expect(response1.status).toBe(200)
        expect(response2.status).toBe(200)
        const first = [...r1.payouts, ...r2.payouts]
        const byPartner = (id: string) => first.filter((p) => p.partner_id === id)
        expect(byPartner(good.partner_id)).toMatchObject([{
          amount_cents: 50_000,
          status: "paid",
          environment: "live"
        }])
        expect(byPartner(failing.partner_id)).toMatchObject([{ amount_cents: 10_000, status: "failed" }])
        expect(byPartner(flaky.partner_id)).toMatchObject([{ amount_cents: 10_000, status: "pending" }])
        expect(byPartner(sandbox.partner_id)).toMatchObject([{
          amount_cents: 10_000,
          status: "paid",
          environment: "sandbox"
        }])
        expect(byPartner(small.partner_id)).toEqual([])
        // Only live money reached Stripe; keyed by the payout id.
        expect(stripe.transfers.map((t) => [t.destination, t.amount, t.currency])).toEqual([[
          "acct_good1",
          50_000,
          "usd"
        ]])
        expect(stripe.transfers[0]!.idempotencyKey).toBe(byPartner(good.partner_id)[0].id)
        expect(stripe.requests.some((r) => r.destination === "acct_small1")).toBe(false)
        // A statement is paid once paid payouts cover its payable commission; failed, pending and
        // below-minimum ones leave it closed.
        expect(yield* run(statementStatuses(good.partner_id))).toEqual(["paid"])
        expect(yield* run(statementStatuses(sandbox.partner_id))).toEqual(["paid"])
        expect(yield* run(statementStatuses(failing.partner_id))).toEqual(["closed"])
        expect(yield* run(statementStatuses(flaky.partner_id))).toEqual(["closed"])
        expect(yield* run(statementStatuses(small.partner_id))).toEqual(["closed"])
        const goodStatements = yield* goodClient.partnerMoney.listSettlements({ urlParams: {} })
        expect(goodStatements.settlements.map((x) => x.status)).toEqual(["paid"])

        // Next run: the pending payout is re-sent with the same key and paid once; the failed amount is payable again.
        const [again] = yield* runPayouts()
        const flakyAgain = again.payouts.filter((p) => p.partner_id === flaky.partner_id)
        expect(flakyAgain).toEqual([{ ...byPartner(flaky.partner_id)[0], status: "paid" }])
        expect(again.payouts.filter((p) => p.partner_id === good.partner_id)).toEqual([])
        expect(again.payouts.filter((p) => p.partner_id === failing.partner_id)).toMatchObject([{
          amount_cents: 10_000,
          status: "failed"
        }])
        expect(stripe.transfers.filter((t) => t.destination === "acct_flaky1")).toHaveLength(1)
        expect(yield* run(statementStatuses(flaky.partner_id))).toEqual(["paid"])
        expect(yield* run(statementStatuses(failing.partner_id))).toEqual(["closed"])

        // A later statement of the good partner is closed until a payout covers it; the earlier stays paid.
        yield* run(deliveredCheckoutSale(good.partner_id, "live", 60_000))
        const later = yield* runSettlement(new Date(Date.now() + 8 * DAY))
        expect(later.orders_settled).toBe(1)
        expect(yield* run(statementStatuses(good.partner_id))).toEqual(["paid", "closed"])
        const [third] = yield* runPayouts()
        expect(third.payouts.filter((p) => p.partner_id === good.partner_id)).toMatchObject([{
          amount_cents: 6_000,
          status: "paid"
        }])
        expect(yield* run(statementStatuses(good.partner_id))).toEqual(["paid", "paid"])
        expect(stripe.requests.filter((r) => r.destination === "acct_flaky1").map((r) => r.key)).toEqual([
          flakyAgain[0].id,
          flakyAgain[0].id
        ])

        const [list, listResponse] = yield* goodClient.partnerMoney.listPayouts({ urlParams: {}, withResponse: true })
        expect(listResponse.status).toBe(200)
        expect(list.total_paid_cents).toBe(56_000)
        expect(list.next_cursor).toBeNull()
        expect(list.payouts).toHaveLength(2)
        const p = list.payouts[1]
        // On the wire: exactly these keys, and a time is RFC 3339 UTC (the typed client decodes it to a Date).
        const wire = (yield* run(signed(good, "GET", "/api/partner/v1/payouts"))).json.payouts[1]
        expect(Object.keys(wire).sort()).toEqual([
          "amount_cents",
          "created_at",
          "currency",
          "id",
          "method",
          "paid_at",
          "source",
          "status"
        ])
        expect(p).toMatchObject({
          amount_cents: 50_000,
          currency: "USD",
          status: "paid",
          method: "stripe_transfer",
          source: "mixed"
        })
        expect(p.id).toMatch(/^po_/)
        expect(wire.id).toBe(p.id)
        expect(wire.paid_at).toMatch(/Z$/)
        expect(p.paid_at).toBeInstanceOf(Date)
        // /me/payouts: referral payouts only (this one mixes checkout and referral commission).
        expect(yield* goodClient.partnerMoney.listMyPayouts({ urlParams: {} })).toEqual({
          payouts: [],
          total_paid_cents: 0,
          next_cursor: null
        })
        const failingClient = yield* run(apiClient({ partner: failing }))
        const failed = yield* failingClient.partnerMoney.listPayouts({ urlParams: {} })
        expect(failed.total_paid_cents).toBe(0)
        expect(failed.payouts.map((x) => x.status)).toEqual(["failed", "failed", "failed"]) // one per run
        const bal = yield* admin.adminMoney.ledgerBalance({ urlParams: { partner: failing.partner_id, env: "live" } })
        expect(bal.commission_payable_cents).toBe(10_000)
        const verify = yield* admin.adminMoney.verifyLedger()
        expect(verify.problems, JSON.stringify(verify)).toEqual([])
      }),
    { timeout: 600_000 }
  )

  it.scoped(
    "a live partner without a payout account: one pending payout that waits across runs, paid once the account is set",
    () =>
      Effect.gen(function*() {
        const { stripe, run } = yield* payoutsServer
        const partner = yield* run(createPartner({ environment: "live", scopes: ["report"] }))
        const admin = yield* run(apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN }))
        yield* run(deliveredCheckoutSale(partner.partner_id, "live", 100_000))
        yield* admin.adminMoney.runSettlement({ urlParams: { as_of: new Date(Date.now() + 8 * DAY).toISOString() } })
        const rows = () =>
          run(
            Effect.flatMap(SqlClient.SqlClient, (sql) =>
              sql<{ id: string; status: string; failure: string | null }>`
              select id, status, failure from partner_payouts where partner_id = ${partner.partner_id} order by id`)
              .pipe(
                Effect.orDie
              )
          )
        for (let i = 0; i < 4; i++) {
          const result = yield* admin.adminMoney.runPayouts()
          expect(result.payouts.filter((p) => p.partner_id === partner.partner_id)).toMatchObject([{
            amount_cents: 10_000,
            status: "pending"
          }])
        }
        // Four runs, one row: waiting, not failed and written again each time; nothing sent.
        const waiting = yield* rows()
        expect(waiting).toMatchObject([{ status: "pending", failure: "needs_payout_account" }])
        expect(stripe.requests).toHaveLength(0)
        yield* run(setAccount(partner.partner_id, "acct_late1"))
        const paid = yield* admin.adminMoney.runPayouts()
        expect(paid.payouts.filter((p) => p.partner_id === partner.partner_id)).toMatchObject([{
          id: waiting[0]!.id,
          amount_cents: 10_000,
          status: "paid"
        }])
        expect(yield* rows()).toMatchObject([{ id: waiting[0]!.id, status: "paid" }])
        expect(stripe.transfers.map((t) => [t.destination, t.amount])).toEqual([["acct_late1", 10_000]])
        const verify = yield* admin.adminMoney.verifyLedger()
        expect(verify.ok, JSON.stringify(verify)).toBe(true)
      }),
    120_000
  )
})
