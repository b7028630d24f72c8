/**
 * Partner API request signing (scheme `v1`) with Web Crypto only, so it runs on Node ≥ 20, Deno,
 * Bun and edge runtimes. Canonical string: six lines joined by "\n":
 *
 *   METHOD  PATH  CANONICAL_QUERY  TIMESTAMP  NONCE  BODY_SHA256_HEX
 *
 * and `X-Service-Signature: v1=<hex HMAC-SHA256(secret, canonical string)>`.
 * The canonical query sorts the decoded pairs after re-encoding each key and value with
 * `encodeComponent` (RFC 3986 unreserved characters only).
 */

const encoder = new TextEncoder()

const subtle = (): SubtleCrypto => {
  const c = globalThis.crypto
  if (!c?.subtle) throw new Error("Web Crypto (globalThis.crypto.subtle) is required: use Node 20 or later")
  return c.subtle
}

export const toHex = (bytes: ArrayBuffer | Uint8Array): string =>
  Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("")

export const toBase64 = (bytes: ArrayBuffer | Uint8Array): string => {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)
  let s = ""
  for (const b of u8) s += String.fromCharCode(b)
  return btoa(s)
}

export const fromBase64 = (text: string): Uint8Array => Uint8Array.from(atob(text), (c) => c.charCodeAt(0))

const bytesOf = (data: string | Uint8Array): Uint8Array => (typeof data === "string" ? encoder.encode(data) : data)

export const sha256Hex = async (data: string | Uint8Array): Promise<string> =>
  toHex(await subtle().digest("SHA-256", bytesOf(data) as BufferSource))

export const hmacSha256 = async (key: string | Uint8Array, data: string | Uint8Array): Promise<Uint8Array> => {
  const k = await subtle().importKey("raw", bytesOf(key) as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
  return new Uint8Array(await subtle().sign("HMAC", k, bytesOf(data) as BufferSource))
}

/** encodeURIComponent plus `! ' ( ) *` as uppercase escapes. */
export const encodeComponent = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

const decodeComponent = (s: string): string => {
  const spaced = s.replace(/\+/g, " ")
  try {
    return decodeURIComponent(spaced)
  } catch {
    return spaced.replace(/(%[0-9A-Fa-f]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m)
      } catch {
        return m
      }
    })
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The canonical form of a raw query string (with or without `?`). */
export const canonicalQuery = (raw: string): string => {
  const q = raw.startsWith("?") ? raw.slice(1) : raw
  if (q === "") return ""
  return q
    .split("&")
    .filter((part) => part !== "")
    .map((part) => {
      const eq = part.indexOf("=")
      const [k, v] = eq === -1 ? [part, ""] : [part.slice(0, eq), part.slice(eq + 1)]
      return [encodeComponent(decodeComponent(k)), encodeComponent(decodeComponent(v))] as const
    })
    .sort((x, y) => compare(x[0], y[0]) || compare(x[1], y[1]))
    .map(([k, v]) => `${k}=${v}`)
    .join("&")
}

export interface CanonicalParts {
  readonly method: string
  readonly path: string
  readonly query: string
  readonly timestamp: string
  readonly nonce: string
  readonly bodySha256: string
}

export const canonicalString = (p: CanonicalParts): string =>
  [p.method.toUpperCase(), p.path, canonicalQuery(p.query), p.timestamp, p.nonce, p.bodySha256].join("\n")

export interface SignInput {
  readonly method: string
  /** Absolute URL, or a path with optional query, exactly as it will be requested. */
  readonly url: string
  /** The exact body that will be sent. */
  readonly body?: string | Uint8Array | undefined
  /** Unix seconds; default now. */
  readonly timestamp?: number | undefined
  /** Default: a random UUID. */
  readonly nonce?: string | undefined
}

export interface SignedHeaders {
  readonly "x-service-key-id": string
  readonly "x-service-timestamp": string
  readonly "x-service-nonce": string
  readonly "x-service-signature": string
}

/** The four signing headers for one request (sign again, with a fresh nonce, for every attempt). */
export const signRequest = async (
  credentials: { readonly keyId: string; readonly secret: string },
  input: SignInput
): Promise<SignedHeaders> => {
  const url = new URL(input.url, "http://signing.invalid")
  const timestamp = String(input.timestamp ?? Math.floor(Date.now() / 1000))
  const nonce = input.nonce ?? globalThis.crypto.randomUUID()
  const canonical = canonicalString({
    method: input.method,
    path: url.pathname,
    query: url.search,
    timestamp,
    nonce,
    bodySha256: await sha256Hex(input.body ?? "")
  })
  const signature = toHex(await hmacSha256(credentials.secret, canonical))
  return {
    "x-service-key-id": credentials.keyId,
    "x-service-timestamp": timestamp,
    "x-service-nonce": nonce,
    "x-service-signature": `v1=${signature}`
  }
}

/** Constant-time equality of two byte strings (length is not secret). */
export const timingSafeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i]
  return diff === 0
}
