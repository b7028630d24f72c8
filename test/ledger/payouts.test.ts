/**
 * Payouts through HTTP: settled commission on service-collected sales is paid by the payout run,
 * live money through the Stripe transfers protocol (loopback fake), sandbox money never leaves;
 * a refused transfer returns the amount to payable; an unanswered one is re-sent with the same
 * idempotency key and paid once; concurrent runs never pay twice; GET /payouts to the contract.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Books } from "../../src/partner/ledger/Books.js"
import { makeId } from "../../src/platform/Ids.js"
import { post, request } from "../support/http.js"
import { createPartner, signed } from "../support/PartnerKit.js"
import { startStripeFake } from "../support/StripeServer.js"
import * as TestServer from "../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
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

layer(Layer.empty)("payouts", (it) => {
  it.scoped(
    "settled commission is paid: Stripe for live, sandbox for sandbox; failures return to payable; retries never pay twice",
    () =>
      Effect.gen(function*() {
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
        const good = yield* run(createPartner({ environment: "live", scopes: ["report", "buy"], affiliate: true }))
        const failing = yield* run(createPartner({ environment: "live", scopes: ["report"] }))
        const flaky = yield* run(createPartner({ environment: "live", scopes: ["report"] }))
        const small = yield* run(createPartner({ environment: "live", scopes: ["report"] }))
        const sandbox = yield* run(createPartner({ environment: "sandbox", scopes: ["report"] }))
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
        expect((yield* run(post("/api/admin/payouts/run", undefined, ADMIN))).json).toEqual({
          status: "completed",
          payouts: []
        })
        const settled = yield* run(
          post(`/api/admin/settlements/run?as_of=${new Date(Date.now() + 8 * DAY).toISOString()}`, undefined, ADMIN)
        )
        expect(settled.json.orders_settled).toBe(6)
        const statement = settled.json.statements.find((s: any) => s.partner_id === good.partner_id)
        expect(statement).toMatchObject({
          commission_payable_cents: 50_000,
          amount_owed_cents: 0,
          gross_sold_cents: 500_000
        })

        // Two runs at once: one pays, the other is skipped or finds nothing left.
        const [r1, r2] = yield* Effect.all([
          run(post("/api/admin/payouts/run", undefined, ADMIN)),
          run(post("/api/admin/payouts/run", undefined, ADMIN))
        ], { concurrency: 2 })
        expect(r1.status, r1.text).toBe(200)
        expect(r2.status, r2.text).toBe(200)
        const first = [...r1.json.payouts, ...r2.json.payouts]
        const byPartner = (id: string) => first.filter((p: any) => p.partner_id === id)
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
        const goodStatements = yield* run(signed(good, "GET", "/api/partner/v1/settlements"))
        expect(goodStatements.json.settlements.map((x: any) => x.status)).toEqual(["paid"])

        // Next run: the pending payout is re-sent with the same key and paid once; the failed amount is payable again.
        const again = yield* run(post("/api/admin/payouts/run", undefined, ADMIN))
        const flakyAgain = again.json.payouts.filter((p: any) => p.partner_id === flaky.partner_id)
        expect(flakyAgain).toEqual([{ ...byPartner(flaky.partner_id)[0], status: "paid" }])
        expect(again.json.payouts.filter((p: any) => p.partner_id === good.partner_id)).toEqual([])
        expect(again.json.payouts.filter((p: any) => p.partner_id === failing.partner_id)).toMatchObject([{
          amount_cents: 10_000,
          status: "failed"
        }])
        expect(stripe.transfers.filter((t) => t.destination === "acct_flaky1")).toHaveLength(1)
        expect(yield* run(statementStatuses(flaky.partner_id))).toEqual(["paid"])
        expect(yield* run(statementStatuses(failing.partner_id))).toEqual(["closed"])

        // A later statement of the good partner is closed until a payout covers it; the earlier stays paid.
        yield* run(deliveredCheckoutSale(good.partner_id, "live", 60_000))
        const later = yield* run(
          post(`/api/admin/settlements/run?as_of=${new Date(Date.now() + 8 * DAY).toISOString()}`, undefined, ADMIN)
        )
        expect(later.json.orders_settled).toBe(1)
        expect(yield* run(statementStatuses(good.partner_id))).toEqual(["paid", "closed"])
        const third = yield* run(post("/api/admin/payouts/run", undefined, ADMIN))
        expect(third.json.payouts.filter((p: any) => p.partner_id === good.partner_id)).toMatchObject([{
          amount_cents: 6_000,
          status: "paid"
        }])
        expect(yield* run(statementStatuses(good.partner_id))).toEqual(["paid", "paid"])
        expect(stripe.requests.filter((r) => r.destination === "acct_flaky1").map((r) => r.key)).toEqual([
          flakyAgain[0].id,
          flakyAgain[0].id
        ])

        const list = yield* run(signed(good, "GET", "/api/partner/v1/payouts"))
        expect(list.status, list.text).toBe(200)
        expect(list.json.total_paid_cents).toBe(56_000)
        expect(list.json.next_cursor).toBeNull()
        expect(list.json.payouts).toHaveLength(2)
        const p = list.json.payouts[1]
        expect(Object.keys(p).sort()).toEqual([
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
        expect(p.paid_at).toMatch(/Z$/)
        // /me/payouts: referral payouts only (this one mixes checkout and referral commission).
        expect((yield* run(signed(good, "GET", "/api/partner/v1/me/payouts"))).json).toEqual({
          payouts: [],
          total_paid_cents: 0,
          next_cursor: null
        })
        const failed = yield* run(signed(failing, "GET", "/api/partner/v1/payouts"))
        expect(failed.json.total_paid_cents).toBe(0)
        expect(failed.json.payouts.map((x: any) => x.status)).toEqual(["failed", "failed", "failed"]) // one per run
        const bal = yield* run(
          request(`/api/admin/ledger/balance?partner=${failing.partner_id}&env=live`, { headers: ADMIN })
        )
        expect(bal.json.commission_payable_cents).toBe(10_000)
        const verify = yield* run(request("/api/admin/ledger/verify", { headers: ADMIN }))
        expect(verify.json.problems, verify.text).toEqual([])
      }),
    { timeout: 600_000 }
  )
})
