/**
 * Only the seller of record refunds (issue 29, item 3). Every payment model — partner-collected,
 * a partner's hosted checkout, a referral sale through /buy, the marketplace's own /buy sale, a
 * brokerage deal — tried by every partner role (the partner that collected it, another partner,
 * the affiliate whose link sold it) through signed `POST /api/partner/v1/refunds`: a partner
 * refunds only what it collected itself (its partner-collected orders and its own checkout
 * sessions); anything else is 404 `not_found`, the same answer as an order that does not exist.
 * Operators refund the rest with `POST /api/admin/orders/{id}/refund` and
 * `cli order refund <id>`: the reversing ledger transaction, the buyer's card refunded at the
 * payment provider (the session becomes `refunded`), `ledger verify` clean.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { IssuedCredential } from "../../../src/partner/Credentials.js"
import { follow } from "../../referrals/ReferralKit.js"
import { apiClient } from "../../support/ApiClient.js"
import { buyAndPay } from "../../support/CheckoutKit.js"
import { CARDS, openSession, payWith, ptOf } from "../../support/CheckoutKit.js"
import { runCli } from "../../support/cli.js"
import { request } from "../../support/http.js"
import { buy, createPartner, expectError, seedListings, signed, waitUntil } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

const ENV = { CHECKOUT_RECONCILE_INTERVAL: "200 millis", REFERRAL_FLUSH_INTERVAL: "50 millis" }
const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }

/** One server on a database the CLI can reach too. */
const ServerLive = Layer.unwrapScoped(
  Effect.map(TestServer.sharedDatabaseUrl, (databaseUrl) => TestServer.layer(ENV, { databaseUrl }))
)

const partnerRefund = (cred: IssuedCredential, orderId: string, reason?: string) =>
  signed(cred, "POST", "/api/partner/v1/refunds", {
    body: reason === undefined ? { order_id: orderId } : { order_id: orderId, reason }
  })

const adminRefund = (orderId: string, body: unknown = { reason: "operator refund" }) =>
  request(`/api/admin/orders/${orderId}/refund`, { method: "POST", headers: ADMIN, body })

/** The 404 a partner gets for an order it may not refund: the same as for one that does not exist. */
const expectNotFound = (cred: IssuedCredential, orderId: string) =>
  Effect.gen(function*() {
    const reply = yield* partnerRefund(cred, orderId, "let me try")
    const error = expectError(reply, 404, "not_found")
    const missing = expectError(yield* partnerRefund(cred, "ord_doesnotexist"), 404, "not_found")
    expect(error.message).toBe(missing.message.replace("ord_doesnotexist", orderId))
    expect(Object.keys(reply.json.error).sort()).toEqual(Object.keys(missing).sort())
  })

const orderRow = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ status: string; payment_model: string; partner_id: string; checkout_session_id: string | null }>`
      select status, payment_model, partner_id, checkout_session_id from partner_orders where id = ${id}`
  ).pipe(
    Effect.map((rows) => rows[0]!),
    Effect.orDie
  )

const sessionStatus = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ status: string }>`select status from checkout_sessions where id = ${id}`
  )
    .pipe(Effect.map((rows) => rows[0]?.status ?? "missing"), Effect.orDie)

/** The reversing ledger transaction of an order (natural key `order:<id>:reversed`). */
const reversals = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: string }>`select count(*) as n from ledger_transactions where order_id = ${id} and kind = 'reversed'`
  )
    .pipe(Effect.map((rows) => Number(rows[0]!.n)), Effect.orDie)

const verifyLedger = Effect.gen(function*() {
  const report = yield* (yield* apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN })).adminMoney.verifyLedger()
  expect(report.problems).toEqual([])
})

layer(ServerLive, { timeout: 180_000 })("only the seller of record refunds", (it) => {
  it.effect(
    "every payment model against every partner role; operators refund the rest over HTTP and the CLI",
    () =>
      Effect.gen(function*() {
        // The seller collects (orders, its own hosted checkout, brokerage); the affiliate also buys
        // (the `buy` scope) and refers; another partner has nothing to do with any of it.
        const seller = yield* createPartner({
          environment: "live",
          scopes: ["search", "buy", "embed", "broker", "report"]
        })
        const other = yield* createPartner({ environment: "live", scopes: ["search", "buy", "embed", "report"] })
        const affiliate = yield* createPartner({
          environment: "live",
          scopes: ["search", "buy", "refer", "report"],
          affiliate: true
        })
        yield* seedListings([
          { domain: "collected-refund.com", environment: "live", bin: 40_000 },
          { domain: "hosted-refund.com", environment: "live", bin: 50_000 },
          { domain: "referred-refund.com", environment: "live", bin: 60_000 },
          { domain: "house-refund.com", environment: "live", bin: 70_000 },
          { domain: "cli-refund.com", environment: "live", bin: 80_000 }
        ])

        // 1. Partner-collected: only the seller refunds it.
        const collected = yield* buy(seller, "collected-refund.com", 40_000)
        yield* expectNotFound(other, collected)
        yield* expectNotFound(affiliate, collected)
        const own = yield* partnerRefund(seller, collected, "buyer cancelled")
        expect(own.status, own.text).toBe(201)
        expect(own.json).toMatchObject({ order_id: collected, status: "REFUNDED", amount_cents: 40_000 })
        expect(yield* reversals(collected)).toBe(1)

        // 2. The seller's own hosted checkout session: the seller refunds it, and the buyer's card is
        //    refunded at the provider (the session becomes `refunded`).
        const opened = yield* openSession(seller, { domain: "hosted-refund.com" })
        expect(opened.status, opened.text).toBe(201)
        expect((yield* payWith(ptOf(opened.json.checkout_url), CARDS.ok)).status).toBe(303)
        const hosted = (yield* signed(seller, "GET", `/api/partner/v1/checkout-session/${opened.json.id}`)).json.order
          .public_id as string
        expect((yield* orderRow(hosted)).payment_model).toBe("hosted_checkout")
        yield* expectNotFound(other, hosted)
        yield* expectNotFound(affiliate, hosted)
        const hostedRefund = yield* partnerRefund(seller, hosted)
        expect(hostedRefund.status, hostedRefund.text).toBe(201)
        expect(yield* waitUntil(sessionStatus(opened.json.id), (s) => s === "refunded")).toBe("refunded")

        // 3. A referral sale: the affiliate clicks its own link and buys through /buy. The service
        //    collected the money, so neither the affiliate nor anyone else refunds it; operators do.
        const link = yield* signed(affiliate, "POST", "/api/partner/v1/links", {
          body: { kind: "domain", domain: "referred-refund.com" }
        })
        expect(link.status, link.text).toBe(201)
        const click = yield* follow(link.json.code)
        const referral = yield* buyAndPay("referred-refund.com", click.cookie)
        expect(yield* orderRow(referral.orderId)).toMatchObject({
          payment_model: "referral",
          partner_id: affiliate.partner_id,
          status: "PAID"
        })
        yield* expectNotFound(affiliate, referral.orderId)
        yield* expectNotFound(seller, referral.orderId)
        yield* expectNotFound(other, referral.orderId)
        expect((yield* orderRow(referral.orderId)).status).toBe("PAID")
        expect(yield* sessionStatus(referral.sessionId)).toBe("paid")

        const operator = yield* adminRefund(referral.orderId, { reason: "chargeback risk" })
        expect(operator.status, operator.text).toBe(201)
        expect(operator.json).toMatchObject({
          order_id: referral.orderId,
          status: "REFUNDED",
          amount_cents: 60_000,
          currency: "USD",
          order: { public_id: referral.orderId, status: "REFUNDED" }
        })
        expect(operator.json.refund_id).toMatch(/^rf_/)
        expect(yield* reversals(referral.orderId)).toBe(1)
        expect(yield* waitUntil(sessionStatus(referral.sessionId), (s) => s === "refunded")).toBe("refunded")
        // The affiliate's commission on it is reversed.
        const commissions = yield* signed(affiliate, "GET", "/api/partner/v1/me/commissions")
        expect(commissions.json.entries.map((e: { kind: string }) => e.kind)).toEqual(["accrued", "reversed"])
        // Twice: the order is REFUNDED now (409), never two reversals.
        expectError(yield* adminRefund(referral.orderId), 409, "conflict")
        expect(yield* reversals(referral.orderId)).toBe(1)

        // 4. The marketplace's own sale (/buy without a link): no partner refunds it; operators do.
        const house = yield* buyAndPay("house-refund.com")
        expect((yield* orderRow(house.orderId)).payment_model).toBe("hosted_checkout")
        for (const cred of [seller, other, affiliate]) yield* expectNotFound(cred, house.orderId)
        const houseRefund = yield* adminRefund(house.orderId, {})
        expect(houseRefund.status, houseRefund.text).toBe(201)
        expect(houseRefund.json).toMatchObject({ order_id: house.orderId, status: "REFUNDED", amount_cents: 70_000 })
        expect(yield* waitUntil(sessionStatus(house.sessionId), (s) => s === "refunded")).toBe("refunded")

        // 5. A brokerage deal of the seller: its commission is no partner's to refund (404); the
        //    deal is done (TRANSFER_COMPLETED), so an operator refund is a 409 conflict.
        const brokerCase = yield* signed(seller, "POST", "/api/partner/v1/brokerage", {
          body: { domain: "brokered-refund.com", tier: "managed", buyer_email: "b@example.org", budget: 500_000 }
        })
        expect(brokerCase.status, brokerCase.text).toBe(201)
        const admin = yield* apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN })
        const advance = (urlParams: { readonly price?: number } = {}) =>
          admin.adminBrokerage.advance({ path: { id: brokerCase.json.id }, urlParams })
        for (let i = 0; i < 3; i++) yield* advance()
        yield* advance({ price: 400_000 })
        const won = yield* advance()
        expect(won.status).toBe("closed_won")
        const brokered = won.order_id!
        expect((yield* orderRow(brokered)).payment_model).toBe("brokerage")
        for (const cred of [seller, other, affiliate]) yield* expectNotFound(cred, brokered)
        expectError(yield* adminRefund(brokered), 409, "conflict")

        // Unknown order, and no admin token.
        expectError(yield* adminRefund("ord_doesnotexist"), 404, "not_found")
        // The body is optional: no body at all is the same as {}.
        expectError(
          yield* request("/api/admin/orders/ord_doesnotexist/refund", { method: "POST", headers: ADMIN }),
          404,
          "not_found"
        )
        expect((yield* request(`/api/admin/orders/${house.orderId}/refund`, { method: "POST", body: {} })).status)
          .toBe(401)

        // 6. The CLI: the same operator refund, from another process.
        const cliSale = yield* buyAndPay("cli-refund.com")
        for (const cred of [seller, other, affiliate]) yield* expectNotFound(cred, cliSale.orderId)
        const { databaseUrl } = yield* TestServer.TestServer
        // Three processes at once: the refund, a refund the state machine refuses (the brokerage
        // deal is done: exit 4 conflict) and an unknown order (exit 3 not found).
        const [cli, conflict, unknown] = yield* Effect.all([
          runCli(databaseUrl!, ["order", "refund", cliSale.orderId, "--reason", "duplicate", "--json"]),
          runCli(databaseUrl!, ["order", "refund", brokered, "--json"]),
          runCli(databaseUrl!, ["order", "refund", "ord_doesnotexist"])
        ], { concurrency: 3 })
        expect(cli.code, cli.stderr).toBe(0)
        expect(JSON.parse(cli.stdout)).toMatchObject({
          order_id: cliSale.orderId,
          status: "REFUNDED",
          amount_cents: 80_000,
          order: { public_id: cliSale.orderId, status: "REFUNDED" }
        })
        expect(yield* waitUntil(sessionStatus(cliSale.sessionId), (s) => s === "refunded")).toBe("refunded")
        expect(yield* reversals(cliSale.orderId)).toBe(1)
        expect(conflict.code, conflict.stderr).toBe(4)
        expect(JSON.parse(conflict.stderr).error.code).toBe("conflict")
        expect(unknown.code, unknown.stderr).toBe(3)

        yield* verifyLedger
      }),
    240_000
  )
})
