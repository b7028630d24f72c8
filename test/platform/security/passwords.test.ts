/**
 * Password hashes (src/platform/security/Crypto.ts): scrypt at 2^15 unless told otherwise, the
 * cost written into the hash, and a hash verified at the cost it was made with, whatever cost new
 * hashes use now. No server: the functions alone.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { identityConfig } from "../../../src/identity/Settings.js"
import { hashPassword, PASSWORD_HASH_COST, verifyPassword } from "../../../src/platform/security/Crypto.js"

const settingsFrom = (env: Record<string, string>) =>
  Effect.withConfigProvider(identityConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("password hashes", () => {
  it.effect("are scrypt with N = 2^15 by default, the cost and salt written into the hash", () =>
    Effect.gen(function*() {
      expect(PASSWORD_HASH_COST).toBe(15)
      const hash = yield* hashPassword("correct horse battery")
      expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/)
      expect(yield* hashPassword("correct horse battery")).not.toBe(hash)
    }))

  it.effect("verify at the cost they were made with, whatever the cost of new hashes", () =>
    Effect.gen(function*() {
      const cheap = yield* hashPassword("correct horse battery", 10)
      expect(cheap).toMatch(/^scrypt\$1024\$/)
      expect(yield* verifyPassword("correct horse battery", cheap)).toBe(true)
      expect(yield* verifyPassword("correct horse battery", cheap, 12)).toBe(true)
      expect(yield* verifyPassword("correct horse batterY", cheap)).toBe(false)
      // An unknown account still costs a hash, and never verifies.
      expect(yield* verifyPassword("correct horse battery", undefined, 10)).toBe(false)
    }))

  it.effect("hash at the highest cost PASSWORD_HASH_COST accepts (2^17, 128 MiB)", () =>
    Effect.gen(function*() {
      const dear = yield* hashPassword("correct horse battery", 17)
      expect(dear).toMatch(/^scrypt\$131072\$/)
      expect(yield* verifyPassword("correct horse battery", dear)).toBe(true)
    }))

  it.effect("PASSWORD_HASH_COST: 10 to 17, at least 15 in production", () =>
    Effect.gen(function*() {
      expect((yield* settingsFrom({})).passwordHashCost).toBe(15)
      expect((yield* settingsFrom({ PASSWORD_HASH_COST: "10" })).passwordHashCost).toBe(10)
      expect((yield* settingsFrom({ NODE_ENV: "production", PASSWORD_HASH_COST: "16" })).passwordHashCost).toBe(16)
      const refusedSettings = [
        { PASSWORD_HASH_COST: "9" },
        { PASSWORD_HASH_COST: "18" },
        { NODE_ENV: "production", PASSWORD_HASH_COST: "14" }
      ]
      for (const env of refusedSettings) {
        const refused = yield* Effect.flip(settingsFrom(env))
        expect(String(refused), JSON.stringify(env)).toContain("PASSWORD_HASH_COST must be 10 to 17")
      }
    }))
})
