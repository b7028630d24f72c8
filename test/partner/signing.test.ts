/**
 * Partner request signing: fixed vectors (expected values computed independently with
 * `openssl dgst -sha256 -hmac`), canonical query rules, and fast-check properties.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  canonicalQuery,
  canonicalQueryOfPairs,
  canonicalString,
  checkTimestamp,
  EMPTY_BODY_SHA256,
  encodeComponent,
  sha256Hex,
  signatureHeader,
  standardWebhookSignature,
  verifySignature,
  webhookSignature
} from "../../src/domain/PartnerSigning.js"
import {
  signRequest,
  verifyServiceSignature,
  verifyServiceWebhook,
  verifyStandardWebhook,
  verifyWebhook
} from "../../src/partner-client/index.js"

const ORDER_BODY =
  `{"domain":"example.com","expected_price":150000,"currency":"USD","external_payment_ref":"pay_123","buyer":{"email":"buyer@example.org"}}`

describe("canonical query", () => {
  it("sorts by key, then by value, keeping repeated keys", () => {
    expect(canonicalQuery("b=2&a=9&a=1&c=")).toBe("a=1&a=9&b=2&c=")
    expect(canonicalQuery("?z=1&y=2")).toBe("y=2&z=1")
  })
  it("keeps blank values, with or without '='", () => {
    expect(canonicalQuery("flag&x=")).toBe("flag=&x=")
  })
  it("encodes as a URI component plus ! ' ( ) * in uppercase hex", () => {
    expect(canonicalQuery("q=it's%20(a)%20*deal*!")).toBe("q=it%27s%20%28a%29%20%2Adeal%2A%21")
    expect(encodeComponent("!'()*")).toBe("%21%27%28%29%2A")
    expect(encodeComponent("a b+c/d?e")).toBe("a%20b%2Bc%2Fd%3Fe")
  })
  it("decodes '+' as a space and re-encodes spaces as %20", () => {
    expect(canonicalQuery("q=cheap+flights")).toBe("q=cheap%20flights")
    expect(canonicalQuery("q=cheap%20flights")).toBe("q=cheap%20flights")
  })
  it("UTF-8 keys and values are percent-encoded byte by byte, uppercase hex", () => {
    expect(canonicalQuery("domain=b%C3%BCcher.de")).toBe("domain=b%C3%BCcher.de")
    expect(canonicalQueryOfPairs([["domain", "bücher.de"], ["ключ", "значение"]])).toBe(
      // Sorted on the encoded form: "%D0…" sorts before "domain".
      "%D0%BA%D0%BB%D1%8E%D1%87=%D0%B7%D0%BD%D0%B0%D1%87%D0%B5%D0%BD%D0%B8%D0%B5&domain=b%C3%BCcher.de"
    )
  })
  it("sorts on the encoded form (byte order)", () => {
    // "%" (0x25) sorts before letters, "Z" before "a".
    expect(canonicalQueryOfPairs([["a", "x"], ["Z", "y"], [" ", "s"]])).toBe("%20=s&Z=y&a=x")
  })
  it("empty query is the empty string", () => {
    expect(canonicalQuery("")).toBe("")
    expect(canonicalQuery("?")).toBe("")
  })
})

describe("canonical string and signature (worked examples of docs/partner.md)", () => {
  it("POST /orders with a JSON body", () => {
    expect(sha256Hex(ORDER_BODY)).toBe("82c429cc73b6e3105eec98a9b0ce2c9c77c81b2c13e574e844884e2a6a19be43")
    const canonical = canonicalString({
      method: "post",
      path: "/api/partner/v1/orders",
      query: "",
      timestamp: "1700000000",
      nonce: "7f1d2c1e-6a0b-4b6e-9f59-2f0c3a1d9e11",
      bodySha256: sha256Hex(ORDER_BODY)
    })
    expect(canonical).toBe(
      "POST\n/api/partner/v1/orders\n\n1700000000\n7f1d2c1e-6a0b-4b6e-9f59-2f0c3a1d9e11\n82c429cc73b6e3105eec98a9b0ce2c9c77c81b2c13e574e844884e2a6a19be43"
    )
    expect(signatureHeader("sk_test_secret", canonical)).toBe(
      "v1=e10e34966bc539099bd3b159f02ad3126756bc99d180935e0d9d6c90206fadee"
    )
  })
  it("GET with a query and an empty body", () => {
    expect(sha256Hex("")).toBe(EMPTY_BODY_SHA256)
    const headers = signRequest(
      { keyId: "pk_sandbox_x", secret: "sk_test_secret" },
      {
        method: "GET",
        url: "https://api.example/api/partner/v1/domains/search?q=cheap+flights",
        timestamp: 1700000000,
        nonce: "nonce-1"
      }
    )
    expect(headers).toEqual({
      "x-service-key-id": "pk_sandbox_x",
      "x-service-timestamp": "1700000000",
      "x-service-nonce": "nonce-1",
      "x-service-signature": "v1=8d8aa3afff0749bc32c2d41f45fe0ede3f4681cfaa73b47f741dab45bf1cb3ab"
    })
  })
  it("verifySignature accepts the right signature only", () => {
    const c = "GET\n/p\n\n1\nn\n" + EMPTY_BODY_SHA256
    const good = signatureHeader("s", c)
    expect(verifySignature("s", c, good)).toBe(true)
    expect(verifySignature("s2", c, good)).toBe(false)
    expect(verifySignature("s", c, good.replace("v1=", "v2="))).toBe(false)
    expect(verifySignature("s", c, good.toUpperCase())).toBe(false)
    expect(verifySignature("s", c, "garbage")).toBe(false)
  })
})

describe("timestamps", () => {
  const now = 1_700_000_000_000
  it("accepts ±300 s, refuses beyond, refuses milliseconds and non-integers", () => {
    expect(checkTimestamp("1700000000", now).ok).toBe(true)
    expect(checkTimestamp("1700000300", now).ok).toBe(true)
    expect(checkTimestamp("1699999700", now).ok).toBe(true)
    expect(checkTimestamp("1700000301", now).ok).toBe(false)
    expect(checkTimestamp("1699999699", now).ok).toBe(false)
    expect(checkTimestamp("1700000000000", now).ok).toBe(false)
    expect(checkTimestamp("1700000000.5", now).ok).toBe(false)
    expect(checkTimestamp("-1700000000", now).ok).toBe(false)
    expect(checkTimestamp("abc", now).ok).toBe(false)
  })
})

describe("webhook signatures", () => {
  it("X-Service-Signature and Standard Webhooks vectors", () => {
    expect(webhookSignature("whsecret-0123456789", `{"a":1}`)).toBe(
      "b949d15001f6f07745cfae2499616205841230cc118924f8a0cc76613dc824f4"
    )
    expect(standardWebhookSignature("whsecret-0123456789", "evt_1", "1700000000", `{"a":1}`)).toBe(
      "v1,sPa62sHZS0cXy+3Ro6Zh7KfkFa7lEt15Jl1S6+NZb8Y="
    )
  })
  it("verification helpers accept genuine and refuse tampered deliveries", () => {
    const body = `{"id":"evt_1","type":"order.recorded"}`
    const secret = "whsecret-0123456789"
    const sig = webhookSignature(secret, body)
    expect(verifyServiceSignature(secret, body, sig)).toBe(true)
    expect(verifyServiceSignature(secret, body + " ", sig)).toBe(false)
    expect(verifyServiceSignature("other-secret-000000", body, sig)).toBe(false)
    const ts = String(Math.floor(Date.now() / 1000))
    const std = standardWebhookSignature(secret, "evt_1", ts, body)
    expect(verifyStandardWebhook(secret, body, { id: "evt_1", timestamp: ts, signature: `v0,xyz ${std}` })).toBe(true)
    expect(verifyStandardWebhook(secret, body, { id: "evt_2", timestamp: ts, signature: std })).toBe(false)
    expect(
      verifyStandardWebhook(secret, body, {
        id: "evt_1",
        timestamp: "1000",
        signature: standardWebhookSignature(secret, "evt_1", "1000", body)
      })
    ).toBe(false)
    expect(verifyWebhook(secret, body, { "webhook-id": "evt_1", "webhook-timestamp": ts, "webhook-signature": std }))
      .toBe(true)
    expect(verifyWebhook(secret, body, new Headers({ "x-service-signature": sig, "x-service-timestamp": ts }))).toBe(
      true
    )
    expect(verifyWebhook(secret, body, {})).toBe(false)
  })
  it("verifyWebhook has a timestamp tolerance and prefers the timestamped scheme", () => {
    const body = `{"id":"evt_1","type":"order.recorded"}`
    const secret = "whsecret-0123456789"
    const sig = webhookSignature(secret, body)
    const now = 1_800_000_000
    const old = String(now - 301)
    // X-Service-Signature alone: a correct body HMAC with a stale or missing timestamp is refused.
    expect(
      verifyWebhook(secret, body, { "x-service-signature": sig, "x-service-timestamp": String(now - 299) }, {
        nowSeconds: now
      })
    ).toBe(true)
    expect(verifyWebhook(secret, body, { "x-service-signature": sig, "x-service-timestamp": old }, { nowSeconds: now }))
      .toBe(false)
    expect(verifyWebhook(secret, body, { "x-service-signature": sig }, { nowSeconds: now })).toBe(false)
    expect(
      verifyServiceWebhook(secret, body, { signature: sig, timestamp: old }, { nowSeconds: now, toleranceSeconds: 600 })
    ).toBe(true)
    // With the Standard Webhooks headers present they decide: a stale delivery whose fresh
    // X-Service-Timestamp was forged (it is not signed) is still refused.
    const stale = {
      "x-service-signature": sig,
      "x-service-timestamp": String(now),
      "webhook-id": "evt_1",
      "webhook-timestamp": old,
      "webhook-signature": standardWebhookSignature(secret, "evt_1", old, body)
    }
    expect(verifyWebhook(secret, body, stale, { nowSeconds: now })).toBe(false)
    const fresh = {
      ...stale,
      "webhook-timestamp": String(now),
      "webhook-signature": standardWebhookSignature(secret, "evt_1", String(now), body)
    }
    expect(verifyWebhook(secret, body, fresh, { nowSeconds: now })).toBe(true)
  })
})

describe("properties", () => {
  const text = fc.string({ unit: "grapheme", maxLength: 12 })
  const pairs = fc.array(fc.tuple(text, text), { maxLength: 8 })

  it("canonical query is independent of pair order", () =>
    fc.assert(
      fc.property(pairs, fc.func(fc.integer()), (ps, f) => {
        const shuffled = [...ps].sort((a, b) => f(a) - f(b))
        expect(canonicalQueryOfPairs(shuffled)).toBe(canonicalQueryOfPairs(ps))
      })
    ))

  it("a query built with URLSearchParams canonicalises to the pairs' canonical form", () =>
    fc.assert(
      fc.property(pairs, (ps) => {
        const usp = new URLSearchParams(ps.map(([k, v]) => [k, v]))
        expect(canonicalQuery(usp.toString())).toBe(canonicalQueryOfPairs(ps))
      })
    ))

  it("canonical query output uses only unreserved characters, %XX escapes, '=' and '&'", () =>
    fc.assert(
      fc.property(pairs, (ps) => {
        expect(canonicalQueryOfPairs(ps)).toMatch(/^([A-Za-z0-9\-_.~=&]|%[0-9A-F]{2})*$/)
      })
    ))

  it("re-canonicalising a canonical query is the identity", () =>
    fc.assert(
      fc.property(pairs, (ps) => {
        const c = canonicalQueryOfPairs(ps)
        expect(canonicalQuery(c)).toBe(c)
      })
    ))

  it("a signature verifies, and any change to any line breaks it", () =>
    fc.assert(
      fc.property(
        fc.record({
          method: fc.constantFrom("GET", "POST", "PUT"),
          path: fc.stringMatching(/^\/[a-z0-9/]{0,20}$/),
          query: fc.stringMatching(/^([a-z]{1,3}=[a-z0-9]{0,3}&?){0,3}$/),
          timestamp: fc.integer({ min: 1, max: 2_000_000_000 }).map(String),
          nonce: fc.uuid(),
          body: fc.string({ maxLength: 40 })
        }),
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.integer({ min: 0, max: 5 }),
        (r, secret, line) => {
          const parts = { ...r, bodySha256: sha256Hex(r.body) }
          const c = canonicalString(parts)
          const sig = signatureHeader(secret, c)
          expect(verifySignature(secret, c, sig)).toBe(true)
          const lines = c.split("\n")
          expect(lines).toHaveLength(6)
          lines[line] = lines[line] + "x"
          expect(verifySignature(secret, lines.join("\n"), sig)).toBe(false)
        }
      )
    ))
})
