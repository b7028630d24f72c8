/**
 * The operator CLI of issue 29, item 6, against the service's database: `ledger receipt` (JSON
 * on stdout, exit 4 for more than is owed),
 * `ledger export transactions|statement` (CSV on stdout with its header row), and `ledger
 * verify` naming a payment the provider captured that the books do not hold (exit 1).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeId } from "../../../src/platform/Ids.js"
import { runCli } from "../../support/cli.js"
import { post } from "../../support/http.js"
import { buy, createPartner, seedListings } from "../../support/PartnerKit.js"
import { capturedPayment } from "../../support/PaymentKit.js"
import * as TestServer from "../../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }

layer(Layer.empty)("ledger CLI", (it) => {
  it.scoped(
    "receipt, export transactions and statement as CSV, verify names an unposted payment",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* TestServer.sharedDatabaseUrl
        const server = yield* Layer.build(TestServer.layer({}, { databaseUrl }))
        const run = <A, E>(e: Effect.Effect<A, E, any>) => Effect.provide(e, server) as Effect.Effect<A, E>
        const cred = yield* run(createPartner({ scopes: ["buy"], environment: "live" }))
        yield* run(seedListings([{ domain: "cli-receipt.com", bin: 50_000, environment: "live" }]))
        const orderId = yield* run(buy(cred, "cli-receipt.com", 50_000))
        for (const step of ["start-transfer", "confirm-delivery"]) {
          expect((yield* run(post(`/api/admin/orders/${orderId}/${step}`, undefined, ADMIN))).status).toBe(200)
        }
        const asOf = new Date(Date.now() + 30 * 86_400_000).toISOString()
        const settled = yield* run(
          post(`/api/admin/settlements/run?as_of=${encodeURIComponent(asOf)}`, undefined, ADMIN)
        )
        const statement = settled.json.statements.find((s: any) => s.partner_id === cred.partner_id)
        expect(statement.amount_owed_cents).toBe(45_000)

        const tooMuch = yield* runCli(databaseUrl, [
          "ledger",
          "receipt",
          "--partner",
          cred.partner_id,
          "--amount",
          "45001",
          "--reference",
          "bank-1",
          "--json"
        ])
        expect(tooMuch.code, tooMuch.stderr).toBe(4)
        expect(JSON.parse(tooMuch.stderr).error.code).toBe("conflict")
        const paid = yield* runCli(databaseUrl, [
          "ledger",
          "receipt",
          "--partner",
          cred.partner_id,
          "--amount",
          "45000",
          "--reference",
          "bank-1",
          "--json"
        ])
        expect(paid.code, paid.stderr).toBe(0)
        expect(JSON.parse(paid.stdout)).toMatchObject({
          partner_id: cred.partner_id,
          amount_cents: 45_000,
          reference: "bank-1",
          statements_paid: [statement.id],
          owed_cents: 0
        })

        const tx = yield* runCli(databaseUrl, ["ledger", "export", "transactions", "--partner", cred.partner_id])
        expect(tx.code, tx.stderr).toBe(0)
        const txRows = tx.stdout.trimEnd().split("\r\n")
        expect(txRows[0]).toBe(
          "id,order_id,domain,payment_model,status,sale_price_cents,commission_cents,currency,created_at,settled_at"
        )
        expect(txRows).toHaveLength(2)
        expect(txRows[1]).toContain(`,${orderId},cli-receipt.com,partner_collected,SETTLED,50000,5000,USD,`)
        const st = yield* runCli(databaseUrl, ["ledger", "export", "statement", statement.id])
        expect(st.code, st.stderr).toBe(0)
        expect(st.stdout.trimEnd().split("\r\n")[1]).toMatch(
          new RegExp(
            `^${statement.id},[^,]+,[^,]+,paid,${orderId},cli-receipt.com,partner_collected,50000,5000,45000,USD$`
          )
        )

        // A payment the provider captured (a cart) that no posting holds: verify names it, exit 1.
        const session = yield* run(
          capturedPayment({ orderId: makeId("ord"), environment: "live", cents: 16_000, kind: "cart" })
        )
        const verify = yield* runCli(databaseUrl, ["ledger", "verify"])
        expect(verify.code).toBe(1)
        expect(verify.stdout).toContain(
          `payment ${session}: cart payment of 16000 USD captured by the payment provider is not in the ledger`
        )
      }),
    { timeout: 400_000 }
  )
})
