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
import { buyThroughPage, CARDS, ordersOfSession, payWith, ptOf } from "../support/CheckoutKit.js"
import { request } from "../support/http.js"
import { createPartner, seedListings } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"
import { follow } from "./ReferralKit.js"

/** Opens `/buy/{domain}` as a browser holding `cookie` and starts the checkout; answers the session's `pt`. */
const buy = (path: string, cookie?: string) =>
  Effect.gen(function*() {
    const { location, shown, started } = yield* buyThroughPage(path, { cookie })
    expect(shown.status, shown.text).toBe(200)
    expect(started.status, started.text).toBe(303)
    expect(location).toMatch(/\/checkout\?pt=/)
    return ptOf(location!)
  })

/** Pays the session of `domain` with the test card; answers the session's id. */
const payFor = (domain: string, pt: string) =>
  Effect.gen(function*() {
    const paid = yield* payWith(pt, CARDS.ok)
    expect(paid.status, paid.text).toBe(303)
    const sql = yield* SqlClient.SqlClient
    const [session] = yield* sql<
      { id: string; status: string }
    >`select id, status from checkout_sessions where domain = ${domain} and status = 'paid'`.pipe(Effect.orDie)
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
        const sessionId = yield* payFor("referred-e2e.com", yield* buy("/buy/referred-e2e.com", click.cookie))
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
        const direct = yield* payFor("direct-e2e.com", yield* buy("/buy/direct-e2e.com"))
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
        const sessionId = yield* payFor("sandbox-click.com", yield* buy("/buy/sandbox-click.com", click.cookie))
        const [order] = yield* ordersOfSession(sessionId)
        expect(order).toMatchObject({ payment_model: "hosted_checkout", referral_link_id: null })
      }))

    it.effect("a sandbox affiliate's link: sandbox page, sandbox card, a sandbox referral sale in /me/sales and /me/commissions", () =>
      Effect.gen(function*() {
        const sandbox = yield* createPartner({ environment: "sandbox", scopes: ["refer", "report"], affiliate: true })
        const client = yield* apiClient({ partner: sandbox })
        // The synthetic sandbox inventory (SANDBOX_INVENTORY, on by default) lists boldharbor-sandbox.dev.
        const sql = yield* SqlClient.SqlClient
        const [listing] = yield* sql<{ bin_price_cents: string }>`
          select bin_price_cents from listings where environment = 'sandbox' and domain = 'boldharbor-sandbox.dev'`
          .pipe(
            Effect.orDie
          )
        const price = Number(listing!.bin_price_cents)
        const link = yield* client.partnerReferrals.createLink({
          payload: { kind: "domain", domain: "boldharbor-sandbox.dev" }
        })
        const click = yield* follow(link.code)
        const destination = click.reply.headers.get("location")!
        expect(destination).toBe("/buy/boldharbor-sandbox.dev?env=sandbox")

        const { location, shown, started } = yield* buyThroughPage(destination, { cookie: click.cookie })
        expect(shown.status, shown.text).toBe(200)
        expect(shown.text).toContain("Buy boldharbor-sandbox.dev")
        expect(shown.text).toMatch(/[Ss]andbox/)
        expect(started.status, started.text).toBe(303)
        const paidSession = yield* payFor("boldharbor-sandbox.dev", ptOf(location!))
        const [session] = yield* sql<{ environment: string; provider: string }>`
          select environment, provider from checkout_sessions where id = ${paidSession}`.pipe(Effect.orDie)
        expect(session).toMatchObject({ environment: "sandbox", provider: "sandbox" })
        const [order] = yield* ordersOfSession(paidSession)
        expect(order).toMatchObject({
          status: "PAID",
          payment_model: "referral",
          partner_id: sandbox.partner_id,
          referral_link_id: link.id
        })
        const commission = Number(order!.commission_cents)
        expect(commission).toBeGreaterThan(0)

        const sales = yield* client.partnerReferrals.mySales({ urlParams: {} })
        expect(sales.sales).toHaveLength(1)
        expect(sales.sales[0]).toMatchObject({
          order_id: order!.id,
          domain: "boldharbor-sandbox.dev",
          link_id: link.id,
          sale_price_cents: price,
          commission_cents: commission
        })
        const commissions = yield* client.partnerReferrals.myCommissions({ urlParams: {} })
        expect(commissions.balance.accrued_cents).toBe(commission)
        expect(commissions.entries[0]).toMatchObject({ kind: "accrued", amount_cents: commission, order_id: order!.id })
        const funnel = yield* client.partnerReferrals.analytics({ urlParams: {} })
        expect(funnel).toMatchObject({ checkouts_started: 1, sales: 1, gmv_cents: price })
        // Sandbox money stays in the sandbox books.
        const [live] = yield* sql<{ n: string }>`
          select count(*) as n from ledger_entries where partner_id = ${sandbox.partner_id} and environment = 'live'`
          .pipe(
            Effect.orDie
          )
        expect(Number(live!.n)).toBe(0)
      }))

    it.effect("live and sandbox never mix: each page sells only its own inventory and credits only its own links", () =>
      Effect.gen(function*() {
        yield* seedListings([
          { domain: "only-live-e2e.com", environment: "live", bin: 60_000 },
          { domain: "only-sandbox-e2e.dev", environment: "sandbox", bin: 40_000 }
        ])
        // A live page never shows sandbox inventory, a sandbox page never shows live inventory.
        expect((yield* request("/buy/only-sandbox-e2e.dev")).status).toBe(404)
        expect((yield* request("/buy/boldharbor-sandbox.dev")).status).toBe(404)
        expect((yield* request("/buy/only-live-e2e.com?env=sandbox")).status).toBe(404)
        // The form of a page opens a session of the page's environment only.
        const sandboxPage = yield* buyThroughPage("/buy/only-sandbox-e2e.dev?env=sandbox")
        expect(sandboxPage.started.status).toBe(303)
        const sql = yield* SqlClient.SqlClient
        const [s] = yield* sql<{ environment: string }>`
          select environment from checkout_sessions where domain = 'only-sandbox-e2e.dev'`.pipe(Effect.orDie)
        expect(s).toMatchObject({ environment: "sandbox" })

        // A live affiliate's click on a sandbox page attributes nothing (and counts no start).
        const liveAff = yield* createPartner({ environment: "live", scopes: ["refer", "report"], affiliate: true })
        const liveClient = yield* apiClient({ partner: liveAff })
        const liveLink = yield* liveClient.partnerReferrals.createLink({ payload: { kind: "generic" } })
        const liveClick = yield* follow(liveLink.code)
        const sandboxSession = yield* payFor(
          "only-sandbox-e2e.dev",
          yield* buy("/buy/only-sandbox-e2e.dev?env=sandbox", liveClick.cookie)
        )
        const [sandboxOrder] = yield* ordersOfSession(sandboxSession)
        expect(sandboxOrder).toMatchObject({ payment_model: "hosted_checkout", referral_link_id: null })
        expect((yield* liveClient.partnerReferrals.analytics({ urlParams: {} })).checkouts_started).toBe(0)
      }))
  }
)
