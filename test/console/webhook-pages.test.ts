/**
 * The console's webhooks section (src/console/Webhook*.ts, src/partner/members/MemberWebhooks.ts)
 * through HTTP against one real server and a loopback receiver: the URL set (the API's check; the
 * first secret shown once) and changed (the secret kept), a test event that reaches the receiver
 * signed with that secret, the delivery log with its attempts and what the receiver answered
 * (escaped, cut at 4 KiB with a note), a redelivery, a rotated secret; each
 * role's rights; partner B's member refused every page and action of partner A (404); stale and
 * cross-site forms refused (403); every write in the audit log, never with a secret.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { request } from "../support/http.js"
import { createTestUser, signIn, type TestUser } from "../support/identity.js"
import { createPartner } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"
import { webhookReceiver } from "../support/WebhookReceiver.js"

const HTML = { accept: "text/html" }
const FORM = { ...HTML, "content-type": "application/x-www-form-urlencoded" }
const ENV = {
  OUTBOUND_ALLOW_LOOPBACK: "true",
  WEBHOOK_RETRY_BASE: "50 millis",
  WEBHOOK_POLL_INTERVAL: "100 millis",
  RATE_LIMITS: JSON.stringify({ auth_login: 1000, auth_login_account: 1000 })
}

const csrfOf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? ""
const secretOf = (text: string) => /id="secret" readonly value="([^"]+)"/.exec(text)?.[1]
const page = (path: string, cookie?: string) => request(path, { headers: { ...HTML, ...(cookie ? { cookie } : {}) } })
const postForm = (path: string, fields: Record<string, string>, cookie: string, headers = {}) =>
  request(path, {
    method: "POST",
    body: new URLSearchParams(fields).toString(),
    headers: { ...FORM, cookie, ...headers }
  })

/** A partner with one sandbox credential (webhook scope), and a signed-in member of each given role. */
const partnerWith = (roles: ReadonlyArray<"owner" | "developer" | "finance" | "viewer">) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cred = yield* createPartner({ scopes: ["search", "webhook"] })
    const people: Array<TestUser & { cookie: string }> = []
    for (const role of roles) {
      const user = yield* createTestUser()
      yield* sql`insert into partner_members (partner_id, user_id, email, role)
                 values (${cred.partner_id}, ${user.id}, ${user.email}, ${role})`
      people.push({ ...user, cookie: yield* signIn(user) })
    }
    return { cred, people, hooks: `/console/webhooks?partner=${cred.partner_id}` }
  })

/** A form's post with a token read from the page (or, for a role without the form, the account page). */
const act = (from: string, action: string, cookie: string, fields: Record<string, string>) =>
  Effect.gen(function*() {
    const token = csrfOf((yield* page(from, cookie)).text) || csrfOf((yield* page("/account", cookie)).text)
    expect(token).not.toBe("")
    return yield* postForm(action, { environment: "sandbox", ...fields, csrf: token }, cookie)
  })

const auditOf = (email: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ action: string; target: string | null; after: unknown; ip: string | null }>`
      select action, target, after, ip from audit_log where actor = ${email} order by at, id`.pipe(Effect.orDie)
  )

/** The page, again and again, until `ok` holds (the worker delivers in the background). */
const pageUntil = (path: string, cookie: string, ok: (text: string) => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 30_000
    for (;;) {
      const reply = yield* page(path, cookie)
      if (ok(reply.text) || Date.now() > deadline) return reply.text
      yield* Effect.sleep("150 millis")
    }
  })

const hmac = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("hex")

layer(TestServer.layer(ENV), { timeout: 180_000 })("console webhooks", (it) => {
  it.scoped("set, test-fire to a loopback receiver, the log with attempts, redeliver, rotate; audited", () =>
    Effect.gen(function*() {
      const receiver = yield* webhookReceiver()
      const { cred, hooks, people: [owner] } = yield* partnerWith(["owner"])
      const P = cred.partner_id
      expect((yield* page(hooks)).headers.get("location")).toBe("/signin?next=/console/webhooks")
      const empty = yield* page(hooks, owner!.cookie)
      expect(empty.status).toBe(200)
      expect(empty.headers.get("cache-control")).toBe("no-store")
      expect(empty.text).toContain("No endpoint yet")
      expect(empty.text).toMatch(/href="\/console\/webhooks\?partner=[^"]+"[^>]*>Webhooks</)

      // The API's URL check: not a URL, another scheme, a private address.
      for (const url of ["not a url", "ftp://127.0.0.1/x", "http://10.1.2.3/hooks"]) {
        const bad = yield* act(hooks, "/console/webhooks", owner!.cookie, { partner: P, url })
        expect(bad.status, url).toBe(400)
      }
      const set = yield* act(hooks, "/console/webhooks", owner!.cookie, { partner: P, url: `${receiver.url}/first` })
      expect(set.status, set.text).toBe(201)
      const secret = secretOf(set.text)!
      expect(secret).toMatch(/^whsec_/)
      const changed = yield* act(hooks, "/console/webhooks", owner!.cookie, { partner: P, url: receiver.url })
      expect(changed.status).toBe(303)
      const shown = yield* page(hooks, owner!.cookie)
      expect(shown.text).toContain(receiver.url)
      expect(shown.text).not.toContain(secret)

      // Test-fire: signed with the secret kept across the change.
      expect((yield* act(hooks, "/console/webhooks/test", owner!.cookie, { partner: P })).status).toBe(303)
      const [first] = yield* receiver.waitFor(1)
      expect(first!.headers["x-service-event-type"]).toBe("webhook.test")
      expect(first!.headers["x-service-signature"]).toBe(hmac(secret, first!.body))
      const eventId = String(first!.headers["x-service-event-id"])
      const logged = yield* pageUntil(hooks, owner!.cookie, (t) => /delivery-status">delivered/.test(t))
      expect(logged).toContain(eventId)
      expect(logged).toMatch(/webhook\.test/)
      expect(logged).toMatch(/attempt-status">HTTP 200/)
      expect(logged).toContain(`<pre data-field="attempt-body">ok</pre>`)
      expect(logged).not.toContain("attempt-body-truncated")

      // Redeliver it: a second delivery of the same event.
      const again = yield* act(hooks, "/console/webhooks/redeliver", owner!.cookie, { partner: P, event_id: eventId })
      expect(again.status, again.text).toBe(303)
      const [, second] = yield* receiver.waitFor(2)
      expect(second!.headers["x-service-event-id"]).toBe(eventId)

      // Rotate: a new secret, shown once, signs what follows.
      const rotated = yield* act(hooks, "/console/webhooks/rotate", owner!.cookie, { partner: P })
      expect(rotated.status).toBe(201)
      const next = secretOf(rotated.text)!
      expect(next).toMatch(/^whsec_/)
      expect(next).not.toBe(secret)
      expect((yield* act(hooks, "/console/webhooks/test", owner!.cookie, { partner: P })).status).toBe(303)
      const [, , third] = yield* receiver.waitFor(3)
      expect(third!.headers["x-service-signature"]).toBe(hmac(next, third!.body))

      // The signature check: the delivery as received matches the current secret; one signed with
      // the old secret, or an altered body, does not; the expected value is never shown.
      const check = (d: { readonly headers: Record<string, unknown>; readonly body: string }, body = d.body) =>
        act(hooks, "/console/webhooks/check", owner!.cookie, {
          partner: P,
          body,
          x_service_signature: String(d.headers["x-service-signature"]),
          webhook_id: String(d.headers["webhook-id"]),
          webhook_timestamp: String(d.headers["webhook-timestamp"]),
          webhook_signature: String(d.headers["webhook-signature"])
        })
      const good = yield* check(third!)
      expect(good.status, good.text).toBe(200)
      expect(good.text).toContain("X-Service-Signature: matches. webhook-signature: matches.")
      const old = yield* check(first!)
      expect(old.text).toContain("X-Service-Signature: does not match. webhook-signature: does not match.")
      const altered = yield* check(third!, `${third!.body} `)
      expect(altered.text).toContain("X-Service-Signature: does not match.")
      expect(altered.text).not.toContain(hmac(next, `${third!.body} `))
      const partial = yield* act(hooks, "/console/webhooks/check", owner!.cookie, { partner: P, body: third!.body })
      expect(partial.text).toContain("X-Service-Signature: not given. webhook-signature: not given.")
      expect((yield* act(hooks, "/console/webhooks/check", owner!.cookie, { partner: P, body: "" })).status).toBe(400)

      const log = yield* auditOf(owner!.email)
      expect(log.map((e) => e.action)).toEqual([
        "console.webhook_set",
        "console.webhook_set",
        "console.webhook_test",
        "console.webhook_redeliver",
        "console.webhook_secret_rotate",
        "console.webhook_test"
      ])
      expect(log[1]).toMatchObject({ target: P, after: { environment: "sandbox", url: receiver.url } })
      expect(log[2]!.after).toMatchObject({ environment: "sandbox", event_id: eventId })
      expect(log[3]).toMatchObject({ target: eventId, after: { partner_id: P, queued: 1 } })
      expect(log[0]!.ip).toMatch(/127\.0\.0\.1|::1/)
      expect(JSON.stringify(log)).not.toContain(secret)
      expect(JSON.stringify(log)).not.toContain(next)
    }))

  it.scoped("the log shows each attempt's answer, escaped, and one longer than 4 KiB cut with a note", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const refusal = `<b onclick="x()">quota</b> & 'more'`
      const long = `${"A".repeat(4_000)}${"B".repeat(96)}${"C".repeat(904)}`
      const receiver = yield* webhookReceiver({
        script: [{ status: 429, body: refusal }],
        fallback: { status: 200, body: long }
      })
      const { cred, hooks, people: [owner] } = yield* partnerWith(["owner"])
      const P = cred.partner_id
      expect((yield* act(hooks, "/console/webhooks", owner!.cookie, { partner: P, url: receiver.url })).status).toBe(
        201
      )
      expect((yield* act(hooks, "/console/webhooks/test", owner!.cookie, { partner: P })).status).toBe(303)
      const logged = yield* pageUntil(hooks, owner!.cookie, (t) => /delivery-status">delivered/.test(t))
      expect(logged).toMatch(/attempt-status">HTTP 429/)
      // The receiver's markup is text on the page, never markup.
      expect(logged).toContain(
        `<pre data-field="attempt-body">&lt;b onclick=&quot;x()&quot;&gt;quota&lt;/b&gt; &amp; &#39;more&#39;</pre>`
      )
      expect(logged).not.toContain(refusal)
      // Exactly the first 4096 bytes, and the note.
      expect(logged).toContain(`<pre data-field="attempt-body">${"A".repeat(4_000)}${"B".repeat(96)}</pre>`)
      expect(logged).not.toContain("BBBC")
      expect(logged).toContain("Response body (first 4 KiB)")
      expect(logged.match(/data-field="attempt-body-truncated"/g)).toHaveLength(1)
      // Stored with the attempt, cut at 4096 bytes.
      const stored = yield* sql<{ attempt: number; response_body: string | null; response_body_truncated: boolean }>`
        select a.attempt, a.response_body, a.response_body_truncated from partner_webhook_attempts a
        join partner_webhook_deliveries d on d.id = a.delivery_id
        where d.partner_id = ${P} order by a.seq`
      expect(stored).toEqual([
        { attempt: 1, response_body: refusal, response_body_truncated: false },
        { attempt: 2, response_body: long.slice(0, 4_096), response_body_truncated: true }
      ])
    }))

  it.scoped("roles: owner and developer manage the webhooks, finance and viewer only look", () =>
    Effect.gen(function*() {
      const receiver = yield* webhookReceiver()
      const { cred, hooks, people } = yield* partnerWith(["owner", "developer", "finance", "viewer"])
      const [owner, developer, finance, viewer] = people
      const P = cred.partner_id
      expect((yield* act(hooks, "/console/webhooks", owner!.cookie, { partner: P, url: receiver.url })).status).toBe(
        201
      )
      for (const [who, may] of [[owner!, true], [developer!, true], [finance!, false], [viewer!, false]] as const) {
        const shown = yield* page(hooks, who.cookie)
        expect(shown.status).toBe(200)
        expect(shown.text).toContain(receiver.url)
        expect(shown.text.includes(`action="/console/webhooks/test"`), who.email).toBe(may)
        const test = yield* act(hooks, "/console/webhooks/test", who.cookie, { partner: P })
        expect(test.status, who.email).toBe(may ? 303 : 403)
        const set = yield* act(hooks, "/console/webhooks", who.cookie, { partner: P, url: receiver.url })
        expect(set.status, who.email).toBe(may ? 303 : 403)
        const rotate = yield* act(hooks, "/console/webhooks/rotate", who.cookie, { partner: P })
        expect(rotate.status, who.email).toBe(may ? 201 : 403)
        const check = yield* act(hooks, "/console/webhooks/check", who.cookie, { partner: P, body: "{}" })
        expect(check.status, who.email).toBe(may ? 200 : 403)
      }
      // Only the environments granted (this partner has no live keys).
      const live = yield* act(hooks, "/console/webhooks", owner!.cookie, {
        partner: P,
        environment: "live",
        url: receiver.url
      })
      expect(live.status).toBe(400)
      expect(yield* auditOf(finance!.email)).toEqual([])
      expect(yield* auditOf(viewer!.email)).toEqual([])
      expect((yield* auditOf(developer!.email)).map((e) => e.action)).toEqual([
        "console.webhook_test",
        "console.webhook_set",
        "console.webhook_secret_rotate"
      ])
    }))

  it.scoped("a member of partner B never sees or acts on partner A's webhooks (404); forms need their token (403)", () =>
    Effect.gen(function*() {
      const receiver = yield* webhookReceiver()
      const a = yield* partnerWith(["owner"])
      const b = yield* partnerWith(["owner"])
      const A = a.cred.partner_id
      const intruder = b.people[0]!.cookie
      expect((yield* act(a.hooks, "/console/webhooks", a.people[0]!.cookie, { partner: A, url: receiver.url })).status)
        .toBe(201)
      expect(
        (yield* act(b.hooks, "/console/webhooks", intruder, { partner: b.cred.partner_id, url: receiver.url })).status
      )
        .toBe(201)
      expect((yield* act(a.hooks, "/console/webhooks/test", a.people[0]!.cookie, { partner: A })).status).toBe(303)
      const [hit] = yield* receiver.waitFor(1)
      const eventOfA = String(hit!.headers["x-service-event-id"])

      const seen = yield* page(a.hooks, intruder)
      expect(seen.status).toBe(404)
      expect(seen.text).not.toContain(receiver.url)
      const posts: ReadonlyArray<readonly [string, Record<string, string>]> = [
        ["/console/webhooks", { partner: A, url: "http://127.0.0.1:9/evil" }],
        ["/console/webhooks/rotate", { partner: A }],
        ["/console/webhooks/test", { partner: A }],
        ["/console/webhooks/redeliver", { partner: A, event_id: eventOfA }]
      ]
      for (const [action, fields] of posts) {
        expect((yield* act(b.hooks, action, intruder, fields)).status, action).toBe(404)
      }
      // A's event through B's own partner: not B's event.
      const viaOwn = yield* act(b.hooks, "/console/webhooks/redeliver", intruder, {
        partner: b.cred.partner_id,
        event_id: eventOfA
      })
      expect(viaOwn.status).toBe(404)
      expect(yield* auditOf(b.people[0]!.email)).toHaveLength(1)

      // Stale, missing, or another site's: 403, nothing changes.
      const owner = a.people[0]!.cookie
      const token = csrfOf((yield* page(a.hooks, owner)).text)
      const fields = { partner: A, environment: "sandbox", url: "http://127.0.0.1:9/changed" }
      const crossSite = yield* postForm("/console/webhooks", { ...fields, csrf: token }, owner, {
        origin: "http://evil.example"
      })
      expect(crossSite.status).toBe(403)
      for (const csrf of ["", "0.x"]) {
        expect((yield* postForm("/console/webhooks", { ...fields, csrf }, owner)).status).toBe(403)
        expect((yield* postForm("/console/webhooks/rotate", { partner: A, csrf }, owner)).status).toBe(403)
      }
      expect((yield* page(a.hooks, owner)).text).not.toContain("/changed")
    }))
})
