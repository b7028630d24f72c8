/** The operator CLI against the service's database: partner create/rotate/revoke and order actions. */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { runCli } from "../support/cli.js"
import { expectError, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

layer(Layer.empty)("partner CLI", (it) => {
  it.scoped("partner create prints {partner_id, key_id, secret} once; the credential works; order actions, rotate and revoke", () =>
    Effect.gen(function*() {
      const databaseUrl = yield* TestServer.sharedDatabaseUrl
      const server = yield* Layer.build(TestServer.layer({}, { databaseUrl }))
      const run = <A, E>(e: Effect.Effect<A, E, any>) => Effect.provide(e, server) as Effect.Effect<A, E>
      const created = yield* runCli(databaseUrl, ["partner", "create", "--name", "Acme Domains", "--env", "sandbox", "--scopes", "search,buy", "--json"])
      expect(created.code, created.stderr).toBe(0)
      const cred = JSON.parse(created.stdout)
      expect(Object.keys(cred).sort()).toEqual(["key_id", "partner_id", "secret"])
      expect(cred.key_id).toMatch(/^pk_sandbox_[0-9a-f]{24}$/)
      expect(cred.secret).toMatch(/^sk_/)
      expect(cred.partner_id).toMatch(/^ptn_/)
      const issued = { ...cred, environment: "sandbox", scopes: ["search", "buy"] }

      yield* run(seedListings([{ domain: "cli-sold.com", bin: 700 }]))
      const order = yield* run(signed(issued, "POST", "/api/partner/v1/orders", {
        body: { domain: "cli-sold.com", expected_price: 700, currency: "USD", external_payment_ref: "x", buyer: { email: "b@example.org" } },
        headers: { "idempotency-key": crypto.randomUUID() }
      }))
      expect(order.status, order.text).toBe(201)
      const id = order.json.public_id
      const moved = yield* runCli(databaseUrl, ["order", "start-transfer", id, "--json"])
      expect(moved.code, moved.stderr).toBe(0)
      expect(JSON.parse(moved.stdout)).toMatchObject({ public_id: id, status: "TRANSFER_IN_PROGRESS" })
      const refused = yield* runCli(databaseUrl, ["order", "clear-review", id])
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain("TRANSFER_IN_PROGRESS")
      expect((yield* run(signed(issued, "GET", `/api/partner/v1/orders/${id}`))).json.status).toBe("TRANSFER_IN_PROGRESS")

      const bad = yield* runCli(databaseUrl, ["partner", "create", "--name", "X", "--env", "sandbox", "--scopes", "search,fly"])
      expect(bad.code).not.toBe(0)

      const rotated = yield* runCli(databaseUrl, ["partner", "rotate", cred.key_id, "--json"])
      expect(rotated.code, rotated.stderr).toBe(0)
      const next = JSON.parse(rotated.stdout)
      expect(next.partner_id).toBe(cred.partner_id)
      expect(next.key_id).not.toBe(cred.key_id)
      expectError(yield* run(signed(issued, "GET", "/api/partner/v1/orders")), 403, "credential_not_active")
      const nextIssued = { ...next, environment: "sandbox", scopes: ["search", "buy"] }
      const mine = yield* run(signed(nextIssued, "GET", "/api/partner/v1/orders"))
      expect(mine.json.orders.map((o: any) => o.public_id)).toEqual([id])

      expect((yield* runCli(databaseUrl, ["partner", "revoke", next.key_id])).code).toBe(0)
      expectError(yield* run(signed(nextIssued, "GET", "/api/partner/v1/orders")), 403, "credential_not_active")
      expect(Context.get(server, TestServer.TestServer).databaseUrl).toBe(databaseUrl)
    }), 180_000)
})
