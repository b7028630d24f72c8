/**
 * Referrals through HTTP: links (affiliates only), the click redirect and its cookie, unique
 * clicks, attribution at the seam the buy page uses (window, last click wins across partners),
 * referral sales written the way the hosted checkout writes them, refunds reversing commission,
 * settlement and payout in the commission ledger, the funnel, windows, paging and isolation.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { post, request } from "../support/http.js"
import { createPartner, expectError, signed, waitUntil } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"
import { checkoutStarted, follow, moveOrder, paidReferralSale, resolve } from "./ReferralKit.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
const DAY = 86_400_000
const today = () => new Date().toISOString().slice(0, 10)

layer(TestServer.layer({ REFERRAL_FLUSH_INTERVAL: "50 millis", PAYOUT_MINIMUM_CENTS: "100", TRUST_PROXY: "1" }), {
  timeout: 120_000
})("referrals", (it) => {
  it.effect("only affiliates make links; kinds, validation, redirects, cookie, 404 page, paging", () =>
    Effect.gen(function*() {
      const plain = yield* createPartner({ scopes: ["refer", "report"] })
      const denied = expectError(
        yield* signed(plain, "POST", "/api/partner/v1/links", { body: { kind: "generic" } }),
        403,
        "forbidden"
      )
      expect(denied.message).toMatch(/affiliate/)
      expectError(yield* signed(plain, "GET", "/api/partner/v1/analytics"), 403, "forbidden")
      const noScope = yield* createPartner({ scopes: ["report"], affiliate: true })
      expectError(
        yield* signed(noScope, "POST", "/api/partner/v1/links", { body: { kind: "generic" } }),
        403,
        "forbidden"
      )

      const aff = yield* createPartner({ scopes: ["refer", "report"], affiliate: true })
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
      const domain = yield* signed(aff, "POST", "/api/partner/v1/links", {
        body: { kind: "domain", domain: "Example-Shop.COM" }
      })
      expect(domain.json).toMatchObject({ kind: "domain", domain: "example-shop.com" })
      const product = yield* signed(aff, "POST", "/api/partner/v1/links", {
        body: { kind: "product", product: "whois" }
      })
      expect(product.json).toMatchObject({ kind: "product", product: "whois" })
      expectError(
        yield* signed(aff, "POST", "/api/partner/v1/links", { body: { kind: "domain" } }),
        400,
        "validation_error"
      )
      expectError(
        yield* signed(aff, "POST", "/api/partner/v1/links", { body: { kind: "domain", domain: "not a domain" } }),
        400,
        "validation_error"
      )
      expectError(
        yield* signed(aff, "POST", "/api/partner/v1/links", { body: { kind: "product" } }),
        400,
        "validation_error"
      )
      expectError(
        yield* signed(aff, "POST", "/api/partner/v1/links", { body: { kind: "generic", product: "search" } }),
        400,
        "validation_error"
      )

      // Redirects and the cookie.
      const g = yield* follow(generic.json.code)
      expect(g.reply.status).toBe(302)
      expect(g.reply.headers.get("location")).toBe("/")
      expect(g.setCookie).toMatch(/^mk_ref=[^;]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/)
      expect((yield* follow(domain.json.code)).reply.headers.get("location")).toBe("/buy/example-shop.com")
      expect((yield* follow(product.json.code)).reply.headers.get("location")).toBe("/docs/lookup.md")
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
      const p1 = yield* signed(aff, "GET", "/api/partner/v1/links?limit=2")
      expect(p1.json.links.map((l: any) => l.id)).toEqual([product.json.id, domain.json.id])
      expect(p1.json.next_cursor).toEqual(expect.any(String))
      const p2 = yield* signed(
        aff,
        "GET",
        `/api/partner/v1/links?limit=2&cursor=${encodeURIComponent(p1.json.next_cursor)}`
      )
      expect(p2.json.links.map((l: any) => l.id)).toEqual([generic.json.id])
      expect(p2.json.next_cursor).toBeNull()
      expectError(yield* signed(aff, "GET", "/api/partner/v1/links?cursor=forged"), 400, "validation_error")
    }))

  it.effect("unique clicks: bots and repeats are recorded, not unique; stats per link; report windows", () =>
    Effect.gen(function*() {
      const aff = yield* createPartner({ scopes: ["refer", "report"], affiliate: true })
      const link = (yield* signed(aff, "POST", "/api/partner/v1/links", { body: { kind: "generic" } })).json
      yield* follow(link.code, { ip: "203.0.113.1" })
      yield* follow(link.code, { ip: "203.0.113.1" }) // repeat
      yield* follow(link.code, { ip: "203.0.113.2" })
      yield* follow(link.code, { ip: "203.0.113.3", ua: "Googlebot/2.1 (+http://www.google.com/bot.html)" })
      yield* follow(link.code, { ip: "203.0.113.4", ua: "curl/8.5.0" })
      const report = yield* waitUntil(signed(aff, "GET", "/api/partner/v1/me/clicks"), (r) => r.json?.clicks === 5)
      expect(report.status, report.text).toBe(200)
      expect(report.json).toMatchObject({ to: today(), clicks: 5, unique_clicks: 2 })
      expect(report.json.by_day).toHaveLength(30)
      expect(report.json.by_day.at(-1)).toEqual({ date: today(), clicks: 5, unique_clicks: 2 })
      const byLink = yield* signed(
        aff,
        "GET",
        `/api/partner/v1/me/clicks?link_id=${link.id}&from=${today()}&to=${today()}`
      )
      expect(byLink.json).toEqual({
        from: today(),
        to: today(),
        clicks: 5,
        unique_clicks: 2,
        by_day: [{ date: today(), clicks: 5, unique_clicks: 2 }]
      })
      const links = yield* signed(aff, "GET", "/api/partner/v1/links")
      expect(links.json.links[0]).toMatchObject({
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
      expectError(yield* signed(aff, "GET", "/api/partner/v1/analytics?from=yesterday"), 400, "validation_error")
      expectError(yield* signed(aff, "GET", "/api/partner/v1/analytics?from=2026-02-30"), 400, "validation_error")
      expectError(
        yield* signed(aff, "GET", "/api/partner/v1/analytics?from=2026-03-02&to=2026-03-01"),
        400,
        "validation_error"
      )
      expectError(
        yield* signed(aff, "GET", "/api/partner/v1/me/sales?from=2024-01-01&to=2026-01-01"),
        400,
        "validation_error"
      )
      expectError(yield* signed(aff, "GET", "/api/partner/v1/me/clicks?to=2026-13-01"), 400, "validation_error")
      const ok = yield* signed(aff, "GET", "/api/partner/v1/analytics?from=2026-01-01T10:00:00Z&to=2026-01-03")
      expect(ok.json).toMatchObject({ from: "2026-01-01", to: "2026-01-03", clicks: 0, conversion_rate: 0 })
      expect(ok.json.series.map((d: any) => d.date)).toEqual(["2026-01-01", "2026-01-02", "2026-01-03"])
    }))

  it.effect("attribution: inside the window, not outside; a later click on another partner's link wins", () =>
    Effect.gen(function*() {
      const a = yield* createPartner({ scopes: ["refer", "report"], affiliate: true })
      const b = yield* createPartner({ scopes: ["refer", "report"], affiliate: true })
      const linkA =
        (yield* signed(a, "POST", "/api/partner/v1/links", { body: { kind: "domain", domain: "alpha.com" } })).json
      const linkB = (yield* signed(b, "POST", "/api/partner/v1/links", { body: { kind: "generic" } })).json
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
      const sales = yield* signed(a, "GET", "/api/partner/v1/me/sales")
      expect(sales.status, sales.text).toBe(200)
      expect(sales.json.sales).toHaveLength(1)
      expect(sales.json.sales[0]).toMatchObject({
        order_id: orderId,
        domain: "alpha.com",
        link_id: linkA.id,
        sale_price_cents: 200_000,
        commission_cents: 20_000,
        status: "EXTERNALLY_PAID"
      })
      expect(sales.json.sales[0].id).toMatch(/^ltx_/)
      expect(sales.json.totals).toEqual({ count: 1, gmv_cents: 200_000, commission_cents: 20_000 })
      const analytics = yield* waitUntil(signed(a, "GET", "/api/partner/v1/analytics"), (r) => r.json?.clicks === 1)
      expect(analytics.json).toMatchObject({
        clicks: 1,
        unique_clicks: 1,
        checkouts_started: 1,
        sales: 1,
        conversion_rate: 1,
        gmv_cents: 200_000,
        commission_cents: 20_000
      })
      expect(analytics.json.series.at(-1)).toEqual({
        date: today(),
        clicks: 1,
        unique_clicks: 1,
        checkouts_started: 1,
        sales: 1,
        gmv_cents: 200_000,
        commission_cents: 20_000
      })

      // One affiliate never sees another's links, clicks or sales.
      expect((yield* signed(b, "GET", "/api/partner/v1/links")).json.links.map((l: any) => l.id)).toEqual([linkB.id])
      expectError(yield* signed(b, "GET", `/api/partner/v1/me/clicks?link_id=${linkA.id}`), 404, "not_found")
      expectError(yield* signed(b, "GET", `/api/partner/v1/me/sales?link_id=${linkA.id}`), 404, "not_found")
      expect((yield* signed(b, "GET", "/api/partner/v1/me/sales")).json).toEqual({
        sales: [],
        totals: { count: 0, gmv_cents: 0, commission_cents: 0 },
        next_cursor: null
      })
      expect((yield* signed(b, "GET", "/api/partner/v1/me/commissions")).json.entries).toEqual([])
      const analyticsB = yield* waitUntil(signed(b, "GET", "/api/partner/v1/analytics"), (r) => r.json?.clicks === 1)
      expect(analyticsB.json).toMatchObject({ clicks: 1, checkouts_started: 0, sales: 0, gmv_cents: 0 })
    }))

  it.effect("commission ledger: accrued, reversed by a refund, payable at settlement, paid out; running balance oldest first", () =>
    Effect.gen(function*() {
      const a = yield* createPartner({ scopes: ["refer", "report"], affiliate: true })
      const link = (yield* signed(a, "POST", "/api/partner/v1/links", { body: { kind: "generic" } })).json
      const attr = Option.getOrThrow(yield* resolve((yield* follow(link.code)).cookie, new Date()))
      const refunded = yield* paidReferralSale(attr, "refund-me.com", 100_000)
      const kept = yield* paidReferralSale(attr, "keep-me.com", 300_000)
      yield* moveOrder(refunded, "refund")
      yield* moveOrder(kept, "start_transfer")
      yield* moveOrder(kept, "confirm_delivery")
      const settled = yield* post(
        `/api/admin/settlements/run?as_of=${new Date(Date.now() + 8 * DAY).toISOString()}`,
        undefined,
        ADMIN
      )
      expect(settled.status, settled.text).toBe(200)
      const payouts = yield* post("/api/admin/payouts/run", undefined, ADMIN)
      expect(payouts.json.payouts.filter((p: any) => p.partner_id === a.partner_id)).toMatchObject([{
        amount_cents: 30_000,
        status: "paid"
      }])

      const c = yield* signed(a, "GET", "/api/partner/v1/me/commissions")
      expect(c.status, c.text).toBe(200)
      expect(c.json.entries.map((e: any) => [e.kind, e.amount_cents, e.balance_cents, e.order_id])).toEqual([
        ["accrued", 10_000, 10_000, refunded],
        ["accrued", 30_000, 40_000, kept],
        ["reversed", -10_000, 30_000, refunded],
        ["payable", 30_000, 30_000, kept],
        ["paid_out", -30_000, 0, null]
      ])
      expect(c.json.entries[4].payout_id).toMatch(/^po_/)
      expect(c.json.balance).toEqual({
        accrued_cents: 0,
        payable_cents: 0,
        paid_out_cents: 30_000,
        reversed_cents: 10_000
      })
      // Paging keeps the running balance.
      const p1 = yield* signed(a, "GET", "/api/partner/v1/me/commissions?limit=3")
      expect(p1.json.entries).toHaveLength(3)
      const p2 = yield* signed(
        a,
        "GET",
        `/api/partner/v1/me/commissions?limit=3&cursor=${encodeURIComponent(p1.json.next_cursor)}`
      )
      expect(p2.json.entries.map((e: any) => e.balance_cents)).toEqual([30_000, 0])
      expect(p2.json.next_cursor).toBeNull()

      // The refunded sale is out of the totals and the funnel; listed with its status.
      const sales = yield* signed(a, "GET", "/api/partner/v1/me/sales")
      expect(sales.json.sales.map((s: any) => s.status).sort()).toEqual(["REFUNDED", "SETTLED"])
      expect(sales.json.totals).toEqual({ count: 1, gmv_cents: 300_000, commission_cents: 30_000 })
      const analytics = yield* signed(a, "GET", "/api/partner/v1/analytics")
      expect(analytics.json).toMatchObject({ sales: 1, gmv_cents: 300_000, commission_cents: 30_000 })
      const links = yield* signed(a, "GET", "/api/partner/v1/links")
      expect(links.json.links[0]).toMatchObject({ sales: 1, gmv_cents: 300_000, commission_cents: 30_000 })
      const verify = yield* request("/api/admin/ledger/verify", { headers: ADMIN })
      expect(verify.json.problems, verify.text).toEqual([])
    }))
})
