/**
 * The audit log end to end: a named operator token acts on /api/admin and the log names that
 * person with the order's state before and after; ADMIN_TOKEN still works (recorded as
 * "admin-token"); a revoked or forged token is refused (401); a refused action records nothing;
 * the table refuses UPDATE and DELETE; `audit list --json` filters and its exact shape; a record
 * and its action commit or roll back together.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { OperatorTokens } from "../../src/admin/OperatorTokens.js"
import { AuditLog } from "../../src/audit/AuditLog.js"
import { runCli } from "../support/cli.js"
import { post, request } from "../support/http.js"
import { buy, createPartner, seedListings } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

class DatabaseUrl extends Context.Tag("test/DatabaseUrl")<DatabaseUrl, string>() {}

const Env = Layer.unwrapScoped(Effect.map(TestServer.sharedDatabaseUrl, (url) =>
  Layer.merge(
    TestServer.layer({ REVIEW_THRESHOLD_CENTS: "500000" }, { databaseUrl: url }),
    Layer.succeed(DatabaseUrl, url)
  )))

const cli = (args: ReadonlyArray<string>) => Effect.flatMap(DatabaseUrl, (url) => runCli(url, args))
const cliJson = (args: ReadonlyArray<string>) =>
  Effect.map(cli([...args, "--json"]), (r) => {
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout)
  })
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const ADMIN = bearer(TestServer.baseEnv.ADMIN_TOKEN!)

layer(Env, { timeout: 180_000 })("audit log", (it) => {
  it.effect("a named operator's admin action is recorded with their name, before and after; revoked → 401", () =>
    Effect.gen(function*() {
      yield* seedListings([{ domain: "audited.com", bin: 10_000 }, { domain: "audited2.com", bin: 10_000 }])
      const cred = yield* createPartner()
      const first = yield* buy(cred, "audited.com", 10_000)
      const second = yield* buy(cred, "audited2.com", 10_000)

      const created = yield* cliJson(["operator", "token", "create", "--name", "Ana"])
      expect(created.name).toBe("Ana")
      expect(created.token).toMatch(/^opt_[0-9a-z]{26}\./)

      const held = yield* post(`/api/admin/orders/${first}/hold`, undefined, bearer(created.token))
      expect(held.status, held.text).toBe(200)
      // Refused by the service (already held): nothing is recorded.
      const again = yield* post(`/api/admin/orders/${first}/hold`, undefined, bearer(created.token))
      expect(again.status).toBe(409)
      const byAdmin = yield* post(`/api/admin/orders/${second}/hold`, undefined, ADMIN)
      expect(byAdmin.status).toBe(200)

      const ana = yield* cliJson(["audit", "list", "--actor", "Ana"])
      expect(ana).toHaveLength(1)
      const entry = ana[0]
      expect(Object.keys(entry).sort()).toEqual(["action", "actor", "after", "at", "before", "id", "ip", "target"])
      expect(entry).toMatchObject({ actor: "Ana", action: "order.hold", target: first })
      expect(entry.id).toMatch(/^aud_/)
      expect(entry.ip).toEqual(expect.any(String))
      expect(entry.before.status).not.toBe(entry.after.status)
      expect(entry.after.status).toBe(held.json.status)

      const admin = yield* cliJson(["audit", "list", "--actor", "admin-token", "--action", "order.hold"])
      expect(admin.map((e: { target: string }) => e.target)).toEqual([second])
      const all = yield* cliJson(["audit", "list", "--action", "order.hold"])
      expect(all.map((e: { actor: string }) => e.actor)).toEqual(["admin-token", "Ana"])
      const future = yield* cliJson(["audit", "list", "--since", "2999-01-01T00:00:00Z"])
      expect(future).toEqual([])

      // The admin endpoint reads the same log, paged with the house's cursor.
      const page = yield* request("/api/admin/audit?action=order.hold&limit=1", { headers: ADMIN })
      expect(page.status).toBe(200)
      expect(page.json.entries).toEqual([all[0]])
      const next = yield* request(
        `/api/admin/audit?action=order.hold&limit=1&cursor=${encodeURIComponent(page.json.next_cursor)}`,
        { headers: ADMIN }
      )
      expect(next.json.entries).toEqual([all[1]])
      const otherFilters = yield* request(
        `/api/admin/audit?action=order.clear&cursor=${encodeURIComponent(page.json.next_cursor)}`,
        { headers: ADMIN }
      )
      expect(otherFilters.status).toBe(400)

      // A known id with a wrong secret, then the revoked token: 401 both.
      const forged = `${created.id}.${"A".repeat(43)}`
      expect((yield* request("/api/admin/audit", { headers: bearer(forged) })).status).toBe(401)
      const revoked = yield* cliJson(["operator", "token", "revoke", created.id])
      expect(revoked.revoked_at).toEqual(expect.any(String))
      expect((yield* request("/api/admin/audit", { headers: bearer(created.token) })).status).toBe(401)
      const history = yield* cliJson(["audit", "list", "--action", "operator_token.revoke"])
      expect(history[0]).toMatchObject({ target: created.id, ip: null })
      expect(history[0].actor).toMatch(/^cli:/)
      const named = yield* cliJson(["audit", "list", "--as", "Bea", "--limit", "1"])
      expect(named).toHaveLength(1)
    }))

  it.effect("a refused action records nothing; the CLI's --as names the actor", () =>
    Effect.gen(function*() {
      const refused = yield* post(
        "/api/admin/ledger/receipts",
        { partner_id: "ptn_nobody", amount_cents: 100, reference: "R-1" },
        ADMIN
      )
      expect(refused.status).toBe(404)
      expect(yield* cliJson(["audit", "list", "--action", "ledger.receipt"])).toEqual([])
      const made = yield* cli(["operator", "token", "create", "--name", "Cy", "--as", "Dee", "--json"])
      expect(made.code, made.stderr).toBe(0)
      const rows = yield* cliJson(["audit", "list", "--action", "operator_token.create", "--actor", "Dee"])
      expect(rows).toHaveLength(1)
      expect(rows[0].after.name).toBe("Cy")
      expect(JSON.stringify(rows[0])).not.toContain(JSON.parse(made.stdout).token)
    }))

  it.effect("the operator CLI's state-changing commands are recorded, never with a secret; a refused one is not", () =>
    Effect.gen(function*() {
      const as = ["--as", "Eve"]
      const partner = yield* cliJson(["partner", "create", "--name", "Acme", "--env", "live", "--scopes", "buy", ...as])
      const rotated = yield* cliJson(["partner", "rotate", partner.key_id, ...as])
      yield* cliJson(["partner", "set-commission", partner.partner_id, "--bps", "1500", ...as])
      const unknown = yield* cli(["partner", "revoke", "key_nobody", "--json", ...as])
      expect(unknown.code).toBe(3)
      yield* seedListings([{ domain: "audited-cli.com", bin: 10_000 }])
      const order = yield* buy(yield* createPartner(), "audited-cli.com", 10_000)
      yield* cliJson(["order", "hold", order, "--note", "checking", ...as])
      yield* cliJson(["settle", ...as])
      const password = "correct horse battery"
      yield* cliJson([
        "user",
        "create",
        "--email",
        "op-eve@example.org",
        "--password",
        password,
        "--role",
        "operator",
        ...as
      ])

      const rows: ReadonlyArray<{ action: string; target: string | null; before: any; after: any }> = yield* cliJson([
        "audit",
        "list",
        "--actor",
        "Eve"
      ])
      expect(rows.map((r) => r.action).reverse()).toEqual([
        "partner.create",
        "credential.rotate",
        "partner.set_commission",
        "order.hold",
        "settlement.run",
        "user.create"
      ])
      const byAction = Object.fromEntries(rows.map((r) => [r.action, r]))
      expect(byAction["partner.create"]!.after).toMatchObject({ partner_id: partner.partner_id, name: "Acme" })
      expect(byAction["credential.rotate"]).toMatchObject({ target: partner.key_id, after: { key_id: rotated.key_id } })
      expect(byAction["partner.set_commission"]).toMatchObject({
        before: { commission_bps: 1000 },
        after: { commission_bps: 1500 }
      })
      expect(byAction["order.hold"]).toMatchObject({
        target: order,
        before: { status: "EXTERNALLY_PAID" },
        after: { status: "MANUAL_REVIEW" }
      })
      expect(byAction["user.create"]!.after).toMatchObject({ email: "op-eve@example.org", role: "operator" })
      const text = JSON.stringify(rows)
      expect(text).not.toContain(password)
      expect(text).not.toContain(partner.secret)
      expect(text).not.toContain(rotated.secret)
    }))

  it.effect("the table refuses UPDATE and DELETE", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const audit = yield* AuditLog
      const row = yield* audit.record({
        actor: "t",
        action: "test.append",
        target: null,
        before: null,
        after: 1,
        ip: null
      })
      const update = yield* Effect.exit(sql`update audit_log set actor = 'x' where id = ${row.id}`)
      const remove = yield* Effect.exit(sql`delete from audit_log where id = ${row.id}`)
      expect(Exit.isFailure(update)).toBe(true)
      expect(Exit.isFailure(remove)).toBe(true)
      const [kept] = yield* audit.list({ action: "test.append", limit: 1 })
      expect(kept).toEqual(row)
    }).pipe(Effect.provide(AuditLog.Default)))

  it.effect("an action and its record commit or roll back together", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const audit = yield* AuditLog
      const tokens = yield* OperatorTokens
      const who = { actor: "rollback-test", ip: null }
      // The caller's transaction fails after the action: the change and its record are both gone.
      const outer = yield* Effect.exit(sql.withTransaction(
        Effect.zipRight(
          audit.audited(who, { action: "test.rollback", target: null }, tokens.create("Rolled back")),
          Effect.fail("later step failed")
        )
      ))
      expect(Exit.isFailure(outer)).toBe(true)
      // The record cannot be written: the action is rolled back with it.
      const broken = yield* Effect.exit(audited(audit, who, tokens.create("Unrecorded")))
      expect(Exit.isFailure(broken)).toBe(true)
      const names = (yield* tokens.list).map((t) => t.name)
      expect(names).not.toContain("Rolled back")
      expect(names).not.toContain("Unrecorded")
      expect(yield* audit.list({ actor: "rollback-test", limit: 10 })).toEqual([])
    }).pipe(Effect.provide(Layer.merge(AuditLog.Default, OperatorTokens.Default))))
})

/** An action whose `after` cannot be serialised (a cycle): the record fails inside the transaction. */
const audited = <A, E, R>(
  audit: AuditLog,
  who: { actor: string; ip: null },
  effect: Effect.Effect<A, E, R>
) => {
  const cycle: Record<string, unknown> = {}
  cycle.self = cycle
  return audit.audited(who, { action: "test.unrecordable", target: null, after: () => cycle }, effect)
}
