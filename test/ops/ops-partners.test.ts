/**
 * The operator console's partners (src/ops/PartnerHttp.ts) through HTTP against the real server:
 * an operator creates a partner with its owner's e-mail, the page shows the first key's secret and
 * the invitation once; the owner accepts and serves themselves in the partner console (a key with
 * the scopes granted here); another person is invited from the partners page; bad input is a 400
 * page that writes nothing; a non-operator is refused; the audit log names the operator and holds
 * neither the secret nor the link. A partner suspended from the page has every key refused until it
 * is resumed, and a key's scopes changed there hold at its next signed request.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "../support/http.js"
import { createTestUser, signIn } from "../support/identity.js"
import { expectError, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const Env = TestServer.layer({ RATE_LIMITS: JSON.stringify({ auth_login: 1000, auth_login_account: 1000 }) })

const HTML = { accept: "text/html" }
const csrfOf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? ""
const valueOf = (id: string, text: string) => new RegExp(`id="${id}" readonly value="([^"]+)"`).exec(text)?.[1] ?? ""
const page = (path: string, cookie: string) => request(path, { headers: { ...HTML, cookie } })

/** A form posted with a token read from `from`; `fields` may repeat a name (the ticked scopes). */
const act = (from: string, action: string, cookie: string, fields: ReadonlyArray<readonly [string, string]>) =>
  Effect.gen(function*() {
    const token = csrfOf((yield* page(from, cookie)).text)
    expect(token, from).not.toBe("")
    return yield* request(action, {
      method: "POST",
      body: new URLSearchParams([...fields.map(([k, v]): [string, string] => [k, v]), ["csrf", token]]).toString(),
      headers: { ...HTML, "content-type": "application/x-www-form-urlencoded", cookie }
    })
  })

const count = (table: "partners" | "partner_invitations") =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => Effect.map(sql<{ n: number }>`select count(*)::int as n from ${sql(table)}`, (r) => r[0]!.n)
  ).pipe(Effect.orDie)

layer(Env, { timeout: 120_000 })("operator console: partners", (it) => {
  it.effect("a partner created with its owner's invitation; the owner serves themselves; audited without secrets", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const op = yield* createTestUser({ role: "operator" })
      const opCookie = yield* signIn(op)
      const owner = yield* createTestUser()
      const name = `Registrar ${Date.now()}`

      const created = yield* act("/ops/partners", "/ops/partners", opCookie, [
        ["name", name],
        ["environment", "sandbox"],
        ["scope", "search"],
        ["scope", "refer"],
        ["commission_bps", "1500"],
        ["owner_email", owner.email.toUpperCase()]
      ])
      expect(created.status, created.text).toBe(201)
      expect(created.headers.get("cache-control")).toContain("no-store")
      const partnerId = /data-testid="partner-id">([^<]+)</.exec(created.text)?.[1] ?? ""
      expect(partnerId).toMatch(/^ptn_/)
      const secret = valueOf("secret", created.text)
      expect(secret).not.toBe("")
      const link = valueOf("invitation", created.text)
      expect(link).toContain("/console/invite/inv_")
      const listed = yield* page("/ops/partners", opCookie)
      expect(listed.text).toContain(`data-partner="${partnerId}"`)
      expect(listed.text).toContain("15 %")
      expect(listed.text).not.toContain(secret)

      // The owner joins and may create a key with the scopes granted here, and no others.
      const invite = link.slice(link.indexOf("/console/invite/"))
      const ownerCookie = yield* signIn(owner)
      const joined = yield* act(invite, invite, ownerCookie, [])
      expect(joined.status, joined.text).toBe(303)
      expect((yield* page("/console", ownerCookie)).text).toContain(name)
      const keys = yield* page(`/console/keys?partner=${partnerId}`, ownerCookie)
      expect(keys.text).toContain(`value="refer"`)
      expect(keys.text).not.toContain(`value="buy"`)

      // Another person invited from the partners page, as a viewer.
      const invited = yield* act("/ops/partners", "/ops/partners/invite", opCookie, [
        ["partner_id", partnerId],
        ["email", "viewer@example.test"],
        ["role", "viewer"]
      ])
      expect(invited.status, invited.text).toBe(201)
      expect(valueOf("invitation", invited.text)).toContain("/console/invite/inv_")

      const audit = yield* sql<{ action: string; target: string | null; after: unknown }>`
        select action, target, after from audit_log where actor = ${op.email} order by id`
      expect(audit.map((e) => e.action)).toEqual(["partner.create", "member.invite", "member.invite"])
      expect(audit[0]!.after).toMatchObject({ partner_id: partnerId, name, scopes: ["search", "refer"] })
      expect(audit[1]).toMatchObject({ target: partnerId, after: { email: owner.email, role: "owner" } })
      const recorded = JSON.stringify(audit)
      expect(recorded).not.toContain(secret)
      expect(recorded).not.toContain("/console/invite/")
    }))

  it.effect("bad input is a 400 page that writes nothing; an unknown partner 404; a member is refused", () =>
    Effect.gen(function*() {
      const op = yield* createTestUser({ role: "operator" })
      const cookie = yield* signIn(op)
      const partners = yield* count("partners")
      const invitations = yield* count("partner_invitations")
      const good = [["name", "Acme"], ["environment", "sandbox"], ["scope", "search"]] as const
      const bad: ReadonlyArray<readonly [ReadonlyArray<readonly [string, string]>, string]> = [
        [[["environment", "sandbox"], ["scope", "search"]], "name is required"],
        [[["name", "x".repeat(101)], ["environment", "sandbox"], ["scope", "search"]], "at most 100"],
        [[["name", "Acme"], ["environment", "prod"], ["scope", "search"]], "sandbox or live"],
        [[["name", "Acme"], ["environment", "live"]], "at least one scope"],
        [[...good, ["scope", "root"]], "at least one scope"],
        [[...good, ["commission_bps", "10001"]], "0 to 10000"],
        [[...good, ["commission_bps", "-1"]], "0 to 10000"],
        [[...good, ["owner_email", "not an address"]], "an e-mail address"]
      ]
      for (const [fields, reason] of bad) {
        const reply = yield* act("/ops/partners", "/ops/partners", cookie, fields)
        expect(reply.status, reason).toBe(400)
        expect(reply.text, reason).toContain(reason)
      }
      const invite = (fields: ReadonlyArray<readonly [string, string]>) =>
        act("/ops/partners", "/ops/partners/invite", cookie, fields)
      expect((yield* invite([["partner_id", "ptn_nope"], ["email", "a@example.test"], ["role", "owner"]])).status)
        .toBe(404)
      expect((yield* invite([["partner_id", "ptn_nope"], ["email", "a@example.test"], ["role", "boss"]])).status)
        .toBe(400)
      expect((yield* invite([["partner_id", "ptn_nope"], ["role", "owner"]])).status).toBe(400)
      expect(yield* count("partners")).toBe(partners)
      expect(yield* count("partner_invitations")).toBe(invitations)

      // A member's own valid token does not open the door.
      const member = yield* createTestUser()
      const memberCookie = yield* signIn(member)
      const refused = yield* act("/account", "/ops/partners", memberCookie, good)
      expect(refused.status).toBe(403)
      expect(yield* count("partners")).toBe(partners)
    }))

  it.effect("suspend and resume a partner, change a key's scopes: the signed API follows at once, audited", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const op = yield* createTestUser({ role: "operator" })
      const cookie = yield* signIn(op)
      const created = yield* act("/ops/partners", "/ops/partners", cookie, [
        ["name", `Suspended ${Date.now()}`],
        ["environment", "sandbox"],
        ["scope", "search"]
      ])
      expect(created.status, created.text).toBe(201)
      const partnerId = /data-testid="partner-id">([^<]+)</.exec(created.text)?.[1] ?? ""
      const keyId = /data-testid="key-id">([^<]+)</.exec(created.text)?.[1] ?? ""
      const key = {
        partner_id: partnerId,
        key_id: keyId,
        secret: valueOf("secret", created.text),
        environment: "sandbox" as const,
        scopes: ["search" as const]
      }
      const availability = "/api/partner/v1/availability?domain=ops-suspended-example.com"
      expect((yield* signed(key, "GET", availability)).status).toBe(200)

      const suspend = (value: string) =>
        act("/ops/partners", "/ops/partners/suspension", cookie, [["partner_id", partnerId], ["suspended", value]])
      expect((yield* suspend("yes")).status).toBe(303)
      expectError(yield* signed(key, "GET", availability), 403, "credential_not_active")
      const listed = (yield* page("/ops/partners", cookie)).text
      expect(listed).toContain(`data-field="suspended"`)
      expect(listed).toContain(`aria-label="Resume: Suspended`)
      expect((yield* suspend("no")).status).toBe(303)
      expect((yield* signed(key, "GET", availability)).status).toBe(200)

      const setScopes = (fields: ReadonlyArray<readonly [string, string]>) =>
        act("/ops/partners", "/ops/partners/scopes", cookie, fields)
      expectError(yield* signed(key, "GET", "/api/partner/v1/events"), 403, "forbidden")
      expect((yield* setScopes([["key_id", keyId], ["scope", "webhook"], ["scope", "webhook"]])).status).toBe(303)
      expect((yield* signed(key, "GET", "/api/partner/v1/events")).status).toBe(200)
      expectError(yield* signed(key, "GET", availability), 403, "forbidden")
      // The partner's grant follows: its people cannot give a new key what was taken away.
      const [grant] = yield* sql<{ granted_scopes: ReadonlyArray<string> }>`
        select granted_scopes from partners where id = ${partnerId}`
      expect(grant!.granted_scopes).toEqual(["webhook"])
      expect((yield* page("/ops/partners", cookie)).text).toMatch(
        new RegExp(`id="scope-${keyId}-webhook" checked`)
      )

      // Refused before anything is written.
      expect((yield* suspend("maybe")).status).toBe(400)
      expect((yield* setScopes([["key_id", keyId]])).status).toBe(400)
      expect((yield* setScopes([["key_id", keyId], ["scope", "root"]])).status).toBe(400)
      expect((yield* setScopes([["key_id", "pk_sandbox_nope"], ["scope", "search"]])).status).toBe(404)
      expect(
        (yield* act("/ops/partners", "/ops/partners/suspension", cookie, [["partner_id", "ptn_nope"], [
          "suspended",
          "yes"
        ]])).status
      ).toBe(404)

      const audit = yield* sql<{ action: string; target: string; before: unknown; after: unknown }>`
        select action, target, before, after from audit_log where actor = ${op.email} order by id`
      expect(audit.slice(1)).toEqual([
        { action: "partner.suspend", target: partnerId, before: { suspended: false }, after: { suspended: true } },
        { action: "partner.resume", target: partnerId, before: { suspended: true }, after: { suspended: false } },
        { action: "credential.set_scopes", target: keyId, before: null, after: { scopes: ["webhook"] } }
      ])
    }))
})
