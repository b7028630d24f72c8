/**
 * `npm run cli -- brokerage list|show|advance|close` against the service's database: JSON on
 * stdout, JSON errors on stderr under --json, exit codes 3 (unknown case), 4 (move not allowed
 * now); a won case's commission, the moves in the timeline, `ledger verify` clean.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { runCli } from "../support/cli.js"
import { post, request } from "../support/http.js"
import { createPartner, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }

layer(Layer.empty)("brokerage CLI", (it) => {
  it.scoped(
    "list, show, advance with a price, close won; refusals with their exit codes",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* TestServer.sharedDatabaseUrl
        const server = yield* Layer.build(TestServer.layer({}, { databaseUrl }))
        const run = <A, E>(e: Effect.Effect<A, E, any>) => Effect.provide(e, server) as Effect.Effect<A, E>
        const cred = yield* run(createPartner({ scopes: ["broker"], environment: "live" }))
        const created = yield* run(signed(cred, "POST", "/api/partner/v1/brokerage", {
          body: { domain: "cli-case.com", tier: "self_serve", buyer_email: "b@example.org", budget: 100_000 }
        }))
        expect(created.status, created.text).toBe(201)
        const id = created.json.id

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
          expect((yield* run(post(`/api/admin/brokerage/${id}/advance`, undefined, ADMIN))).status).toBe(200)
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
        const verify = yield* run(request("/api/admin/ledger/verify", { headers: ADMIN }))
        expect(verify.json.problems).toEqual([])
        const detail = yield* run(request(`/api/admin/brokerage/${id}`, { headers: ADMIN }))
        expect(detail.json.timeline.map((t: any) => t.actor)).toEqual([
          "partner:" + cred.key_id,
          "admin",
          "admin",
          "admin",
          "operator-cli",
          "operator-cli"
        ])
        expect(detail.json.timeline[4].note).toBe("owner accepted")
      }),
    { timeout: 400_000 }
  )
})
