/**
 * SERVICE_SECRET: the master key for signed tokens (cursors, quotes, `pt` checkout tokens,
 * progress links) and for encrypting partner secrets at rest.
 *
 * - Production: required (AppConfig refuses to start without it).
 * - Elsewhere, unset: generated once into `DATA_DIR/service-secret` (mode 0600) and reused,
 *   so tokens survive restarts. Replicas on different machines must share SERVICE_SECRET.
 *
 * Each use derives its own key with HKDF (`purpose`), so a cursor can never pass as a quote.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { AppConfig } from "./Config.js"

export interface ServiceSecretShape {
  /** A 32-byte key derived for one purpose. */
  readonly key: (purpose: string) => Buffer
  /** `base64url(payload).base64url(hmac)` over a JSON payload, bound to `purpose`. */
  readonly sign: (purpose: string, payload: unknown) => string
  /** The payload of a token made by `sign` for the same purpose, or None (tampered, other purpose, garbage). */
  readonly verify: <A = unknown>(purpose: string, token: string) => Option.Option<A>
  /** AES-256-GCM, `v1.<iv>.<tag>.<ciphertext>` (base64url). */
  readonly encrypt: (purpose: string, plaintext: string) => string
  readonly decrypt: (purpose: string, sealed: string) => Option.Option<string>
}

export class ServiceSecret extends Context.Tag("app/ServiceSecret")<ServiceSecret, ServiceSecretShape>() {}

export const makeServiceSecret = (master: Buffer): ServiceSecretShape => {
  const cache = new Map<string, Buffer>()
  const key = (purpose: string) => {
    let k = cache.get(purpose)
    if (!k) {
      k = Buffer.from(hkdfSync("sha256", master, Buffer.alloc(0), `domain-marketplace:${purpose}`, 32))
      cache.set(purpose, k)
    }
    return k
  }
  const mac = (purpose: string, data: string) => createHmac("sha256", key(purpose)).update(data).digest()
  return {
    key,
    sign: (purpose, payload) => {
      const body = Buffer.from(JSON.stringify(payload)).toString("base64url")
      return `${body}.${mac(purpose, body).toString("base64url")}`
    },
    verify: <A>(purpose: string, token: string) => {
      const dot = token.indexOf(".")
      if (dot <= 0 || dot !== token.lastIndexOf(".")) return Option.none()
      const body = token.slice(0, dot)
      const macText = token.slice(dot + 1)
      const given = Buffer.from(macText, "base64url")
      // Only the canonical encoding is accepted: one token, one spelling.
      if (given.toString("base64url") !== macText) return Option.none()
      const expected = mac(purpose, body)
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return Option.none()
      try {
        const bytes = Buffer.from(body, "base64url")
        if (bytes.toString("base64url") !== body) return Option.none()
        return Option.some(JSON.parse(bytes.toString("utf8")) as A)
      } catch {
        return Option.none()
      }
    },
    encrypt: (purpose, plaintext) => {
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", key(`enc:${purpose}`), iv)
      const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
      return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ct.toString("base64url")].join(
        "."
      )
    },
    decrypt: (purpose, sealed) => {
      const [v, iv, tag, ct] = sealed.split(".")
      if (v !== "v1" || !iv || !tag || ct === undefined) return Option.none()
      // Only the full 16-byte tag: GCM accepts a truncated one, which would make a forgery a
      // matter of 2^32 tries instead of 2^128.
      const tagBytes = Buffer.from(tag, "base64url")
      if (tagBytes.length !== 16 || tagBytes.toString("base64url") !== tag) return Option.none()
      try {
        const decipher = createDecipheriv("aes-256-gcm", key(`enc:${purpose}`), Buffer.from(iv, "base64url"), {
          authTagLength: 16
        })
        decipher.setAuthTag(tagBytes)
        return Option.some(
          Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8")
        )
      } catch {
        return Option.none()
      }
    }
  }
}

const loadOrCreate = (dataDir: string): Buffer => {
  const file = Path.resolve(dataDir, "service-secret")
  try {
    return Buffer.from(Fs.readFileSync(file, "utf8").trim(), "base64url")
  } catch {
    Fs.mkdirSync(Path.dirname(file), { recursive: true })
    const secret = randomBytes(32)
    try {
      // `wx`: if another process won the race, read its secret instead.
      Fs.writeFileSync(file, secret.toString("base64url") + "\n", { mode: 0o600, flag: "wx" })
      return secret
    } catch {
      return Buffer.from(Fs.readFileSync(file, "utf8").trim(), "base64url")
    }
  }
}

export const ServiceSecretLive = Layer.effect(
  ServiceSecret,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const master = Option.match(config.serviceSecret, {
      onSome: (s) => Buffer.from(Redacted.value(s), "utf8"),
      onNone: () => config.dataDir === ":memory:" ? randomBytes(32) : loadOrCreate(config.dataDir)
    })
    return makeServiceSecret(master)
  })
)
