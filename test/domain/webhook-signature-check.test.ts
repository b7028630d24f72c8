/**
 * Property tests of the console's webhook signature check (src/domain/PartnerSigning.ts
 * `checkDelivery`): a delivery signed as the service signs it (Delivery.ts: X-Service-Signature
 * over the body, Standard Webhooks over id.timestamp.body) matches its secret; another secret, any
 * change of body, id or timestamp does not; an absent header is "not given", never a match.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { checkDelivery, standardWebhookSignature, webhookSignature } from "../../src/domain/PartnerSigning.js"

const secret = fc.oneof(
  fc.uint8Array({ minLength: 16, maxLength: 48 }).map((b) => `whsec_${Buffer.from(b).toString("base64")}`),
  fc.string({ minLength: 16, maxLength: 64 })
)
const delivery = fc.record({
  body: fc.string({ minLength: 1, maxLength: 300 }),
  id: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() === s && s !== ""),
  timestamp: fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }).map(String)
})

const signed = (key: string, d: { body: string; id: string; timestamp: string }) => ({
  body: d.body,
  serviceSignature: webhookSignature(key, d.body),
  webhookId: d.id,
  webhookTimestamp: d.timestamp,
  webhookSignature: standardWebhookSignature(key, d.id, d.timestamp, d.body)
})

describe("checkDelivery", () => {
  it("a delivery signed with the secret matches it, among other Standard Webhooks entries too", () =>
    fc.assert(fc.property(secret, secret, delivery, (key, other, d) => {
      const received = signed(key, d)
      expect(checkDelivery(key, received)).toEqual({ service: "matches", standard: "matches" })
      const rotated = `${standardWebhookSignature(other, d.id, d.timestamp, d.body)} ${received.webhookSignature}`
      expect(checkDelivery(key, { ...received, webhookSignature: rotated }).standard).toBe("matches")
    })))

  it("another secret, or a changed body, id or timestamp, does not match", () =>
    fc.assert(
      fc.property(secret, secret, delivery, fc.string({ minLength: 1, maxLength: 5 }), (key, other, d, extra) => {
        fc.pre(key !== other)
        const received = signed(key, d)
        expect(checkDelivery(other, received)).toEqual({ service: "does not match", standard: "does not match" })
        expect(checkDelivery(key, { ...received, body: received.body + extra })).toEqual({
          service: "does not match",
          standard: "does not match"
        })
        expect(checkDelivery(key, { ...received, webhookId: `${d.id}x` }).standard).toBe("does not match")
        expect(checkDelivery(key, { ...received, webhookTimestamp: `${d.timestamp}0` }).standard).toBe("does not match")
      })
    ))

  it("an absent header is not given, never a match", () =>
    fc.assert(fc.property(secret, delivery, (key, d) => {
      expect(checkDelivery(key, { body: d.body })).toEqual({ service: "not given", standard: "not given" })
      expect(checkDelivery(key, { body: d.body, serviceSignature: "  " }).service).toBe("not given")
    })))
})
