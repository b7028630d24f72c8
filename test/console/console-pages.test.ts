/**
 * The partner console (src/console/, src/partner/members/) through HTTP against the real server:
 * anonymous → 303 to sign in; a person with no partner → a friendly page; the CLI's invitation
 * (hashed, single use, expiring, for its e-mail only) accepted from its link; keys created (the
 * secret shown once), rotated (the old key still signs during the grace period) and revoked, with
 * the last use and IP; each role's rights checked by the services; every page and action of
 * partner A refused to a member of partner B as if A did not exist; stale and cross-site forms refused.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
import { runCli } from "../support/cli.js"
import { request } from "../support/http.js"
import { createTestUser, signIn, type TestUser } from "../support/identity.js"
import { createPartner, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const HTML = { accept: "text/html" }
const FORM = { ...HTML, "content-type": "application/x-www-form-urlencoded" }
const SIGNED_PATH = "/api/partner/v1/availability?domain=signed-example.com"

const csrfOf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? ""
const page = (path: string, cookie?: string) => request(path, { headers: { ...HTML, ...(cookie ? { cookie } : {}) } })
const postForm = (
  path: string,
  fields: Record<string, string | ReadonlyArray<string>>,
  cookie: string,
  headers = {}
) => {
  const body = new URLSearchParams()
  for (const [k, v] of Object.entries(fields)) for (const one of typeof v === "string" ? [v] : v) body.append(k, one)
  return request(path, { method: "POST", body: body.toString(), headers: { ...FORM, cookie, ...headers } })
}

/** A partner with one sandbox credential, and a signed-in member of each given role. */
const partnerWith = (roles: ReadonlyArray<"owner" | "developer" | "finance" | "viewer">) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cred = yield* createPartner({ scopes: ["search", "buy", "webhook"] })
    const people: Array<TestUser & { cookie: string }> = []
    for (const role of roles) {
      const user = yield* createTestUser()
      yield* sql`insert into partner_members (partner_id, user_id, email, role)
                 values (${cred.partner_id}, ${user.id}, ${user.email}, ${role})`
      people.push({ ...user, cookie: yield* signIn(user) })
    }
    return { cred, people }
  })

/** A console form's post with a token read from the page it is on. */
const act = (from: string, action: string, cookie: string, fields: Record<string, string | ReadonlyArray<string>>) =>
  Effect.gen(function*() {
    // A role without the form still gets a valid token (the account page's, bound to the same
    // session), so a refusal is the service's, not the token's.
    const token = csrfOf((yield* page(from, cookie)).text) || csrfOf((yield* page("/account", cookie)).text)
    expect(token).not.toBe("")
    return yield* postForm(action, { ...fields, csrf: token }, cookie)
  })

/** The audit log's entries of one person, oldest first. */
const auditOf = (email: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ action: string; target: string | null; after: unknown; ip: string | null }>`
      select action, target, after, ip from audit_log where actor = ${email} order by at, id`.pipe(Effect.orDie)
  )

const pathOf = (url: string) => url.slice(url.indexOf("/console/invite/"))

const keyState = (text: string, keyId: string) =>
  new RegExp(`data-key-id="${keyId}"[\\s\\S]*?data-field="state">([^<]*)<`).exec(text)?.[1]

/** A database the CLI's process reaches too (the invitation comes from `partner invite`). */
const env = Layer.unwrapScoped(
  Effect.map(
    TestServer.sharedDatabaseUrl,
    (databaseUrl) =>
      TestServer.layer({ RATE_LIMITS: JSON.stringify({ auth_login: 1000, auth_login_account: 1000 }) }, { databaseUrl })
  )
)

layer(env, { timeout: 180_000 })("partner console", (it) => {
  it.effect("anonymous → 303 to sign in and back; no partner → a friendly page", () =>
    Effect.gen(function*() {
      for (const path of ["/console", "/console/keys", "/console/members", "/console/invite/inv_x"]) {
        const reply = yield* page(path)
        expect(reply.status, path).toBe(303)
        expect(reply.headers.get("location"), path).toBe(`/signin?next=${path}`)
      }
      const user = yield* createTestUser()
      const lonely = yield* page("/console", yield* signIn(user))
      expect(lonely.status).toBe(200)
      expect(lonely.text).toContain("not a member of any partner yet")
      expect(lonely.headers.get("content-security-policy")).toMatch(/nonce-/)
    }))

  it.effect("an invitation from the CLI: hashed, for its e-mail, single use, expiring", () =>
    Effect.gen(function*() {
      const databaseUrl = (yield* TestServer.TestServer).databaseUrl
      const sql = yield* SqlClient.SqlClient
      const cred = yield* createPartner()
      const user = yield* createTestUser()
      const cli = yield* runCli(databaseUrl!, [
        "partner",
        "invite",
        "--partner",
        cred.partner_id,
        "--email",
        user.email.toUpperCase(),
        "--role",
        "developer",
        "--json"
      ])
      expect(cli.code, cli.stderr).toBe(0)
      const invited = JSON.parse(cli.stdout) as { url: string; role: string; email: string }
      expect(invited).toMatchObject({ role: "developer", email: user.email })
      const path = pathOf(invited.url)
      const token = path.split("/").pop()!
      const stored = yield* sql<
        { token_hash: string }
      >`select token_hash from partner_invitations where email = ${user.email}`
      expect(stored[0]!.token_hash).toBe(createHash("sha256").update(token).digest("hex"))

      expect((yield* page(path)).headers.get("location")).toBe(`/signin?next=${path}`)
      // Another person cannot use it.
      const other = yield* signIn(yield* createTestUser())
      expect((yield* act(path, path, other, {})).status).toBe(403)
      const cookie = yield* signIn(user)
      const offer = yield* page(path, cookie)
      expect(offer.status).toBe(200)
      expect(offer.text).toContain("developer")
      expect((yield* postForm(path, { csrf: "0.stale" }, cookie)).status).toBe(403)
      const joined = yield* postForm(path, { csrf: csrfOf(offer.text) }, cookie)
      expect(joined.status, joined.text).toBe(303)
      expect(joined.headers.get("location")).toBe(`/console?partner=${cred.partner_id}`)
      expect((yield* page("/console", cookie)).text).toContain("you are a developer")
      // Used: gone.
      expect((yield* page(path, cookie)).status).toBe(410)
      expect((yield* postForm(path, { csrf: csrfOf(offer.text) }, cookie)).status).toBe(410)

      const unknown = yield* runCli(databaseUrl!, [
        "partner",
        "invite",
        "--partner",
        "ptn_nope",
        "--email",
        "a@b.example",
        "--role",
        "viewer"
      ])
      expect(unknown.code).toBe(3)

      // Expired: refused though never used.
      const late = yield* runCli(databaseUrl!, [
        "partner",
        "invite",
        "--partner",
        cred.partner_id,
        "--email",
        user.email,
        "--role",
        "owner",
        "--json"
      ])
      const latePath = pathOf((JSON.parse(late.stdout) as { url: string }).url)
      yield* sql`update partner_invitations set expires_at = now() - interval '1 second' where accepted_at is null and partner_id = ${cred.partner_id}`
      expect((yield* page(latePath, cookie)).status).toBe(410)
      expect((yield* postForm(latePath, { csrf: csrfOf(offer.text) }, cookie)).status).toBe(410)
      expect((yield* page("/console", cookie)).text).toContain("you are a developer")
    }))

  it.effect("keys: created (secret once), rotated (old one signs in its grace), revoked; last use and IP", () =>
    Effect.gen(function*() {
      const { cred, people: [owner] } = yield* partnerWith(["owner"])
      const keys = `/console/keys?partner=${cred.partner_id}`
      const made = yield* act(keys, "/console/keys", owner!.cookie, {
        partner: cred.partner_id,
        environment: "sandbox",
        scope: ["search", "buy"]
      })
      expect(made.status, made.text).toBe(201)
      const secret = /id="secret" readonly value="([^"]+)"/.exec(made.text)![1]!
      const keyId = /data-testid="key-id">([^<]+)</.exec(made.text)![1]!
      expect(secret).toMatch(/^sk_/)
      expect(made.headers.get("cache-control") ?? "").not.toMatch(/public/)
      const listed = yield* page(keys, owner!.cookie)
      expect(listed.text).toContain(keyId)
      expect(listed.text).not.toContain(secret)
      const fresh: IssuedCredential = { ...cred, key_id: keyId, secret, scopes: ["search", "buy"] }
      expect((yield* signed(fresh, "GET", SIGNED_PATH)).status).toBe(200)
      expect((yield* page(keys, owner!.cookie)).text).toMatch(
        /last used [^<]*from (127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)/
      )

      // Scopes the operator never granted are refused.
      const wider = yield* act(keys, "/console/keys", owner!.cookie, {
        partner: cred.partner_id,
        environment: "sandbox",
        scope: "broker"
      })
      expect(wider.status).toBe(400)
      const live = yield* act(keys, "/console/keys", owner!.cookie, {
        partner: cred.partner_id,
        environment: "live",
        scope: "search"
      })
      expect(live.status).toBe(400)

      const rotated = yield* act(keys, "/console/keys/rotate", owner!.cookie, {
        partner: cred.partner_id,
        key_id: keyId
      })
      expect(rotated.status).toBe(201)
      const next: IssuedCredential = {
        ...fresh,
        key_id: /data-testid="key-id">([^<]+)</.exec(rotated.text)![1]!,
        secret: /id="secret" readonly value="([^"]+)"/.exec(rotated.text)![1]!
      }
      expect((yield* signed(fresh, "GET", SIGNED_PATH)).status).toBe(200)
      expect((yield* signed(next, "GET", SIGNED_PATH)).status).toBe(200)
      expect(keyState((yield* page(keys, owner!.cookie)).text, keyId)).toMatch(/^Active until/)

      const revoked = yield* act(keys, "/console/keys/revoke", owner!.cookie, {
        partner: cred.partner_id,
        key_id: keyId
      })
      expect(revoked.status).toBe(303)
      expect((yield* signed(fresh, "GET", SIGNED_PATH)).status).toBe(403)
      expect((yield* signed(next, "GET", SIGNED_PATH)).status).toBe(200)
      expect(keyState((yield* page(keys, owner!.cookie)).text, keyId)).toMatch(/^Revoked/)

      // Each write is in the audit log under the person's e-mail and IP, never with a secret; the
      // refused ones (scopes never granted) are not.
      const log = yield* auditOf(owner!.email)
      expect(log.map((e) => [e.action, e.target])).toEqual([
        ["console.key_create", cred.partner_id],
        ["console.key_rotate", keyId],
        ["console.key_revoke", keyId]
      ])
      expect(log[0]!.after).toMatchObject({ key_id: keyId, environment: "sandbox", scopes: ["search", "buy"] })
      expect(log[0]!.ip).toMatch(/127\.0\.0\.1|::1/)
      expect(JSON.stringify(log)).not.toContain(secret)
      expect(JSON.stringify(log)).not.toContain(next.secret)
    }))

  it.effect("roles: owner and developer manage keys, finance and viewer only look; only owners manage members", () =>
    Effect.gen(function*() {
      const { cred, people } = yield* partnerWith(["owner", "developer", "finance", "viewer"])
      const [owner, developer, finance, viewer] = people
      const keys = `/console/keys?partner=${cred.partner_id}`
      const members = `/console/members?partner=${cred.partner_id}`
      for (const [who, may] of [[owner!, true], [developer!, true], [finance!, false], [viewer!, false]] as const) {
        const shown = yield* page(keys, who.cookie)
        expect(shown.status).toBe(200)
        expect(shown.text.includes(`action="/console/keys"`), who.email).toBe(may)
        const made = yield* act(keys, "/console/keys", who.cookie, {
          partner: cred.partner_id,
          environment: "sandbox",
          scope: "search"
        })
        expect(made.status, who.email).toBe(may ? 201 : 403)
        // Each revokes a key of its own making (or, refused, the partner's first one).
        const keyId = /data-testid="key-id">([^<]+)</.exec(made.text)?.[1] ?? cred.key_id
        const revoke = yield* act(keys, "/console/keys/revoke", who.cookie, { partner: cred.partner_id, key_id: keyId })
        expect(revoke.status, who.email).toBe(may ? 303 : 403)
      }
      for (const who of [developer!, finance!, viewer!]) {
        const shown = yield* page(members, who.cookie)
        expect(shown.status).toBe(200)
        expect(shown.text).not.toContain(`action="/console/members/invite"`)
        const invite = yield* act(members, "/console/members/invite", who.cookie, {
          partner: cred.partner_id,
          email: "x@example.test",
          role: "owner"
        })
        expect(invite.status).toBe(403)
        const remove = yield* act(members, "/console/members/remove", who.cookie, {
          partner: cred.partner_id,
          user_id: owner!.id
        })
        expect(remove.status).toBe(403)
      }
      const invite = yield* act(members, "/console/members/invite", owner!.cookie, {
        partner: cred.partner_id,
        email: "new@example.test",
        role: "finance"
      })
      expect(invite.status).toBe(201)
      expect(invite.text).toMatch(/\/console\/invite\/inv_/)
      const removed = yield* act(members, "/console/members/remove", owner!.cookie, {
        partner: cred.partner_id,
        user_id: viewer!.id
      })
      expect(removed.status).toBe(303)
      expect((yield* page(members, viewer!.cookie)).status).toBe(404)
      const last = yield* act(members, "/console/members/remove", owner!.cookie, {
        partner: cred.partner_id,
        user_id: owner!.id
      })
      expect(last.status).toBe(409)
      expect((yield* auditOf(owner!.email)).map((e) => e.action)).toEqual([
        "console.key_create",
        "console.key_revoke",
        "member.invite",
        "member.remove"
      ])
      expect(yield* auditOf(finance!.email)).toEqual([])
      expect(JSON.stringify(yield* auditOf(owner!.email))).not.toContain("/console/invite/")
    }))

  it.effect("a member of partner B never sees or acts on partner A (every page and action: 404)", () =>
    Effect.gen(function*() {
      const a = yield* partnerWith(["owner"])
      const b = yield* partnerWith(["owner"])
      const intruder = b.people[0]!.cookie
      const A = a.cred.partner_id
      for (const path of ["/console", "/console/keys", "/console/members"]) {
        const reply = yield* page(`${path}?partner=${A}`, intruder)
        expect(reply.status, path).toBe(404)
        expect(reply.text, path).not.toContain(a.cred.key_id)
      }
      const own = `/console/keys?partner=${b.cred.partner_id}`
      const posts: ReadonlyArray<readonly [string, Record<string, string>]> = [
        ["/console/keys", { partner: A, environment: "sandbox", scope: "search" }],
        ["/console/keys/rotate", { partner: A, key_id: a.cred.key_id }],
        ["/console/keys/revoke", { partner: A, key_id: a.cred.key_id }],
        ["/console/members/invite", { partner: A, email: "x@example.test", role: "owner" }],
        ["/console/members/remove", { partner: A, user_id: a.people[0]!.id }]
      ]
      for (const [action, fields] of posts) {
        const reply = yield* act(own, action, intruder, fields)
        expect(reply.status, action).toBe(404)
      }
      // A's key through B's own partner: not B's key.
      const viaOwn = yield* act(own, "/console/keys/revoke", intruder, {
        partner: b.cred.partner_id,
        key_id: a.cred.key_id
      })
      expect(viaOwn.status).toBe(404)
      const rotateViaOwn = yield* act(own, "/console/keys/rotate", intruder, {
        partner: b.cred.partner_id,
        key_id: a.cred.key_id
      })
      expect(rotateViaOwn.status).toBe(404)
      expect((yield* signed(a.cred, "GET", SIGNED_PATH)).status).toBe(200)
      expect((yield* page(`/console/members?partner=${A}`, a.people[0]!.cookie)).text).not.toContain("x@example.test")
    }))

  it.effect("a stale token or another site's post is refused (403) and changes nothing", () =>
    Effect.gen(function*() {
      const { cred, people: [owner] } = yield* partnerWith(["owner"])
      const keys = `/console/keys?partner=${cred.partner_id}`
      const token = csrfOf((yield* page(keys, owner!.cookie)).text)
      const fields = { partner: cred.partner_id, key_id: cred.key_id }
      const crossSite = yield* postForm("/console/keys/revoke", { ...fields, csrf: token }, owner!.cookie, {
        origin: "http://evil.example"
      })
      expect(crossSite.status).toBe(403)
      for (const csrf of ["", "0.x"]) {
        expect((yield* postForm("/console/keys/revoke", { ...fields, csrf }, owner!.cookie)).status).toBe(403)
      }
      const other = yield* signIn(yield* createTestUser())
      const otherToken = csrfOf((yield* page("/signin")).text)
      expect((yield* postForm("/console/keys/revoke", { ...fields, csrf: otherToken }, owner!.cookie)).status).toBe(403)
      expect(other).toBeDefined()
      expect((yield* signed(cred, "GET", SIGNED_PATH)).status).toBe(200)
    }))
})
