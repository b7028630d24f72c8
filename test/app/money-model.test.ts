/**
 * Model test of the sales channels (issue 29, item 2): random interleavings of quotes, partner
 * orders, checkout sessions, their payment, `/buy/` purchases and partner refunds, across two
 * partners and two buyers, against the real service (one server per file). After every step:
 *
 * - each name is sold at most once (one open order per listing);
 * - no buyer is charged for a name they did not get, and every charge became an order or was
 *   refunded (sandbox payment references say whether a charge succeeded);
 * - `ledger verify` passes;
 * - the reservation rule (src/domain/Reservation.ts): while a partner's quote holds a name, every
 *   other channel is refused with 409 (`details.held_until` on the JSON endpoints, "reserved
 *   until" on the pages) and nothing is charged; otherwise each step does what the model says.
 *
 * Carts (bulk renew/restore) never take a listing (they renew names their owner already holds),
 * so they are not a channel here. Refunds follow the seller-of-record rule: a partner's
 * `POST /refunds` on its own partner-collected orders, an operator's
 * `POST /api/admin/orders/{id}/refund` on hosted and marketplace sales (whose buyer's money the
 * checkout's reconciliation then sends back; until then the books owe it and `ledger verify`
 * agrees).
 * Quotes last 10 minutes, longer than a run, so a hold never ends mid-run and the model is exact.
 *
 * MODEL_SEED and MODEL_RUNS override the fixed seed and the number of runs; a failure prints the
 * seed and the shrunk sequence of steps.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Runtime } from "effect"
import fc from "fast-check"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
import { CARDS, csrfOf, page, postForm, ptOf } from "../support/CheckoutKit.js"
import { startBuy } from "../support/CheckoutKit.js"
import { request } from "../support/http.js"
import { createPartner, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const SEED = Number(process.env.MODEL_SEED ?? 20_291)
const RUNS = Number(process.env.MODEL_RUNS ?? 6)
const PRICE = 50_000
const BUYERS = ["buyer-one@example.org", "buyer-two@example.org"] as const
const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }

type Step =
  | { readonly kind: "quote"; readonly p: number; readonly n: number }
  | { readonly kind: "order"; readonly p: number; readonly n: number; readonly withQuote: boolean; readonly b: number }
  | { readonly kind: "session"; readonly p: number; readonly n: number }
  | { readonly kind: "pay"; readonly s: number; readonly b: number; readonly card: "ok" | "declined" }
  | { readonly kind: "buy"; readonly n: number; readonly b: number }
  | { readonly kind: "refund"; readonly o: number }
  | { readonly kind: "adminRefund"; readonly o: number }

const who = fc.integer({ min: 0, max: 1 })
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("quote" as const), p: who, n: who }),
  fc.record({ kind: fc.constant("order" as const), p: who, n: who, withQuote: fc.boolean(), b: who }),
  fc.record({ kind: fc.constant("session" as const), p: who, n: who }),
  fc.record({
    kind: fc.constant("pay" as const),
    s: fc.nat(5),
    b: who,
    card: fc.constantFrom("ok" as const, "ok" as const, "declined" as const)
  }),
  fc.record({ kind: fc.constant("buy" as const), n: who, b: who }),
  fc.record({ kind: fc.constant("refund" as const), o: fc.nat(5) }),
  fc.record({ kind: fc.constant("adminRefund" as const), o: fc.nat(5) })
)

/** What the model knows of one name. */
interface NameState {
  hold: { readonly p: number; readonly until: string } | null
  sold: { readonly orderId: string; readonly p: number | "marketplace"; readonly partnerCollected: boolean } | null
  quotes: Array<{ readonly p: number; readonly id: string; used: boolean }>
}

interface SessionState {
  readonly id: string
  readonly p: number
  readonly n: number
  readonly pt: string
  readonly csrf: string
  paid: boolean
}

let run = 0

// Many /buy/ starts from one IP: the buy page's per-IP limits raised out of the way.
layer(TestServer.layer({ RATE_LIMIT_BUY_PAGE: "1000", RATE_LIMIT_BUY_START: "1000" }), { timeout: 240_000 })(
  "sales channels model",
  (it) => {
    it.effect("random interleavings keep every name sold once, every charge accounted for, the books balanced and holds honoured", () =>
      Effect.gen(function*() {
        const runtime = yield* Effect.runtime<TestServer.TestServer | SqlClient.SqlClient>()
        const sql = yield* SqlClient.SqlClient
        const { baseUrl } = yield* TestServer.TestServer
        const partners: ReadonlyArray<IssuedCredential> = [
          yield* createPartner({ environment: "live", scopes: ["buy", "embed"], name: "Model A" }),
          yield* createPartner({ environment: "live", scopes: ["buy", "embed"], name: "Model B" })
        ]

        /** Hosted and marketplace orders an operator refunded (their sessions stay paid until the provider refund). */
        const operatorRefunded = new Set<string>()

        const invariants = (names: ReadonlyArray<string>) =>
          Effect.gen(function*() {
            const open = yield* sql<{ domain: string; n: number }>`
            select domain, count(*)::int as n from partner_orders
            where domain in ${sql.in(names)} and status not in ('REFUNDED', 'CANCELLED') group by domain`
            for (const row of open) expect(row.n, `${row.domain} sold more than once`).toBeLessThanOrEqual(1)
            const charged = yield* sql<
              {
                id: string
                domain: string
                status: string
                buyer_email: string | null
                order_id: string | null
                order_status: string | null
                order_domain: string | null
                order_buyer: string | null
              }
            >`
            select s.id, s.domain, s.status, s.buyer_email, o.id as order_id, o.status as order_status, o.domain as order_domain,
              o.buyer->>'email' as order_buyer
            from checkout_sessions s left join partner_orders o on o.checkout_session_id = s.id
            where s.domain in ${sql.in(names)} and s.payment_ref like '%\\_ok'`
            for (const c of charged) {
              // Every charge became an order or was refunded; a paid buyer holds the name they paid for.
              expect(["paid", "refunded"], `charged session ${c.id} is ${c.status}`).toContain(c.status)
              if (c.status === "paid") {
                expect(c.order_domain).toBe(c.domain)
                expect(c.order_buyer).toBe(c.buyer_email)
                // Its order stands, unless an operator refunded it (the money goes back next run).
                if (c.order_status === "REFUNDED" || c.order_status === "CANCELLED") {
                  expect(operatorRefunded.has(c.order_id!), `order ${c.order_id} reversed`).toBe(true)
                }
              }
            }
            const verify = yield* request("/api/admin/ledger/verify", { headers: ADMIN })
            expect(verify.status).toBe(200)
            expect(verify.json.problems).toEqual([])
            expect(verify.json.ok).toBe(true)
          })

        const quote = (p: number, domain: string) =>
          signed(partners[p]!, "POST", "/api/partner/v1/quotes", { body: { domain } })

        const runSteps = (steps: ReadonlyArray<Step>) =>
          Effect.gen(function*() {
            const tag = `m${++run}x${Date.now().toString(36)}`
            const names = [`${tag}-one.co`, `${tag}-two.co`]
            yield* seedListings(names.map((domain) => ({ domain, bin: PRICE, environment: "live" as const })))
            const state: Array<NameState> = names.map(() => ({ hold: null, sold: null, quotes: [] }))
            const sessions: Array<SessionState> = []
            const heldAgainst = (n: number, claimant: number | "marketplace") => {
              const h = state[n]!.hold
              return h !== null && h.p !== claimant ? h : null
            }
            const expectHeld = (reply: { status: number; json: any }, until: string) => {
              expect(reply.status).toBe(409)
              expect(reply.json.error.code).toBe("conflict")
              expect(reply.json.error.details).toEqual({ held_until: until })
            }

            for (const step of steps) {
              switch (step.kind) {
                case "quote": {
                  const s = state[step.n]!
                  const r = yield* quote(step.p, names[step.n]!)
                  const held = heldAgainst(step.n, step.p)
                  if (s.sold !== null) expect(r.status).toBe(409)
                  else if (held !== null) expectHeld(r, held.until)
                  else {
                    expect(r.status).toBe(201)
                    const until = r.json.expires_at as string
                    s.hold = { p: step.p, until: s.hold !== null && s.hold.until > until ? s.hold.until : until }
                    s.quotes.push({ p: step.p, id: r.json.quote_id, used: false })
                  }
                  break
                }
                case "order": {
                  const s = state[step.n]!
                  const q = step.withQuote ? s.quotes.find((x) => x.p === step.p && !x.used) : undefined
                  const r = yield* signed(partners[step.p]!, "POST", "/api/partner/v1/orders", {
                    body: {
                      domain: names[step.n],
                      expected_price: PRICE,
                      currency: "USD",
                      external_payment_ref: `ext-${crypto.randomUUID()}`,
                      buyer: { email: BUYERS[step.b] },
                      ...(q ? { quote_id: q.id } : {})
                    },
                    headers: { "idempotency-key": crypto.randomUUID() }
                  })
                  const held = heldAgainst(step.n, step.p)
                  if (s.sold !== null) expect(r.status).toBe(409)
                  else if (held !== null) expectHeld(r, held.until)
                  else {
                    expect(r.status, r.text).toBe(201)
                    s.sold = { orderId: r.json.public_id, p: step.p, partnerCollected: true }
                    s.hold = null
                    if (q) q.used = true
                  }
                  break
                }
                case "session": {
                  const s = state[step.n]!
                  const r = yield* signed(partners[step.p]!, "POST", "/api/partner/v1/checkout-session", {
                    body: { domain: names[step.n] }
                  })
                  const held = heldAgainst(step.n, step.p)
                  if (s.sold !== null) expect(r.status).toBe(409)
                  else if (held !== null) expectHeld(r, held.until)
                  else {
                    expect(r.status, r.text).toBe(201)
                    const pt = ptOf(r.json.checkout_url)
                    const shown = yield* page(`/checkout?pt=${encodeURIComponent(pt)}`)
                    expect(shown.status).toBe(200)
                    sessions.push({ id: r.json.id, p: step.p, n: step.n, pt, csrf: csrfOf(shown.text), paid: false })
                  }
                  break
                }
                case "pay": {
                  const open = sessions.filter((x) => !x.paid)
                  if (open.length === 0) break
                  const session = open[step.s % open.length]!
                  const s = state[session.n]!
                  const held = heldAgainst(session.n, session.p)
                  const shown = yield* page(`/checkout?pt=${encodeURIComponent(session.pt)}`)
                  if (held !== null && s.sold === null) {
                    // The page says so and offers no payment form.
                    expect(shown.status).toBe(409)
                    expect(shown.text).toContain(`reserved until ${held.until}`)
                    expect(shown.text).not.toContain("name=\"card_number\"")
                  }
                  // The buyer posts the form they opened earlier.
                  const r = yield* postForm(`/checkout/pay?pt=${encodeURIComponent(session.pt)}`, {
                    csrf: session.csrf,
                    email: BUYERS[step.b]!,
                    name: "Model Buyer",
                    country: "NL",
                    card_number: step.card === "ok" ? CARDS.ok : CARDS.declined,
                    card_exp: "12/34",
                    card_cvc: "123"
                  }, baseUrl)
                  if (s.sold !== null) expect(r.status).toBe(409)
                  else if (held !== null) {
                    expect(r.status).toBe(409)
                    expect(r.text).toContain(`reserved until ${held.until}`)
                  } else if (step.card === "declined") expect(r.status).toBe(402)
                  else {
                    expect(r.status, r.text).toBe(303)
                    const [o] = yield* sql<
                      { id: string }
                    >`select id from partner_orders where checkout_session_id = ${session.id}`
                    s.sold = { orderId: o!.id, p: session.p, partnerCollected: false }
                    s.hold = null
                    session.paid = true
                  }
                  break
                }
                case "buy": {
                  const s = state[step.n]!
                  const opened = yield* startBuy(names[step.n]!)
                  const held = heldAgainst(step.n, "marketplace")
                  if (s.sold !== null) expect(opened.status).toBe(409)
                  else if (held !== null) {
                    expect(opened.status).toBe(409)
                    expect(opened.text).toContain(held.until)
                  } else {
                    expect(opened.status).toBe(303)
                    const pt = ptOf(opened.headers.get("location")!)
                    const shown = yield* page(`/checkout?pt=${encodeURIComponent(pt)}`)
                    const r = yield* postForm(`/checkout/pay?pt=${encodeURIComponent(pt)}`, {
                      csrf: csrfOf(shown.text),
                      email: BUYERS[step.b]!,
                      name: "Model Buyer",
                      country: "NL",
                      card_number: CARDS.ok,
                      card_exp: "12/34",
                      card_cvc: "123"
                    }, baseUrl)
                    expect(r.status, r.text).toBe(303)
                    const [o] = yield* sql<{ id: string }>`
                    select o.id from partner_orders o join checkout_sessions c on c.id = o.checkout_session_id
                    where o.domain = ${names[step.n]} and o.status = 'PAID' and c.kind = 'marketplace'`
                    s.sold = { orderId: o!.id, p: "marketplace", partnerCollected: false }
                  }
                  break
                }
                case "refund": {
                  const refundable = state.flatMap((s, n) => (s.sold?.partnerCollected ? [{ s, n }] : []))
                  if (refundable.length === 0) break
                  const { s } = refundable[step.o % refundable.length]!
                  const sold = s.sold!
                  const r = yield* signed(partners[sold.p as number]!, "POST", "/api/partner/v1/refunds", {
                    body: { order_id: sold.orderId, reason: "model" }
                  })
                  expect(r.status, r.text).toBe(201)
                  s.sold = null
                  break
                }
                case "adminRefund": {
                  const refundable = state.flatMap((s) => (s.sold && !s.sold.partnerCollected ? [s] : []))
                  if (refundable.length === 0) break
                  const s = refundable[step.o % refundable.length]!
                  const r = yield* request(`/api/admin/orders/${s.sold!.orderId}/refund`, {
                    method: "POST",
                    headers: ADMIN,
                    body: { reason: "model" }
                  })
                  expect(r.status, r.text).toBe(201)
                  expect(r.json.status).toBe("REFUNDED")
                  operatorRefunded.add(s.sold!.orderId)
                  s.sold = null
                  break
                }
              }
              yield* invariants(names)
            }
          })

        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.array(stepArb, { minLength: 4, maxLength: 14 }),
              (steps) => Runtime.runPromise(runtime)(runSteps(steps))
            ),
            { seed: SEED, numRuns: RUNS, endOnFailure: true }
          )
        )
        // The fixed seed reaches an operator refund (another seed may not).
        if (process.env.MODEL_SEED === undefined) expect(operatorRefunded.size).toBeGreaterThan(0)
      }))
  }
)
