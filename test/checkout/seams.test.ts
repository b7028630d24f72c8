/**
 * The checkout's seams, through its service with stand-in layers over a real server's database:
 * - referrals: `/buy/`'s session resolves the `mk_ref` cookie, reports the checkout started, and
 *   the paid session becomes a referral order of the referring partner (payment_model
 *   "referral", referral_link_id), with that partner's commission accrued;
 * - carts: `CartCheckout.open` is idempotent per cart, the cart's page is the same page, and
 *   paying it calls `CartFulfilment.paid` (in the payment's transaction), then `committed` (after
 *   it, to wake the cart's job), and creates no order.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { CartCheckout, CartFulfilment } from "../../src/checkout/Cart.js"
import { CartCheckoutLive, Checkout } from "../../src/checkout/Checkout.js"
import { PaymentProviders } from "../../src/checkout/PaymentProvider.js"
import { ReferralAttribution } from "../../src/referrals/Attribution.js"
import { CARDS, ordersOfSession, page, payWith, ptOf } from "../support/CheckoutKit.js"
import { createPartner, seedListings } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const started: Array<{ sessionId: string; domain: string; linkId: string }> = []
const fulfilled: Array<{ cartId: string; sessionId: string }> = []
let referrer = ""

const StubReferrals = Layer.succeed(ReferralAttribution, {
  resolve: (cookie) =>
    Effect.succeed(
      cookie === "click-1"
        ? Option.some({
          partnerId: referrer,
          environment: "live" as const,
          linkId: "lnk_test1",
          clickId: "clk_1",
          visitorId: "clk_1"
        })
        : cookie === "sandbox-click"
        ? Option.some({
          partnerId: referrer,
          environment: "sandbox" as const,
          linkId: "lnk_test2",
          clickId: "clk_2",
          visitorId: "clk_2"
        })
        : Option.none()
    ),
  checkoutStarted: (a, input) => Effect.sync(() => void started.push({ ...input, linkId: a.linkId }))
})
/** What the seam saw after each commit: the session's status as any other connection reads it. */
const committed: Array<{ cartId: string; status: string | undefined }> = []
const RecordingFulfilment = Layer.effect(
  CartFulfilment,
  Effect.map(SqlClient.SqlClient, (sql) => ({
    paid: (input: { readonly cartId: string; readonly sessionId: string }) =>
      Effect.sync(() => void fulfilled.push(input)),
    committed: (input: { readonly cartId: string; readonly sessionId: string }) =>
      sql<{ status: string }>`select status from checkout_sessions where id = ${input.sessionId}`.pipe(
        Effect.map((rows) => void committed.push({ cartId: input.cartId, status: rows[0]?.status })),
        Effect.orDie
      )
  }))
)

/** The checkout service with stand-ins, over the server's database and services. */
const CheckoutWithStandIns = Layer.provideMerge(CartCheckoutLive, Checkout.layer).pipe(
  Layer.provide(Layer.mergeAll(PaymentProviders.Test, StubReferrals, RecordingFulfilment))
)

// The whole service is in the layer's context (Orders, AppConfig, …): the stand-in checkout is built over it.
layer(TestServer.layer() as Layer.Layer<any>)("checkout seams", (it) => {
  it.effect("referral: the buy page's attribution makes the paid order a referral sale of the referring partner", () =>
    Effect.gen(function*() {
      const partner = yield* createPartner({ environment: "live", scopes: ["refer", "report"], affiliate: true })
      referrer = partner.partner_id
      yield* seedListings([{ domain: "referred-sale.com", environment: "live", bin: 200_000 }])
      const checkout = yield* Checkout
      const session = yield* checkout.openForMarketplace("live", "referred-sale.com", "click-1")
      expect(session).toMatchObject({
        kind: "marketplace",
        referral_partner_id: referrer,
        referral_link_id: "lnk_test1",
        referral_click_id: "clk_1"
      })
      expect(started).toContainEqual({ sessionId: session.id, domain: "referred-sale.com", linkId: "lnk_test1" })
      const paid = yield* payWith(ptOf(checkout.checkoutPath(session)), CARDS.ok)
      expect(paid.status).toBe(303)
      const [order] = yield* ordersOfSession(session.id)
      expect(order).toMatchObject({
        status: "PAID",
        payment_model: "referral",
        partner_id: referrer,
        referral_link_id: "lnk_test1"
      })
      expect(Number(order!.commission_cents)).toBe(20_000)
      const sql = yield* SqlClient.SqlClient
      const [accrued] = yield* sql<{ n: string }>`
        select coalesce(sum(amount_cents), 0) as n from ledger_entries where partner_id = ${referrer} and account = 'commission_accrued'`
      expect(Number(accrued!.n)).toBe(-20_000)
      // Without the cookie: the marketplace's own sale.
      yield* seedListings([{ domain: "unreferred-sale.com", environment: "live" }])
      const plain = yield* checkout.openForMarketplace("live", "unreferred-sale.com", "unknown-click")
      expect(plain.referral_partner_id).toBeNull()
      // A sandbox link's click attributes nothing on the live page.
      yield* seedListings([{ domain: "crossed-sale.com", environment: "live" }])
      const crossed = yield* checkout.openForMarketplace("live", "crossed-sale.com", "sandbox-click")
      expect(crossed.referral_partner_id).toBeNull()
    }).pipe(Effect.provide(CheckoutWithStandIns)))

  it.effect("cart: one session per cart, the same page, paying fulfils the cart and creates no order", () =>
    Effect.gen(function*() {
      const carts = yield* CartCheckout
      const checkout = yield* Checkout
      const cart = {
        cartId: "cart_test_1",
        userId: "usr_1",
        buyerEmail: "owner@example.org",
        currency: "USD",
        items: [{ domain: "mine-one.com", op: "renew" as const, years: 1, priceCents: 1_500 }, {
          domain: "mine-two.net",
          op: "restore" as const,
          years: 1,
          priceCents: 8_500
        }],
        totalCents: 10_000
      }
      const first = yield* carts.open(cart)
      const again = yield* carts.open(cart)
      expect(again).toEqual(first)
      expect(first.checkoutPath.startsWith("/checkout?pt=")).toBe(true)
      const shown = yield* page(first.checkoutPath)
      expect(shown.status).toBe(200)
      expect(shown.text).toContain("$100.00")
      expect(shown.text).toContain("Renewals and restores")
      const result = yield* checkout.pay(first.sessionId, {
        email: "owner@example.org",
        name: "Owner",
        country: "DE",
        cardNumber: CARDS.ok,
        cardExp: "12/34",
        cardCvc: "123"
      })
      expect(result._tag).toBe("Paid")
      expect(fulfilled).toEqual([{ cartId: "cart_test_1", sessionId: first.sessionId }])
      // The cart job's workers are woken once the payment is committed (not at their next poll).
      expect(committed).toEqual([{ cartId: "cart_test_1", status: "paid" }])
      expect(yield* ordersOfSession(first.sessionId)).toHaveLength(0)
      // Completing again (a webhook, reconciliation) fulfils nothing twice.
      const s = Option.getOrThrow(yield* checkout.byId(first.sessionId))
      yield* checkout.complete(s.id, s.payment_ref!)
      expect(fulfilled).toHaveLength(1)
      expect(committed).toHaveLength(1)
      expect(yield* Effect.either(carts.open({ ...cart, cartId: "cart_empty", items: [], totalCents: 0 })))
        .toMatchObject({ _tag: "Left" })
    }).pipe(Effect.provide(CheckoutWithStandIns)))
})
