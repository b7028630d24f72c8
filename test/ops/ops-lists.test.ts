/**
 * The operator console's paged lists (src/ops/Http.ts) through HTTP against the real server, one
 * server for the file: every partner's payouts on /ops/money, the failed cart items on /ops/carts
 * (one from a real renewal the sandbox registrar refuses after payment, refunded; the others
 * written as the cart job leaves them) counted on /ops, and the audit log; each newest first with
 * an `Older →` link (the house page cursor) that keeps the filters, and a cursor the list did not
 * issue, or issued for other filters, answered with the 400 page. Anonymous → 303, a member → 403.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { makeId } from "../../src/platform/Ids.js"
import { CARDS, payWith, ptOf } from "../support/CheckoutKit.js"
import { request } from "../support/http.js"
import { createTestUser, signIn } from "../support/identity.js"
import { createPartner } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const Env = TestServer.layer({ RATE_LIMITS: JSON.stringify({ auth_login: 1000, auth_login_account: 1000 }) })

const HTML = { accept: "text/html" }
const page = (path: string, cookie?: string) => request(path, { headers: { ...HTML, ...(cookie ? { cookie } : {}) } })

/** The `Older →` link of a page (its `&amp;` read back), or undefined on the last page. */
const olderOf = (text: string) => /<a href="([^"]+)" rel="next">Older/.exec(text)?.[1]?.replaceAll("&amp;", "&")

const count = (text: string, attribute: string) => text.match(new RegExp(`${attribute}="`, "g"))?.length ?? 0

const operator = Effect.gen(function*() {
  const user = yield* createTestUser({ role: "operator" })
  return { ...user, cookie: yield* signIn(user) }
})

/** A bad cursor is the console's 400 page, never a 500. */
const expectBadCursor = (path: string, cookie: string) =>
  Effect.gen(function*() {
    const reply = yield* page(path, cookie)
    expect(reply.status, `${path} ${reply.text.slice(0, 300)}`).toBe(400)
    expect(reply.headers.get("content-type"), path).toMatch(/text\/html/)
    expect(reply.text, path).toMatch(/cursor: (not a page link this console gave you|was issued for other filters)/)
  })

/** Polls the owner's cart until it is done. */
const waitCart = (id: string, cookie: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 300; i++) {
      const reply = yield* request(`/api/carts/${id}`, { headers: { cookie } })
      expect(reply.status, reply.text).toBe(200)
      if (reply.json.status === "done") return reply.json
      yield* Effect.sleep("100 millis")
    }
    throw new Error(`cart ${id} not done`)
  })

layer(Env, { timeout: 240_000 })("operator console: paged lists", (it) => {
  it.effect("anonymous → sign in, a member → 403 on /ops/carts; the nav and the overview name it", () =>
    Effect.gen(function*() {
      for (const path of ["/ops/carts", "/ops/carts?cursor=x"]) {
        const anonymous = yield* page(path)
        expect(anonymous.status, path).toBe(303)
        expect(anonymous.headers.get("location"), path).toBe("/signin?next=/ops/carts")
      }
      const member = yield* createTestUser()
      const refused = yield* page("/ops/carts", yield* signIn(member))
      expect(refused.status).toBe(403)
      expect(refused.text).toContain("no operator role")
      const op = yield* operator
      const home = yield* page("/ops", op.cookie)
      expect(home.text).toContain(`href="/ops/carts"`)
      expect(home.text).toContain(`data-count="failed-cart-items">0<`)
    }))

  it.effect("every partner's payouts on /ops/money, newest first with partner, amount, status, reference; Older → pages", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const op = yield* operator
      const a = yield* createPartner({ name: "Payee Alpha" })
      const b = yield* createPartner({ name: "Payee Beta", environment: "live" })
      // 27 payouts as the payout run leaves them (oldest first): 26 of Alpha's, then Beta's paid one.
      const ids = Array.from({ length: 27 }, () => makeId("po"))
      const rows = ids.map((id, i) => ({
        id,
        partner_id: i === 26 ? b.partner_id : a.partner_id,
        environment: i === 26 ? "live" : "sandbox",
        amount_cents: 1000 + i,
        currency: "USD",
        status: i === 26 ? "paid" : i === 25 ? "failed" : "pending",
        method: i === 26 ? "stripe_connect" : "sandbox",
        source: "checkout",
        provider_ref: i === 26 ? "tr_ops_1" : null,
        failure: i === 25 ? "account_closed" : null,
        paid_at: i === 26 ? new Date() : null
      }))
      yield* sql`insert into partner_payouts ${sql.insert(rows)}`

      const first = yield* page("/ops/money", op.cookie)
      expect(first.status, first.text.slice(0, 300)).toBe(200)
      expect(count(first.text, "data-payout")).toBe(25)
      const newest = first.text.slice(first.text.indexOf(`data-payout="${ids[26]}"`))
      expect(newest.slice(0, 600)).toContain("Payee Beta")
      expect(newest.slice(0, 600)).toContain(b.partner_id)
      expect(newest.slice(0, 600)).toContain("tr_ops_1")
      expect(newest.slice(0, 600)).toContain(">paid<")
      expect(newest.slice(0, 600)).toMatch(/10\.26/)
      expect(first.text.indexOf(`data-payout="${ids[26]}"`)).toBeLessThan(
        first.text.indexOf(`data-payout="${ids[25]}"`)
      )
      expect(first.text).toContain("account_closed")
      expect(first.text).toContain("Payee Alpha")
      expect(first.text).not.toContain(`data-payout="${ids[1]}"`)

      const older = olderOf(first.text)
      expect(older).toMatch(/^\/ops\/money\?cursor=[^&]+#payouts$/)
      const second = yield* page(older!, op.cookie)
      expect(second.status).toBe(200)
      expect(count(second.text, "data-payout")).toBe(2)
      expect(second.text).toContain(`data-payout="${ids[0]}"`)
      expect(second.text).toContain(`data-payout="${ids[1]}"`)
      expect(olderOf(second.text)).toBeUndefined()

      yield* expectBadCursor("/ops/money?cursor=forged", op.cookie)
      // Another list's cursor is not this one's.
      yield* expectBadCursor(`/ops/carts?${older!.split("?")[1]!.split("#")[0]}`, op.cookie)
    }))

  it.effect("failed cart items on /ops/carts: a refused renewal refunded, refunds under way counted on /ops; Older → pages", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const op = yield* operator
      // A real one: the sandbox registrar refuses `rejected-…` after payment; the job refunds it.
      const owner = yield* createTestUser({ domains: ["keep-ops.com", "rejected-ops.com"] })
      const cookie = yield* signIn(owner)
      const live = yield* request("/api/domains/bulk/renew", {
        method: "POST",
        body: { domains: ["keep-ops.com", "rejected-ops.com"] },
        headers: { cookie }
      })
      expect(live.status, live.text).toBe(200)
      const cartId: string = live.json.cartId
      const paid = yield* payWith(ptOf(live.json.checkoutPath), CARDS.ok)
      expect(paid.status).toBeLessThan(400)
      const cart = yield* waitCart(cartId, cookie)
      const refunded = cart.items.find((i: any) => i.domain === "rejected-ops.com")
      expect(refunded).toMatchObject({ status: "refunded" })

      // Then, as the cart job leaves them: 100 refunded items and 2 whose refund is under way (newest).
      const fixture = makeId("cart")
      yield* sql`insert into carts ${
        sql.insert({
          id: fixture,
          user_id: owner.id,
          status: "paid",
          currency: "USD",
          total_cents: 102 * 1299,
          session_id: "cs_fixture",
          paid_at: new Date()
        })
      }`
      const items = Array.from({ length: 102 }, (_, i) => ({
        id: makeId("cit"),
        cart_id: fixture,
        domain: `fixture-${i}.com`,
        op: "renew",
        years: 1,
        price_cents: 1299,
        status: i < 100 ? "refunded" : "failed",
        error: "rejected: the registry rejected the renew",
        refund_id: i < 100 ? makeId("rf") : null,
        refunded_at: i < 100 ? new Date() : null
      }))
      yield* sql`insert into cart_items ${sql.insert(items)}`

      const home = yield* page("/ops", op.cookie)
      expect(home.text).toContain(`data-count="failed-cart-items">2<`)
      const first = yield* page("/ops/carts", op.cookie)
      expect(first.status, first.text.slice(0, 300)).toBe(200)
      expect(first.headers.get("cache-control")).toBe("no-store")
      expect(count(first.text, "data-cart-item")).toBe(100)
      const underWay = first.text.slice(first.text.indexOf(`data-cart-item="${items[101]!.id}"`))
      expect(underWay.slice(0, 700)).toContain("fixture-101.com")
      expect(underWay.slice(0, 700)).toContain("refund under way")
      expect(underWay.slice(0, 700)).toContain("rejected: the registry rejected the renew")
      expect(underWay.slice(0, 700)).toContain(fixture)
      expect(underWay.slice(0, 700)).toContain("cs_fixture")
      expect(first.text).toContain("What to do")
      // No admin or CLI action exists on a cart item: the page offers none.
      expect(first.text).not.toMatch(/<form method="post"[^>]*action="\/ops/)

      const older = olderOf(first.text)
      expect(older).toMatch(/^\/ops\/carts\?cursor=/)
      const second = yield* page(older!, op.cookie)
      expect(second.status).toBe(200)
      expect(count(second.text, "data-cart-item")).toBe(3)
      const real = second.text.slice(second.text.indexOf("rejected-ops.com") - 200)
      expect(real.slice(0, 900)).toContain(">refunded<")
      expect(real.slice(0, 900)).toContain(cartId)
      expect(real.slice(0, 900)).toMatch(/refund <code>rf_/)
      expect(second.text).not.toContain("keep-ops.com")
      expect(olderOf(second.text)).toBeUndefined()

      yield* expectBadCursor("/ops/carts?cursor=v1.forged", op.cookie)
    }))

  it.effect("the audit log pages with Older →, keeping actor, action and since; a cursor for other filters → 400", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const op = yield* operator
      const actor = `pager-${Date.now()}@example.test`
      const entries = Array.from({ length: 103 }, (_, i) => ({
        id: makeId("aud"),
        actor,
        action: i % 2 === 0 ? "order.cancel" : "ledger.receipt",
        target: `ord_${i}`,
        ip: "198.51.100.7"
      }))
      yield* sql`insert into audit_log ${sql.insert(entries)}`

      const base = `/ops/audit?actor=${encodeURIComponent(actor)}`
      const first = yield* page(base, op.cookie)
      expect(first.status).toBe(200)
      expect(count(first.text, "data-audit")).toBe(100)
      expect(first.text).toContain(`data-audit="${entries[102]!.id}"`)
      const older = olderOf(first.text)!
      expect(older).toContain(`actor=${encodeURIComponent(actor)}`)
      const second = yield* page(older, op.cookie)
      expect(second.status).toBe(200)
      expect(count(second.text, "data-audit")).toBe(3)
      expect(second.text).toContain(`data-audit="${entries[0]!.id}"`)
      expect(second.text).toContain(`value="${actor}"`)
      expect(olderOf(second.text)).toBeUndefined()

      // One action, since a moment before the entries: 52 of them, one page.
      const since = encodeURIComponent("2000-01-01T00:00:00Z")
      const filtered = yield* page(`${base}&action=order.cancel&since=${since}`, op.cookie)
      expect(count(filtered.text, "data-audit")).toBe(52)
      expect(olderOf(filtered.text)).toBeUndefined()

      const cursor = new URL(older, "http://x").searchParams.get("cursor")!
      yield* expectBadCursor(`${base}&action=order.cancel&cursor=${encodeURIComponent(cursor)}`, op.cookie)
      yield* expectBadCursor(`/ops/audit?cursor=${encodeURIComponent(cursor)}`, op.cookie)
      yield* expectBadCursor(`${base}&cursor=forged`, op.cookie)
    }))
})
