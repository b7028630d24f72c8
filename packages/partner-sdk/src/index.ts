/**
 * The domain marketplace Partner API over `fetch`, with no dependencies.
 *
 *   import { PartnerClient } from "@domain-marketplace/partner-sdk"
 *   const client = new PartnerClient({ baseUrl: "https://api.example.org", keyId: "pk_sandbox_…", secret: "sk_…" })
 *   const hits = await client.search("coffee")
 *   for await (const order of client.orders({ status: "TRANSFER_COMPLETED" })) console.log(order.public_id)
 *
 * Every request is signed (a fresh timestamp and nonce per attempt). 429, 502, 503 and 504 and
 * network failures are retried with exponential backoff and jitter, honouring Retry-After;
 * writes carry one Idempotency-Key across their retries, so a retried order is never recorded
 * twice. Failures throw `PartnerApiError` with the service's `code`, `message` and request id.
 * Server-side only: never ship the secret to a browser.
 */
import { signRequest } from "./signing.js"

export { canonicalQuery, canonicalString, encodeComponent, sha256Hex, signRequest } from "./signing.js"
export type { CanonicalParts, SignedHeaders, SignInput } from "./signing.js"
export { verifyWebhook } from "./webhooks.js"
export type { VerifyWebhookInput, WebhookEvent, WebhookVerification } from "./webhooks.js"

// ---------------------------------------------------------------------------------------------
// Shapes (the OpenAPI document at /api/openapi.json is the reference).

export type OrderStatus =
  | "EXTERNALLY_PAID"
  | "MANUAL_REVIEW"
  | "TRANSFER_IN_PROGRESS"
  | "TRANSFER_COMPLETED"
  | "SETTLED"
  | "REFUNDED"
  | "CANCELLED"
  | (string & {})

export interface SearchResult {
  readonly domain: string
  readonly tld: string
  readonly bin_price_cents: number | null
  readonly floor_price_cents: number | null
  readonly currency: string
  readonly available: boolean
  readonly score: number
}
export interface SearchResponse {
  readonly query: string
  readonly count: number
  readonly results: ReadonlyArray<SearchResult>
}
export interface DomainDetail {
  readonly domain: string
  readonly domain_unicode: string
  readonly tld: string
  readonly available: boolean
  readonly status: string
  readonly bin_price_cents: number | null
  readonly floor_price_cents: number | null
  readonly currency: string
  readonly reserved: boolean
  readonly description: string | null
  readonly listed_at: string
}
export interface Availability {
  readonly domain: string
  readonly available: boolean
  readonly price_cents: number | null
  readonly currency: string
}
export interface Pricing {
  readonly domain: string
  readonly bin_price_cents: number | null
  readonly floor_price_cents: number | null
  readonly currency: string
}
export interface Quote {
  readonly quote_id: string
  readonly domain: string
  readonly price_cents: number
  readonly currency: string
  readonly expires_at: string
}
export interface Buyer {
  readonly email: string
  readonly name?: string
  readonly country?: string
}
export interface OrderRequest {
  readonly domain: string
  readonly expected_price: number
  readonly currency: string
  readonly external_payment_ref: string
  readonly buyer: Buyer
  readonly quote_id?: string
  readonly return_url?: string
  readonly cancel_url?: string
}
export interface Order {
  readonly public_id: string
  readonly domain: string
  readonly status: OrderStatus
  readonly sale_price_cents: number
  readonly currency: string
  readonly environment: "live" | "sandbox"
  readonly external_payment_ref: string
  readonly quote_id: string | null
  readonly buyer: Buyer
  readonly return_url: string | null
  readonly cancel_url: string | null
  readonly created_at: string
  readonly updated_at: string
  /** How the order was sold: who collected the buyer's money. */
  readonly payment_model: PaymentModel
  /** Your commission on the sale (retained on partner_collected, accrued and paid out on the others). */
  readonly commission_cents: number
  /** Brokerage orders only: the deal price and the service's fee (= sale_price_cents) apart; else null. */
  readonly brokerage: {
    readonly case_id: string
    readonly deal_price_cents: number | null
    readonly fee_cents: number
  } | null
}
export type PaymentModel = "partner_collected" | "hosted_checkout" | "referral" | "brokerage"
export interface OrderDetail extends Order {
  readonly transfer: {
    readonly status: "not_started" | "in_progress" | "completed" | "aborted"
    readonly started_at: string | null
    readonly completed_at: string | null
  }
  readonly timeline: ReadonlyArray<{
    readonly at: string
    readonly type: "status" | "transfer_step"
    readonly status: string | null
    readonly from_status: string | null
    readonly step: string | null
    readonly event_id: string | null
    readonly actor: string
    readonly note: string | null
  }>
}
export interface OrderFilter {
  readonly status?: OrderStatus
  readonly payment_model?: PaymentModel
  readonly domain?: string
  readonly from?: string
  readonly to?: string
  readonly limit?: number
}
export interface Refund {
  readonly refund_id: string
  readonly order_id: string
  readonly amount_cents: number
  readonly currency: string
  readonly status: "REFUNDED"
  readonly created_at: string
  readonly order: Order
}
export type BrokerageStatus = "open" | "researching" | "contacting_owner" | "negotiating" | "deal_agreed" | "closed_won" | "closed_lost" | "cancelled"
export type BrokerageReason = "invalid_domain" | "reserved" | "already_in_case" | "live_site"
export interface BrokerageEligibility {
  readonly domain: string
  readonly eligible: boolean
  readonly reasons: ReadonlyArray<BrokerageReason>
  readonly details: ReadonlyArray<{ readonly reason: BrokerageReason; readonly message: string }>
  readonly site: { readonly classification: "live" | "parking" | "error" | "none" | "blocked"; readonly url: string; readonly status: number | null } | null
  readonly checked_at: string
}
export interface BrokerageCaseRequest {
  readonly domain: string
  readonly tier: "managed" | "self_serve"
  readonly buyer_email: string
  /** Integer USD cents. */
  readonly budget: number
  readonly notes?: string
}
export interface BrokerageCase {
  readonly id: string
  readonly domain: string
  readonly tier: "managed" | "self_serve"
  readonly status: BrokerageStatus
  readonly environment: "live" | "sandbox"
  readonly buyer_email: string
  readonly budget: number
  readonly currency: string
  readonly notes: string | null
  /** The buyer's no-login progress page. */
  readonly progress_url: string
  readonly agreed_price_cents: number | null
  readonly deal_price_cents: number | null
  readonly brokerage_fee_cents: number | null
  readonly partner_commission_cents: number | null
  readonly order_id: string | null
  readonly created_at: string
  readonly updated_at: string
  readonly closed_at: string | null
}
export interface BrokerageCaseDetail extends BrokerageCase {
  readonly timeline: ReadonlyArray<{
    readonly at: string
    readonly status: BrokerageStatus
    readonly from_status: BrokerageStatus | null
    readonly price_cents: number | null
    readonly event_id: string | null
    readonly actor: string
    readonly note: string | null
  }>
}
export interface BrokerageFilter {
  readonly status?: BrokerageStatus
  readonly from?: string
  readonly to?: string
  readonly limit?: number
}
export interface PartnerEvent {
  readonly id: string
  readonly type: string
  readonly created_at: string
  readonly data: unknown
}
export interface WebhookEndpoint {
  readonly url: string
  readonly active: boolean
  readonly created_at: string
  /** Present once, when the service generated the secret for you. */
  readonly secret?: string
}

/** GET /api/partner/webhooks: the endpoint of the credential's environment (never its secret). */
export interface WebhookState {
  readonly url: string
  readonly active: boolean
  /** `disabled` after the receiver answered 410 Gone; register again to re-activate. */
  readonly state: "active" | "disabled"
  readonly disabled_reason: string | null
  readonly created_at: string
  readonly updated_at: string
  readonly pending_deliveries: number
  readonly last_attempt: {
    readonly at: string
    readonly delivery_id: string
    readonly status: number | null
    readonly duration_ms: number
    readonly error: string | null
  } | null
}
export type WebhookDeliveryStatus = "pending" | "delivered" | "failed" | "cancelled"
export interface WebhookAttempt {
  readonly attempt: number
  readonly started_at: string
  /** The receiver's HTTP status; null when none came (timeout, refused…). */
  readonly status: number | null
  readonly duration_ms: number
  readonly error: string | null
}
export interface WebhookDelivery {
  readonly id: string
  readonly event_id: string
  readonly event_type: string
  readonly status: WebhookDeliveryStatus
  readonly attempt_count: number
  readonly next_attempt_at: string | null
  readonly last_status: number | null
  readonly last_error: string | null
  readonly created_at: string
  readonly finished_at: string | null
  /** Newest first. */
  readonly attempts: ReadonlyArray<WebhookAttempt>
}
export interface WebhookDeliveryFilter {
  readonly status?: WebhookDeliveryStatus
  readonly event_id?: string
  readonly limit?: number
}
/** Either one event, or every event whose delivery failed since an RFC 3339 time. */
export type RedeliverRequest = { readonly event_id: string } | { readonly since: string; readonly status?: "failed" }

// ---------------------------------------------------------------------------------------------

/** A failed call: the service's error `code` and `message`, the HTTP status, and its request id. */
export class PartnerApiError extends Error {
  override readonly name = "PartnerApiError"
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details: unknown,
    /** Seconds, from Retry-After, when the service gave one. */
    readonly retryAfter: number | undefined
  ) {
    super(`${status} ${code}: ${message}`)
  }
}

export interface PartnerClientOptions {
  /** The service origin, e.g. `https://api.example.org`. */
  readonly baseUrl: string
  readonly keyId: string
  readonly secret: string
  /** Attempts after the first for retryable failures (default 3). */
  readonly maxRetries?: number
  /** First backoff in milliseconds, doubled per attempt with jitter (default 250). */
  readonly retryBaseMs?: number
  /** Per-attempt timeout in milliseconds (default 30 000). */
  readonly timeoutMs?: number
  /** A fetch implementation (default the global one). */
  readonly fetch?: typeof fetch
  /** Extra headers on every request (e.g. a User-Agent). */
  readonly headers?: Record<string, string>
}

export interface WriteOptions {
  /** Default: a random UUID, reused by this call's retries. Pass your own to retry across processes. */
  readonly idempotencyKey?: string
}

const RETRYABLE = new Set([429, 502, 503, 504])

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const query = (params: Record<string, string | number | undefined>): string => {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v))
  const s = q.toString()
  return s === "" ? "" : `?${s}`
}

export class PartnerClient {
  readonly #options: PartnerClientOptions
  readonly #fetch: typeof fetch

  constructor(options: PartnerClientOptions) {
    if (!/^https?:\/\//.test(options.baseUrl)) throw new TypeError("baseUrl must be an http(s) origin")
    this.#options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, "") }
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  }

  /** One signed call: JSON in, JSON out, retried when that is safe. */
  async request<A>(method: string, path: string, body?: unknown, options: { readonly idempotencyKey?: string } = {}): Promise<A> {
    const { baseUrl, keyId, secret } = this.#options
    const maxRetries = this.#options.maxRetries ?? 3
    const base = this.#options.retryBaseMs ?? 250
    const text = body === undefined ? undefined : JSON.stringify(body)
    for (let attempt = 0;; attempt++) {
      const signed = await signRequest({ keyId, secret }, { method, url: path, body: text })
      const headers: Record<string, string> = { accept: "application/json", ...this.#options.headers, ...signed }
      if (text !== undefined) headers["content-type"] = "application/json"
      if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey
      let response: Response | undefined
      let failure: unknown
      try {
        response = await this.#fetch(`${baseUrl}${path}`, {
          method,
          headers,
          ...(text === undefined ? {} : { body: text }),
          signal: AbortSignal.timeout(this.#options.timeoutMs ?? 30_000)
        })
      } catch (error) {
        failure = error
      }
      const retryable = response === undefined || RETRYABLE.has(response.status)
      // A write without an idempotency key is retried only when it surely never arrived (429).
      const safe = method === "GET" || options.idempotencyKey !== undefined || response?.status === 429
      if (retryable && safe && attempt < maxRetries) {
        const retryAfter = Number(response?.headers.get("retry-after"))
        const backoff = base * 2 ** attempt * (0.5 + Math.random())
        await response?.body?.cancel().catch(() => undefined)
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 60_000) : backoff)
        continue
      }
      if (response === undefined) throw failure
      const raw = await response.text()
      const json = raw === "" ? undefined : (() => {
        try {
          return JSON.parse(raw)
        } catch {
          return undefined
        }
      })()
      if (response.ok) return json as A
      const retryAfter = Number(response.headers.get("retry-after"))
      // The service's errors are `{"error": {code, message, request_id, details?}}`.
      const error = typeof json?.error === "object" && json.error !== null ? json.error : json
      throw new PartnerApiError(
        response.status,
        typeof error?.code === "string" ? error.code : "http_error",
        typeof error?.message === "string" ? error.message : raw.slice(0, 200) || response.statusText,
        response.headers.get("x-request-id") ?? undefined,
        error?.details,
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined
      )
    }
  }

  #write<A>(method: string, path: string, body: unknown, options?: WriteOptions) {
    return this.request<A>(method, path, body, { idempotencyKey: options?.idempotencyKey ?? globalThis.crypto.randomUUID() })
  }

  // Inventory (scope search) ------------------------------------------------------------------

  /** Up to five listed domains for free text or a name, best first. */
  search(q: string): Promise<SearchResponse> {
    return this.request("GET", `/api/partner/v1/domains/search${query({ q })}`)
  }
  domain(name: string): Promise<DomainDetail> {
    return this.request("GET", `/api/partner/v1/domains/${encodeURIComponent(name)}`)
  }
  availability(domain: string): Promise<Availability> {
    return this.request("GET", `/api/partner/v1/availability${query({ domain })}`)
  }
  pricing(domain: string): Promise<Pricing> {
    return this.request("GET", `/api/partner/v1/pricing${query({ domain })}`)
  }

  // Quotes, orders and refunds (scope buy) ----------------------------------------------------

  /** A firm price and a 10-minute reservation. */
  createQuote(domain: string, options?: WriteOptions): Promise<Quote> {
    return this.#write("POST", "/api/partner/v1/quotes", { domain }, options)
  }
  /** Records a sale you collected. Retries reuse one Idempotency-Key: never two orders. */
  createOrder(order: OrderRequest, options?: WriteOptions): Promise<Order> {
    return this.#write("POST", "/api/partner/v1/orders", order, options)
  }
  getOrder(publicId: string): Promise<OrderDetail> {
    return this.request("GET", `/api/partner/v1/orders/${encodeURIComponent(publicId)}`)
  }
  /** One page of orders, newest first. */
  listOrders(filter: OrderFilter & { readonly cursor?: string } = {}): Promise<{ orders: ReadonlyArray<Order>; next_cursor: string | null }> {
    return this.request("GET", `/api/partner/v1/orders${query({ ...filter })}`)
  }
  /** Every order matching the filter, page after page. */
  async *orders(filter: OrderFilter = {}): AsyncGenerator<Order> {
    let cursor: string | undefined
    do {
      const page = await this.listOrders({ ...filter, ...(cursor === undefined ? {} : { cursor }) })
      yield* page.orders
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
  }
  /** Refunds an order you collected yourself (partner-collected, or your own checkout session); any other order is 404 not_found. */
  createRefund(request: { readonly order_id: string; readonly reason?: string }, options?: WriteOptions): Promise<Refund> {
    return this.#write("POST", "/api/partner/v1/refunds", request, options)
  }

  // Brokerage (scope broker; the list: scope report) ------------------------------------------

  /** Every reason a domain cannot be brokered now (empty when eligible). */
  brokerageEligibility(domain: string): Promise<BrokerageEligibility> {
    return this.request("GET", `/api/partner/v1/brokerage/eligibility${query({ domain })}`)
  }
  /** Opens a case; 409 conflict (details.reasons) when ineligible. Retries reuse one Idempotency-Key. */
  createBrokerageCase(request: BrokerageCaseRequest, options?: WriteOptions): Promise<BrokerageCase> {
    return this.#write("POST", "/api/partner/v1/brokerage", request, options)
  }
  getBrokerageCase(id: string): Promise<BrokerageCaseDetail> {
    return this.request("GET", `/api/partner/v1/brokerage/${encodeURIComponent(id)}`)
  }
  /** One page of your cases, newest first. */
  listBrokerageCases(filter: BrokerageFilter & { readonly cursor?: string } = {}): Promise<{ cases: ReadonlyArray<BrokerageCase>; next_cursor: string | null }> {
    return this.request("GET", `/api/partner/v1/brokerage${query({ ...filter })}`)
  }
  /** Every case matching the filter, page after page. */
  async *brokerageCases(filter: BrokerageFilter = {}): AsyncGenerator<BrokerageCase> {
    let cursor: string | undefined
    do {
      const page = await this.listBrokerageCases({ ...filter, ...(cursor === undefined ? {} : { cursor }) })
      yield* page.cases
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
  }

  // Events and webhooks (scope webhook) -------------------------------------------------------

  /** One page of events after `after_id`, oldest first. */
  listEvents(params: { readonly after_id?: string; readonly limit?: number } = {}): Promise<{ events: ReadonlyArray<PartnerEvent>; next_cursor: string | null }> {
    return this.request("GET", `/api/partner/v1/events${query({ ...params })}`)
  }
  /** Every event after `afterId` (catching up after downtime); ends at the newest. */
  async *events(afterId?: string): AsyncGenerator<PartnerEvent> {
    let after = afterId
    for (;;) {
      const page = await this.listEvents({ ...(after === undefined ? {} : { after_id: after }), limit: 100 })
      yield* page.events
      if (page.events.length === 0 || page.next_cursor === null) return
      after = page.next_cursor
    }
  }
  /** Registers (or replaces) your webhook endpoint; omit the secret to have one issued. */
  registerWebhook(registration: { readonly url: string; readonly secret?: string }): Promise<WebhookEndpoint> {
    return this.request("PUT", "/api/partner/webhooks", registration)
  }
  /** Your endpoint, its state (disabled by a 410?) and its last delivery attempt. */
  getWebhook(): Promise<WebhookState> {
    return this.request("GET", "/api/partner/webhooks")
  }
  /** Removes your endpoint; its pending deliveries are cancelled. */
  async deleteWebhook(): Promise<void> {
    await this.request("DELETE", "/api/partner/webhooks")
  }
  /** Queues a signed `webhook.test` event, delivered like every other event. */
  testWebhook(): Promise<{ event_id: string }> {
    return this.request("POST", "/api/partner/webhooks/test")
  }
  /** One page of the delivery log, newest first, each delivery with its attempts. */
  listWebhookDeliveries(filter: WebhookDeliveryFilter & { readonly cursor?: string } = {}): Promise<{ deliveries: ReadonlyArray<WebhookDelivery>; next_cursor: string | null }> {
    return this.request("GET", `/api/partner/v1/webhook-deliveries${query({ ...filter })}`)
  }
  /** Every delivery matching the filter, newest first, page after page. */
  async *webhookDeliveries(filter: WebhookDeliveryFilter = {}): AsyncGenerator<WebhookDelivery> {
    let cursor: string | undefined
    do {
      const page = await this.listWebhookDeliveries({ ...filter, ...(cursor === undefined ? {} : { cursor }) })
      yield* page.deliveries
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
  }
  /** Queues one event again, or every failed one since a time; idempotent (a pending delivery is never doubled). */
  redeliver(request: RedeliverRequest, options?: WriteOptions): Promise<{ queued: number; already_pending: number }> {
    return this.#write("POST", "/api/partner/v1/webhook-deliveries/redeliver", request, options)
  }

  // Sandbox -----------------------------------------------------------------------------------

  /** Sandbox credentials only: moves a sandbox order one step along its lifecycle. */
  advanceSandboxOrder(publicId: string): Promise<Order> {
    return this.request("POST", `/api/partner/v1/sandbox/orders/${encodeURIComponent(publicId)}/advance`, {})
  }
  /** Sandbox credentials only: moves a sandbox brokerage case one step (to closed_won, then settles its commission). */
  advanceSandboxBrokerageCase(id: string): Promise<BrokerageCaseDetail> {
    return this.request("POST", `/api/partner/v1/sandbox/brokerage/${encodeURIComponent(id)}/advance`, {})
  }
}
