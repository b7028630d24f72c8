/**
 * Referrals through HTTP: links (affiliates only), the click redirect and its cookie, unique
 * clicks, attribution at the seam the buy page uses (window, last click wins across partners),
 * referral sales written the way the hosted checkout writes them, refunds reversing commission,
 * settlement and payout in the commission ledger, the funnel, windows, paging and isolation.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { ForbiddenError } from "../../src/platform/http/Errors.js"
import { InvalidCursor } from "../../src/platform/http/PageCursor.js"
import { InvalidLinkRequest, InvalidReportQuery, ReferralLinkNotFound } from "../../src/referrals/Errors.js"
import { apiClient } from "../support/ApiClient.js"
import { request } from "../support/http.js"
import { createPartner, expectError, signed, waitUntil } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"
import { checkoutStarted, follow, moveOrder, paidReferralSale, resolve } from "./ReferralKit.js"

/** The admin endpoints through the typed client (Bearer ADMIN_TOKEN). */
const adminClient = apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN })
const DAY = 86_400_000
const today = () => new Date().toISOString().slice(0, 10)

layer(TestServer.layer({ REFERRAL_FLUSH_INTERVAL: "50 millis", PAYOUT_MINIMUM_CENTS: "100", TRUST_PROXY: "1" }), {
  timeout: 120_000
})("referrals", (it) => {
  it.effect("only affiliates make links; kinds, validation, redirects, cookie, 404 page, paging", () =>
    Effect.gen(function*() {
      // Raw: NotAnAffiliate (403 forbidden) decodes as PartnerAuth's generic Forbidden in the typed
      // client, which is declared before it, so the wire code and message are asserted.
      const plain = yield* createPartner({ scopes: ["refer", "report"] })
      const denied = expectError(
        yield* signed(plain, "POST", "/api/partner/v1/links", { body: { kind: "generic" } }),
        403,
        "forbidden"
      )
      expect(denied.message).toMatch(/affiliate/)
      expectError(yield* signed(plain, "GET", "/api/partner/v1/analytics"), 403, "forbidden")
      const noScope = yield* apiClient({ partner: yield* createPartner({ scopes: ["report"], affiliate: true }) })
      const noRefer = yield* Effect.flip(noScope.partnerReferrals.createLink({ payload: { kind: "generic" } }))
      expect(noRefer).toBeInstanceOf(ForbiddenError)
      expect(noRefer).toMatchObject({ code: "forbidden" })

      const aff = yield* createPartner({ scopes: ["refer", "report"], affiliate: true })
      const client = yield* apiClient({ partner: aff })
      // Raw: the 201 and the exact key set of the wire object (decoding drops unknown keys).
      const generic = yield* signed(aff, "POST", "/api/partner/v1/links", {
        body: { kind: "generic", campaign: "newsletter" }
      })
      expect(generic.status, generic.text).toBe(201)
      expect(Object.keys(generic.json).sort()).toEqual([
        "campaign",
        "code",
        "created_at",
        "domain",
        "id",
        "kind",
        "product",
        "url"
      ])
      expect(generic.json).toMatchObject({ kind: "generic", domain: null, product: null, campaign: "newsletter" })
      expect(generic.json.id).toMatch(/^lnk_/)
      expect(generic.json.code).toMatch(/^[0-9A-Za-z]{10}$/)
      expect(generic.json.url).toMatch(new RegExp(`/r/${generic.json.code}$`))
      const domain = yield* client.partnerReferrals.createLink({
        payload: { kind: "domain", domain: "Example-Shop.COM" }
      })
      expect(domain).toMatchObject({ kind: "domain", domain: "example-shop.com" })
      const product = yield* client.partnerReferrals.createLink({ payload: { kind: "product", product: "whois" } })
      expect(product).toMatchObject({ kind: "product", product: "whois" })
      for (
        const payload of [
          { kind: "domain" },
          { kind: "product" },
          { kind: "generic", product: "search" }
        ] as const
      ) {
        const e = yield* Effect.flip(client.partnerReferrals.createLink({ payload }))
        expect(e, JSON.stringify(payload)).toBeInstanceOf(InvalidLinkRequest)
      }
      // Raw: MalformedDomain and InvalidLinkRequest are both 400 validation_error on createLink,
      // and the typed client decodes either as the first one declared.
      expectError(
        yield* signed(aff, "POST", "/api/partner/v1/links", { body: { kind: "domain", domain: "not a domain" } }),
        400,
        "validation_error"
      )

      // Redirects and the cookie.
      const g = yield* follow(generic.json.code)
      expect(g.reply.status).toBe(302)
      expect(g.reply.headers.get("location")).toBe("/")
      expect(g.setCookie).toMatch(/^mk_ref=[^;]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/)
      // A sandbox link's domain leads to the sandbox purchase page (sandbox inventory and books).
      expect((yield* follow(domain.code)).reply.headers.get("location")).toBe("/buy/example-shop.com?env=sandbox")
      expect((yield* follow(product.code)).reply.headers.get("location")).toBe("/docs/lookup.md")
      const unknown = yield* request("/r/NoSuchCode1")
      expect(unknown.status).toBe(404)
      expect(unknown.headers.get("content-type")).toMatch(/text\/html/)
      expect(unknown.text).toContain("Link not found")
      expect(unknown.headers.get("set-cookie")).toBeNull()

      // A forged or altered cookie attributes nothing.
      expect(Option.isSome(yield* resolve(g.cookie, new Date()))).toBe(true)
      expect(yield* resolve(g.cookie!.replace(/.$/, (c) => (c === "A" ? "B" : "A")), new Date())).toEqual(Option.none())
      expect(yield* resolve("garbage", new Date())).toEqual(Option.none())

      // Paging: newest first, a signed cursor.
      const p1 = yield* client.partnerReferrals.listLinks({ urlParams: { limit: 2 } })
      expect(p1.links.map((l) => l.id)).toEqual([product.id, domain.id])
      expect(p1.next_cursor).toEqual(expect.any(String))
      const p2 = yield* client.partnerReferrals.listLinks({ urlParams: { limit: 2, cursor: p1.next_cursor ?? "" } })
      expect(p2.links.map((l) => l.id)).toEqual([generic.json.id])
      expect(p2.next_cursor).toBeNull()
      expect(yield* Effect.flip(client.partnerReferrals.listLinks({ urlParams: { cursor: "forged" } }))).toBeInstanceOf(
        InvalidCursor
      )
    }))

  it.effect("unique clicks: bots and repeats are recorded, not unique; stats per link; report windows", () =>
    Effect.gen(function*() {
      const client = yield* apiClient({
        partner: yield* createPartner({ scopes: ["refer", "report"], affiliate: true })
      })
      const link = yield* client.partnerReferrals.createLink({ payload: { kind: "generic" } })
      yield* follow(link.code, { ip: "203.0.113.1" })
      yield* follow(link.code, { ip: "203.0.113.1" }) // repeat
      yield* follow(link.code, { ip: "203.0.113.2" })
      yield* follow(link.code, { ip: "203.0.113.3", ua: "Googlebot/2.1 (+http://www.google.com/bot.html)" })
      yield* follow(link.code, { ip: "203.0.113.4", ua: "curl/8.5.0" })
      // A typed success is the endpoint's one success status (200), decoded.
      const report = yield* waitUntil(
        Effect.orDie(client.partnerReferrals.myClicks({ urlParams: {} })),
        (r) => r.clicks === 5
      )
      expect(report).toMatchObject({ to: today(), clicks: 5, unique_clicks: 2 })
      expect(report.by_day).toHaveLength(30)
      expect(report.by_day.at(-1)).toEqual({ date: today(), clicks: 5, unique_clicks: 2 })
      const byLink = yield* client.partnerReferrals.myClicks({
        urlParams: { link_id: link.id, from: today(), to: today() }
      })
      expect(byLink).toEqual({
        from: today(),
        to: today(),
        clicks: 5,
        unique_clicks: 2,
        by_day: [{ date: today(), clicks: 5, unique_clicks: 2 }]
      })
      const links = yield* client.partnerReferrals.listLinks({ urlParams: {} })
      expect(links.links[0]).toMatchObject({
        id: link.id,
        clicks: 5,
        unique_clicks: 2,
        sales: 0,
        gmv_cents: 0,
        commission_cents: 0
      })

      // Stored: hashed IPs (never the address), user agent, bot flag.
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<
        any
      >`select ip_hash, user_agent, bot, is_unique from referral_clicks where link_id = ${link.id} order by id`
      expect(rows.map((r) => [r.bot, r.is_unique])).toEqual([[false, true], [false, false], [false, true], [
        true,
        false
      ], [true, false]])
      expect(rows.every((r) => /^[0-9a-f]{32}$/.test(r.ip_hash))).toBe(true)
      expect(rows[0].ip_hash).toBe(rows[1].ip_hash)
      expect(rows[0].ip_hash).not.toBe(rows[2].ip_hash)
      expect(JSON.stringify(rows)).not.toContain("203.0.113")

      // Windows: bad, inverted, too long → 400.
      const analytics = (urlParams: { readonly from?: string; readonly to?: string }) =>
        client.partnerReferrals.analytics({ urlParams })
      for (const window of [{ from: "yesterday" }, { from: "2026-02-30" }, { from: "2026-03-02", to: "2026-03-01" }]) {
        expect(yield* Effect.flip(analytics(window)), JSON.stringify(window)).toBeInstanceOf(InvalidReportQuery)
      }
      expect(
        yield* Effect.flip(client.partnerReferrals.mySales({ urlParams: { from: "2024-01-01", to: "2026-01-01" } }))
      ).toBeInstanceOf(InvalidReportQuery)
      expect(yield* Effect.flip(client.partnerReferrals.myClicks({ urlParams: { to: "2026-13-01" } }))).toBeInstanceOf(
        InvalidReportQuery
      )
      const ok = yield* analytics({ from: "2026-01-01T10:00:00Z", to: "2026-01-03" })
      expect(ok).toMatchObject({ from: "2026-01-01", to: "2026-01-03", clicks: 0, conversion_rate: 0 })
      expect(ok.series.map((d) => d.date)).toEqual(["2026-01-01", "2026-01-02", "2026-01-03"])
    }))

  it.effect("attribution: inside the window, not outside; a later click on another partner's link wins", () =>
    Effect.gen(function*() {
      const a = yield* createPartner({ scopes: ["refer", "report"], affiliate: true })
      const b = yield* createPartner({ scopes: ["refer", "report"], affiliate: true })
      const ca = yield* apiClient({ partner: a })
      const cb = yield* apiClient({ partner: b })
      const linkA = yield* ca.partnerReferrals.createLink({ payload: { kind: "domain", domain: "alpha.com" } })
      const linkB = yield* cb.partnerReferrals.createLink({ payload: { kind: "generic" } })
      const clickA = yield* follow(linkA.code)
      const now = Date.now()
      const attrA = yield* resolve(clickA.cookie, new Date(now + 29 * DAY))
      expect(Option.getOrThrow(attrA)).toMatchObject({
        partnerId: a.partner_id,
        linkId: linkA.id,
        environment: "sandbox"
      })
      expect(Option.getOrThrow(attrA).clickId).toMatch(/^clk_/)
      // Outside REFERRAL_WINDOW_DAYS (30): not attributed.
      expect(yield* resolve(clickA.cookie, new Date(now + 31 * DAY))).toEqual(Option.none())
      // The browser keeps the latest cookie: B's link clicked later wins.
      const clickB = yield* follow(linkB.code)
      expect(Option.getOrThrow(yield* resolve(clickB.cookie, new Date()))).toMatchObject({
        partnerId: b.partner_id,
        linkId: linkB.id
      })

      // A purchase inside A's window: the checkout records a referral sale for A.
      yield* checkoutStarted(Option.getOrThrow(attrA), "cs_test_a1", "alpha.com")
      yield* checkoutStarted(Option.getOrThrow(attrA), "cs_test_a1", "alpha.com") // same session once
      const orderId = yield* paidReferralSale(Option.getOrThrow(attrA), "alpha.com", 200_000)
      // A typed success is the endpoint's one success status (200), decoded.
      const sales = yield* ca.partnerReferrals.mySales({ urlParams: {} })
      expect(sales.sales).toHaveLength(1)
      expect(sales.sales[0]).toMatchObject({
        order_id: orderId,
        domain: "alpha.com",
        link_id: linkA.id,
        sale_price_cents: 200_000,
        commission_cents: 20_000,
        status: "EXTERNALLY_PAID"
      })
      expect(sales.sales[0]!.id).toMatch(/^ltx_/)
      expect(sales.totals).toEqual({ count: 1, gmv_cents: 200_000, commission_cents: 20_000 })
      const analytics = yield* waitUntil(
        Effect.orDie(ca.partnerReferrals.analytics({ urlParams: {} })),
        (r) => r.clicks === 1
      )
      expect(analytics).toMatchObject({
        clicks: 1,
        unique_clicks: 1,
        checkouts_started: 1,
        sales: 1,
        conversion_rate: 1,
        gmv_cents: 200_000,
        commission_cents: 20_000
      })
      expect(analytics.series.at(-1)).toEqual({
        date: today(),
        clicks: 1,
        unique_clicks: 1,
        checkouts_started: 1,
        sales: 1,
        gmv_cents: 200_000,
        commission_cents: 20_000
      })

      // One affiliate never sees another's links, clicks or sales.
      expect((yield* cb.partnerReferrals.listLinks({ urlParams: {} })).links.map((l) => l.id)).toEqual([linkB.id])
      expect(yield* Effect.flip(cb.partnerReferrals.myClicks({ urlParams: { link_id: linkA.id } }))).toBeInstanceOf(
        ReferralLinkNotFound
      )
      expect(yield* Effect.flip(cb.partnerReferrals.mySales({ urlParams: { link_id: linkA.id } }))).toBeInstanceOf(
        ReferralLinkNotFound
      )
      expect(yield* cb.partnerReferrals.mySales({ urlParams: {} })).toEqual({
        sales: [],
        totals: { count: 0, gmv_cents: 0, commission_cents: 0 },
        next_cursor: null
      })
      expect((yield* cb.partnerReferrals.myCommissions({ urlParams: {} })).entries).toEqual([])
      const analyticsB = yield* waitUntil(
        Effect.orDie(cb.partnerReferrals.analytics({ urlParams: {} })),
        (r) => r.clicks === 1
      )
      expect(analyticsB).toMatchObject({ clicks: 1, checkouts_started: 0, sales: 0, gmv_cents: 0 })
    }))

  it.effect("commission ledger: accrued, reversed by a refund, payable at settlement, paid out; running balance oldest first", () =>
    Effect.gen(function*() {
      const a = yield* createPartner({ scopes: ["refer", "report"], affiliate: true })
      const client = yield* apiClient({ partner: a })
      const admin = yield* adminClient
      const link = yield* client.partnerReferrals.createLink({ payload: { kind: "generic" } })
      const attr = Option.getOrThrow(yield* resolve((yield* follow(link.code)).cookie, new Date()))
      const refunded = yield* paidReferralSale(attr, "refund-me.com", 100_000)
      const kept = yield* paidReferralSale(attr, "keep-me.com", 300_000)
      yield* moveOrder(refunded, "refund")
      yield* moveOrder(kept, "start_transfer")
      yield* moveOrder(kept, "confirm_delivery")
      // Typed successes: each endpoint's one success status (200), decoded.
      yield* admin.adminMoney.runSettlement({ urlParams: { as_of: new Date(Date.now() + 8 * DAY).toISOString() } })
      const payouts = yield* admin.adminMoney.runPayouts()
      expect(payouts.payouts.filter((p) => p.partner_id === a.partner_id)).toMatchObject([{
        amount_cents: 30_000,
        status: "paid"
      }])

      const c = yield* client.partnerReferrals.myCommissions({ urlParams: {} })
      expect(c.entries.map((e) => [e.kind, e.amount_cents, e.balance_cents, e.order_id])).toEqual([
        ["accrued", 10_000, 10_000, refunded],
        ["accrued", 30_000, 40_000, kept],
        ["reversed", -10_000, 30_000, refunded],
        ["payable", 30_000, 30_000, kept],
        ["paid_out", -30_000, 0, null]
      ])
      expect(c.entries[4]!.payout_id).toMatch(/^po_/)
      expect(c.balance).toEqual({
        accrued_cents: 0,
        payable_cents: 0,
        paid_out_cents: 30_000,
        reversed_cents: 10_000
      })
      // Paging keeps the running balance.
      const p1 = yield* client.partnerReferrals.myCommissions({ urlParams: { limit: 3 } })
      expect(p1.entries).toHaveLength(3)
      const p2 = yield* client.partnerReferrals.myCommissions({ urlParams: { limit: 3, cursor: p1.next_cursor ?? "" } })
      expect(p2.entries.map((e) => e.balance_cents)).toEqual([30_000, 0])
      expect(p2.next_cursor).toBeNull()

      // The refunded sale is out of the totals and the funnel; listed with its status.
      const sales = yield* client.partnerReferrals.mySales({ urlParams: {} })
      expect(sales.sales.map((s) => s.status).sort()).toEqual(["REFUNDED", "SETTLED"])
      expect(sales.totals).toEqual({ count: 1, gmv_cents: 300_000, commission_cents: 30_000 })
      const analytics = yield* client.partnerReferrals.analytics({ urlParams: {} })
      expect(analytics).toMatchObject({ sales: 1, gmv_cents: 300_000, commission_cents: 30_000 })
      const links = yield* client.partnerReferrals.listLinks({ urlParams: {} })
      expect(links.links[0]).toMatchObject({ sales: 1, gmv_cents: 300_000, commission_cents: 30_000 })
      const verify = yield* admin.adminMoney.verifyLedger()
      expect(verify.problems, JSON.stringify(verify)).toEqual([])
    }))
})
