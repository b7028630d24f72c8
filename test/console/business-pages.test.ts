/**
 * The console's business pages (src/console/{Order,Money}*.ts, src/partner/members/MemberBusiness.ts,
 * src/checkout/MemberSessions.ts) through HTTP against one real server: anonymous → sign-in; a
 * viewer sees the partner's sandbox orders, checkout sessions, brokerage cases (and one case's
 * timeline), statements, sales and payouts as the signed API recorded them; the filters and the
 * page cursor; every value the pages cannot use is a 400 page; the CSV downloads (the sales
 * history, one statement's lines); and partner B's
 * member gets the 404 page for every page of partner A.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TRANSACTION_COLUMNS } from "../../src/partner/ledger/Exports.js"
import { openSession } from "../support/CheckoutKit.js"
import { request } from "../support/http.js"
import { createTestUser, signIn } from "../support/identity.js"
import { buy, createPartner, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const ENV = { RATE_LIMITS: JSON.stringify({ auth_login: 1000, auth_login_account: 1000 }) }

const page = (path: string, cookie?: string) =>
  request(path, { headers: { accept: "text/html", ...(cookie ? { cookie } : {}) } })

const unescape = (s: string) => s.replace(/&amp;/g, "&")
const nextOf = (text: string) => {
  const m = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(text)
  return m === null ? undefined : unescape(m[1]!)
}
const idsOf = (text: string, attribute: string) =>
  [...text.matchAll(new RegExp(`data-${attribute}="([^"]+)"`, "g"))].map((m) => m[1]!)

/** A partner whose sandbox key may do everything the pages show, and one signed-in member of it. */
const partnerWithMember = (role: "owner" | "developer" | "finance" | "viewer") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cred = yield* createPartner({ scopes: ["search", "buy", "embed", "broker", "report"] })
    const user = yield* createTestUser()
    yield* sql`insert into partner_members (partner_id, user_id, email, role)
               values (${cred.partner_id}, ${user.id}, ${user.email}, ${role})`
    return { cred, P: cred.partner_id, cookie: yield* signIn(user) }
  })

const PAGES = ["/console/orders", "/console/checkout-sessions", "/console/brokerage", "/console/money"]

layer(TestServer.layer(ENV), { timeout: 180_000 })("console business pages", (it) => {
  it.effect("anonymous: every page and the CSV send to sign-in and back", () =>
    Effect.gen(function*() {
      for (const path of [...PAGES, "/console/brokerage/brk_x", "/console/money/transactions.csv"]) {
        const r = yield* page(path)
        expect(r.status, path).toBe(303)
        expect(r.headers.get("location"), path).toBe(
          `/signin?next=${path === "/console/money/transactions.csv" ? "/console/money" : path}`
        )
      }
    }))

  it.effect("orders: empty state, a viewer sees the sandbox orders newest first; filters, the cursor, 400s, 404s", () =>
    Effect.gen(function*() {
      const { P, cookie, cred } = yield* partnerWithMember("viewer")
      const orders = `/console/orders?partner=${P}`
      const empty = yield* page(orders, cookie)
      expect(empty.status).toBe(200)
      expect(empty.headers.get("cache-control")).toBe("no-store")
      expect(empty.text).toContain("No orders yet — a sandbox order appears here")
      expect(empty.text).toMatch(/href="\/console\/orders\?partner=[^"]+"[^>]*aria-current="page">Orders</)

      const domains = ["biz-one.com", "biz-two.com", "biz-three.com"]
      yield* seedListings(domains.map((domain) => ({ domain, bin: 12_345 })))
      const ids: Array<string> = []
      for (const d of domains) ids.push(yield* buy(cred, d, 12_345))
      const full = yield* page(orders, cookie)
      expect(full.status).toBe(200)
      expect(idsOf(full.text, "order")).toEqual([...ids].reverse())
      expect(full.text).toContain("$123.45")
      expect(full.text).toMatch(/order-status">EXTERNALLY_PAID/)
      expect(full.text).toMatch(/payment-model">partner_collected/)
      expect(nextOf(full.text)).toBeUndefined()

      // The cursor: two, then the last one; it keeps the filters.
      const first = yield* page(`${orders}&limit=2&status=EXTERNALLY_PAID`, cookie)
      expect(idsOf(first.text, "order")).toEqual([ids[2], ids[1]])
      const next = nextOf(first.text)!
      expect(next).toContain("status=EXTERNALLY_PAID")
      const second = yield* page(next, cookie)
      expect(idsOf(second.text, "order")).toEqual([ids[0]])
      expect(nextOf(second.text)).toBeUndefined()
      // A cursor of other filters, or a forged one, is a 400 page.
      const cursor = new URL(next, "http://x").searchParams.get("cursor")!
      for (const bad of [`${orders}&limit=2&cursor=${encodeURIComponent(cursor)}`, `${orders}&cursor=forged`]) {
        const r = yield* page(bad, cookie)
        expect(r.status, bad).toBe(400)
        expect(r.text).toContain("start again from the first page")
      }

      // Filters.
      expect(idsOf((yield* page(`${orders}&domain=BIZ-TWO.com`, cookie)).text, "order")).toEqual([ids[1]])
      const none = yield* page(`${orders}&status=SETTLED`, cookie)
      expect(none.status).toBe(200)
      expect(none.text).toContain("No orders match these filters.")
      expect(idsOf((yield* page(`${orders}&payment_model=hosted_checkout`, cookie)).text, "order")).toEqual([])
      expect(idsOf((yield* page(`${orders}&from=2000-01-01&to=2999-01-01`, cookie)).text, "order")).toHaveLength(3)
      expect(idsOf((yield* page(`${orders}&to=2000-01-01`, cookie)).text, "order")).toEqual([])
      const live = yield* page(`${orders}&environment=live`, cookie)
      expect(idsOf(live.text, "order")).toEqual([])
      expect(live.text).toContain("No live orders yet")

      // Values the page cannot use: a 400 page naming the field, never a 500.
      for (
        const [query, field] of [
          ["status=BOGUS", "status"],
          ["payment_model=cash", "payment_model"],
          ["environment=prod", "environment"],
          ["from=yesterday", "from"],
          ["from=2026-02-01&to=2026-01-01", "from"],
          ["limit=0", "limit"],
          ["limit=abc", "limit"],
          ["domain=not%20a%20domain", "domain"]
        ]
      ) {
        const r = yield* page(`${orders}&${query}`, cookie)
        expect(r.status, query).toBe(400)
        expect(r.text, query).toContain("Cannot show this page")
        expect(r.text, query).toContain(field)
      }

      // Partner B's member: A's orders are the 404 page, like a partner that does not exist.
      const other = yield* partnerWithMember("owner")
      for (const path of [...PAGES, "/console/money/transactions.csv", `/console/brokerage/brk_x`]) {
        const r = yield* page(`${path}?partner=${P}`, other.cookie)
        expect(r.status, path).toBe(404)
        expect(r.text, path).not.toContain("biz-one.com")
      }
      // …before any filter is read: a bad one does not turn the 404 into a 400.
      expect((yield* page(`/console/orders?partner=${P}&status=BOGUS&environment=prod`, other.cookie)).status).toBe(404)
      expect((yield* page(`/console/orders?partner=ptn_unknown`, other.cookie)).status).toBe(404)
      expect(idsOf((yield* page(`/console/orders?partner=${other.P}`, other.cookie)).text, "order")).toEqual([])
    }))

  it.effect("checkout sessions: the partner's own, with status and expiry, paged", () =>
    Effect.gen(function*() {
      const { P, cookie, cred } = yield* partnerWithMember("finance")
      const sessions = `/console/checkout-sessions?partner=${P}`
      expect((yield* page(sessions, cookie)).text).toContain("No checkout sessions yet")
      yield* seedListings([{ domain: "biz-session-a.com", bin: 50_000 }, { domain: "biz-session-b.com", bin: 60_000 }])
      const opened: Array<string> = []
      for (const domain of ["biz-session-a.com", "biz-session-b.com"]) {
        const r = yield* openSession(cred, { domain, reference: `ref-${domain}` })
        expect(r.status, r.text).toBe(201)
        opened.push(r.json.id)
      }
      const shown = yield* page(sessions, cookie)
      expect(shown.status).toBe(200)
      expect(idsOf(shown.text, "session")).toEqual([...opened].reverse())
      expect(shown.text).toMatch(/session-status">open/)
      expect(shown.text).toContain("$600.00")
      expect(shown.text).toMatch(/expires \d+ \w+ \d{4}/)
      expect(shown.text).toContain("ref-biz-session-a.com")
      const first = yield* page(`${sessions}&limit=1`, cookie)
      expect(idsOf(first.text, "session")).toEqual([opened[1]])
      expect(idsOf((yield* page(nextOf(first.text)!, cookie)).text, "session")).toEqual([opened[0]])
      // Another partner's sessions never show; an expired one reads expired.
      const sql = yield* SqlClient.SqlClient
      yield* sql`update checkout_sessions set expires_at = now() - interval '1 minute' where id = ${opened[0]!}`
      expect((yield* page(`${sessions}&limit=1&cursor=x`, cookie)).status).toBe(400)
      expect((yield* page(sessions, cookie)).text).toMatch(/session-status">expired/)
    }))

  it.effect("brokerage: the cases, filters, one case's timeline; another's case is 404", () =>
    Effect.gen(function*() {
      const { P, cookie, cred } = yield* partnerWithMember("developer")
      const cases = `/console/brokerage?partner=${P}`
      expect((yield* page(cases, cookie)).text).toContain("No brokerage cases yet")
      const created = yield* signed(cred, "POST", "/api/partner/v1/brokerage", {
        body: { domain: "biz-broker.com", tier: "managed", buyer_email: "buyer@example.org", budget: 500_000 }
      })
      expect(created.status, created.text).toBe(201)
      const id = created.json.id as string
      expect((yield* signed(cred, "POST", `/api/partner/v1/sandbox/brokerage/${id}/advance`)).status).toBe(200)
      const listed = yield* page(cases, cookie)
      expect(idsOf(listed.text, "case")).toEqual([id])
      expect(listed.text).toContain("$5,000.00")
      expect(idsOf((yield* page(`${cases}&status=closed_won`, cookie)).text, "case")).toEqual([])
      expect((yield* page(`${cases}&status=won`, cookie)).status).toBe(400)

      const one = yield* page(`/console/brokerage/${id}?partner=${P}&environment=sandbox`, cookie)
      expect(one.status, one.text).toBe(200)
      expect(one.text).toContain("<h1>biz-broker.com</h1>")
      expect(one.text).toMatch(/aria-label="Timeline"/)
      expect((one.text.match(/<li><span class="name">/g) ?? []).length).toBeGreaterThanOrEqual(2)
      // The case is sandbox's: under live, or an unknown id, it is not found.
      expect((yield* page(`/console/brokerage/${id}?partner=${P}&environment=live`, cookie)).status).toBe(404)
      expect((yield* page(`/console/brokerage/brk_unknown?partner=${P}`, cookie)).status).toBe(404)
    }))

  it.effect("money: statements, sales with totals, payouts; the CSV download with the page's filters", () =>
    Effect.gen(function*() {
      const { P, cookie, cred } = yield* partnerWithMember("viewer")
      const money = `/console/money?partner=${P}`
      const empty = yield* page(money, cookie)
      expect(empty.status).toBe(200)
      expect(empty.text).toContain("No statements yet")
      expect(empty.text).toContain("No sales yet")
      expect(empty.text).toContain("No payouts yet")

      yield* seedListings([{ domain: "biz-money-a.com", bin: 20_000 }, { domain: "biz-money-b.com", bin: 30_000 }])
      const settled = yield* buy(cred, "biz-money-a.com", 20_000)
      const open = yield* buy(cred, "biz-money-b.com", 30_000)
      for (let i = 0; i < 3; i++) {
        expect((yield* signed(cred, "POST", `/api/partner/v1/sandbox/orders/${settled}/advance`)).status).toBe(200)
      }
      const shown = yield* page(money, cookie)
      expect(idsOf(shown.text, "transaction")).toEqual([open, settled])
      expect(idsOf(shown.text, "statement")).toHaveLength(1)
      expect(shown.text).toMatch(/sales-totals">2 sales · \$500\.00 sold/)
      const paged = yield* page(`${money}&limit=1`, cookie)
      expect(idsOf(paged.text, "transaction")).toEqual([open])
      expect(idsOf((yield* page(nextOf(paged.text)!, cookie)).text, "transaction")).toEqual([settled])
      expect((yield* page(`${money}&payment_model=barter`, cookie)).status).toBe(400)

      // The CSV: the signed API's exporter, as an attachment; the link carries the filters.
      const filtered = yield* page(`${money}&status=SETTLED`, cookie)
      expect(idsOf(filtered.text, "transaction")).toEqual([settled])
      const link = unescape(/<a href="([^"]+)" download>Download CSV<\/a>/.exec(filtered.text)![1]!)
      expect(link).toContain("status=SETTLED")
      const csv = yield* page(link, cookie)
      expect(csv.status).toBe(200)
      expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8")
      expect(csv.headers.get("content-disposition")).toBe(`attachment; filename="transactions-${P}-sandbox.csv"`)
      const lines = csv.text.trim().split("\r\n")
      expect(lines[0]).toBe(TRANSACTION_COLUMNS.join(","))
      expect(lines).toHaveLength(2)
      expect(lines[1]).toContain(settled)
      const all = yield* page(`/console/money/transactions.csv?partner=${P}`, cookie)
      expect(all.text.trim().split("\r\n")).toHaveLength(3)
      const signedCsv = yield* signed(cred, "GET", "/api/partner/v1/transactions.csv")
      expect(all.text).toBe(signedCsv.text)
      expect((yield* page(`/console/money/transactions.csv?partner=${P}&from=soon`, cookie)).status).toBe(400)

      // A statement's lines: the signed API's `settlements/{id}.csv`, from the statement's own link.
      const statement = idsOf(shown.text, "statement")[0]!
      const statementLink = unescape(
        new RegExp(`<a href="([^"]+)" download aria-label="Download CSV of statement ${statement}">`).exec(
          shown.text
        )![1]!
      )
      const lines2 = yield* page(statementLink, cookie)
      expect(lines2.status, lines2.text).toBe(200)
      expect(lines2.headers.get("content-disposition")).toBe(`attachment; filename="statement-${statement}.csv"`)
      expect(lines2.text).toBe((yield* signed(cred, "GET", `/api/partner/v1/settlements/${statement}.csv`)).text)
      expect(lines2.text).toContain(settled)
      expect((yield* page(`/console/money/statements/stl_nope.csv?partner=${P}`, cookie)).status).toBe(404)
      // Partner B's member: A's statement is not found, asked for as B's or as A's.
      const other = yield* partnerWithMember("owner")
      for (const partner of [other.P, P]) {
        const r = yield* page(`/console/money/statements/${statement}.csv?partner=${partner}`, other.cookie)
        expect(r.status, partner).toBe(404)
        expect(r.text).not.toContain(settled)
      }
    }))
})
