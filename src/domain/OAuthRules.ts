/**
 * Pure rules of the OAuth 2.1 authorization server (no I/O): redirect URIs (RFC 7591 + OAuth 2.1
 * §2.3), scopes, PKCE (RFC 7636, S256 only) and resource indicators (RFC 8707).
 */
import { Either } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"

/** The only scope: unmasks marketplace prices. */
export const SUPPORTED_SCOPES: ReadonlyArray<string> = ["pricing:read"]
export const DEFAULT_SCOPES: ReadonlyArray<string> = ["pricing:read"]

export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  "pricing:read": "See marketplace prices (buy-now, floor and aftermarket prices) on your behalf"
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"])

export const isLoopbackHost = (hostname: string) =>
  LOOPBACK_HOSTS.has(hostname.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(hostname)

/**
 * A redirect URI a client may register: an absolute `https` URL, or `http` on a loopback host
 * (native apps, RFC 8252 §7.3). No fragment, no credentials. Returned exactly as given: redirect
 * URIs are later compared by exact string match.
 */
export const checkRedirectUri = (raw: unknown): Either.Either<string, string> => {
  if (typeof raw !== "string" || raw.length === 0) return Either.left("redirect URIs must be non-empty strings")
  if (raw.length > 2000) return Either.left("redirect URI is too long (2000 characters at most)")
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return Either.left(`"${raw}" is not an absolute URL`)
  }
  if (url.hash !== "" || raw.includes("#")) return Either.left(`"${raw}" must not contain a fragment`)
  if (url.username !== "" || url.password !== "") return Either.left(`"${raw}" must not contain credentials`)
  if (url.protocol === "https:") return Either.right(raw)
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return Either.right(raw)
  return Either.left(`"${raw}" must use https (or http on a loopback address: 127.0.0.1, [::1], localhost)`)
}

/**
 * The `scope` parameter: absent → the default scopes; present → space-separated scope tokens,
 * every one of them supported (else the unknown ones are returned on the left).
 */
export const parseScope = (raw: string | undefined): Either.Either<ReadonlyArray<string>, ReadonlyArray<string>> => {
  if (raw === undefined) return Either.right(DEFAULT_SCOPES)
  const tokens = [...new Set(raw.split(" ").filter((s) => s.length > 0))]
  const unknown = tokens.filter((t) => !SUPPORTED_SCOPES.includes(t))
  return unknown.length > 0 ? Either.left(unknown) : Either.right(tokens.sort())
}

export const formatScope = (scopes: ReadonlyArray<string>) => scopes.join(" ")

/** RFC 7636 §4.1: 43–128 unreserved characters. */
export const isValidCodeVerifier = (v: string) => /^[A-Za-z0-9\-._~]{43,128}$/.test(v)

/** An S256 challenge is base64url(SHA-256) without padding: exactly 43 characters. */
export const isValidS256Challenge = (c: string) => /^[A-Za-z0-9_-]{43}$/.test(c)

export const s256 = (verifier: string) => createHash("sha256").update(verifier, "ascii").digest("base64url")

/** Whether `verifier` matches an S256 `challenge`; constant-time. */
export const verifyS256 = (verifier: string, challenge: string): boolean => {
  if (!isValidCodeVerifier(verifier) || !isValidS256Challenge(challenge)) return false
  return timingSafeEqual(Buffer.from(s256(verifier)), Buffer.from(challenge))
}

const stripTrailingSlash = (s: string) => s.replace(/\/+$/, "")

/**
 * RFC 8707 resource indicator: an absolute URI without fragment naming one of this service's
 * protected resources, i.e. the base URL itself or a path below it (`<BASE_URL>/mcp`). Returned
 * canonical (no trailing slash) so `https://x/` and `https://x` bind the same resource.
 */
export const checkResource = (baseUrl: string, raw: string): Either.Either<string, string> => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return Either.left(`resource "${raw}" is not an absolute URI`)
  }
  if (url.hash !== "" || raw.includes("#")) return Either.left(`resource "${raw}" must not contain a fragment`)
  const canonical = stripTrailingSlash(`${url.origin}${url.pathname}${url.search}`)
  const base = stripTrailingSlash(baseUrl)
  if (canonical === base || canonical.startsWith(`${base}/`)) return Either.right(canonical)
  return Either.left(
    `resource "${raw}" is not served by this authorization server (expected ${base} or a path below it)`
  )
}

/**
 * Audience check: a token bound to `resource` may be used on `requestUrl` when the request is
 * that resource or below it. A token without a bound resource is valid on the whole service.
 */
export const resourceCovers = (resource: string | null, requestUrl: string): boolean => {
  if (resource === null) return true
  const r = stripTrailingSlash(resource)
  const path = requestUrl.split("?")[0]
  return path === r || path.startsWith(`${r}/`) || stripTrailingSlash(path) === r
}
