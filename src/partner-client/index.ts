/**
 * Partner API client kit (for partners' server-side code; never ship the secret to a browser).
 *
 * Request signing:
 *
 *   import { makePartnerClient } from "domain-marketplace/partner-client"
 *   const client = yield* makePartnerClient({ baseUrl, keyId: "pk_sandbox_…", secret: "sk_…" })
 *   const res = yield* client.get("/api/partner/v1/availability?domain=example.com")
 *
 * `withPartnerSigning` turns any Effect `HttpClient` into one that adds X-Service-Key-Id,
 * X-Service-Timestamp (Unix seconds), X-Service-Nonce (a fresh UUID v4 per attempt, retries
 * included) and X-Service-Signature (`v1=` + hex HMAC-SHA256 of the canonical string) to every
 * request. `signRequest` does the same for any other HTTP library.
 *
 * Webhook verification: `verifyWebhook(secret, rawBody, headers)` prefers the Standard Webhooks
 * `webhook-signature` (it signs the id and the timestamp, so a replayed delivery older than the
 * tolerance fails); only when those headers are absent does it fall back to X-Service-Signature
 * (hex HMAC of the raw body) with X-Service-Timestamp inside the same tolerance (300 s by default).
 * Every comparison is constant-time.
 */
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as UrlParams from "@effect/platform/UrlParams"
import { Effect, Either } from "effect"
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto"
import {
  canonicalString,
  EMPTY_BODY_SHA256,
  sha256Hex,
  signatureHeader,
  standardWebhookKey,
  webhookSignature
} from "../domain/PartnerSigning.js"

export {
  canonicalQuery,
  canonicalString,
  encodeComponent,
  sha256Hex,
  signatureHeader,
  standardWebhookSignature,
  webhookSignature
} from "../domain/PartnerSigning.js"

export interface PartnerCredentials {
  /** X-Service-Key-Id, e.g. `pk_sandbox_…`. */
  readonly keyId: string
  /** The API secret `sk_…` (HMAC key; never sent). */
  readonly secret: string
}

export interface SignInput {
  readonly method: string
  /** Absolute URL or a path with optional query, exactly as it will be requested. */
  readonly url: string
  /** The exact body bytes that will be sent (string = UTF-8). */
  readonly body?: string | Uint8Array | undefined
  /** Unix seconds; default now. */
  readonly timestamp?: number | undefined
  /** Default: a random UUID v4. */
  readonly nonce?: string | undefined
}

/** The four signing headers for one request. */
export const signRequest = (credentials: PartnerCredentials, input: SignInput): Record<string, string> => {
  const u = new URL(input.url, "http://placeholder.invalid")
  const timestamp = String(input.timestamp ?? Math.floor(Date.now() / 1000))
  const nonce = input.nonce ?? randomUUID()
  const body = input.body
  const canonical = canonicalString({
    method: input.method,
    path: u.pathname,
    query: u.search,
    timestamp,
    nonce,
    bodySha256: body === undefined || body.length === 0 ? EMPTY_BODY_SHA256 : sha256Hex(body)
  })
  return {
    "x-service-key-id": credentials.keyId,
    "x-service-timestamp": timestamp,
    "x-service-nonce": nonce,
    "x-service-signature": signatureHeader(credentials.secret, canonical)
  }
}

/** The bytes to sign; a body that has none to sign (a stream, a form) is a programming error: a defect. */
const bodyBytes = (body: HttpBody.HttpBody): Effect.Effect<Uint8Array | undefined> => {
  switch (body._tag) {
    case "Empty":
      return Effect.succeed(undefined)
    case "Uint8Array":
      return Effect.succeed(body.body)
    case "Raw":
      return typeof body.body === "string"
        ? Effect.succeed(new TextEncoder().encode(body.body))
        : body.body instanceof Uint8Array
        ? Effect.succeed(body.body)
        : Effect.dieMessage("Only string or byte bodies can be signed")
    default:
      return Effect.dieMessage(`A ${body._tag} body cannot be signed; send JSON or bytes`)
  }
}

/**
 * Signs every request of `client` over the URL it will send (URL params included). Each
 * execution (so each retry) gets a fresh timestamp and nonce.
 */
export const withPartnerSigning =
  (credentials: PartnerCredentials) => (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    HttpClient.mapRequestEffect(client, (request) =>
      Effect.gen(function*() {
        // The URL exactly as the client will send it (the same construction as its fetch layer).
        const url = yield* Either.match(UrlParams.makeUrl(request.url, request.urlParams, request.hash), {
          onLeft: (e) => Effect.die(e),
          onRight: (u) => Effect.succeed(u)
        })
        const body = yield* bodyBytes(request.body)
        const headers = signRequest(credentials, { method: request.method, url: url.toString(), body })
        return HttpClientRequest.setHeaders(request, headers)
      }))

export interface PartnerClientOptions extends PartnerCredentials {
  /** e.g. `https://marketplace.example` */
  readonly baseUrl: string
}

/** An HttpClient (from the context) with the base URL prepended and every request signed. */
export const makePartnerClient = (options: PartnerClientOptions) =>
  Effect.map(HttpClient.HttpClient, (client) =>
    client.pipe(
      HttpClient.mapRequest(HttpClientRequest.prependUrl(options.baseUrl.replace(/\/+$/, ""))),
      withPartnerSigning(options)
    ))

/** Body for POST /orders etc.: JSON serialised once, so the signed bytes are the sent bytes. */
export const jsonBody = (value: unknown) => HttpClientRequest.bodyText(JSON.stringify(value), "application/json")

// ---------------------------------------------------------------------------------------------
// Webhook verification

const safeEqual = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b)

const header = (
  headers: Headers | Record<string, string | ReadonlyArray<string> | undefined>,
  name: string
): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  const v = (headers as Record<string, string | ReadonlyArray<string> | undefined>)[name] ??
    Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1]
  return Array.isArray(v) ? v[0] : (v as string | undefined)
}

/** X-Service-Signature: lowercase hex HMAC-SHA256 of the raw body, compared in constant time. */
export const verifyServiceSignature = (
  secret: string,
  rawBody: string | Uint8Array,
  signature: string | undefined
): boolean => {
  if (signature === undefined || !/^[0-9a-f]{64}$/i.test(signature.trim())) return false
  return safeEqual(
    Buffer.from(signature.trim().toLowerCase(), "hex"),
    Buffer.from(webhookSignature(secret, rawBody), "hex")
  )
}

/**
 * Standard Webhooks: `webhook-signature` holds space-separated `v1,<base64>` entries over
 * `{webhook-id}.{webhook-timestamp}.{body}`; the timestamp must be within `toleranceSeconds`.
 */
export const verifyStandardWebhook = (
  secret: string,
  rawBody: string | Uint8Array,
  h: {
    readonly id?: string | undefined
    readonly timestamp?: string | undefined
    readonly signature?: string | undefined
  },
  options?: { readonly toleranceSeconds?: number; readonly nowSeconds?: number }
): boolean => {
  if (!h.id || !h.timestamp || !h.signature || !/^\d+$/.test(h.timestamp)) return false
  const now = options?.nowSeconds ?? Math.floor(Date.now() / 1000)
  if (Math.abs(now - Number(h.timestamp)) > (options?.toleranceSeconds ?? 300)) return false
  const body = typeof rawBody === "string" ? rawBody : Buffer.from(rawBody).toString("utf8")
  const expected = createHmac("sha256", standardWebhookKey(secret)).update(`${h.id}.${h.timestamp}.${body}`, "utf8")
    .digest()
  return h.signature.split(" ").some((entry) => {
    const [version, sig] = entry.split(",", 2)
    return version === "v1" && sig !== undefined && safeEqual(Buffer.from(sig, "base64"), expected)
  })
}

export interface WebhookVerifyOptions {
  /** Accepted distance between the delivery's timestamp and now, either side. Default 300 s. */
  readonly toleranceSeconds?: number
  /** Now, in Unix seconds (tests). */
  readonly nowSeconds?: number
}

const withinTolerance = (timestamp: string | undefined, options?: WebhookVerifyOptions) => {
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp.trim())) return false
  const now = options?.nowSeconds ?? Math.floor(Date.now() / 1000)
  return Math.abs(now - Number(timestamp.trim())) <= (options?.toleranceSeconds ?? 300)
}

/**
 * X-Service-Signature with a timestamp tolerance: the body HMAC must match and X-Service-Timestamp
 * must be within `toleranceSeconds` of now. The timestamp is not covered by this signature; the
 * Standard Webhooks scheme (which signs it) is the stronger check and is preferred by `verifyWebhook`.
 */
export const verifyServiceWebhook = (
  secret: string,
  rawBody: string | Uint8Array,
  h: { readonly signature?: string | undefined; readonly timestamp?: string | undefined },
  options?: WebhookVerifyOptions
): boolean => {
  const signatureOk = verifyServiceSignature(secret, rawBody, h.signature)
  return withinTolerance(h.timestamp, options) && signatureOk
}

/**
 * Verifies a delivery; call it before parsing the body. The timestamped Standard Webhooks scheme
 * decides whenever its headers are present (no fallback then, so stripping them cannot downgrade
 * the check); otherwise X-Service-Signature with X-Service-Timestamp inside the tolerance.
 */
export const verifyWebhook = (
  secret: string,
  rawBody: string | Uint8Array,
  headers: Headers | Record<string, string | ReadonlyArray<string> | undefined>,
  options?: WebhookVerifyOptions
): boolean => {
  const standard = {
    id: header(headers, "webhook-id"),
    timestamp: header(headers, "webhook-timestamp"),
    signature: header(headers, "webhook-signature")
  }
  if (standard.signature !== undefined) return verifyStandardWebhook(secret, rawBody, standard, options)
  return verifyServiceWebhook(
    secret,
    rawBody,
    { signature: header(headers, "x-service-signature"), timestamp: header(headers, "x-service-timestamp") },
    options
  )
}
