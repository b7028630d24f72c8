/**
 * The console's links and analytics (src/console/Link*.ts, AnalyticsPages.ts, Chart.ts,
 * src/referrals/MemberReferrals.ts) through HTTP against one real server: a link created through
 * the form (audited), listed with its URL and QR code; a click on it (the `/r/{code}` redirect the
 * storefront serves) moves today's numbers in the analytics; each role's right to create; partner
 * B's member refused partner A's pages and form (404); forms without their token or from another
 * site refused (403); bad windows the 400 page.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BROWSER_UA } from "../referrals/ReferralKit.js"
import { request } from "../support/http.js"
import { createTestUser, signIn, type TestUser } from "../support/identity.js"
import { createPartner } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const HTML = { accept: "text/html" }
const FORM = { ...HTML, "content-type": "application/x-www-form-urlencoded" }
const ENV = {
  REFERRAL_FLUSH_INTERVAL: "50 millis",
  RATE_LIMITS: JSON.stringify({ auth_login: 1000, auth_login_account: 1000 })
}

const csrfOf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? ""
const page = (path: string, cookie?: string) => request(path, { headers: { ...HTML, ...(cookie ? { cookie } : {}) } })
const postForm = (path: string, fields: Record<string, string>, cookie: string, headers = {}) =>
  request(path, {
    method: "POST",
    body: new URLSearchParams(fields).toString(),
    headers: { ...FORM, cookie, ...headers }
  })
const urlsOf = (text: string) => [...text.matchAll(/id="link-lnk_[^"]+" readonly value="([^"]+)"/g)].map((m) => m[1]!)
const today = () => new Date().toISOString().slice(0, 10)

type Role = "owner" | "developer" | "finance" | "viewer"

/** An affiliate partner (or not) with one sandbox credential, and a signed-in member of each given role. */
const partnerWith = (roles: ReadonlyArray<Role>, options: { readonly affiliate?: boolean } = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cred = yield* createPartner({ scopes: ["refer", "report"], affiliate: options.affiliate ?? true })
    const people: Array<TestUser & { cookie: string }> = []
    for (const role of roles) {
      const user = yield* createTestUser()
      yield* sql`insert into partner_members (partner_id, user_id, email, role)
                 values (${cred.partner_id}, ${user.id}, ${user.email}, ${role})`
      people.push({ ...user, cookie: yield* signIn(user) })
    }
    const P = cred.partner_id
    return { P, people, links: `/console/links?partner=${P}`, analytics: `/console/analytics?partner=${P}` }
  })

/** The create form's post with a token read from the page (or, for a role without the form, the account page). */
const create = (from: string, cookie: string, fields: Record<string, string>) =>
  Effect.gen(function*() {
    const token = csrfOf((yield* page(from, cookie)).text) || csrfOf((yield* page("/account", cookie)).text)
    expect(token).not.toBe("")
    return yield* postForm(
      "/console/links",
      { environment: "sandbox", kind: "generic", ...fields, csrf: token },
      cookie
    )
  })

const linksOf = (partnerId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ id: string }>`select id from referral_links where partner_id = ${partnerId}`.pipe(Effect.orDie)
  )

const auditOf = (email: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ action: string; target: string | null; after: any }>`
      select action, target, after from audit_log where actor = ${email} order by at, id`.pipe(Effect.orDie)
  )

/** The page, again and again, until `ok` holds (clicks are written behind, every 50 ms here). */
const pageUntil = (path: string, cookie: string, ok: (text: string) => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 20_000
    for (;;) {
      const reply = yield* page(path, cookie)
      if (ok(reply.text) || Date.now() > deadline) return reply
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
    }
  })

layer(TestServer.layer(ENV), { timeout: 180_000 })("console links and analytics", (it) => {
  it.scoped("create a link (audited), its URL and QR code listed; a click moves today's analytics", () =>
    Effect.gen(function*() {
      const { P, analytics, links, people: [owner] } = yield* partnerWith(["owner"])
      expect((yield* page(links)).headers.get("location")).toBe("/signin?next=/console/links")
      expect((yield* page(analytics)).headers.get("location")).toBe("/signin?next=/console/analytics")
      const empty = yield* page(links, owner!.cookie)
      expect(empty.status).toBe(200)
      expect(empty.headers.get("cache-control")).toBe("no-store")
      expect(empty.text).toContain("No links yet")
      expect(empty.text).toMatch(/href="\/console\/links\?partner=[^"]+"[^>]*aria-current="page">Links</)
      expect(empty.text).toMatch(/href="\/console\/analytics\?partner=[^"]+"[^>]*>Analytics</)

      const made = yield* create(links, owner!.cookie, { partner: P, campaign: "spring" })
      expect(made.status, made.text).toBe(303)
      expect(made.headers.get("location")).toBe(`/console/links?partner=${P}&environment=sandbox`)
      const domain = yield* create(links, owner!.cookie, { partner: P, kind: "domain", domain: "Example.COM" })
      expect(domain.status, domain.text).toBe(303)
      // The service's own checks: a domain link needs its domain; a product link its product.
      expect((yield* create(links, owner!.cookie, { partner: P, kind: "domain" })).status).toBe(400)
      expect((yield* create(links, owner!.cookie, { partner: P, kind: "product", product: "nope" })).status).toBe(400)
      expect((yield* create(links, owner!.cookie, { partner: P, kind: "nope" })).status).toBe(400)

      const listed = yield* page(links, owner!.cookie)
      const [newest, first] = urlsOf(listed.text)
      expect(first).toMatch(/\/r\/[0-9A-Za-z]{10}$/)
      expect(newest).toMatch(/\/r\/[0-9A-Za-z]{10}$/)
      expect(listed.text).toContain("Domain example.com")
      expect(listed.text).toContain("campaign spring")
      expect(listed.text).toContain(`<div class="qr" role="img" aria-label="QR code of ${first}"><svg`)
      expect(listed.text).toMatch(/data-copy="link-lnk_[^"]+"/)
      expect(listed.text).toMatch(/<script nonce="[^"]+" src="\/assets\/copy\.[0-9a-f]+\.js" defer>/)

      const log = yield* auditOf(owner!.email)
      expect(log.map((e) => e.action)).toEqual(["console.link_create", "console.link_create"])
      expect(log[0]).toMatchObject({
        target: P,
        after: { environment: "sandbox", kind: "generic", campaign: "spring" }
      })
      expect(log[1]!.after).toMatchObject({ kind: "domain", domain: "example.com" })
      expect((yield* linksOf(P)).map((l) => l.id).sort()).toEqual(log.map((e) => e.after.link_id).sort())

      // Before any click: today is 0; then one browser click on the link as the storefront serves it.
      const before = yield* page(analytics, owner!.cookie)
      expect(before.status).toBe(200)
      expect(before.text).toContain(`data-field="clicks">0<`)
      expect(before.text).toContain(`<th scope="row">${today()}</th><td class="amount">0</td>`)
      const click = yield* request(new URL(first!).pathname, { headers: { "user-agent": BROWSER_UA } })
      expect(click.status).toBe(302)
      const after = yield* pageUntil(analytics, owner!.cookie, (t) => t.includes(`data-field="clicks">1<`))
      expect(after.text).toContain(`data-field="clicks">1<`)
      expect(after.text).toContain(`data-field="unique_clicks">1<`)
      expect(after.text).toContain(`<th scope="row">${today()}</th><td class="amount">1</td>`)
      expect(after.text).toContain(`role="img" aria-labelledby="chart-clicks-title chart-clicks-desc"`)
      expect(after.text.match(/<figure class="chart">/g)).toHaveLength(6)
      expect(after.text).not.toMatch(/\sstyle="/)
      const relisted = yield* page(links, owner!.cookie)
      expect(relisted.text).toMatch(/<span data-field="clicks">1<\/span> clicks/)
    }))

  it.scoped("owner and developer create links; finance and viewer only look (403, nothing written)", () =>
    Effect.gen(function*() {
      const { P, links, people } = yield* partnerWith(["owner", "developer", "finance", "viewer"])
      for (
        const [who, may] of [[people[0]!, true], [people[1]!, true], [people[2]!, false], [people[3]!, false]] as const
      ) {
        const shown = yield* page(links, who.cookie)
        expect(shown.status).toBe(200)
        expect(shown.text.includes(`action="/console/links"`), who.email).toBe(may)
        const made = yield* create(links, who.cookie, { partner: P })
        expect(made.status, who.email).toBe(may ? 303 : 403)
        expect((yield* auditOf(who.email)).length, who.email).toBe(may ? 1 : 0)
      }
      expect(yield* linksOf(P)).toHaveLength(2)
      // Only the environments granted (this partner has no live keys).
      expect((yield* create(links, people[0]!.cookie, { partner: P, environment: "live" })).status).toBe(400)
      // A partner that is not an affiliate account: the page says so, the service refuses.
      const plain = yield* partnerWith(["owner"], { affiliate: false })
      expect((yield* page(plain.links, plain.people[0]!.cookie)).text).toContain("not an affiliate account")
      expect((yield* page(plain.analytics, plain.people[0]!.cookie)).text).toContain("not an affiliate account")
      expect((yield* create(plain.links, plain.people[0]!.cookie, { partner: plain.P })).status).toBe(403)
      expect(yield* linksOf(plain.P)).toHaveLength(0)
    }))

  it.scoped("partner B's member gets 404 for A's pages and form; a form without its token or from elsewhere: 403", () =>
    Effect.gen(function*() {
      const a = yield* partnerWith(["owner"])
      const b = yield* partnerWith(["owner"])
      const owner = a.people[0]!.cookie
      const intruder = b.people[0]!.cookie
      expect((yield* create(a.links, owner, { partner: a.P, campaign: "secret-campaign" })).status).toBe(303)
      for (const path of [a.links, a.analytics, `${a.analytics}&from=2026-01-01&to=2026-01-31`]) {
        const seen = yield* page(path, intruder)
        expect(seen.status, path).toBe(404)
        expect(seen.text).not.toContain("secret-campaign")
      }
      expect((yield* create(b.links, intruder, { partner: a.P })).status).toBe(404)
      expect(yield* linksOf(a.P)).toHaveLength(1)
      expect(yield* auditOf(b.people[0]!.email)).toEqual([])
      const unknown = yield* page("/console/links?partner=ptn_nope", owner)
      expect(unknown.status).toBe(404)

      const token = csrfOf((yield* page(a.links, owner)).text)
      const fields = { partner: a.P, environment: "sandbox", kind: "generic" }
      expect((yield* postForm("/console/links", fields, owner)).status).toBe(403)
      for (const csrf of ["", "0.x"]) {
        expect((yield* postForm("/console/links", { ...fields, csrf }, owner)).status).toBe(403)
      }
      const crossSite = yield* postForm("/console/links", { ...fields, csrf: token }, owner, {
        origin: "http://evil.example"
      })
      expect(crossSite.status).toBe(403)
      expect(yield* linksOf(a.P)).toHaveLength(1)
    }))

  it.scoped("the window is in the URL: a bad date, a reversed or too long window is the 400 page, never a 500", () =>
    Effect.gen(function*() {
      const { analytics, people: [owner] } = yield* partnerWith(["viewer"])
      const ok = yield* page(`${analytics}&from=2026-01-01&to=2026-01-31`, owner!.cookie)
      expect(ok.status).toBe(200)
      expect(ok.text).toContain("2026-01-01 to 2026-01-31")
      expect(ok.text.match(/<tr><th scope="row">2026-01-\d\d<\/th>/g)).toHaveLength(31 * 6)
      for (
        const q of [
          "from=banana",
          "to=2026-02-30",
          "from=2026-03-01&to=2026-01-01",
          "from=2025-01-01&to=2026-01-01",
          "from=2026-01-01&to=2026-06-01",
          `from=${"9".repeat(300)}`
        ]
      ) {
        const bad = yield* page(`${analytics}&${q}`, owner!.cookie)
        expect(bad.status, q).toBe(400)
        expect(bad.text, q).toContain(`role="alert"`)
        expect(bad.text, q).toContain(`<form method="get" action="/console/analytics"`)
      }
    }))
})
