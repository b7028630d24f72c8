/**
 * The operator CLI against the service's database: partner create/list/show/rotate/revoke, order
 * list/show and actions, and what scripts rely on: JSON on stdout, JSON errors on stderr under
 * --json, and distinct exit codes (2 usage, 3 not found, 4 conflict, 5 database unavailable).
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { runCli } from "../support/cli.js"
import { expectError, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

layer(Layer.empty)("partner CLI", (it) => {
  it.scoped(
    "partner create prints {partner_id, key_id, secret} once; the credential works; order actions, rotate and revoke",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* TestServer.sharedDatabaseUrl
        const server = yield* Layer.build(TestServer.layer({}, { databaseUrl }))
        const run = <A, E>(e: Effect.Effect<A, E, any>) => Effect.provide(e, server) as Effect.Effect<A, E>
        const created = yield* runCli(databaseUrl, [
          "partner",
          "create",
          "--name",
          "Acme Domains",
          "--env",
          "sandbox",
          "--scopes",
          "search,buy",
          "--commission-bps",
          "2500",
          "--json"
        ])
        expect(created.code, created.stderr).toBe(0)
        const cred = JSON.parse(created.stdout)
        expect(Object.keys(cred).sort()).toEqual(["key_id", "partner_id", "secret"])
        expect(cred.key_id).toMatch(/^pk_sandbox_[0-9a-f]{24}$/)
        expect(cred.secret).toMatch(/^sk_/)
        expect(cred.partner_id).toMatch(/^ptn_/)
        const issued = { ...cred, environment: "sandbox", scopes: ["search", "buy"] }

        yield* run(seedListings([{ domain: "cli-sold.com", bin: 700 }]))
        const order = yield* run(signed(issued, "POST", "/api/partner/v1/orders", {
          body: {
            domain: "cli-sold.com",
            expected_price: 700,
            currency: "USD",
            external_payment_ref: "x",
            buyer: { email: "b@example.org" }
          },
          headers: { "idempotency-key": crypto.randomUUID() }
        }))
        expect(order.status, order.text).toBe(201)
        const id = order.json.public_id
        const moved = yield* runCli(databaseUrl, ["order", "start-transfer", id, "--json"])
        expect(moved.code, moved.stderr).toBe(0)
        expect(JSON.parse(moved.stdout)).toMatchObject({ public_id: id, status: "TRANSFER_IN_PROGRESS" })
        const refused = yield* runCli(databaseUrl, ["order", "clear-review", id])
        expect(refused.code).toBe(4)
        expect(refused.stderr).toContain("TRANSFER_IN_PROGRESS")

        const listed = yield* runCli(databaseUrl, ["order", "list", "--status", "TRANSFER_IN_PROGRESS", "--json"])
        expect(listed.code, listed.stderr).toBe(0)
        expect(JSON.parse(listed.stdout).orders.map((o: any) => o.public_id)).toEqual([id])
        const shown = yield* runCli(databaseUrl, ["order", "show", id, "--json"])
        expect(shown.code, shown.stderr).toBe(0)
        expect(JSON.parse(shown.stdout)).toMatchObject({
          public_id: id,
          status: "TRANSFER_IN_PROGRESS",
          transfer: { status: "in_progress" }
        })
        const missing = yield* runCli(databaseUrl, ["order", "show", "ord_doesnotexist", "--json"])
        expect(missing.code).toBe(3)
        expect(JSON.parse(missing.stderr)).toEqual({
          error: { code: "not_found", message: expect.stringContaining("ord_doesnotexist") }
        })
        expect(missing.stdout).toBe("")

        const partners = yield* runCli(databaseUrl, ["partner", "list", "--json"])
        expect(partners.code, partners.stderr).toBe(0)
        const [partner] = JSON.parse(partners.stdout).partners
        expect(partner).toMatchObject({
          partner_id: cred.partner_id,
          name: "Acme Domains",
          commission_bps: 2500,
          credentials: [{ key_id: cred.key_id, active: true, scopes: ["search", "buy"] }]
        })
        expect(partners.stdout).not.toContain(cred.secret)
        const partnerShown = yield* runCli(databaseUrl, ["partner", "show", cred.partner_id])
        expect(partnerShown.code, partnerShown.stderr).toBe(0)
        expect(partnerShown.stdout).toContain(cred.key_id)
        // The rate docs/money.md says `partner show` shows, in the human output too.
        expect(partnerShown.stdout).toContain("commission 25 %")
        const listedHuman = yield* runCli(databaseUrl, ["partner", "list"])
        expect(listedHuman.stdout).toContain("commission 25 %")

        expect((yield* run(signed(issued, "GET", `/api/partner/v1/orders/${id}`))).json.status).toBe(
          "TRANSFER_IN_PROGRESS"
        )

        const bad = yield* runCli(databaseUrl, [
          "partner",
          "create",
          "--name",
          "X",
          "--env",
          "sandbox",
          "--scopes",
          "search,fly"
        ])
        expect(bad.code).toBe(2)

        // Suspended: every key refused until resumed; `list` says so.
        expect((yield* runCli(databaseUrl, ["partner", "suspend", cred.partner_id])).code).toBe(0)
        expectError(yield* run(signed(issued, "GET", "/api/partner/v1/orders")), 403, "credential_not_active")
        const suspended = yield* runCli(databaseUrl, ["partner", "show", cred.partner_id, "--json"])
        expect(JSON.parse(suspended.stdout).suspended_at).toMatch(/^\d{4}-/)
        expect((yield* runCli(databaseUrl, ["partner", "resume", cred.partner_id])).code).toBe(0)
        expect((yield* run(signed(issued, "GET", "/api/partner/v1/orders"))).status).toBe(200)
        // Scopes changed: `buy` taken away holds at the next request; a scope that is none is a usage error.
        const scoped = yield* runCli(databaseUrl, [
          "partner",
          "set-scopes",
          cred.key_id,
          "--scopes",
          "search",
          "--json"
        ])
        expect(scoped.code, scoped.stderr).toBe(0)
        expect(JSON.parse(scoped.stdout)).toEqual({ key_id: cred.key_id, scopes: ["search"] })
        const quote = yield* run(
          signed(issued, "POST", "/api/partner/v1/quotes", { body: { domain: "cli-example.com" } })
        )
        expectError(quote, 403, "forbidden")
        expect((yield* runCli(databaseUrl, ["partner", "set-scopes", cred.key_id, "--scopes", "search,fly"])).code)
          .toBe(2)
        expect((yield* runCli(databaseUrl, ["partner", "set-scopes", cred.key_id, "--scopes", "search,buy"])).code)
          .toBe(0)

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
      }),
    600_000
  ) // twenty-one CLI processes: slow on a loaded 2-core machine

  it.scoped(
    "--help needs no database; a database that cannot be reached is exit code 5 with a JSON error",
    () =>
      Effect.gen(function*() {
        const help = yield* runCli("postgres://postgres@127.0.0.1:9/postgres", ["order", "--help"], {
          DB_CONNECT_TIMEOUT: "1 second"
        })
        expect(help.code, help.stderr).toBe(0)
        expect(help.stdout).toContain("show")
        // Piped, help is plain text within 120 columns, and its USAGE names the program.
        expect(help.stdout).not.toMatch(/\x1b\[/)
        expect(Math.max(...help.stdout.split("\n").map((l) => l.length))).toBeLessThanOrEqual(120)
        expect(help.stdout).toContain("$ marketplace order")
        if (!process.env.DATABASE_URL) return // the embedded database is always reachable
        const down = yield* runCli("postgres://postgres@127.0.0.1:9/postgres", ["partner", "list", "--json"], {
          DB_CONNECT_TIMEOUT: "2 seconds"
        })
        expect(down.code, down.stderr).toBe(5)
        expect(JSON.parse(down.stderr.trim().split("\n").pop()!).error.code).toBe("unavailable")
      }),
    120_000
  )
})
