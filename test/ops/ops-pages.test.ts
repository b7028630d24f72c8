/**
 * The operator console (src/ops/) through HTTP against the real server, one server for the file:
 * anonymous → 303 to sign in; an account without the operator role → the 403 page, for pages and
 * for posts with a valid token (the role is asked of the identity slice, not the page); an
 * operator made by `user create --role operator` sees every page (no-store, CSP nonce); each
 * queue's actions work through the admin API's services and are in the audit log under the
 * operator's e-mail with an IP; stale, missing and cross-site tokens are refused (403); bad
 * input is a 4xx page, never a 500.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { runCli } from "../support/cli.js"
import { request } from "../support/http.js"
import { createTestUser, signIn } from "../support/identity.js"
import { buy, createPartner, seedListings, signed, waitUntil } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

class DatabaseUrl extends Context.Tag("test/DatabaseUrl")<DatabaseUrl, string>() {}

const Env = Layer.unwrapScoped(Effect.map(TestServer.sharedDatabaseUrl, (url) =>
  Layer.merge(
    TestServer.layer({
      REVIEW_THRESHOLD_CENTS: "500000",
      SETTLEMENT_HOLD_DAYS: "0",
      DELIVERY_AUTOSTART: "true",
      DELIVERY_RETRY_BASE: "100 millis",
      DELIVERY_SANDBOX_TRANSFER: "300 millis",
      DELIVERY_STATUS_POLL: "200 millis",
      RATE_LIMITS: JSON.stringify({ auth_login: 1000, auth_login_account: 1000 })
    }, { databaseUrl: url }),
    Layer.succeed(DatabaseUrl, url)
  )))

const HTML = { accept: "text/html" }
const PAGES = [
  "/ops",
  "/ops/orders",
  "/ops/brokerage",
  "/ops/offers",
  "/ops/deliveries",
  "/ops/carts",
  "/ops/money",
  "/ops/money/verify",
  "/ops/partners",
  "/ops/audit"
]

const csrfOf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? ""
const page = (path: string, cookie?: string) => request(path, { headers: { ...HTML, ...(cookie ? { cookie } : {}) } })
const postForm = (path: string, fields: Record<string, string>, cookie: string, headers = {}) =>
  request(path, {
    method: "POST",
    body: new URLSearchParams(fields).toString(),
    headers: { ...HTML, "content-type": "application/x-www-form-urlencoded", cookie, ...headers }
  })

/** A console form's post with a token read from the page it is on (an empty queue's: the money page's). */
const act = (from: string, action: string, cookie: string, fields: Record<string, string>) =>
  Effect.gen(function*() {
    const token = csrfOf((yield* page(from, cookie)).text) || csrfOf((yield* page("/ops/money", cookie)).text)
    expect(token, from).not.toBe("")
    return yield* postForm(action, { ...fields, csrf: token }, cookie)
  })

interface Entry {
  readonly actor: string
  readonly action: string
  readonly target: string | null
  readonly ip: string | null
  readonly before: any
  readonly after: any
}

const auditOf = (actor: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<Entry>`select actor, action, target, ip, before, after from audit_log where actor = ${actor} order by id`
  ).pipe(Effect.orDie)

const statusOf = (orderId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      Effect.map(sql<{ status: string }>`select status from partner_orders where id = ${orderId}`, (r) => r[0]?.status)
  ).pipe(Effect.orDie)

/** An operator account and its session. */
const operator = Effect.gen(function*() {
  const user = yield* createTestUser({ role: "operator" })
  return { ...user, cookie: yield* signIn(user) }
})

layer(Env, { timeout: 240_000 })("operator console", (it) => {
  it.effect("anonymous → sign in; a member → 403 (pages and posts, nothing done); an operator from the CLI sees every page", () =>
    Effect.gen(function*() {
      for (const path of PAGES) {
        const reply = yield* page(path)
        expect(reply.status, path).toBe(303)
        expect(reply.headers.get("location"), path).toBe(`/signin?next=${path}`)
      }
      const member = yield* createTestUser()
      const memberCookie = yield* signIn(member)
      for (const path of PAGES) {
        const reply = yield* page(path, memberCookie)
        expect(reply.status, path).toBe(403)
        expect(reply.text, path).toContain("no operator role")
      }
      // A valid token of the member's own session (the account page's) does not open the door.
      const token = csrfOf((yield* page("/account", memberCookie)).text)
      expect(token).not.toBe("")
      const refused = yield* postForm(
        "/ops/partners/commission",
        { partner_id: "ptn_x", bps: "10", csrf: token },
        memberCookie
      )
      expect(refused.status).toBe(403)
      expect(yield* auditOf(member.email)).toEqual([])

      const databaseUrl = yield* DatabaseUrl
      const email = `ops-${Date.now()}@example.test`
      const made = yield* runCli(databaseUrl, [
        "user",
        "create",
        "--email",
        email,
        "--password",
        "a long password",
        "--role",
        "operator",
        "--json"
      ])
      expect(made.code, made.stderr).toBe(0)
      expect(JSON.parse(made.stdout)).toMatchObject({ email, role: "operator" })
      const cookie = yield* signIn({ email, password: "a long password" })
      for (const path of PAGES) {
        const reply = yield* page(path, cookie)
        expect(reply.status, `${path} ${reply.text.slice(0, 300)}`).toBe(200)
        expect(reply.headers.get("cache-control"), path).toBe("no-store")
        expect(reply.headers.get("content-security-policy"), path).toMatch(/nonce-/)
        expect(reply.text, path).toContain(`signed in as ${email}`)
      }
    }))

  it.effect("orders: a held order cleared, another refused; a move not allowed is a 409 page; audited with e-mail and IP", () =>
    Effect.gen(function*() {
      const op = yield* operator
      yield* seedListings([{ domain: "ops-held1.com", bin: 600_000 }, { domain: "ops-held2.com", bin: 600_000 }])
      const cred = yield* createPartner()
      const first = yield* buy(cred, "ops-held1.com", 600_000)
      const second = yield* buy(cred, "ops-held2.com", 600_000)
      const listed = yield* page("/ops/orders", op.cookie)
      expect(listed.text).toContain(`data-order="${first}"`)
      expect(listed.text).toContain(`data-order="${second}"`)

      const cleared = yield* act("/ops/orders", "/ops/orders/move", op.cookie, {
        order_id: first,
        action: "clear-review"
      })
      expect(cleared.status, cleared.text).toBe(303)
      expect(cleared.headers.get("location")).toBe("/ops/orders")
      expect(cleared.headers.get("cache-control")).toBe("no-store")
      expect(yield* statusOf(first)).not.toBe("MANUAL_REVIEW")
      const refusedOrder = yield* act("/ops/orders", "/ops/orders/move", op.cookie, {
        order_id: second,
        action: "cancel"
      })
      expect(refusedOrder.status).toBe(303)
      expect(yield* statusOf(second)).toBe("CANCELLED")

      const again = yield* act("/ops/orders", "/ops/orders/move", op.cookie, { order_id: second, action: "cancel" })
      expect(again.status).toBe(409)
      expect(again.headers.get("content-type")).toMatch(/text\/html/)
      const unknown = yield* act("/ops/orders", "/ops/orders/move", op.cookie, {
        order_id: "ord_nope",
        action: "cancel"
      })
      expect(unknown.status).toBe(404)
      const bad = yield* act("/ops/orders", "/ops/orders/move", op.cookie, { order_id: first, action: "explode" })
      expect(bad.status).toBe(400)

      const log = yield* auditOf(op.email)
      expect(log.map((e) => [e.action, e.target])).toEqual([["order.clear-review", first], ["order.cancel", second]])
      for (const e of log) expect(e.ip).toEqual(expect.any(String))
      expect(log[0]!.before.status).toBe("MANUAL_REVIEW")
      expect(log[1]!.after.status).toBe("CANCELLED")
    }))

  it.effect("deliveries: a failed one retried, then marked delivered; audited", () =>
    Effect.gen(function*() {
      const op = yield* operator
      yield* seedListings([{ domain: "ops-transferfail.com", bin: 10_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "ops-transferfail.com", 10_000)
      const failed = (r: { readonly text: string }) => r.text.includes(`data-delivery="${id}"`)
      expect(failed(yield* waitUntil(page("/ops/deliveries", op.cookie), failed))).toBe(true)
      const retried = yield* act("/ops/deliveries", "/ops/deliveries/retry", op.cookie, { order_id: id })
      expect(retried.status, retried.text).toBe(303)
      expect(failed(yield* waitUntil(page("/ops/deliveries", op.cookie), failed))).toBe(true)
      const done = yield* act("/ops/deliveries", "/ops/deliveries/mark-delivered", op.cookie, { order_id: id })
      expect(done.status, done.text).toBe(303)
      expect(yield* statusOf(id)).toBe("TRANSFER_COMPLETED")
      expect((yield* page("/ops/deliveries", op.cookie)).text).not.toContain(`data-delivery="${id}"`)
      const missing = yield* act("/ops/deliveries", "/ops/deliveries/retry", op.cookie, {})
      expect(missing.status).toBe(400)
      expect((yield* auditOf(op.email)).map((e) => [e.action, e.target])).toEqual([
        ["delivery.retry", id],
        ["delivery.mark_delivered", id]
      ])
    }))

  it.effect("offers: accepted, countered, declined; a counter without a price is a 400 page; audited", () =>
    Effect.gen(function*() {
      const op = yield* operator
      const names = ["ops-offer1.io", "ops-offer2.io", "ops-offer3.io"]
      yield* seedListings(
        names.map((domain) => ({ domain, bin: 250_000, floor: 100_000, environment: "live" as const }))
      )
      const offer = (domain: string, amount: number) =>
        Effect.map(
          request("/api/market/offers", {
            method: "POST",
            headers: { "x-forwarded-for": "198.51.100.40" },
            body: { domain, amount_cents: amount, email: "buyer@example.test" }
          }),
          (r) => {
            expect(r.status, r.text).toBe(201)
            return r.json.id as string
          }
        )
      const [a, b, c] = [
        yield* offer(names[0]!, 200_000),
        yield* offer(names[1]!, 150_000),
        yield* offer(names[2]!, 100)
      ]
      const listed = yield* page("/ops/offers", op.cookie)
      for (const id of [a, b, c]) expect(listed.text, listed.text.slice(-1500)).toContain(`data-offer="${id}"`)
      expect((yield* act("/ops/offers", "/ops/offers/decide", op.cookie, { offer_id: b, decision: "counter" })).status)
        .toBe(400)
      expect((yield* act("/ops/offers", "/ops/offers/decide", op.cookie, { offer_id: a, decision: "maybe" })).status)
        .toBe(400)
      for (
        const [id, fields] of [
          [a, { decision: "accept" }],
          [b, { decision: "counter", amount_cents: "220000" }],
          [c, { decision: "decline" }]
        ] as const
      ) {
        const reply = yield* act("/ops/offers", "/ops/offers/decide", op.cookie, { offer_id: id, ...fields })
        expect(reply.status, reply.text).toBe(303)
      }
      const closed = yield* act("/ops/offers", "/ops/offers/decide", op.cookie, { offer_id: c, decision: "accept" })
      expect(closed.status).toBe(409)
      const log = yield* auditOf(op.email)
      expect(log.map((e) => [e.action, e.target, e.after.status])).toEqual([
        ["offer.accept", a, "accepted"],
        ["offer.counter", b, "countered"],
        ["offer.decline", c, "declined"]
      ])
      // The buyer's checkout link is a credential: the log keeps the offer, never the link.
      expect(JSON.stringify(log)).not.toMatch(/checkout_url|https?:/)
    }))

  it.effect("brokerage: a case advanced with a note, then closed lost; a bad price is a 400 page; audited", () =>
    Effect.gen(function*() {
      const op = yield* operator
      const cred = yield* createPartner({ scopes: ["broker"], environment: "live" })
      const created = yield* signed(cred, "POST", "/api/partner/v1/brokerage", {
        body: { domain: "ops-case.com", tier: "self_serve", buyer_email: "b@example.org", budget: 100_000 },
        headers: { "idempotency-key": crypto.randomUUID() }
      })
      expect(created.status, created.text).toBe(201)
      const id = created.json.id as string
      expect((yield* page("/ops/brokerage", op.cookie)).text).toContain(`data-case="${id}"`)
      const bad = yield* act("/ops/brokerage", "/ops/brokerage/advance", op.cookie, { case_id: id, price_cents: "-5" })
      expect(bad.status).toBe(400)
      const advanced = yield* act("/ops/brokerage", "/ops/brokerage/advance", op.cookie, {
        case_id: id,
        note: "looking"
      })
      expect(advanced.status, advanced.text).toBe(303)
      const closed = yield* act("/ops/brokerage", "/ops/brokerage/close", op.cookie, { case_id: id, outcome: "lost" })
      expect(closed.status, closed.text).toBe(303)
      expect((yield* page("/ops/brokerage", op.cookie)).text).not.toContain(`data-case="${id}"`)
      const log = yield* auditOf(op.email)
      expect(log.map((e) => [e.action, e.before.status, e.after.status])).toEqual([
        ["brokerage.advance", "open", "researching"],
        ["brokerage.close", "researching", "closed_lost"]
      ])
    }))

  it.effect("money: settlement and payout runs with their results, ledger verify, a receipt; partners' commission; audited", () =>
    Effect.gen(function*() {
      const op = yield* operator
      yield* seedListings([{ domain: "ops-settle.com", bin: 10_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "ops-settle.com", 10_000)
      // Delivered by the sandbox registrar (perhaps settled by the schedule before the button).
      expect(yield* waitUntil(statusOf(id), (s) => s === "TRANSFER_COMPLETED" || s === "SETTLED")).toMatch(
        /TRANSFER_COMPLETED|SETTLED/
      )

      const settled = yield* act("/ops/money", "/ops/money/settle", op.cookie, {})
      expect(settled.status, settled.text).toBe(200)
      expect(settled.text).toMatch(/Run str_\S+ completed|Skipped/)
      const paid = yield* act("/ops/money", "/ops/money/payouts", op.cookie, {})
      expect(paid.status).toBe(200)
      expect(paid.text).toContain("Payout run")
      const verify = yield* page("/ops/money/verify", op.cookie)
      expect(verify.text).toContain("data-verify=\"ok\"")

      const receipt = (fields: Record<string, string>) =>
        act("/ops/money", "/ops/money/receipts", op.cookie, { environment: "sandbox", ...fields })
      expect((yield* receipt({ partner_id: "ptn_nope", amount_cents: "100", reference: "r-1" })).status).toBe(404)
      expect((yield* receipt({ partner_id: cred.partner_id, amount_cents: "1.5", reference: "r-1" })).status).toBe(400)
      expect((yield* receipt({ partner_id: cred.partner_id, amount_cents: "99999999", reference: "r-1" })).status)
        .toBe(409)
      const recorded = yield* receipt({ partner_id: cred.partner_id, amount_cents: "100", reference: "wire-1" })
      expect(recorded.status, recorded.text).toBe(201)
      expect(recorded.text).toContain("Payment recorded")

      const partners = yield* page("/ops/partners", op.cookie)
      expect(partners.text).toContain(`data-partner="${cred.partner_id}"`)
      const set = yield* act("/ops/partners", "/ops/partners/commission", op.cookie, {
        partner_id: cred.partner_id,
        bps: "1500"
      })
      expect(set.status).toBe(303)
      expect(
        (yield* act("/ops/partners", "/ops/partners/commission", op.cookie, {
          partner_id: cred.partner_id,
          bps: "20000"
        })).status
      ).toBe(400)
      expect(
        (yield* act("/ops/partners", "/ops/partners/commission", op.cookie, { partner_id: "ptn_nope", bps: "10" }))
          .status
      ).toBe(404)

      const log = yield* auditOf(op.email)
      expect(log.map((e) => e.action)).toEqual([
        "settlement.run",
        "payouts.run",
        "ledger.receipt",
        "partner.set_commission"
      ])
      expect(log[3]).toMatchObject({
        target: cred.partner_id,
        before: { commission_bps: 1000 },
        after: { commission_bps: 1500 }
      })
    }))

  it.effect("the audit page filters by actor, action and since from the URL; CSRF: stale, missing, cross-site → 403", () =>
    Effect.gen(function*() {
      const op = yield* operator
      const cred = yield* createPartner()
      for (const bps of ["1100", "1200"]) {
        expect(
          (yield* act("/ops/partners", "/ops/partners/commission", op.cookie, { partner_id: cred.partner_id, bps }))
            .status
        ).toBe(303)
      }
      const mine = yield* page(`/ops/audit?actor=${encodeURIComponent(op.email)}`, op.cookie)
      expect(mine.status).toBe(200)
      expect(mine.text.match(/data-audit="/g)).toHaveLength(2)
      expect(mine.text).toContain(`value="${op.email}"`)
      const byAction = yield* page(`/ops/audit?actor=${encodeURIComponent(op.email)}&action=order.cancel`, op.cookie)
      expect(byAction.text).toContain("No entries.")
      const future = yield* page(`/ops/audit?since=2999-01-01T00:00:00Z`, op.cookie)
      expect(future.text).toContain("No entries.")
      expect((yield* page("/ops/audit?since=yesterday-ish", op.cookie)).status).toBe(400)

      const fields = { partner_id: cred.partner_id, bps: "1300" }
      expect((yield* postForm("/ops/partners/commission", fields, op.cookie)).status).toBe(403)
      expect((yield* postForm("/ops/partners/commission", { ...fields, csrf: "0.stale" }, op.cookie)).status).toBe(403)
      const other = yield* operator
      const foreign = csrfOf((yield* page("/ops/partners", other.cookie)).text)
      expect((yield* postForm("/ops/partners/commission", { ...fields, csrf: foreign }, op.cookie)).status).toBe(403)
      const token = csrfOf((yield* page("/ops/partners", op.cookie)).text)
      const crossSite = yield* postForm("/ops/partners/commission", { ...fields, csrf: token }, op.cookie, {
        origin: "https://evil.example"
      })
      expect(crossSite.status).toBe(403)
      // Anonymous posts go to sign in; nothing of the refused ones is in the log.
      expect(
        (yield* request("/ops/partners/commission", {
          method: "POST",
          body: "bps=1",
          headers: { "content-type": "application/x-www-form-urlencoded" }
        })).status
      ).toBe(303)
      expect((yield* auditOf(op.email)).length).toBe(2)
    }))
})
