import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import fc from "fast-check"
import { parsePriceCsv } from "../../src/catalogue/PriceCsv.js"
import { fingerprint } from "../../src/platform/http/Idempotency.js"
import { idTime, isId, makeId } from "../../src/platform/Ids.js"
import { lockKey } from "../../src/platform/jobs/Singleton.js"
import { makeServiceSecret } from "../../src/platform/ServiceSecret.js"

describe("ids", () => {
  it("are prefixed, well-formed and sort by creation time, even within one millisecond", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: Date.now(), max: Date.now() + 500 }), { minLength: 2, maxLength: 50 }),
        (times) => {
          const sorted = [...times].sort((a, b) => a - b)
          const ids = sorted.map((t) => makeId("ord", t))
          for (const id of ids) expect(isId("ord", id)).toBe(true)
          expect([...ids].sort()).toEqual(ids)
          expect(new Set(ids).size).toBe(ids.length)
        }
      )
    )
    const now = Date.now() + 1000
    const burst = Array.from({ length: 1000 }, () => makeId("evt", now))
    expect([...burst].sort()).toEqual(burst)
    expect(idTime(burst[0])).toBe(now)
  })
})

describe("service secret tokens", () => {
  const secret = makeServiceSecret(Buffer.from("k".repeat(32)))
  const other = makeServiceSecret(Buffer.from("x".repeat(32)))

  it("round-trip any JSON payload for the same purpose only", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ minLength: 1 }), (payload, purpose) => {
        const token = secret.sign(purpose, payload)
        expect(secret.verify(purpose, token)).toEqual(Option.some(JSON.parse(JSON.stringify(payload))))
        expect(Option.isNone(secret.verify(`${purpose}!`, token))).toBe(true)
        expect(Option.isNone(other.verify(purpose, token))).toBe(true)
      })
    )
  })

  it("reject any single-character tampering", () => {
    const token = secret.sign("cursor", { offset: 10, sort: "newest" })
    fc.assert(
      fc.property(
        fc.nat({ max: token.length - 1 }),
        fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."),
        (i, c) => {
          fc.pre(token[i] !== c)
          const tampered = token.slice(0, i) + c + token.slice(i + 1)
          expect(Option.isNone(secret.verify("cursor", tampered))).toBe(true)
        }
      )
    )
  })

  it("encrypt at rest: decrypt only with the same key and purpose, and never twice the same ciphertext", () => {
    fc.assert(
      fc.property(fc.string(), (plaintext) => {
        const sealed = secret.encrypt("partner-secret", plaintext)
        expect(sealed).not.toContain(plaintext.length > 3 ? plaintext : "\u0000")
        expect(secret.decrypt("partner-secret", sealed)).toEqual(Option.some(plaintext))
        expect(Option.isNone(secret.decrypt("other", sealed))).toBe(true)
        expect(Option.isNone(other.decrypt("partner-secret", sealed))).toBe(true)
        expect(secret.encrypt("partner-secret", plaintext)).not.toBe(sealed)
      })
    )
  })

  it("decrypt refuses a truncated authentication tag (GCM would otherwise accept 4 bytes of it)", () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 4, max: 15 }), (plaintext, length) => {
        const [v, iv, tag, ct] = secret.encrypt("partner-secret", plaintext).split(".")
        const short = Buffer.from(tag!, "base64url").subarray(0, length).toString("base64url")
        expect(Option.isNone(secret.decrypt("partner-secret", [v, iv, short, ct].join(".")))).toBe(true)
      })
    )
  })
})

describe("price list CSV", () => {
  const op = fc.constantFrom("register", "renew", "transfer", "restore")
  const tld = fc.stringMatching(/^[a-z][a-z0-9]{1,10}$/)

  it("parses every well-formed file exactly", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(tld, op, fc.integer({ min: 0, max: 10_000_000 })), {
          selector: ([t, o]) => `${t}/${o}`
        }),
        (rows) => {
          const text = ["tld,op,price_cents", ...rows.map(([t, o, p]) => `${t},${o},${p}`)].join("\n")
          const parsed = parsePriceCsv(text)
          expect(parsed.errors).toEqual([])
          expect(parsed.rows).toEqual(rows.map(([t, o, p]) => ({ tld: t, op: o, priceCents: p })))
        }
      )
    )
  })

  it("reports each bad line with its number and never returns a partial import silently", () => {
    const parsed = parsePriceCsv(
      "tld,op,price_cents\ncom,register,100\nnet,buy,1\n.org,renew,-5\ncom,register,100\nbad line\n"
    )
    expect(parsed.errors).toEqual([
      "line 3: op must be one of register|renew|transfer|restore, got \"buy\"",
      "line 4: price_cents must be a non-negative integer, got \"-5\"",
      "line 5: duplicate com/register",
      "line 6: expected 3 columns, got 1"
    ])
  })
})

describe("helpers", () => {
  it("fingerprints separate their parts", () => {
    expect(fingerprint("ab", "c")).not.toBe(fingerprint("a", "bc"))
    expect(fingerprint("POST", "/x", "{}")).toBe(fingerprint("POST", "/x", "{}"))
  })
  it("advisory lock keys are stable 31-bit integers", () => {
    fc.assert(fc.property(fc.string(), (name) => {
      const k = lockKey(name)
      expect(Number.isInteger(k) && k >= 0 && k < 2 ** 31).toBe(true)
      expect(lockKey(name)).toBe(k)
    }))
  })
})
