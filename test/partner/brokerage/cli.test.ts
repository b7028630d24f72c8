/**
 * `npm run cli -- brokerage list|show|advance|close` against the service's database: JSON on
 * stdout, JSON errors on stderr under --json, exit codes 3 (unknown case), 4 (move not allowed
 * now); a won case's commission, the moves in the timeline, `ledger verify` clean.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { apiClient } from "../../support/ApiClient.js"
import { runCli } from "../../support/cli.js"
import { createPartner } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

layer(Layer.empty)("brokerage CLI", (it) => {
  it.scoped(
    "list, show, advance with a price, close won; refusals with their exit codes",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* TestServer.sharedDatabaseUrl
        const server = yield* Layer.build(TestServer.layer({}, { databaseUrl }))
        const run = <A, E>(e: Effect.Effect<A, E, any>) => Effect.provide(e, server) as Effect.Effect<A, E>
        const cred = yield* run(createPartner({ scopes: ["broker"], environment: "live" }))
        const admin = yield* run(apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN }))
        const [created, reply] = yield* run(apiClient({ partner: cred })).pipe(
          Effect.flatMap((client) =>
            client.partnerBrokerage.createCase({
              payload: { domain: "cli-case.com", tier: "self_serve", buyer_email: "b@example.org", budget: 100_000 },
              headers: {},
              withResponse: true
            })
          )
        )
        expect(reply.status).toBe(201)
        const id = created.id

        const listed = yield* runCli(databaseUrl, ["brokerage", "list", "--status", "open", "--json"])
        expect(listed.code, listed.stderr).toBe(0)
        expect(JSON.parse(listed.stdout).cases.map((c: any) => c.id)).toEqual([id])

        const early = yield* runCli(databaseUrl, [
          "brokerage",
          "close",
          id,
          "--outcome",
          "won",
          "--price",
          "90000",
          "--json"
        ])
        expect(early.code).toBe(4)
        expect(JSON.parse(early.stderr).error.code).toBe("conflict")
        // The middle steps over the admin API (each CLI start costs seconds on a loaded machine).
        for (let i = 0; i < 3; i++) {
          yield* admin.adminBrokerage.advance({ path: { id }, urlParams: {} })
        }
        const agreed = yield* runCli(databaseUrl, [
          "brokerage",
          "advance",
          id,
          "--price",
          "90000",
          "--note",
          "owner accepted",
          "--json"
        ])
        expect(agreed.code, agreed.stderr).toBe(0)
        expect(JSON.parse(agreed.stdout)).toMatchObject({ status: "deal_agreed", agreed_price_cents: 90_000 })
        const won = yield* runCli(databaseUrl, ["brokerage", "close", id, "--outcome", "won", "--json"])
        expect(won.code, won.stderr).toBe(0)
        // 15 % of 90 000 = 13 500; 20 % of that = 2 700.
        expect(JSON.parse(won.stdout)).toMatchObject({
          status: "closed_won",
          deal_price_cents: 90_000,
          brokerage_fee_cents: 13_500,
          partner_commission_cents: 2_700
        })

        const missing = yield* runCli(databaseUrl, ["brokerage", "show", "brk_nope", "--json"])
        expect(missing.code).toBe(3)
        expect(JSON.parse(missing.stderr).error.code).toBe("not_found")
        expect((yield* admin.adminMoney.verifyLedger()).problems).toEqual([])
        const detail = yield* admin.adminBrokerage.getCase({ path: { id } })
        expect(detail.timeline.map((t) => t.actor)).toEqual([
          "partner:" + cred.key_id,
          "admin",
          "admin",
          "admin",
          "operator-cli",
          "operator-cli"
        ])
        expect(detail.timeline[4]?.note).toBe("owner accepted")
      }),
    { timeout: 400_000 }
  )
})
