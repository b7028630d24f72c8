/** In production the attribution cookie is also `Secure` (the other attributes stay). */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as TestServer from "../support/TestServer.js"
import { follow } from "./ReferralKit.js"

layer(
  TestServer.layer({
    NODE_ENV: "production",
    METRICS_TOKEN: "Mt4Kq8Zr2Vx6Bn1Lp9Wd3Hs7Fj5Gc0Ya",
    // A test deployment: production refuses the sandbox providers and the embedded database otherwise.
    TEST_MODE: "true",
    SERVICE_SECRET: randomBytes(32).toString("base64"),
    ADMIN_TOKEN: randomBytes(32).toString("base64")
  }),
  { timeout: 120_000 }
)("referral cookie in production", (it) => {
  it.effect("Secure, HttpOnly, SameSite=Lax", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`insert into partners (id, name, affiliate, commission_bps) values ('ptn_prod', 'Prod', true, 1000)`
      yield* sql`insert into referral_links (id, code, partner_id, environment, kind) values ('lnk_prod', 'ProdCode12', 'ptn_prod', 'live', 'generic')`
      const r = yield* follow("ProdCode12")
      expect(r.reply.status).toBe(302)
      expect(r.setCookie).toMatch(/^mk_ref=[^;]+; Max-Age=2592000; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
    }).pipe(Effect.orDie))
})
