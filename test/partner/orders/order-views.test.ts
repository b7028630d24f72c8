/**
 * Orders show how they were sold (issue 29, item 12): `payment_model` and the partner's
 * `commission_cents` on the order list and detail, a `payment_model` filter on the list, a
 * brokerage order's deal price and fee apart; and every partner that earns commission (hosted
 * checkout, brokerage, referral) reads `/me/commissions`, affiliate account or not.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { follow } from "../../referrals/ReferralKit.js"
import { apiClient } from "../../support/ApiClient.js"
import { buyAndPay } from "../../support/CheckoutKit.js"
import { CARDS, openSession, payWith, ptOf } from "../../support/CheckoutKit.js"
import { buy, createPartner, expectError, seedListings, signed } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

layer(TestServer.layer({ REFERRAL_FLUSH_INTERVAL: "50 millis" }), { timeout: 180_000 })(
  "orders show how they were sold",
  (it) => {
    it.effect("payment_model and commission_cents on list and detail, the filter, brokerage deal and fee apart, /me/commissions for every earner", () =>
      Effect.gen(function*() {
        // Not an affiliate: it sells on its own, through its hosted checkout and through brokerage.
        const seller = yield* createPartner({
          environment: "live",
          scopes: ["search", "buy", "embed", "broker", "report"]
        })
        const affiliate = yield* createPartner({
          environment: "live",
          scopes: ["search", "refer", "report"],
          affiliate: true
        })
        yield* seedListings([
          { domain: "view-collected.com", environment: "live", bin: 40_000 },
          { domain: "view-hosted.com", environment: "live", bin: 50_000 },
          { domain: "view-referred.com", environment: "live", bin: 60_000 }
        ])

        // Partner-collected (default commission 10 %).
        const collected = yield* buy(seller, "view-collected.com", 40_000)
        // The seller's hosted checkout.
        const opened = yield* openSession(seller, { domain: "view-hosted.com" })
        expect(opened.status, opened.text).toBe(201)
        expect((yield* payWith(ptOf(opened.json.checkout_url), CARDS.ok)).status).toBe(303)
        const hosted = (yield* signed(seller, "GET", `/api/partner/v1/checkout-session/${opened.json.id}`)).json.order
          .public_id as string
        // A won brokerage case: deal 1 200 000, fee 15 % = 180 000, the partner's share 20 % = 36 000.
        const created = yield* signed(seller, "POST", "/api/partner/v1/brokerage", {
          body: { domain: "view-brokered.com", tier: "managed", buyer_email: "b@example.org", budget: 1_500_000 }
        })
        expect(created.status, created.text).toBe(201)
        const admin = yield* apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN })
        const advance = (urlParams: { readonly price?: number } = {}) =>
          admin.adminBrokerage.advance({ path: { id: created.json.id }, urlParams })
        for (let i = 0; i < 3; i++) yield* advance()
        yield* advance({ price: 1_200_000 })
        const won = yield* advance()
        const brokered = won.order_id!
        // A referral sale of the affiliate's link.
        const link = yield* signed(affiliate, "POST", "/api/partner/v1/links", {
          body: { kind: "domain", domain: "view-referred.com" }
        })
        expect(link.status, link.text).toBe(201)
        const referral = yield* buyAndPay("view-referred.com", (yield* follow(link.json.code)).cookie)

        // The list: every order says how it was sold and what the partner earns on it.
        const list = yield* signed(seller, "GET", "/api/partner/v1/orders")
        expect(list.status, list.text).toBe(200)
        const byId = new Map(list.json.orders.map((o: { public_id: string }) => [o.public_id, o]))
        expect(byId.get(collected)).toMatchObject({
          payment_model: "partner_collected",
          sale_price_cents: 40_000,
          commission_cents: 4_000,
          brokerage: null
        })
        expect(byId.get(hosted)).toMatchObject({
          payment_model: "hosted_checkout",
          sale_price_cents: 50_000,
          commission_cents: 5_000,
          brokerage: null
        })
        // Brokerage: the sale is the service's fee (unchanged), the deal price and the fee apart.
        expect(byId.get(brokered)).toMatchObject({
          payment_model: "brokerage",
          sale_price_cents: 180_000,
          commission_cents: 36_000,
          brokerage: { case_id: created.json.id, deal_price_cents: 1_200_000, fee_cents: 180_000 }
        })
        // The detail says the same.
        const detail = yield* signed(seller, "GET", `/api/partner/v1/orders/${brokered}`)
        expect(detail.json).toMatchObject({
          payment_model: "brokerage",
          commission_cents: 36_000,
          brokerage: { case_id: created.json.id, deal_price_cents: 1_200_000, fee_cents: 180_000 }
        })
        expect((yield* signed(seller, "GET", `/api/partner/v1/orders/${hosted}`)).json).toMatchObject({
          payment_model: "hosted_checkout",
          commission_cents: 5_000
        })

        // The filter, and the cursor bound to it.
        const only = (model: string) =>
          Effect.map(
            signed(seller, "GET", `/api/partner/v1/orders?payment_model=${model}`),
            (r) => r.json.orders.map((o: { public_id: string }) => o.public_id)
          )
        expect(yield* only("partner_collected")).toEqual([collected])
        expect(yield* only("hosted_checkout")).toEqual([hosted])
        expect(yield* only("brokerage")).toEqual([brokered])
        expect(yield* only("referral")).toEqual([])
        expectError(yield* signed(seller, "GET", "/api/partner/v1/orders?payment_model=cash"), 400, "validation_error")
        const page = yield* signed(seller, "GET", "/api/partner/v1/orders?payment_model=hosted_checkout&limit=1")
        expect(page.json.next_cursor).toBeNull()
        const first = yield* signed(seller, "GET", "/api/partner/v1/orders?limit=1")
        expectError(
          yield* signed(
            seller,
            "GET",
            `/api/partner/v1/orders?limit=1&payment_model=brokerage&cursor=${
              encodeURIComponent(first.json.next_cursor)
            }`
          ),
          400,
          "validation_error"
        )

        // The affiliate's referral sale, as the affiliate lists it.
        const referred = yield* signed(affiliate, "GET", "/api/partner/v1/orders?payment_model=referral")
        expect(referred.status, referred.text).toBe(200)
        expect(referred.json.orders).toHaveLength(1)
        expect(referred.json.orders[0]).toMatchObject({
          public_id: referral.orderId,
          payment_model: "referral",
          sale_price_cents: 60_000,
          commission_cents: 6_000,
          brokerage: null
        })

        // The seller is no affiliate, yet earns commission (checkout, brokerage): it reads its ledger.
        const commissions = yield* signed(seller, "GET", "/api/partner/v1/me/commissions")
        expect(commissions.status, commissions.text).toBe(200)
        expect(
          commissions.json.entries.map((e: { kind: string; order_id: string; amount_cents: number }) => [
            e.kind,
            e.order_id,
            e.amount_cents
          ])
        ).toEqual([["accrued", hosted, 5_000], ["accrued", brokered, 36_000]])
        expect(commissions.json.balance).toMatchObject({ accrued_cents: 41_000 })
        // The affiliate's, as before.
        expect((yield* signed(affiliate, "GET", "/api/partner/v1/me/commissions")).json.balance.accrued_cents).toBe(
          6_000
        )
        // The other referral reports stay affiliate-only.
        expectError(yield* signed(seller, "GET", "/api/partner/v1/me/sales"), 403, "forbidden")
      }))
  }
)
