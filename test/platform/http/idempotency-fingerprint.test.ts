/**
 * Property tests: the fingerprint of a decoded payload (`payloadFingerprint`) is the one every
 * earlier release stored from the raw body (canonical JSON of the text) for every body a client
 * can send that holds only the operation's fields, so keys stored before the change still replay.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc, Schema } from "effect"
import { CheckoutSessionRequest } from "../../../src/checkout/Api.js"
import { canonicalJson } from "../../../src/domain/CanonicalJson.js"
import { CaseRequest } from "../../../src/partner/brokerage/Api.js"
import { OrderRequest } from "../../../src/partner/orders/Api.js"
import { fingerprint, payloadFingerprint } from "../../../src/platform/http/Idempotency.js"

/** Orders' URLs pass `new URL` (a filter Arbitrary cannot aim at): drawn from fast-check's web URLs. */
const orderValues = fc.tuple(
  Arbitrary.make(OrderRequest.pipe(Schema.omit("return_url", "cancel_url"))),
  fc.option(fc.webUrl(), { nil: undefined }),
  fc.option(fc.webUrl(), { nil: undefined })
).map(([order, return_url, cancel_url]) => ({
  ...order,
  ...(return_url === undefined ? {} : { return_url }),
  ...(cancel_url === undefined ? {} : { cancel_url })
}))

const operations: ReadonlyArray<readonly [string, Schema.Schema<any, any>, fc.Arbitrary<unknown>]> = [
  ["/api/partner/v1/orders", OrderRequest, orderValues],
  ["/api/partner/v1/checkout-session", CheckoutSessionRequest, Arbitrary.make(CheckoutSessionRequest)],
  ["/api/partner/v1/brokerage", CaseRequest, Arbitrary.make(CaseRequest)]
]

describe("payloadFingerprint", () => {
  for (const [path, schema, values] of operations) {
    it(`${path}: the decoded payload's fingerprint is the raw body's`, () => {
      const ofPayload = payloadFingerprint(`POST ${path}`, schema)
      const decode = Schema.decodeUnknownSync(schema)
      fc.assert(
        fc.property(values, fc.nat(3), (value, indent) => {
          const raw = JSON.stringify(Schema.encodeSync(schema)(value), null, indent)
          expect(ofPayload(decode(JSON.parse(raw)))).toBe(fingerprint("POST", path, canonicalJson(raw)))
        }),
        { numRuns: 200 }
      )
    })
  }

  it("another value is another fingerprint; an unknown field is none", () => {
    const ofPayload = payloadFingerprint("POST /api/partner/v1/brokerage", CaseRequest)
    const decode = Schema.decodeUnknownSync(CaseRequest)
    const body = { domain: "example.com", tier: "managed", buyer_email: "b@example.org", budget: 500 }
    expect(ofPayload(decode({ ...body, budget: 501 }))).not.toBe(ofPayload(decode(body)))
    expect(ofPayload(decode({ ...body, unknown: 1 }))).toBe(ofPayload(decode(body)))
  })
})
