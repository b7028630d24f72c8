/**
 * The PartnerAuth middleware: HMAC request signing as described (Authentication → Partner API).
 *
 * Order of checks (first failure wins):
 *  1. production only: HTTPS (the socket, or a trusted proxy's X-Forwarded-Proto)   403 forbidden
 *  2. X-Service-Key-Id present                                                       401 missing_credentials
 *  3. X-Service-Timestamp, X-Service-Nonce, X-Service-Signature present              401 missing_signature_headers
 *  4. timestamp: Unix seconds within ±skew                                           401 invalid_timestamp
 *  5. key id known and signature valid (constant-time)                               401 invalid_signature
 *     (sandbox credential + `X-Service-Debug: signature`: details.canonical_string, see wantsSignatureDebug)
 *  6. credential active, its partner not suspended (PostgreSQL, every request)      403 credential_not_active
 *  7. nonce not seen before by this credential (PostgreSQL, shared by replicas)      401 replay_detected
 *     (6 and 7 are one statement, shared by concurrent requests: Credentials.admit; the secret
 *     for step 5 comes from an in-process cache; what can change is read again in that statement)
 *  8. credential holds one of the endpoint's scopes (as 6–7's statement returns them)  403 forbidden
 *  9. per-credential rate limit                                                      429 rate_limited
 *     (with the PostgreSQL counter, counted in 6–7's statement for the requests that pass 6–8:
 *     whether they do is judged there from the cached scopes)
 *
 * The body hash is over the raw body (`request.text`, cached: the JSON payload still decodes
 * after it). Nonces are remembered for 2 × skew + 60 s, longer than any timestamp stays valid.
 */
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { canonicalString, checkTimestamp, sha256Hex, verifySignature } from "../domain/PartnerSigning.js"
import { AppConfig } from "../platform/Config.js"
import { noteCaller } from "../platform/http/AccessLog.js"
import { clientIpOf, isHttps } from "../platform/http/ClientIp.js"
import { ForbiddenError, UnauthorizedError } from "../platform/http/Errors.js"
import { pathOf, queryOf } from "../platform/http/HttpPath.js"
import { applyDecision, enforceWith, policy, RateLimiter } from "../platform/http/RateLimit.js"
import {
  CurrentPartner,
  PartnerAuth,
  type PartnerIdentity,
  RequiredScopes,
  type Scope,
  SIGNING_HEADERS
} from "./Auth.js"
import { Credentials, type ResolvedCredential } from "./Credentials.js"
import type { CredentialRow } from "./Repo.js"
import { PartnerConfig } from "./Settings.js"

/** Per credential; `RATE_LIMIT_PARTNER_API` overrides. */
export const partnerRateLimit = policy("partner_api", 1200, 60)

const NONCE_RE = /^[\x21-\x7e]{1,128}$/

/** `METHOD path-template` → scopes, from the endpoints' `requiresScope` annotations. */
const scopeTable = (groups: ReadonlyArray<unknown>): ReadonlyMap<string, ReadonlyArray<Scope>> => {
  const table = new Map<string, ReadonlyArray<Scope>>()
  for (const group of groups) {
    for (const endpoint of Object.values((group as unknown as HttpApiGroup.HttpApiGroup.AnyWithProps).endpoints)) {
      const scopes = Context.getOption(endpoint.annotations, RequiredScopes)
      if (Option.isSome(scopes)) table.set(`${endpoint.method} ${endpoint.path}`, scopes.value)
    }
  }
  return table
}

const unauthorized = (code: string, message: string) => new UnauthorizedError({ code, message })

const hasBody = (headers: Readonly<Record<string, string | undefined>>) => {
  const length = headers["content-length"]
  if (length !== undefined) return Number(length) > 0
  return headers["transfer-encoding"] !== undefined
}

/**
 * The sandbox signature debugger: a sandbox credential's request carrying
 * `X-Service-Debug: signature` whose signature does not match gets, in the error details, the
 * canonical string the server computed from the request as it arrived (method, path, query,
 * timestamp, nonce, body SHA-256 — all things the caller sent). Never the secret nor the expected
 * signature, never for live credentials or unknown key ids.
 */
const wantsSignatureDebug = (headers: Readonly<Record<string, string | undefined>>, environment: string) =>
  environment === "sandbox" && headers["x-service-debug"]?.trim().toLowerCase() === "signature"

const debugInvalid = (canonical: string) =>
  new UnauthorizedError({
    code: "invalid_signature",
    message:
      "The request signature does not match; compare details.canonical_string with the string you signed (sandbox signature debugger)",
    details: {
      canonical_string: canonical,
      canonical_lines: ["method", "path", "query", "timestamp", "nonce", "body_sha256"]
    }
  })

/** Steps 2–3: the key id, then the other signing headers, present and not blank; else the refusal. */
const signingHeadersRefusal = (h: Readonly<Record<string, string | undefined>>): UnauthorizedError | undefined => {
  const keyId = h[SIGNING_HEADERS.keyId]
  if (keyId === undefined || keyId.trim() === "") {
    return unauthorized(
      "missing_credentials",
      "X-Service-Key-Id is required: sign every request with your key id and secret"
    )
  }
  const missing = [
    ["X-Service-Timestamp", h[SIGNING_HEADERS.timestamp]],
    ["X-Service-Nonce", h[SIGNING_HEADERS.nonce]],
    ["X-Service-Signature", h[SIGNING_HEADERS.signature]]
  ].filter(([, v]) => v === undefined || v.trim() === "").map(([name]) => name)
  if (missing.length > 0) {
    return unauthorized("missing_signature_headers", `Missing signing header(s): ${missing.join(", ")}`)
  }
  return undefined
}

/** Step 4: the timestamp within ±`skew` seconds of `now`, and a nonce of the allowed form; else the refusal. */
const timestampOrNonceRefusal = (
  timestamp: string,
  nonce: string,
  now: number,
  skew: number
): UnauthorizedError | undefined => {
  const ts = checkTimestamp(timestamp, now, skew)
  if (!ts.ok) return unauthorized("invalid_timestamp", ts.reason)
  if (!NONCE_RE.test(nonce)) {
    return unauthorized(
      "invalid_signature",
      "X-Service-Nonce must be 1-128 visible ASCII characters (a UUID v4 is recommended)"
    )
  }
  return undefined
}

/** Built only when refused: an error captures a stack trace when constructed. */
const invalidSignature = () =>
  unauthorized(
    "invalid_signature",
    "The request signature does not match; check the canonical string and the secret"
  )

/**
 * Step 5: the row of the credential whose secret signed the request as it arrived (`body`
 * undefined: it could not be read), else the refusal (with the canonical string for the sandbox
 * signature debugger).
 */
const verifiedRow = (
  request: HttpServerRequest.HttpServerRequest,
  resolved: Option.Option<ResolvedCredential>,
  body: string | undefined,
  timestamp: string,
  nonce: string,
  signature: string
): CredentialRow | UnauthorizedError => {
  if (body === undefined) return invalidSignature()
  // Compute the canonical string even for an unknown key id so both paths cost the same.
  const canonical = canonicalString({
    method: request.method,
    path: pathOf(request.url),
    query: queryOf(request.url),
    timestamp,
    nonce,
    bodySha256: sha256Hex(body)
  })
  const secret = Option.match(resolved, { onNone: () => "\u0000unknown-key", onSome: (r) => r.secret })
  if (!verifySignature(secret, canonical, signature) || Option.isNone(resolved)) {
    return Option.isSome(resolved) && wantsSignatureDebug(request.headers, resolved.value.row.environment)
      ? debugInvalid(canonical)
      : invalidSignature()
  }
  return resolved.value.row
}

/** Steps 6–8, as the admission statement answered them (`granted`: the scopes it returned, else the cached ones). */
const admissionRefusal = (
  admitted: { readonly active: boolean; readonly fresh: boolean },
  needed: ReadonlyArray<Scope>,
  granted: ReadonlyArray<Scope>
): ForbiddenError | UnauthorizedError | undefined => {
  if (!admitted.active) {
    return new ForbiddenError({
      code: "credential_not_active",
      message: "This credential has been revoked or deactivated, or its partner is suspended"
    })
  }
  if (!admitted.fresh) {
    return unauthorized(
      "replay_detected",
      "This nonce was already used; send a fresh X-Service-Nonce with every request, retries included"
    )
  }
  if (!needed.some((s) => granted.includes(s))) {
    return new ForbiddenError({
      code: "forbidden",
      message: needed.length === 0
        ? "This endpoint is not available to partner credentials"
        : `This credential lacks the required scope (${needed.join(" or ")})`
    })
  }
  return undefined
}

const identityOf = (row: CredentialRow, granted: ReadonlyArray<Scope>): PartnerIdentity => ({
  partnerId: row.partner_id,
  credentialId: row.id,
  keyId: row.key_id,
  environment: row.environment,
  scopes: granted,
  affiliate: row.affiliate
})

/**
 * The signing middleware over the signed endpoint groups (`groups`: every HMAC-signed group,
 * whichever capability owns it; the composition root passes the list).
 */
export const makePartnerAuthLive = (groups: ReadonlyArray<unknown>) =>
  Layer.effect(
    PartnerAuth,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const partnerSettings = yield* PartnerConfig
      const credentials = yield* Credentials
      const limiter = yield* RateLimiter
      const scopes = scopeTable(groups)
      const skew = partnerSettings.skewSeconds
      const nonceTtl = skew * 2 + 60

      return PartnerAuth.of(
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (config.production && !isHttps(request, config.trustProxy)) {
            return yield* new ForbiddenError({
              code: "forbidden",
              message: "The Partner API is served over HTTPS only"
            })
          }
          const h = request.headers
          const unsigned = signingHeadersRefusal(h)
          if (unsigned !== undefined) return yield* unsigned
          const keyId = h[SIGNING_HEADERS.keyId]!.trim()
          const timestamp = h[SIGNING_HEADERS.timestamp]!.trim()
          const nonce = h[SIGNING_HEADERS.nonce]!.trim()
          const signature = h[SIGNING_HEADERS.signature]!
          const now = yield* Clock.currentTimeMillis
          const stale = timestampOrNonceRefusal(timestamp, nonce, now, skew)
          if (stale !== undefined) return yield* stale

          const resolved = yield* credentials.resolve(keyId).pipe(Effect.orDie)
          // A request without Content-Length or Transfer-Encoding has no body (RFC 9112 §6.3): its
          // hash is that of "" without reading the stream (an event-loop turn on every signed GET).
          const body = hasBody(h) ? yield* request.text.pipe(Effect.orElseSucceed(() => undefined)) : ""
          const row = verifiedRow(request, resolved, body, timestamp, nonce, signature)
          if (row instanceof UnauthorizedError) return yield* row
          const route = yield* HttpRouter.RouteContext
          const needed = scopes.get(`${route.route.method} ${route.route.path}`) ?? []
          const scoped = needed.some((s) => row.scopes.includes(s))
          // Counted in the admission statement when the request will reach the limit check (rule 9).
          const window = limiter.countedElsewhere
            ? limiter.windowOf(partnerRateLimit, `cred:${row.key_id}`, now)
            : undefined
          // One statement (shared with concurrent requests): the credential's `active` flag as the
          // database has it now, the nonce recorded unless seen before, and the rate-limit count.
          const counted = window !== undefined && scoped && !window.knownDenied ? window : undefined
          const admitted = yield* credentials.admit(
            row.key_id,
            nonce,
            nonceTtl,
            counted,
            clientIpOf(request, config.trustProxy)
          ).pipe(Effect.orDie)
          // The scopes as the database has them now (an operator may have changed them since the
          // credential was cached); the cached ones only chose whether to count the window above.
          const granted = admitted.scopes ?? row.scopes
          const refused = admissionRefusal(admitted, needed, granted)
          if (refused !== undefined) return yield* refused
          // A window not counted in the statement (a scope granted since the credential was cached)
          // is counted on its own, as without the shared counter.
          yield* window !== undefined && (counted !== undefined || window.knownDenied)
            ? applyDecision(limiter.settle(window, admitted.count))
            : enforceWith(limiter, partnerRateLimit, `cred:${row.key_id}`)
          noteCaller(request, { partner_id: row.partner_id, key_id: row.key_id })
          return identityOf(row, granted)
        })
      )
    })
  )

export { CurrentPartner }
