/**
 * Two replicas with the settlement and payout schedules on a short interval, on one PostgreSQL
 * database, while sales keep arriving: every order is settled exactly once (one line, one
 * posting, one `order.settled` event) and every payout reaches the payment provider once (the
 * loopback Stripe fake counts transfers), a retried one included; the books reconcile.
 *
 * Real PostgreSQL only: two processes cannot share an embedded database (it belongs to the
 * process that opened it), so on the embedded database the test is skipped with that message.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Books } from "../../../src/partner/ledger/Books.js"
import { makeId } from "../../../src/platform/Ids.js"
import { post, realSleep, request } from "../../support/http.js"
import { buy, createPartner, seedListings } from "../../support/PartnerKit.js"
import { capturedPayment } from "../../support/PaymentKit.js"
import { startServiceProcess } from "../../support/ServiceProcess.js"
import { startStripeFake } from "../../support/StripeServer.js"
import * as TestServer from "../../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
const onPostgres = Boolean(process.env.DATABASE_URL)

/** A delivered service-collected sale, as the checkout would write it, posted by the project's Books. */
const deliveredCheckoutSale = (partnerId: string, saleCents: number, model = "hosted_checkout") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = makeId("ord")
    const [order] = yield* sql<any>`
      insert into partner_orders (id, partner_id, credential_id, environment, listing_id, domain, status, sale_price_cents, currency,
        external_payment_ref, buyer, payment_model, commission_bps, commission_cents, transfer_completed_at)
      values (${id}, ${partnerId}, 'cred_test', 'live', ${`lst_${id}`}, ${`${id}.com`}, 'TRANSFER_COMPLETED', ${saleCents}, 'USD',
        'cs_test', '{"email":"b@example.org"}'::jsonb, ${model}, 1000, ${saleCents} * 1000 / 10000, now())
      returning *`
    yield* Effect.flatMap(Books, (b) => b.recordSale(order)).pipe(Effect.provide(Books.Live))
    if (model !== "brokerage") yield* capturedPayment({ orderId: id, environment: "live", cents: saleCents })
    return id
  }).pipe(Effect.orDie)

/** A delivered partner-collected sandbox order, through HTTP. */
const deliveredOrder = (cred: Parameters<typeof buy>[0], domain: string) =>
  Effect.gen(function*() {
    yield* seedListings([{ domain, bin: 30_000 }])
    const id = yield* buy(cred, domain, 30_000)
    expect((yield* post(`/api/admin/orders/${id}/start-transfer`, undefined, ADMIN)).status).toBe(200)
    expect((yield* post(`/api/admin/orders/${id}/confirm-delivery`, undefined, ADMIN)).status).toBe(200)
    return id
  })

if (!onPostgres) {
  describe("scheduled runs on two replicas", () => {
    it.skip("needs real PostgreSQL (set DATABASE_URL): two processes cannot share the embedded database", () => {})
  })
} else {layer(Layer.empty)("scheduled runs on two replicas", (it) => {
    it.scoped(
      "both replicas on a 2 s schedule while sales arrive: each order settled once, each payout transferred once",
      () =>
        Effect.gen(function*() {
          const databaseUrl = (yield* TestServer.freshDatabase).url
          const stripe = yield* startStripeFake()
          // Writes sales into the shared database; its own schedules are off.
          const writer = yield* Layer.build(
            TestServer.layer({ SETTLEMENT_INTERVAL: "0 millis", PAYOUT_INTERVAL: "0 millis" }, { databaseUrl })
          )
          const w = <A, E>(e: Effect.Effect<A, E, any>) => Effect.provide(e, writer) as Effect.Effect<A, E>
          const sql = yield* w(SqlClient.SqlClient)

          const live = yield* Effect.forEach([0, 1, 2, 3], () =>
            w(createPartner({ environment: "live", scopes: ["report"] })))
          const accounts = ["acct_one1", "acct_two1", "acct_three1", "acct_flaky1"]
          yield* Effect.forEach(live, (p, i) =>
            w(sql`update partners set payout_account = ${accounts[i]!} where id = ${p.partner_id}`))
          const sandbox = yield* w(createPartner({ environment: "sandbox", scopes: ["buy"] }))
          const orders: Array<string> = []
          const wave = (n: number) =>
            Effect.gen(function*() {
              for (let i = 0; i < live.length; i++) {
                orders.push(
                  yield* w(
                    deliveredCheckoutSale(
                      live[i]!.partner_id,
                      100_000 + 1_000 * n + i,
                      n % 2 ? "referral" : "hosted_checkout"
                    )
                  )
                )
              }
              for (let i = 0; i < 3; i++) {
                orders.push(yield* w(deliveredOrder(sandbox, `replica-${n}-${i}.com`)))
              }
            })
          yield* wave(0)

          const env = {
            DATABASE_URL: databaseUrl,
            SETTLEMENT_INTERVAL: "2 seconds",
            PAYOUT_INTERVAL: "2 seconds",
            SETTLEMENT_HOLD_DAYS: "0",
            PAYOUT_MINIMUM_CENTS: "100",
            PAYOUT_PROVIDER: "stripe",
            STRIPE_API_KEY: stripe.apiKey,
            STRIPE_API_BASE: stripe.baseUrl
          }
          const [a, b] = yield* Effect.all([
            startServiceProcess(env, undefined, { readyWithinMs: 180_000 }),
            startServiceProcess(env, undefined, { readyWithinMs: 180_000 })
          ], { concurrency: 2 })
          // More sales while both replicas run their schedules.
          for (let n = 1; n <= 3; n++) {
            yield* realSleep(2_500)
            yield* wave(n)
          }

          // Until everything is settled and paid (or 120 s).
          const done = Effect.gen(function*() {
            const [r] = yield* sql<{ open: number; pending: number; payable: number }>`
          select (select count(*) from partner_orders where status <> 'SETTLED')::int as open,
                 (select count(*) from partner_payouts where status = 'pending')::int as pending,
                 (select coalesce(-sum(amount_cents), 0) from ledger_entries where account = 'commission_payable' and environment = 'live')::int as payable`
            return r!
          }).pipe(Effect.orDie)
          let state = yield* w(done)
          for (
            const deadline = Date.now() + 120_000;
            (state.open > 0 || state.pending > 0 || state.payable > 0) && Date.now() < deadline;
          ) {
            yield* realSleep(500)
            state = yield* w(done)
          }
          expect(state, `${a.output().slice(-2000)}\n${b.output().slice(-2000)}`).toEqual({
            open: 0,
            pending: 0,
            payable: 0
          })

          // Each order settled exactly once.
          const rows = yield* w(sql<{ id: string; status: string; lines: number; postings: number; events: number }>`
        select o.id, o.status,
          (select count(*) from settlement_lines l where l.order_id = o.id)::int as lines,
          (select count(*) from ledger_transactions t where t.natural_key = 'order:' || o.id || ':settled')::int as postings,
          (select count(*) from partner_events e where e.type = 'order.settled' and e.data->'order'->>'public_id' = o.id)::int as events
        from partner_orders o`)
          expect(rows).toHaveLength(orders.length)
          for (const r of rows) {
            expect(r, r.id).toMatchObject({ status: "SETTLED", lines: 1, postings: 1, events: 1 })
          }

          // Each payout transferred exactly once, keyed by its id; per partner, the transfers add up to
          // the commission of its sales (10 %).
          const payouts = yield* w(
            sql<
              { id: string; partner_id: string; amount_cents: number; status: string }
            >`select id, partner_id, amount_cents, status from partner_payouts order by id`
          )
          const paid = payouts.filter((p) =>
            p.status === "paid"
          )
          expect(payouts.filter((p) =>
            p.status !== "paid"
          )).toEqual([])
          expect(stripe.transfers.map((t) => t.idempotencyKey).sort()).toEqual(paid.map((p) => p.id).sort())
          expect(new Set(stripe.transfers.map((t) => t.idempotencyKey)).size).toBe(stripe.transfers.length)
          for (const p of paid) {
            expect(stripe.transfers.find((t) => t.idempotencyKey === p.id)?.amount).toBe(Number(p.amount_cents))
          }
          const [commission] = yield* w(sql<{ total: number }>`
        select coalesce(sum(commission_cents), 0)::bigint as total from partner_orders where environment = 'live' and payment_model <> 'partner_collected'`)
          expect(stripe.transfers.reduce((s, t) => s + t.amount, 0)).toBe(Number(commission!.total))
          // The flaky account's first attempt of each payout was answered 500; the re-send (either replica) paid it once.
          const flaky = stripe.requests.filter((r) => r.destination === "acct_flaky1")
          expect(flaky.filter((r) => r.status === 500).length).toBeGreaterThan(0)
          expect(stripe.transfers.filter((t) => t.destination === "acct_flaky1").length).toBe(
            paid.filter((p) => p.partner_id === live[3]!.partner_id).length
          )

          // Every statement whose payable commission was paid out is `paid`; the books reconcile.
          const [closed] = yield* w(
            sql<
              { n: number }
            >`select count(*)::int as n from settlement_statements where environment = 'live' and status <> 'paid'`
          )
          expect(closed!.n).toBe(0)
          const verify = yield* w(request("/api/admin/ledger/verify", { headers: ADMIN }))
          expect(verify.json.problems, verify.text).toEqual([])
          const [schedules] = yield* w(
            sql<
              { n: number }
            >`select count(*)::int as n from schedules where name in ('settlement', 'payouts') and last_status = 'ok'`
          )
          expect(schedules!.n).toBe(2)
        }),
      { timeout: 600_000 }
    )
  })}
