/**
 * Partner API request signing (HMAC-SHA256, scheme `v1`): the canonical string and its signature.
 * Pure functions shared by the server's verification middleware and the partner client.
 *
 * Canonical string: six lines joined by "\n" (no trailing line feed):
 *
 *   METHOD            uppercase HTTP verb
 *   PATH              the request path exactly as requested (no query)
 *   QUERY_STRING      canonicalQuery(raw query), "" when there is none
 *   TIMESTAMP         the X-Service-Timestamp header (Unix seconds)
 *   NONCE             the X-Service-Nonce header
 *   BODY_SHA256_HEX   lowercase hex SHA-256 of the raw body bytes ("" body for GET/HEAD)
 *
 * Signature header: `v1=` + lowercase hex HMAC-SHA256(secret as UTF-8, canonical string).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto"

export const SIGNATURE_VERSION = "v1"
/** SHA-256 of the empty string. */
export const EMPTY_BODY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/** encodeURIComponent, plus `! ' ( ) *` as uppercase percent escapes (RFC 3986 unreserved only). */
export const encodeComponent = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/** Percent-decoding as in application/x-www-form-urlencoded (`+` is a space); lenient on bad escapes. */
const decodeComponent = (s: string): string => {
  const spaced = s.replace(/\+/g, " ")
  try {
    return decodeURIComponent(spaced)
  } catch {
    // Decode the valid escapes one by one, keep malformed ones literally.
    return spaced.replace(/(%[0-9A-Fa-f]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m)
      } catch {
        return m
      }
    })
  }
}

/** Splits a raw query string (without `?`) into decoded pairs; `a` and `a=` both give value "". */
export const parseQuery = (raw: string): Array<readonly [string, string]> => {
  const q = raw.startsWith("?") ? raw.slice(1) : raw
  if (q === "") return []
  const pairs: Array<readonly [string, string]> = []
  for (const part of q.split("&")) {
    if (part === "") continue
    const eq = part.indexOf("=")
    pairs.push(
      eq === -1
        ? [decodeComponent(part), ""]
        : [decodeComponent(part.slice(0, eq)), decodeComponent(part.slice(eq + 1))]
    )
  }
  return pairs
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Canonical form of query pairs: each key and value encoded with `encodeComponent`, pairs
 * sorted by encoded key, ties by encoded value (plain code-unit order, which for these ASCII
 * strings is byte order), joined as `key=value` with `&`. Blank values are kept (`a=`).
 */
export const canonicalQueryOfPairs = (pairs: ReadonlyArray<readonly [string, string]>): string =>
  pairs
    .map(([k, v]) => [encodeComponent(k), encodeComponent(v)] as const)
    .sort((x, y) => compare(x[0], y[0]) || compare(x[1], y[1]))
    .map(([k, v]) => `${k}=${v}`)
    .join("&")

/** Canonical form of a raw query string as received (`a=1&b=x%20y`, with or without `?`). */
export const canonicalQuery = (raw: string): string => canonicalQueryOfPairs(parseQuery(raw))

export const sha256Hex = (body: string | Uint8Array): string => createHash("sha256").update(body).digest("hex")

export interface CanonicalParts {
  readonly method: string
  readonly path: string
  /** Raw query string as sent (with or without `?`), or "". */
  readonly query: string
  readonly timestamp: string
  readonly nonce: string
  /** Lowercase hex SHA-256 of the body bytes. */
  readonly bodySha256: string
}

export const canonicalString = (p: CanonicalParts): string =>
  [p.method.toUpperCase(), p.path, canonicalQuery(p.query), p.timestamp, p.nonce, p.bodySha256].join("\n")

/** Lowercase hex HMAC-SHA256 of the canonical string, keyed with the secret's UTF-8 bytes. */
export const hmacHex = (secret: string, data: string): string =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(data, "utf8").digest("hex")

/** The X-Service-Signature header value: `v1=<hex>`. */
export const signatureHeader = (secret: string, canonical: string): string =>
  `${SIGNATURE_VERSION}=${hmacHex(secret, canonical)}`

const SIGNATURE_RE = /^v1=([0-9a-f]{64})$/

/** Constant-time check of an X-Service-Signature header against the expected canonical string. */
export const verifySignature = (secret: string, canonical: string, header: string): boolean => {
  const m = SIGNATURE_RE.exec(header.trim())
  const expected = Buffer.from(hmacHex(secret, canonical), "hex")
  // Compare even for a malformed header so timing does not reveal which check failed.
  const given = m ? Buffer.from(m[1], "hex") : Buffer.alloc(32)
  return timingSafeEqual(given, expected) && m !== null
}

/** Timestamp rule: decimal Unix seconds (no sign, no fraction), within `skewSeconds` of `nowMs`. */
export const checkTimestamp = (
  header: string,
  nowMs: number,
  skewSeconds = 300
): { readonly ok: true; readonly seconds: number } | { readonly ok: false; readonly reason: string } => {
  if (!/^\d{1,12}$/.test(header)) return { ok: false, reason: "X-Service-Timestamp must be Unix time in whole seconds" }
  const seconds = Number(header)
  const drift = Math.abs(nowMs / 1000 - seconds)
  if (drift > skewSeconds) {
    return {
      ok: false,
      reason: header.length >= 13
        ? "X-Service-Timestamp looks like milliseconds; send Unix time in seconds"
        : `X-Service-Timestamp is more than ${skewSeconds} seconds away from server time`
    }
  }
  return { ok: true, seconds }
}

// ---------------------------------------------------------------------------
// Webhook signatures (deliveries from the service to a partner).

/** X-Service-Signature of a webhook delivery: lowercase hex HMAC-SHA256 of the raw body. */
export const webhookSignature = (secret: string, body: string | Uint8Array): string =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex")

/** Standard Webhooks `webhook-signature`: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`. */
export const standardWebhookSignature = (secret: string, id: string, timestamp: string, body: string): string =>
  `v1,${createHmac("sha256", standardWebhookKey(secret)).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64")}`

/**
 * The HMAC key of the Standard Webhooks scheme: a `whsec_<base64>` secret is base64-decoded (as
 * Standard Webhooks libraries do); any other secret is used as its UTF-8 bytes.
 */
export const standardWebhookKey = (secret: string): Buffer =>
  secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8")

/** How a delivery's signature header compares with the endpoint's secret. */
export type SignatureCheck = "matches" | "does not match" | "not given"

/** A delivery as the partner received it: the raw body and the signature headers they kept. */
export interface ReceivedDelivery {
  readonly body: string
  readonly serviceSignature?: string | undefined
  readonly webhookId?: string | undefined
  readonly webhookTimestamp?: string | undefined
  readonly webhookSignature?: string | undefined
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a, "utf8")
  const y = Buffer.from(b, "utf8")
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * Whether a received delivery's signatures are the ones `secret` makes (the webhook signature
 * check of the console): `X-Service-Signature` over the raw body, and the Standard Webhooks
 * `webhook-signature` (any of its space-separated `v1,…` entries) over `id.timestamp.body`.
 * Compared in constant time; says only match or not, never the expected value.
 */
export const checkDelivery = (
  secret: string,
  d: ReceivedDelivery
): { readonly service: SignatureCheck; readonly standard: SignatureCheck } => {
  const given = (s: string | undefined) => (s ?? "").trim()
  const service = given(d.serviceSignature)
  const standard = given(d.webhookSignature)
  const id = given(d.webhookId)
  const timestamp = given(d.webhookTimestamp)
  const expectedStandard = standardWebhookSignature(secret, id, timestamp, d.body)
  return {
    service: service === ""
      ? "not given"
      : sameText(service.toLowerCase(), webhookSignature(secret, d.body))
      ? "matches"
      : "does not match",
    standard: standard === ""
      ? "not given"
      : standard.split(/\s+/).some((entry) => sameText(entry, expectedStandard))
      ? "matches"
      : "does not match"
  }
}
