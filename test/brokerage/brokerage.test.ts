/**
 * Brokerage through HTTP: eligibility reasons, case creation and its typed 400s, one open case
 * per domain (two partners at once: one case, one 409), own-cases-only reads, the list with
 * filters and cursor, operator moves (admin HTTP) with timeline and events, the sandbox walk to
 * closed_won with signed webhooks, the commission in /transactions through settlement and a
 * payout, `ledger verify` clean, and the progress link (tampered → 400 page).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { post, request } from "../support/http.js"
import { createPartner, expectError, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"
import { type ReceivedDelivery, webhookReceiver } from "../support/WebhookReceiver.js"

const ENV = {
  OUTBOUND_ALLOW_LOOPBACK: "true",
  WEBHOOK_RETRY_BASE: "50 millis",
  WEBHOOK_POLL_INTERVAL: "100 millis",
  PAYOUT_MINIMUM_CENTS: "100"
}
const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
const BASE = "/api/partner/v1/brokerage"

const serviceSignatureOk = (secret: string, d: ReceivedDelivery) => {
  const expected = createHmac("sha256", secret).update(d.body).digest()
  const given = Buffer.from(String(d.headers["x-service-signature"]), "hex")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const verify = Effect.gen(function*() {
  const r = yield* request("/api/admin/ledger/verify", { headers: ADMIN })
  expect(r.status, r.text).toBe(200)
  expect(r.json.problems).toEqual([])
})

const caseBody = (domain: string, extra: Record<string, unknown> = {}) => ({
  domain,
  tier: "managed",
  buyer_email: "buyer@example.org",
  budget: 500_000,
  ...extra
})

layer(TestServer.layer(ENV))("brokerage", (it) => {
  it.effect("eligibility: every reason listed; invalid names are a reason, not an error", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner({ scopes: ["broker"] })
      const ok = yield* signed(cred, "GET", `${BASE}/eligibility?domain=Brokered-One.com`)
      expect(ok.status, ok.text).toBe(200)
      expect(ok.json).toMatchObject({ domain: "brokered-one.com", eligible: true, reasons: [] })
      expect(ok.json.site.classification).toBe("none")
      expect(Number.isNaN(Date.parse(ok.json.checked_at))).toBe(false)

      const reserved = yield* signed(cred, "GET", `${BASE}/eligibility?domain=example.com`)
      expect(reserved.json).toMatchObject({ eligible: false, reasons: ["reserved"], site: null })
      const sandboxReserved = yield* signed(cred, "GET", `${BASE}/eligibility?domain=my-reserved-name.com`)
      expect(sandboxReserved.json.reasons).toEqual(["reserved"])
      const invalid = yield* signed(cred, "GET", `${BASE}/eligibility?domain=${encodeURIComponent("not a domain")}`)
      expect(invalid.status).toBe(200)
      expect(invalid.json).toMatchObject({ eligible: false, reasons: ["invalid_domain"] })
      const sub = yield* signed(cred, "GET", `${BASE}/eligibility?domain=www.brokered-one.com`)
      expect(sub.json.reasons).toEqual(["invalid_domain"])

      // Scope: broker only.
      const other = yield* createPartner({ scopes: ["buy"] })
      expectError(yield* signed(other, "GET", `${BASE}/eligibility?domain=brokered-one.com`), 403, "forbidden")
    }))

  it.effect("bad input is a typed 400: unknown tier, negative, zero, fractional or too large budget, bad e-mail, invalid domain; a retried create with its key is answered once", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner({ scopes: ["broker"] })
      for (
        const body of [
          caseBody("bad-input.com", { tier: "platinum" }),
          caseBody("bad-input.com", { budget: -1 }),
          caseBody("bad-input.com", { budget: 10.5 }),
          caseBody("bad-input.com", { buyer_email: "not-an-email" }),
          caseBody("bad input"),
          { domain: "bad-input.com", tier: "managed" }
        ]
      ) {
        const r = yield* signed(cred, "POST", BASE, { body })
        expect(r.status, JSON.stringify(body)).toBe(400)
        expect(["validation_error", "invalid_request"]).toContain(r.json.error.code)
      }
      // The budget is 1 to 10 000 000 000 cents ($100M): zero or beyond is the documented 400, the bound itself is taken.
      for (const budget of [0, 10_000_000_001, Number.MAX_SAFE_INTEGER]) {
        const r = yield* signed(cred, "POST", BASE, { body: caseBody("bad-input.com", { budget }) })
        expect(expectError(r, 400, "validation_error").message, String(budget)).toContain("budget")
      }
      const largest = yield* signed(cred, "POST", BASE, {
        body: caseBody("largest-budget.com", { budget: 10_000_000_000 })
      })
      expect(largest.status, largest.text).toBe(201)
      expect(largest.json.budget).toBe(10_000_000_000)
      // A retried create with its Idempotency-Key answers the first 201, not a 409.
      const key = crypto.randomUUID()
      const first = yield* signed(cred, "POST", BASE, {
        body: caseBody("retried.com"),
        headers: { "idempotency-key": key }
      })
      expect(first.status, first.text).toBe(201)
      const again = yield* signed(cred, "POST", BASE, {
        body: caseBody("retried.com"),
        headers: { "idempotency-key": key }
      })
      expect(again.status).toBe(201)
      expect(again.json.id).toBe(first.json.id)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expectError(yield* signed(cred, "POST", BASE, { body: caseBody("retried.com") }), 409, "conflict")
    }))

  it.effect("two partners opening a case for one domain at once: one case, one 409 naming already_in_case", () =>
    Effect.gen(function*() {
      const a = yield* createPartner({ scopes: ["broker"] })
      const b = yield* createPartner({ scopes: ["broker"] })
      const [ra, rb] = yield* Effect.all([
        signed(a, "POST", BASE, { body: caseBody("contested.com") }),
        signed(b, "POST", BASE, { body: caseBody("contested.com") })
      ], { concurrency: 2 })
      expect([ra.status, rb.status].sort()).toEqual([201, 409])
      const loser = ra.status === 409 ? ra : rb
      expectError(loser, 409, "conflict")
      expect(loser.json.error.details.reasons).toEqual(["already_in_case"])
      const winner = ra.status === 201 ? ra : rb
      expect(winner.json).toMatchObject({
        domain: "contested.com",
        tier: "managed",
        status: "open",
        buyer_email: "buyer@example.org",
        budget: 500_000
      })
      expect(winner.json.id).toMatch(/^brk_/)
      expect(winner.json.progress_url).toMatch(/\/brokerage\/progress\?t=/)
      // Eligibility now says so too.
      const check = yield* signed(a, "GET", `${BASE}/eligibility?domain=contested.com`)
      expect(check.json.reasons).toContain("already_in_case")
      // A reserved name: 409 naming the reason.
      const reserved = yield* signed(a, "POST", BASE, { body: caseBody("example.net") })
      expectError(reserved, 409, "conflict")
      expect(reserved.json.error.details.reasons).toEqual(["reserved"])
      // Another partner's case is not found; the owner sees it with its timeline.
      const winnerCred = ra.status === 201 ? a : b
      const loserCred = ra.status === 201 ? b : a
      expectError(yield* signed(loserCred, "GET", `${BASE}/${winner.json.id}`), 404, "not_found")
      const mine = yield* signed(winnerCred, "GET", `${BASE}/${winner.json.id}`)
      expect(mine.status).toBe(200)
      expect(mine.json.timeline).toHaveLength(1)
      expect(mine.json.timeline[0]).toMatchObject({ status: "open", from_status: null })
      // Closing it lost frees the domain.
      const lost = yield* post(
        `/api/admin/brokerage/${winner.json.id}/close?outcome=lost&note=owner+declined`,
        undefined,
        ADMIN
      )
      expect(lost.status, lost.text).toBe(200)
      expect(lost.json.status).toBe("closed_lost")
      expect((yield* signed(loserCred, "POST", BASE, { body: caseBody("contested.com") })).status).toBe(201)
    }))

  it.effect("operators move cases over HTTP: wrong moves 409, won without a price 400, every move in the timeline and events", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner({ scopes: ["broker", "report", "webhook"], environment: "live" })
      const created = yield* signed(cred, "POST", BASE, {
        body: caseBody("operated.com", { tier: "self_serve", notes: "for the rebrand" })
      })
      expect(created.status, created.text).toBe(201)
      const id = created.json.id
      const adv = (q = "") => post(`/api/admin/brokerage/${id}/advance${q}`, undefined, ADMIN)
      expectError(
        yield* post(`/api/admin/brokerage/${id}/close?outcome=won&price=100`, undefined, ADMIN),
        409,
        "conflict"
      )
      for (const s of ["researching", "contacting_owner", "negotiating"]) expect((yield* adv()).json.status).toBe(s)
      expect((yield* adv("?price=1200000")).json).toMatchObject({
        status: "deal_agreed",
        agreed_price_cents: 1_200_000
      })
      const won = yield* adv("?note=signed")
      expect(won.status, won.text).toBe(200)
      // Defaults: fee 15 % of 1 200 000 = 180 000; partner share 20 % of the fee = 36 000.
      expect(won.json).toMatchObject({
        status: "closed_won",
        deal_price_cents: 1_200_000,
        brokerage_fee_cents: 180_000,
        partner_commission_cents: 36_000
      })
      expect(won.json.timeline.map((t: any) => t.status)).toEqual([
        "open",
        "researching",
        "contacting_owner",
        "negotiating",
        "deal_agreed",
        "closed_won"
      ])
      expectError(yield* adv(), 409, "conflict")
      expectError(yield* request(`/api/admin/brokerage/brk_nope`, { headers: ADMIN }), 404, "not_found")
      expect((yield* request(`/api/admin/brokerage/${id}`)).status).toBe(401)

      const events = (yield* signed(cred, "GET", "/api/partner/v1/events?limit=100")).json.events.filter((e: any) =>
        e.type.startsWith("brokerage.")
      )
      expect(events.map((e: any) => e.type)).toEqual([
        ...Array(6).fill("brokerage.case_updated"),
        "brokerage.case_completed"
      ])
      expect(events[6].data).toMatchObject({
        case: { id, status: "closed_won" },
        deal_price_cents: 1_200_000,
        brokerage_fee_cents: 180_000,
        partner_commission_cents: 36_000,
        currency: "USD"
      })
      // The commission: a brokerage row in /transactions; verify reconciles.
      const tx = yield* signed(cred, "GET", "/api/partner/v1/transactions?payment_model=brokerage")
      expect(tx.status, tx.text).toBe(200)
      expect(tx.json.transactions).toHaveLength(1)
      expect(tx.json.transactions[0]).toMatchObject({
        order_id: won.json.order_id,
        domain: "operated.com",
        payment_model: "brokerage",
        sale_price_cents: 180_000,
        commission_cents: 36_000
      })
      yield* verify

      // A won case without any price: 400.
      const second = yield* signed(cred, "POST", BASE, { body: caseBody("operated-two.com") })
      for (let i = 0; i < 4; i++) yield* post(`/api/admin/brokerage/${second.json.id}/advance`, undefined, ADMIN)
      expectError(
        yield* post(`/api/admin/brokerage/${second.json.id}/advance`, undefined, ADMIN),
        400,
        "validation_error"
      )
      expect(
        (yield* post(`/api/admin/brokerage/${second.json.id}/close?outcome=cancelled`, undefined, ADMIN)).json.status
      ).toBe("cancelled")

      // The list: scope report, filters and cursor.
      const all = yield* signed(cred, "GET", `${BASE}?limit=1`)
      expect(all.status, all.text).toBe(200)
      expect(all.json.cases).toHaveLength(1)
      expect(all.json.cases[0].id).toBe(second.json.id)
      const next = yield* signed(cred, "GET", `${BASE}?limit=1&cursor=${encodeURIComponent(all.json.next_cursor)}`)
      expect(next.json.cases[0].id).toBe(id)
      expect(next.json.next_cursor).toBeNull()
      const wonOnly = yield* signed(cred, "GET", `${BASE}?status=closed_won`)
      expect(wonOnly.json.cases.map((c: any) => c.id)).toEqual([id])
      const future = yield* signed(cred, "GET", `${BASE}?from=2999-01-01`)
      expect(future.json.cases).toEqual([])
      // The same date-window rule as /transactions and /settlements.
      const backwards = yield* signed(cred, "GET", `${BASE}?from=2026-12-01&to=2026-11-01`)
      expectError(backwards, 400, "validation_error")
      expect(backwards.json.error.message).toBe("from: must not be after to")
      expectError(yield* signed(cred, "GET", `${BASE}?from=yesterday`), 400, "validation_error")
      expectError(
        yield* signed(cred, "GET", `${BASE}?status=closed_won&cursor=${encodeURIComponent(all.json.next_cursor)}`),
        400,
        "validation_error"
      )
      const noReport = yield* createPartner({ scopes: ["broker"] })
      expectError(yield* signed(noReport, "GET", BASE), 403, "forbidden")
      // Live credentials may not use the sandbox walk.
      expectError(yield* signed(cred, "POST", `/api/partner/v1/sandbox/brokerage/${id}/advance`), 403, "forbidden")
    }))

  it.scoped("sandbox: advance walks a case to closed_won with signed webhooks; one more settles the commission, paid by the payout run", () =>
    Effect.gen(function*() {
      const receiver = yield* webhookReceiver()
      const cred = yield* createPartner({ scopes: ["broker", "report", "webhook"] })
      const secret = `whsec_${randomBytes(24).toString("base64")}`
      expect((yield* signed(cred, "PUT", "/api/partner/webhooks", { body: { url: receiver.url, secret } })).status)
        .toBe(200)
      const created = yield* signed(cred, "POST", BASE, { body: caseBody("walked.com", { budget: 2_000_000 }) })
      expect(created.status, created.text).toBe(201)
      const id = created.json.id
      const statuses: Array<string> = []
      for (let i = 0; i < 5; i++) {
        const r = yield* signed(cred, "POST", `/api/partner/v1/sandbox/brokerage/${id}/advance`)
        expect(r.status, r.text).toBe(200)
        statuses.push(r.json.status)
      }
      expect(statuses).toEqual(["researching", "contacting_owner", "negotiating", "deal_agreed", "closed_won"])
      const deliveries = yield* receiver.waitFor(7)
      const types = deliveries.map((d) => JSON.parse(d.body).type)
      expect(types).toEqual([...Array(6).fill("brokerage.case_updated"), "brokerage.case_completed"])
      for (const d of deliveries) expect(serviceSignatureOk(secret, d)).toBe(true)
      const completed = JSON.parse(deliveries[6].body)
      expect(completed.data).toMatchObject({
        case: { id, domain: "walked.com", status: "closed_won" },
        deal_price_cents: 2_000_000
      })

      // One more advance settles the commission now (sandbox skips the hold); then 409.
      const settled = yield* signed(cred, "POST", `/api/partner/v1/sandbox/brokerage/${id}/advance`)
      expect(settled.status, settled.text).toBe(200)
      expectError(yield* signed(cred, "POST", `/api/partner/v1/sandbox/brokerage/${id}/advance`), 409, "conflict")
      const tx = (yield* signed(cred, "GET", "/api/partner/v1/transactions?payment_model=brokerage")).json.transactions
      expect(tx).toHaveLength(1)
      expect(tx[0]).toMatchObject({ status: "SETTLED", sale_price_cents: 300_000, commission_cents: 60_000 })
      const run = yield* post("/api/admin/payouts/run", undefined, ADMIN)
      expect(run.status, run.text).toBe(200)
      const payouts = (yield* signed(cred, "GET", "/api/partner/v1/payouts")).json
      expect(payouts.payouts[0]).toMatchObject({ amount_cents: 60_000, status: "paid", source: "brokerage" })
      yield* verify

      // The progress link: no login, plain words; a tampered token is a 400 page.
      const page = yield* request(
        new URL(created.json.progress_url).pathname + new URL(created.json.progress_url).search
      )
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toMatch(/text\/html/)
      expect(page.text).toContain("walked.com")
      expect(page.text).toContain("Acquired")
      expect(page.text).not.toContain(cred.partner_id)
      expect(page.text).not.toContain(cred.key_id)
      expect(page.text).not.toContain("buyer@example.org")
      const t = new URL(created.json.progress_url).searchParams.get("t")!
      const tampered = yield* request(
        `/brokerage/progress?t=${encodeURIComponent(t.slice(0, -2) + (t.endsWith("AA") ? "BB" : "AA"))}`
      )
      expect(tampered.status).toBe(400)
      expect(tampered.text).toContain("This link does not work")
      expect((yield* request("/brokerage/progress")).status).toBe(400)
    }))
})
