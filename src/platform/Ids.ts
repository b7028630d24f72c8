/**
 * Prefixed, time-sortable identifiers (`ord_…`, `evt_…`, `req_…`): a ULID after the prefix.
 * 48 bits of milliseconds then 80 random bits, Crockford base32, so ids sort by creation time
 * as plain strings and never collide across replicas. Within one millisecond in one process the
 * random part is incremented, keeping ids strictly increasing.
 */
import { randomBytes } from "node:crypto"

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

let lastTime = -1
let lastRandom: Uint8Array = new Uint8Array(10)

// Random bytes are drawn from a pool refilled 4 KiB at a time (one system call per ~400 ids).
let pool = randomBytes(4096)
let poolOffset = 0
const random10 = (): Uint8Array => {
  if (poolOffset + 10 > pool.length) {
    pool = randomBytes(4096)
    poolOffset = 0
  }
  const out = pool.subarray(poolOffset, poolOffset + 10)
  poolOffset += 10
  return out
}

const encodeTime = (ms: number): string => {
  let out = ""
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out
    ms = Math.floor(ms / 32)
  }
  return out
}

const encodeRandom = (bytes: Uint8Array): string => {
  // 80 bits → 16 base32 characters.
  let out = ""
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += ALPHABET[(buffer >> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  return out
}

const increment = (bytes: Uint8Array): Uint8Array => {
  const next = Uint8Array.from(bytes)
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] === 255) {
      next[i] = 0
    } else {
      next[i]++
      break
    }
  }
  return next
}

/** A bare ULID (26 characters). */
export const ulid = (now: number = Date.now()): string => {
  if (now <= lastTime) {
    lastRandom = increment(lastRandom)
    now = lastTime
  } else {
    lastTime = now
    lastRandom = random10()
  }
  return encodeTime(now) + encodeRandom(lastRandom)
}

/** `prefix_` + ULID in lowercase, e.g. `ord_01j9…`. */
export const makeId = (prefix: string, now?: number): string => `${prefix}_${ulid(now).toLowerCase()}`

/** The millisecond timestamp inside an id made by `makeId` (undefined when it is not one). */
export const idTime = (id: string): number | undefined => {
  const body = id.slice(id.indexOf("_") + 1).toUpperCase()
  if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(body)) return undefined
  let ms = 0
  for (const c of body.slice(0, 10)) ms = ms * 32 + ALPHABET.indexOf(c)
  return ms
}

export const isId = (prefix: string, id: string): boolean =>
  id.startsWith(`${prefix}_`) && /^[0-9a-hjkmnp-tv-z]{26}$/.test(id.slice(prefix.length + 1))
