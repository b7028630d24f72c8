/**
 * The one Idempotency-Key rule, pinned on the wire for every operation that takes a key: what a
 * missing or malformed key answers (each operation's documented answer, byte for byte), and what
 * "the same request" is (the fingerprint stored with the key). The fingerprints are pinned to
 * the formula rows already in the database were written with, so a key used before a release
 * still replays after it (keys live 7 days). What counts is the request as decoded: JSON spelling
 * and fields the operation does not know make no other request.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { canonicalJson } from "../../../src/domain/CanonicalJson.js"
import type { IssuedCredential } from "../../../src/partner/Credentials.js"
import { fingerprint } from "../../../src/platform/http/Idempotency.js"
import { post, type Reply } from "../../support/http.js"
import { createPartner, seedListings, signed } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

/** The answer as a client sees it: status and error body without the request id (checked equal to X-Request-Id). */
const wire = (r: Reply) => {
  expect(r.json?.error?.request_id).toBe(r.headers.get("x-request-id"))
  const { request_id: _, ...error } = r.json.error
  return { status: r.status, error }
}

/** Keys that are not 1-255 visible ASCII characters (Node trims a header value's outer spaces). */
const MALFORMED = ["has space", "x".repeat(256), "tab\there", "caf\u00e9"]

const ORDERS = "/api/partner/v1/orders"
const CHECKOUT = "/api/partner/v1/checkout-session"
const BROKERAGE = "/api/partner/v1/brokerage"

const orderBody = (domain: string, extra: Record<string, unknown> = {}) => ({
  domain,
  expected_price: 150_000,
  currency: "USD",
  external_payment_ref: `pay_${domain}`,
  buyer: { email: "buyer@example.org" },
  ...extra
})
const caseBody = (domain: string, extra: Record<string, unknown> = {}) => ({
  domain,
  tier: "managed",
  buyer_email: "buyer@example.org",
  budget: 500_000,
  ...extra
})

const storedFingerprint = (key: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ fingerprint: string }>`select fingerprint from idempotency_keys where key = ${key}`,
      (rows) => rows.map((r) => r.fingerprint)
    )).pipe(Effect.orDie)

/** The fingerprint of a JSON write as every release so far has stored it. */
const bodyFingerprint = (path: string, body: string) => fingerprint("POST", path, canonicalJson(body))

layer(TestServer.layer())("Idempotency-Key", (it) => {
  const partner = (scopes: ReadonlyArray<"buy" | "embed" | "broker">) =>
    createPartner({ scopes: [...scopes] }) as Effect.Effect<IssuedCredential>

  it.effect("POST /api/domain/search: 400 invalid_idempotency_key naming the header", () =>
    Effect.gen(function*() {
      for (const key of MALFORMED) {
        const r = yield* post("/api/domain/search", { q: "fresh-name.io" }, { "idempotency-key": key })
        expect(wire(r), key).toEqual({
          status: 400,
          error: {
            code: "invalid_idempotency_key",
            message: "Idempotency-Key must be 1 to 255 visible ASCII characters",
            details: { field: "Idempotency-Key" }
          }
        })
      }
      const empty = yield* post("/api/domain/search", { q: "fresh-name.io" }, { "idempotency-key": "" })
      expect(wire(empty).error.code).toBe("invalid_idempotency_key")
      // A good key is echoed.
      const ok = yield* post("/api/domain/search", { q: "fresh-name.io" }, { "idempotency-key": "k-1" })
      expect(ok.status).toBe(200)
      expect(ok.headers.get("idempotency-key")).toBe("k-1")
    }))

  it.effect("POST /api/tools/whois: 400 invalid_idempotency_key; the fingerprint is the normalised name", () =>
    Effect.gen(function*() {
      for (const key of [...MALFORMED, ""]) {
        const r = yield* post("/api/tools/whois", { domain: "example.com" }, { "idempotency-key": key })
        expect(wire(r), key).toEqual({
          status: 400,
          error: { code: "invalid_idempotency_key", message: "Idempotency-Key: 1-255 visible ASCII characters" }
        })
        // Refused before the quota is looked at.
        expect(r.headers.get("ratelimit-remaining")).toBeNull()
      }
      // The lookup itself fails here (no upstream), which releases the key: the fingerprint is
      // pinned through the conflict of a held key instead.
      const sql = yield* SqlClient.SqlClient
      for (const ip of ["127.0.0.1", "::ffff:127.0.0.1", "::1"]) {
        yield* sql`insert into idempotency_keys (scope, key, fingerprint, state, locked_until, expires_at)
          values (${`whois:${ip}`}, 'whois-held', ${fingerprint("whois", "example.com")}, 'in_flight',
                  now() + interval '1 minute', now() + interval '1 day')`.pipe(Effect.orDie)
      }
      const same = yield* post("/api/tools/whois", { domain: "EXAMPLE.com" }, { "idempotency-key": "whois-held" })
      expect(wire(same).error.code, same.text).toBe("idempotency_in_progress")
      const other = yield* post("/api/tools/whois", { domain: "example.org" }, { "idempotency-key": "whois-held" })
      expect(wire(other)).toMatchObject({ status: 409, error: { code: "conflict" } })
    }))

  it.effect("POST /api/partner/v1/orders: missing 400 missing_idempotency_key, malformed 400 validation_error", () =>
    Effect.gen(function*() {
      const cred = yield* partner(["buy"])
      const missing = {
        status: 400,
        error: {
          code: "missing_idempotency_key",
          message:
            "POST /orders requires an Idempotency-Key header (1-255 visible ASCII characters, e.g. a UUID v4, the same on every retry of this order)"
        }
      }
      expect(wire(yield* signed(cred, "POST", ORDERS, { body: orderBody("idem-order.com") }))).toEqual(missing)
      for (const blank of ["", "   "]) {
        const r = yield* signed(cred, "POST", ORDERS, {
          body: orderBody("idem-order.com"),
          headers: { "idempotency-key": blank }
        })
        expect(wire(r), JSON.stringify(blank)).toEqual(missing)
      }
      for (const key of MALFORMED) {
        const r = yield* signed(cred, "POST", ORDERS, {
          body: orderBody("idem-order.com"),
          headers: { "idempotency-key": key }
        })
        expect(wire(r), key).toEqual({
          status: 400,
          error: { code: "validation_error", message: "Idempotency-Key: 1-255 visible ASCII characters" }
        })
      }
    }))

  it.effect("POST /api/partner/v1/orders: same body (any spelling) replays, another body is 409; the stored fingerprint", () =>
    Effect.gen(function*() {
      const cred = yield* partner(["buy"])
      yield* seedListings([{ domain: "idem-replay.com", bin: 150_000 }])
      const key = crypto.randomUUID()
      const body = JSON.stringify(orderBody("idem-replay.com"))
      const first = yield* signed(cred, "POST", ORDERS, { body, headers: { "idempotency-key": key } })
      expect(first.status, first.text).toBe(201)
      expect(yield* storedFingerprint(key)).toEqual([bodyFingerprint(ORDERS, body)])
      const respelled = `{"buyer":{"email":"buyer@example.org"}, "external_payment_ref":"pay_idem-replay.com",
        "currency":"USD","expected_price":150000.0,"domain":"idem-replay.com"}`
      const again = yield* signed(cred, "POST", ORDERS, { body: respelled, headers: { "idempotency-key": key } })
      expect(again.status, again.text).toBe(201)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.json).toEqual(first.json)
      // A field the operation does not know is not part of the request (the payload as decoded).
      const unknownField = yield* signed(cred, "POST", ORDERS, {
        body: orderBody("idem-replay.com", { note: "ignored" }),
        headers: { "idempotency-key": key }
      })
      expect(unknownField.status, unknownField.text).toBe(201)
      expect(unknownField.headers.get("idempotent-replayed")).toBe("true")
      const other = yield* signed(cred, "POST", ORDERS, {
        body: orderBody("idem-replay.com", { external_payment_ref: "another" }),
        headers: { "idempotency-key": key }
      })
      expect(wire(other)).toMatchObject({ status: 409, error: { code: "conflict" } })
    }))

  it.effect("POST /api/partner/v1/checkout-session: malformed 400 validation_error; replay, 409, fingerprint", () =>
    Effect.gen(function*() {
      const cred = yield* partner(["embed"])
      for (const key of [...MALFORMED, ""]) {
        const r = yield* signed(cred, "POST", CHECKOUT, {
          body: { domain: "idem-session.com" },
          headers: { "idempotency-key": key }
        })
        expect(wire(r), key).toEqual({
          status: 400,
          error: { code: "validation_error", message: "Idempotency-Key: 1-255 visible ASCII characters" }
        })
      }
      yield* seedListings([{ domain: "idem-session.com" }, { domain: "idem-session2.com" }])
      const key = crypto.randomUUID()
      const body = JSON.stringify({ domain: "idem-session.com", reference: "r-1" })
      const first = yield* signed(cred, "POST", CHECKOUT, { body, headers: { "idempotency-key": key } })
      expect(first.status, first.text).toBe(201)
      expect(yield* storedFingerprint(key)).toEqual([bodyFingerprint(CHECKOUT, body)])
      const again = yield* signed(cred, "POST", CHECKOUT, {
        body: `{ "reference": "r-1", "domain": "idem-session.com" }`,
        headers: { "idempotency-key": key }
      })
      expect(again.status, again.text).toBe(201)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.json.id).toBe(first.json.id)
      const other = yield* signed(cred, "POST", CHECKOUT, {
        body: { domain: "idem-session2.com", reference: "r-1" },
        headers: { "idempotency-key": key }
      })
      expect(wire(other)).toMatchObject({ status: 409, error: { code: "conflict" } })
    }))

  it.effect("POST /api/partner/v1/brokerage: malformed 400 validation_error; the stored fingerprint", () =>
    Effect.gen(function*() {
      const cred = yield* partner(["broker"])
      for (const key of [...MALFORMED, ""]) {
        const r = yield* signed(cred, "POST", BROKERAGE, {
          body: caseBody("idem-case.com"),
          headers: { "idempotency-key": key }
        })
        expect(wire(r), key).toEqual({
          status: 400,
          error: { code: "validation_error", message: "Idempotency-Key: 1-255 visible ASCII characters" }
        })
      }
      const key = crypto.randomUUID()
      const body = JSON.stringify(caseBody("idem-case.com"))
      const first = yield* signed(cred, "POST", BROKERAGE, { body, headers: { "idempotency-key": key } })
      expect(first.status, first.text).toBe(201)
      expect(yield* storedFingerprint(key)).toEqual([bodyFingerprint(BROKERAGE, body)])
      const again = yield* signed(cred, "POST", BROKERAGE, {
        body: `{"budget":500000,"buyer_email":"buyer@example.org","tier":"managed","domain":"idem-case.com"}`,
        headers: { "idempotency-key": key }
      })
      expect(again.status, again.text).toBe(201)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      const other = yield* signed(cred, "POST", BROKERAGE, {
        body: caseBody("idem-case.com", { budget: 600_000 }),
        headers: { "idempotency-key": key }
      })
      expect(wire(other)).toMatchObject({ status: 409, error: { code: "conflict" } })
    }))
})
