/**
 * Credential primitives shared by sessions, OAuth tokens and API keys. No I/O besides the CPU.
 *
 * - Bearer-style secrets (session ids, authorization codes, access/refresh tokens, API secrets)
 *   are 256-bit random values; only their SHA-256 is stored. A fast hash is right for them: with
 *   256 bits of entropy there is nothing to brute-force, and lookups stay one index probe.
 * - Passwords are low-entropy, so they get scrypt (node:crypto) with a per-user salt, stored as
 *   `scrypt$N$r$p$salt$hash` so the cost can be raised later without breaking old hashes. The cost
 *   is log2 N (`PASSWORD_HASH_COST`, 15 by default and at least that in production: about 75 ms
 *   of one core a hash); a hash is verified at the cost it was made with.
 * - Every comparison of secret material is constant-time.
 */
import { Effect } from "effect"
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto"

/** `prefix` + 43 base64url characters (32 random bytes). The prefix helps secret scanners. */
export const randomSecret = (prefix = "", bytes = 32): string => prefix + randomBytes(bytes).toString("base64url")

export const sha256Hex = (value: string): string => createHash("sha256").update(value, "utf8").digest("hex")

/** Constant-time string equality (lengths are compared first, which leaks only the length). */
export const safeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a, "utf8")
  const y = Buffer.from(b, "utf8")
  if (x.length !== y.length) {
    // Still spend a comparison so the early exit is not much faster.
    timingSafeEqual(x, x)
    return false
  }
  return timingSafeEqual(x, y)
}

// ---------------------------------------------------------------------------
// Passwords

/** log2 N of scrypt for new hashes: the default, and the least production accepts. */
export const PASSWORD_HASH_COST = 15
/** The costs PASSWORD_HASH_COST may name (the least is for tests; the most fits MAXMEM). */
export const PASSWORD_HASH_COSTS = { least: 10, most: 17 } as const
const SCRYPT = { r: 8, p: 1, keyLength: 32 }
/** scrypt needs 128 · N · r bytes: 32 MiB at 2^15, 128 MiB at 2^17 (`PASSWORD_HASH_COSTS.most`). */
const MAXMEM = 256 * 1024 * 1024

const derive = (password: string, salt: Buffer, N: number, r: number, p: number, keyLength: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password.normalize("NFC"), salt, keyLength, { N, r, p, maxmem: MAXMEM }, (err, key) => {
      if (err) resume(Effect.die(err))
      else resume(Effect.succeed(key))
    })
  })

/** A new hash of `password` at `cost` (log2 N). */
export const hashPassword = (password: string, cost: number = PASSWORD_HASH_COST): Effect.Effect<string> =>
  Effect.gen(function*() {
    const salt = randomBytes(16)
    const N = 2 ** cost
    const key = yield* derive(password, salt, N, SCRYPT.r, SCRYPT.p, SCRYPT.keyLength)
    return `scrypt$${N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
  })

/** Hashes of a random password, one per cost, verified against when the account does not exist. */
const dummyHashes = new Map<number, string>()
const dummy = (cost: number) =>
  Effect.suspend(() => {
    const known = dummyHashes.get(cost)
    return known !== undefined
      ? Effect.succeed(known)
      : Effect.tap(hashPassword(randomSecret(), cost), (h) => Effect.sync(() => dummyHashes.set(cost, h)))
  })

/**
 * Verifies `password` against a stored hash in constant time. `stored` undefined (unknown account)
 * still costs one scrypt at `cost`, the cost new accounts are hashed at, so response time does not
 * reveal which e-mail addresses exist.
 */
export const verifyPassword = (
  password: string,
  stored: string | undefined,
  cost: number = PASSWORD_HASH_COST
): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const hash = stored ?? (yield* dummy(cost))
    const parts = hash.split("$")
    if (parts.length !== 6 || parts[0] !== "scrypt") return false
    const [, n, r, p, saltB64, keyB64] = parts
    const expected = Buffer.from(keyB64, "base64url")
    const key = yield* derive(
      password,
      Buffer.from(saltB64, "base64url"),
      Number(n),
      Number(r),
      Number(p),
      expected.length
    )
    return timingSafeEqual(key, expected) && stored !== undefined
  })
