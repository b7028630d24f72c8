/**
 * Issue 29, the reservation rule while a buyer pays, through HTTP against the real service:
 * - a hosted-checkout session whose payment is in flight (the buyer on the confirmation page, as
 *   on Stripe's) holds its listing for its seller: another partner's quote, order and session are
 *   409 `conflict` with `details.held_until`, so nobody is charged for a name already promised;
 *   confirming pays and the sale consumes the hold;
 * - a cancelled confirmation or a declined card gives the hold back at once;
 * - the one path left (the seller's own order taking the name while its buyer pays) refunds the
 *   buyer, and that payment is in the books: taken, then returned once the provider refunded it;
 *   `ledger verify` is clean.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
import { CARDS, csrfOf, openSession, page, payWith, postForm, ptOf } from "../support/CheckoutKit.js"
import { request } from "../support/http.js"
import { createPartner, expectError, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }

const partner = () => createPartner({ environment: "sandbox", scopes: ["search", "buy", "embed", "report"] })

const quote = (cred: IssuedCredential, domain: string) =>
  signed(cred, "POST", "/api/partner/v1/quotes", { body: { domain } })

const order = (cred: IssuedCredential, domain: string, price: number) =>
  signed(cred, "POST", "/api/partner/v1/orders", {
    body: {
      domain,
      expected_price: price,
      currency: "USD",
      external_payment_ref: `pay-${crypto.randomUUID()}`,
      buyer: { email: "buyer@example.org" }
    },
    headers: { "idempotency-key": crypto.randomUUID() }
  })

const holdOf = (domain: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ held_by: string | null; held_until: Date | null }>`
      select held_by, held_until from listings where domain = ${domain}`).pipe(
      Effect.map((rows) => rows[0]!),
      Effect.orDie
    )

/** A session of `seller` on `domain`, its buyer on the confirmation step (card 3220). */
const payingSession = (seller: IssuedCredential, domain: string) =>
  Effect.gen(function*() {
    const s = yield* openSession(seller, { domain })
    expect(s.status).toBe(201)
    const pt = ptOf(s.json.checkout_url)
    const step = yield* payWith(pt, CARDS.action)
    expect(step.status).toBe(200)
    expect(step.text).toContain("Confirm your payment")
    return { id: s.json.id as string, pt, step }
  })

layer(TestServer.layer(), { timeout: 120_000 })("a paying session holds its name", (it) => {
  it.effect("while the buyer confirms: another partner's quote, order and session are 409 held_until; confirming pays", () =>
    Effect.gen(function*() {
      const a = yield* partner()
      const b = yield* partner()
      yield* seedListings([{ domain: "paying-hold.co", bin: 80_000 }])
      const before = Date.now()
      const paying = yield* payingSession(a, "paying-hold.co")
      const hold = yield* holdOf("paying-hold.co")
      expect(hold.held_by).toBe(a.partner_id)
      // Held past the 30 minutes after which an abandoned confirmation is given up.
      expect(hold.held_until!.getTime()).toBeGreaterThan(before + 30 * 60_000)
      const until = hold.held_until!.toISOString()

      for (
        const refused of [
          yield* quote(b, "paying-hold.co"),
          yield* order(b, "paying-hold.co", 80_000),
          yield* openSession(b, { domain: "paying-hold.co" })
        ]
      ) {
        expectError(refused as any, 409, "conflict")
        expect(refused.json.error.details).toEqual({ held_until: until })
      }

      const { baseUrl } = yield* TestServer.TestServer
      const done = yield* postForm(`/checkout/confirm?pt=${encodeURIComponent(paying.pt)}`, {
        csrf: csrfOf(paying.step.text),
        action: "confirm"
      }, baseUrl)
      expect(done.status).toBe(303)
      const sql = yield* SqlClient.SqlClient
      const orders = yield* sql<{ n: number }>`
        select count(*)::int as n from partner_orders where domain = 'paying-hold.co'`
      expect(orders[0]!.n).toBe(1)
      // The sale consumed the hold.
      expect(yield* holdOf("paying-hold.co")).toEqual({ held_by: null, held_until: null })
    }))

  it.effect("a cancelled confirmation and a declined card give the hold back: another partner quotes at once", () =>
    Effect.gen(function*() {
      const a = yield* partner()
      const b = yield* partner()
      yield* seedListings([{ domain: "cancel-hold.co", bin: 50_000 }, { domain: "decline-hold.co", bin: 50_000 }])

      const paying = yield* payingSession(a, "cancel-hold.co")
      expect((yield* quote(b, "cancel-hold.co")).status).toBe(409)
      const back = yield* page(`/checkout/return?pt=${encodeURIComponent(paying.pt)}&cancelled=1`)
      expect(back.text).toContain("You cancelled the payment")
      expect(yield* holdOf("cancel-hold.co")).toEqual({ held_by: null, held_until: null })
      expect((yield* quote(b, "cancel-hold.co")).status).toBe(201)

      const s = yield* openSession(a, { domain: "decline-hold.co" })
      const declined = yield* payWith(ptOf(s.json.checkout_url), CARDS.declined)
      expect(declined.status).toBe(402)
      expect(yield* holdOf("decline-hold.co")).toEqual({ held_by: null, held_until: null })
      expect((yield* quote(b, "decline-hold.co")).status).toBe(201)
    }))

  it.effect("the seller's own order takes the name while its buyer pays: the buyer is refunded, taken and returned in the books", () =>
    Effect.gen(function*() {
      const a = yield* partner()
      yield* seedListings([{ domain: "own-order-hold.co", bin: 60_000 }])
      const paying = yield* payingSession(a, "own-order-hold.co")
      expect((yield* order(a, "own-order-hold.co", 60_000)).status).toBe(201)

      const { baseUrl } = yield* TestServer.TestServer
      const done = yield* postForm(`/checkout/confirm?pt=${encodeURIComponent(paying.pt)}`, {
        csrf: csrfOf(paying.step.text),
        action: "confirm"
      }, baseUrl)
      expect(done.text).toContain("no longer available")
      expect(done.text).toContain("refunded")

      const sql = yield* SqlClient.SqlClient
      const [session] = yield* sql<{ status: string; refund_sent: boolean }>`
        select status, refunded_at is not null as refund_sent from checkout_sessions where id = ${paying.id}`
      expect(session).toEqual({ status: "refunded", refund_sent: true })
      const postings = yield* sql<{ natural_key: string; cash: number }>`
        select t.natural_key, coalesce(sum(e.amount_cents) filter (where e.account = 'buyer_payments'), 0)::int as cash
        from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
        where t.payment_id = ${paying.id} group by t.natural_key order by t.natural_key`
      expect(postings).toEqual([
        { natural_key: `payment:${paying.id}:returned`, cash: -60_000 },
        { natural_key: `payment:${paying.id}:taken`, cash: 60_000 }
      ])
      const verify = yield* request("/api/admin/ledger/verify", { headers: ADMIN })
      expect(verify.json.problems).toEqual([])
    }))
})
