/**
 * A referral from end to end, as a buyer's browser and the affiliate see it: the affiliate's link,
 * the click (`/r/{code}` sets `mk_ref`), the public buy page with that cookie, a sandbox card
 * payment on the hosted page, then the sale, its commission and the funnel through signed calls.
 * Without the cookie (or with a sandbox link's), the same purchase is the marketplace's own sale.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { apiClient } from "../support/ApiClient.js"
import { CARDS, ordersOfSession, payWith, ptOf } from "../support/CheckoutKit.js"
import { request } from "../support/http.js"
import { createPartner, seedListings } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"
import { follow } from "./ReferralKit.js"

/** Opens `/buy/{domain}` as a browser holding `cookie`; answers the session id and its `pt`. */
const buy = (domain: string, cookie?: string) =>
  Effect.gen(function*() {
    const reply = yield* request(`/buy/${domain}`, cookie ? { headers: { cookie: `mk_ref=${cookie}` } } : {})
    expect(reply.status, reply.text).toBe(303)
    const location = reply.headers.get("location")!
    expect(location).toMatch(/\/checkout\?pt=/)
    return ptOf(location)
  })

/** Pays the session of `domain` with the test card; answers the session's id. */
const payFor = (domain: string, pt: string) =>
  Effect.gen(function*() {
    const paid = yield* payWith(pt, CARDS.ok)
    expect(paid.status, paid.text).toBe(303)
    const sql = yield* SqlClient.SqlClient
    const [session] = yield* sql<
      { id: string; status: string }
    >`select id, status from checkout_sessions where domain = ${domain}`.pipe(Effect.orDie)
    expect(session?.status).toBe("paid")
    return session!.id
  })

layer(TestServer.layer({ REFERRAL_FLUSH_INTERVAL: "50 millis" }), { timeout: 120_000 })(
  "referral through the buy page",
  (it) => {
    it.effect("click, buy with the cookie, pay: a referral sale with its commission in the affiliate's reports", () =>
      Effect.gen(function*() {
        const aff = yield* createPartner({ environment: "live", scopes: ["refer", "report"], affiliate: true })
        yield* seedListings([{ domain: "referred-e2e.com", environment: "live", bin: 150_000 }, {
          domain: "direct-e2e.com",
          environment: "live",
          bin: 90_000
        }])
        const client = yield* apiClient({ partner: aff })
        const [link, created] = yield* client.partnerReferrals.createLink({
          payload: { kind: "domain", domain: "referred-e2e.com" },
          withResponse: true
        })
        expect(created.status).toBe(201)

        const click = yield* follow(link.code)
        expect(click.reply.headers.get("location")).toBe("/buy/referred-e2e.com")
        const sessionId = yield* payFor("referred-e2e.com", yield* buy("referred-e2e.com", click.cookie))
        const [order] = yield* ordersOfSession(sessionId)
        expect(order).toMatchObject({
          status: "PAID",
          payment_model: "referral",
          partner_id: aff.partner_id,
          referral_link_id: link.id
        })

        // Only a 200 decodes as SalePage; anything else fails the call.
        const sales = yield* client.partnerReferrals.mySales({ urlParams: {} })
        expect(sales.sales).toHaveLength(1)
        expect(sales.sales[0]).toMatchObject({
          order_id: order!.id,
          domain: "referred-e2e.com",
          link_id: link.id,
          sale_price_cents: 150_000
        })
        expect(sales.totals).toMatchObject({
          count: 1,
          gmv_cents: 150_000,
          commission_cents: Number(order!.commission_cents)
        })
        expect(Number(order!.commission_cents)).toBeGreaterThan(0)

        const commissions = yield* client.partnerReferrals.myCommissions({ urlParams: {} })
        expect(commissions.balance.accrued_cents).toBe(Number(order!.commission_cents))

        const funnel = yield* client.partnerReferrals.analytics({ urlParams: {} })
        expect(funnel).toMatchObject({ clicks: 1, checkouts_started: 1, sales: 1, gmv_cents: 150_000 })
        const links = yield* client.partnerReferrals.listLinks({ urlParams: {} })
        expect(links.links[0]).toMatchObject({ id: link.id, clicks: 1, sales: 1, gmv_cents: 150_000 })

        // No cookie: the marketplace's own sale, nobody's commission.
        const direct = yield* payFor("direct-e2e.com", yield* buy("direct-e2e.com"))
        const [own] = yield* ordersOfSession(direct)
        expect(own).toMatchObject({ status: "PAID", payment_model: "hosted_checkout", referral_link_id: null })
        expect(own!.partner_id).not.toBe(aff.partner_id)
        expect((yield* client.partnerReferrals.mySales({ urlParams: {} })).sales).toHaveLength(1)
      }))

    it.effect("a sandbox link's click never attributes a live purchase", () =>
      Effect.gen(function*() {
        const sandbox = yield* createPartner({ environment: "sandbox", scopes: ["refer", "report"], affiliate: true })
        yield* seedListings([{ domain: "sandbox-click.com", environment: "live", bin: 80_000 }])
        const [link, created] = yield* (yield* apiClient({ partner: sandbox })).partnerReferrals.createLink({
          payload: { kind: "domain", domain: "sandbox-click.com" },
          withResponse: true
        })
        expect(created.status).toBe(201)
        const click = yield* follow(link.code)
        const sessionId = yield* payFor("sandbox-click.com", yield* buy("sandbox-click.com", click.cookie))
        const [order] = yield* ordersOfSession(sessionId)
        expect(order).toMatchObject({ payment_model: "hosted_checkout", referral_link_id: null })
      }))
  }
)
