/**
 * Verifying the service's webhook deliveries. Each delivery carries two signatures:
 *
 * - Standard Webhooks (preferred): `webhook-id`, `webhook-timestamp`, `webhook-signature`
 *   (`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`; a `whsec_<base64>` secret is
 *   base64-decoded, any other secret is used as its UTF-8 bytes). The timestamp is checked against
 *   a tolerance, so a captured delivery cannot be replayed later.
 * - `X-Service-Signature`: hex HMAC-SHA256 of the raw body, with `X-Service-Timestamp` checked
 *   against the same tolerance when present.
 *
 * Always verify the raw body bytes as received, before parsing JSON.
 */
import { fromBase64, hmacSha256, timingSafeEqual, toHex } from "./signing.js"

export interface VerifyWebhookInput {
  /** Your endpoint's secret (the one you registered, or the `whsec_…` the service issued). */
  readonly secret: string
  /** The raw request body, exactly as received. */
  readonly body: string | Uint8Array
  /** The request headers (a `Headers`, or a plain object with any header case). */
  readonly headers: Headers | Record<string, string | ReadonlyArray<string> | undefined>
  /** Accepted clock difference in seconds (default 300). */
  readonly toleranceSeconds?: number
  /** Unix milliseconds to check against (default now; for tests). */
  readonly now?: number
}

export type WebhookVerification =
  | { readonly ok: true; readonly scheme: "standard-webhooks" | "x-service-signature"; readonly id: string | undefined; readonly event: WebhookEvent }
  | { readonly ok: false; readonly reason: string }

export interface WebhookEvent {
  readonly id: string
  readonly type: string
  readonly created_at: string
  readonly partner_id?: string
  readonly data: unknown
}

const header = (headers: VerifyWebhookInput["headers"], name: string): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : (v as string | undefined)
  }
  return undefined
}

const keyOf = (secret: string): Uint8Array =>
  secret.startsWith("whsec_") ? fromBase64(secret.slice(6)) : new TextEncoder().encode(secret)

const bodyText = (body: string | Uint8Array) => (typeof body === "string" ? body : new TextDecoder().decode(body))

const parse = (body: string | Uint8Array): WebhookEvent | undefined => {
  try {
    return JSON.parse(bodyText(body)) as WebhookEvent
  } catch {
    return undefined
  }
}

const fresh = (timestamp: string, now: number, tolerance: number): string | undefined => {
  if (!/^\d{1,12}$/.test(timestamp)) return "the timestamp is not Unix seconds"
  const drift = Math.abs(now / 1000 - Number(timestamp))
  return drift > tolerance ? `the timestamp is ${Math.round(drift)} s away from now (tolerance ${tolerance} s)` : undefined
}

/** Verifies one delivery; never throws. On success, the parsed event. */
export const verifyWebhook = async (input: VerifyWebhookInput): Promise<WebhookVerification> => {
  const tolerance = input.toleranceSeconds ?? 300
  const now = input.now ?? Date.now()
  const id = header(input.headers, "webhook-id")
  const timestamp = header(input.headers, "webhook-timestamp")
  const signatures = header(input.headers, "webhook-signature")
  const event = () => parse(input.body)

  if (id !== undefined && timestamp !== undefined && signatures !== undefined) {
    const stale = fresh(timestamp, now, tolerance)
    if (stale) return { ok: false, reason: `webhook-timestamp: ${stale}` }
    const expected = await hmacSha256(keyOf(input.secret), `${id}.${timestamp}.${bodyText(input.body)}`)
    const matched = signatures
      .split(" ")
      .filter((s) => s.startsWith("v1,"))
      .some((s) => {
        try {
          return timingSafeEqual(fromBase64(s.slice(3)), expected)
        } catch {
          return false
        }
      })
    if (!matched) {
      return {
        ok: false,
        reason: "webhook-signature does not match: check the secret, and that the body is the raw bytes received"
      }
    }
    const e = event()
    return e ? { ok: true, scheme: "standard-webhooks", id, event: e } : { ok: false, reason: "the body is not JSON" }
  }

  const signature = header(input.headers, "x-service-signature")
  if (signature === undefined) return { ok: false, reason: "no webhook-signature or X-Service-Signature header" }
  const serviceTimestamp = header(input.headers, "x-service-timestamp")
  if (serviceTimestamp !== undefined) {
    const stale = fresh(serviceTimestamp, now, tolerance)
    if (stale) return { ok: false, reason: `X-Service-Timestamp: ${stale}` }
  }
  const expected = toHex(await hmacSha256(input.secret, input.body))
  const enc = new TextEncoder()
  if (!timingSafeEqual(enc.encode(signature.trim().toLowerCase()), enc.encode(expected))) {
    return { ok: false, reason: "X-Service-Signature does not match: check the secret, and that the body is the raw bytes received" }
  }
  const e = event()
  return e ? { ok: true, scheme: "x-service-signature", id: header(input.headers, "x-service-event-id"), event: e } : { ok: false, reason: "the body is not JSON" }
}
