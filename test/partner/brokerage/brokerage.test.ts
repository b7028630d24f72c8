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
import type { CaseRequest } from "../../../src/partner/brokerage/Api.js"
import { BrokerageCaseNotFound, CaseMoveNotAllowed, InvalidCaseMove } from "../../../src/partner/brokerage/Errors.js"
import { InvalidDateWindow } from "../../../src/partner/Errors.js"
import { ForbiddenError, UnauthorizedError } from "../../../src/platform/http/Errors.js"
import { apiClient } from "../../support/ApiClient.js"
import { request } from "../../support/http.js"
import { createPartner, expectError, signed } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"
import { type ReceivedDelivery, webhookReceiver } from "../../support/WebhookReceiver.js"

const ENV = {
  OUTBOUND_ALLOW_LOOPBACK: "true",
  WEBHOOK_RETRY_BASE: "50 millis",
  WEBHOOK_POLL_INTERVAL: "100 millis",
  PAYOUT_MINIMUM_CENTS: "100"
}
const BASE = "/api/partner/v1/brokerage"

const serviceSignatureOk = (secret: string, d: ReceivedDelivery) => {
  const expected = createHmac("sha256", secret).update(d.body).digest()
  const given = Buffer.from(String(d.headers["x-service-signature"]), "hex")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The admin endpoints through the typed client (Bearer ADMIN_TOKEN). */
const adminClient = apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN })

const verify = Effect.gen(function*() {
  const report = yield* (yield* adminClient).adminMoney.verifyLedger()
  expect(report.problems).toEqual([])
})

const caseBody = (domain: string, extra: Record<string, unknown> = {}) => ({
  domain,
  tier: "managed",
  buyer_email: "buyer@example.org",
  budget: 500_000,
  ...extra
})

/** The same request body, typed for the typed client (which cannot send a malformed one). */
const casePayload = (domain: string, extra: Partial<typeof CaseRequest.Type> = {}): typeof CaseRequest.Type => ({
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
      // Through the typed client: a success is the endpoint's one success status (200), decoded.
      const client = yield* apiClient({ partner: cred })
      const eligibility = (domain: string) => client.partnerBrokerage.eligibility({ urlParams: { domain } })
      const ok = yield* eligibility("Brokered-One.com")
      expect(ok).toMatchObject({ domain: "brokered-one.com", eligible: true, reasons: [] })
      expect(ok.site?.classification).toBe("none")
      expect(Number.isNaN(Date.parse(ok.checked_at))).toBe(false)

      const reserved = yield* eligibility("example.com")
      expect(reserved).toMatchObject({ eligible: false, reasons: ["reserved"], site: null })
      expect((yield* eligibility("my-reserved-name.com")).reasons).toEqual(["reserved"])
      // An invalid name is a reason in a 200 answer, not an error.
      const invalid = yield* eligibility("not a domain")
      expect(invalid).toMatchObject({ eligible: false, reasons: ["invalid_domain"] })
      expect((yield* eligibility("www.brokered-one.com")).reasons).toEqual(["invalid_domain"])

      // Scope: broker only (403 forbidden).
      const other = yield* apiClient({ partner: yield* createPartner({ scopes: ["buy"] }) })
      const denied = yield* Effect.flip(
        other.partnerBrokerage.eligibility({ urlParams: { domain: "brokered-one.com" } })
      )
      expect(denied).toBeInstanceOf(ForbiddenError)
      expect(denied).toMatchObject({ code: "forbidden" })
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
      // The budget is 1 to 10^12 cents (the one bound of every amount, src/domain/Money.ts): zero or
      // beyond is the documented 400, the bound itself is taken.
      for (const budget of [0, 1_000_000_000_001, Number.MAX_SAFE_INTEGER]) {
        const r = yield* signed(cred, "POST", BASE, { body: caseBody("bad-input.com", { budget }) })
        expect(expectError(r, 400, "validation_error").message, String(budget)).toContain("budget")
      }
      const client = yield* apiClient({ partner: cred })
      const [largest, largestReply] = yield* client.partnerBrokerage.createCase({
        payload: casePayload("largest-budget.com", { budget: 1_000_000_000_000 }),
        headers: {},
        withResponse: true
      })
      expect(largestReply.status).toBe(201)
      expect(largest.budget).toBe(1_000_000_000_000)
      // A retried create with its Idempotency-Key answers the first 201, not a 409 (raw: the
      // Idempotent-Replayed header is the wire's).
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
      // Raw: the retry without the key meets the wire's DomainNotEligible envelope (code, request id).
      expectError(yield* signed(cred, "POST", BASE, { body: caseBody("retried.com") }), 409, "conflict")
    }))

  it.effect("two partners opening a case for one domain at once: one case, one 409 naming already_in_case", () =>
    Effect.gen(function*() {
      const a = yield* createPartner({ scopes: ["broker"] })
      const b = yield* createPartner({ scopes: ["broker"] })
      // Raw: both answers of the race are read from the same replies: the loser's wire code and
      // `details.reasons`, the winner's body.
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
      const winnerId: string = winner.json.id
      const winnerClient = yield* apiClient({ partner: ra.status === 201 ? a : b })
      const loserClient = yield* apiClient({ partner: ra.status === 201 ? b : a })
      // Eligibility now says so too.
      const check = yield* winnerClient.partnerBrokerage.eligibility({ urlParams: { domain: "contested.com" } })
      expect(check.reasons).toContain("already_in_case")
      // A reserved name: 409 naming the reason (raw, as above).
      const reserved = yield* signed(a, "POST", BASE, { body: caseBody("example.net") })
      expectError(reserved, 409, "conflict")
      expect(reserved.json.error.details.reasons).toEqual(["reserved"])
      // Another partner's case is not found; the owner sees it with its timeline.
      expect(yield* Effect.flip(loserClient.partnerBrokerage.getCase({ path: { id: winnerId } }))).toBeInstanceOf(
        BrokerageCaseNotFound
      )
      const mine = yield* winnerClient.partnerBrokerage.getCase({ path: { id: winnerId } })
      expect(mine.timeline).toHaveLength(1)
      expect(mine.timeline[0]).toMatchObject({ status: "open", from_status: null })
      // Closing it lost frees the domain.
      const lost = yield* (yield* adminClient).adminBrokerage.close({
        path: { id: winnerId },
        urlParams: { outcome: "lost", note: "owner declined" }
      })
      expect(lost.status).toBe("closed_lost")
      const [, reopened] = yield* loserClient.partnerBrokerage.createCase({
        payload: casePayload("contested.com"),
        headers: {},
        withResponse: true
      })
      expect(reopened.status).toBe(201)
    }))

  it.effect("operators move cases over HTTP: wrong moves 409, won without a price 400, every move in the timeline and events", () =>
    Effect.gen(function*() {
      const cred = yield* createPartner({ scopes: ["broker", "report", "webhook"], environment: "live" })
      const client = yield* apiClient({ partner: cred })
      const admin = yield* adminClient
      const [created, createdReply] = yield* client.partnerBrokerage.createCase({
        payload: casePayload("operated.com", { tier: "self_serve", notes: "for the rebrand" }),
        headers: {},
        withResponse: true
      })
      expect(createdReply.status).toBe(201)
      const id = created.id
      const adv = (urlParams: { readonly price?: number; readonly note?: string } = {}) =>
        admin.adminBrokerage.advance({ path: { id }, urlParams })
      expect(
        yield* Effect.flip(admin.adminBrokerage.close({ path: { id }, urlParams: { outcome: "won", price: 100 } }))
      ).toBeInstanceOf(CaseMoveNotAllowed)
      for (const s of ["researching", "contacting_owner", "negotiating"]) expect((yield* adv()).status).toBe(s)
      expect(yield* adv({ price: 1_200_000 })).toMatchObject({
        status: "deal_agreed",
        agreed_price_cents: 1_200_000
      })
      const won = yield* adv({ note: "signed" })
      // Defaults: fee 15 % of 1 200 000 = 180 000; partner share 20 % of the fee = 36 000.
      expect(won).toMatchObject({
        status: "closed_won",
        deal_price_cents: 1_200_000,
        brokerage_fee_cents: 180_000,
        partner_commission_cents: 36_000
      })
      expect(won.timeline.map((t) => t.status)).toEqual([
        "open",
        "researching",
        "contacting_owner",
        "negotiating",
        "deal_agreed",
        "closed_won"
      ])
      expect(yield* Effect.flip(adv())).toBeInstanceOf(CaseMoveNotAllowed)
      expect(yield* Effect.flip(admin.adminBrokerage.getCase({ path: { id: "brk_nope" } }))).toBeInstanceOf(
        BrokerageCaseNotFound
      )
      // Without the admin token: 401.
      const anonymous = yield* apiClient()
      expect(yield* Effect.flip(anonymous.adminBrokerage.getCase({ path: { id } }))).toBeInstanceOf(UnauthorizedError)

      const events = (yield* client.partnerEvents.listEvents({ urlParams: { limit: "100" } })).events.filter((e) =>
        e.type.startsWith("brokerage.")
      )
      expect(events.map((e) => e.type)).toEqual([
        ...Array(6).fill("brokerage.case_updated"),
        "brokerage.case_completed"
      ])
      expect(events[6]!.data).toMatchObject({
        case: { id, status: "closed_won" },
        deal_price_cents: 1_200_000,
        brokerage_fee_cents: 180_000,
        partner_commission_cents: 36_000,
        currency: "USD"
      })
      // The commission: a brokerage row in /transactions; verify reconciles.
      const tx = yield* client.partnerMoney.listTransactions({ urlParams: { payment_model: "brokerage" } })
      expect(tx.transactions).toHaveLength(1)
      expect(tx.transactions[0]).toMatchObject({
        order_id: won.order_id,
        domain: "operated.com",
        payment_model: "brokerage",
        sale_price_cents: 180_000,
        commission_cents: 36_000
      })
      yield* verify

      // A won case without any price: 400.
      const second = yield* client.partnerBrokerage.createCase({
        payload: casePayload("operated-two.com"),
        headers: {}
      })
      const advSecond = admin.adminBrokerage.advance({ path: { id: second.id }, urlParams: {} })
      for (let i = 0; i < 4; i++) yield* advSecond
      expect(yield* Effect.flip(advSecond)).toBeInstanceOf(InvalidCaseMove)
      expect(
        (yield* admin.adminBrokerage.close({ path: { id: second.id }, urlParams: { outcome: "cancelled" } })).status
      ).toBe("cancelled")

      // The list: scope report, filters and cursor.
      const list = (urlParams: Parameters<typeof client.partnerBrokerage.listCases>[0]["urlParams"]) =>
        client.partnerBrokerage.listCases({ urlParams })
      const all = yield* list({ limit: 1 })
      expect(all.cases).toHaveLength(1)
      expect(all.cases[0]!.id).toBe(second.id)
      const next = yield* list({ limit: 1, cursor: all.next_cursor ?? "" })
      expect(next.cases[0]!.id).toBe(id)
      expect(next.next_cursor).toBeNull()
      const wonOnly = yield* list({ status: "closed_won" })
      expect(wonOnly.cases.map((c) => c.id)).toEqual([id])
      const future = yield* list({ from: "2999-01-01" })
      expect(future.cases).toEqual([])
      // The same date-window rule as /transactions and /settlements.
      const backwards = yield* Effect.flip(list({ from: "2026-12-01", to: "2026-11-01" }))
      expect(backwards).toBeInstanceOf(InvalidDateWindow)
      expect(backwards.message).toBe("from: must not be after to")
      expect(yield* Effect.flip(list({ from: "yesterday" }))).toBeInstanceOf(InvalidDateWindow)
      // Raw: InvalidCursor and InvalidDateWindow are both 400 validation_error, and the typed
      // client decodes either as the first one declared, so only the wire code is asserted here.
      expectError(
        yield* signed(cred, "GET", `${BASE}?status=closed_won&cursor=${encodeURIComponent(all.next_cursor ?? "")}`),
        400,
        "validation_error"
      )
      const noReport = yield* apiClient({ partner: yield* createPartner({ scopes: ["broker"] }) })
      const noScope = yield* Effect.flip(noReport.partnerBrokerage.listCases({ urlParams: {} }))
      expect(noScope).toBeInstanceOf(ForbiddenError)
      expect(noScope).toMatchObject({ code: "forbidden" })
      // Live credentials may not use the sandbox walk. Raw: the typed client decodes SandboxOnly
      // (403 forbidden) as PartnerAuth's generic Forbidden, which is declared before it.
      expectError(yield* signed(cred, "POST", `/api/partner/v1/sandbox/brokerage/${id}/advance`), 403, "forbidden")
    }))

  it.scoped("sandbox: advance walks a case to closed_won with signed webhooks; one more settles the commission, paid by the payout run", () =>
    Effect.gen(function*() {
      const receiver = yield* webhookReceiver()
      const cred = yield* createPartner({ scopes: ["broker", "report", "webhook"] })
      const secret = `whsec_${randomBytes(24).toString("base64")}`
      const client = yield* apiClient({ partner: cred })
      // A success of the typed client is the endpoint's one success status: 200 here.
      yield* client.partnerWebhooks.registerWebhook({ payload: { url: receiver.url, secret } })
      const [created, createdReply] = yield* client.partnerBrokerage.createCase({
        payload: casePayload("walked.com", { budget: 2_000_000 }),
        headers: {},
        withResponse: true
      })
      expect(createdReply.status).toBe(201)
      const id = created.id
      const advance = client.partnerBrokerage.advanceSandbox({ path: { id } })
      const statuses: Array<string> = []
      for (let i = 0; i < 5; i++) statuses.push((yield* advance).status)
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
      yield* advance
      expect(yield* Effect.flip(advance)).toBeInstanceOf(CaseMoveNotAllowed)
      const tx = (yield* client.partnerMoney.listTransactions({ urlParams: { payment_model: "brokerage" } }))
        .transactions
      expect(tx).toHaveLength(1)
      expect(tx[0]).toMatchObject({ status: "SETTLED", sale_price_cents: 300_000, commission_cents: 60_000 })
      yield* (yield* adminClient).adminMoney.runPayouts()
      const payouts = yield* client.partnerMoney.listPayouts({ urlParams: {} })
      expect(payouts.payouts[0]).toMatchObject({ amount_cents: 60_000, status: "paid", source: "brokerage" })
      yield* verify

      // The progress link (an HTML page, raw): no login, plain words; a tampered token is a 400 page.
      const page = yield* request(
        new URL(created.progress_url).pathname + new URL(created.progress_url).search
      )
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toMatch(/text\/html/)
      expect(page.text).toContain("walked.com")
      expect(page.text).toContain("Acquired")
      expect(page.text).not.toContain(cred.partner_id)
      expect(page.text).not.toContain(cred.key_id)
      expect(page.text).not.toContain("buyer@example.org")
      const t = new URL(created.progress_url).searchParams.get("t")!
      const tampered = yield* request(
        `/brokerage/progress?t=${encodeURIComponent(t.slice(0, -2) + (t.endsWith("AA") ? "BB" : "AA"))}`
      )
      expect(tampered.status).toBe(400)
      expect(tampered.text).toContain("This link does not work")
      expect((yield* request("/brokerage/progress")).status).toBe(400)
    }))
})
