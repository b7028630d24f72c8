/**
 * The domain marketplace Partner API over `fetch`, with no dependencies: one method per Partner
 * API operation, typed from the service's OpenAPI document (src/types.ts, src/openapi.ts).
 *
 *   import { PartnerClient } from "@domain-marketplace/partner-sdk"
 *   const client = new PartnerClient({ baseUrl: "https://api.example.org", keyId: "pk_sandbox_...", secret: "sk_..." })
 *   const { results } = await client.search("harbor")
 *   for await (const order of client.orders({ status: "TRANSFER_COMPLETED" })) console.log(order.public_id)
 *
 * Every request is signed (a fresh timestamp and nonce per attempt). 429, 502, 503 and 504 and
 * network failures are retried with exponential backoff and jitter, honouring Retry-After;
 * writes carry one Idempotency-Key across their retries, so a retried order is never recorded
 * twice. A failure the service answered throws `PartnerApiError` (its `code`, `message` and
 * request id); a request that got no answer (refused, reset, DNS, timeout) throws
 * `PartnerNetworkError`. Server-side only: never ship the secret to a browser.
 */
import { signRequest } from "./signing.js"

export { canonicalQuery, canonicalString, encodeComponent, sha256Hex, signRequest } from "./signing.js"
export type { CanonicalParts, SignedHeaders, SignInput } from "./signing.js"
export { verifyWebhook } from "./webhooks.js"
export type { VerifyWebhookInput, WebhookEvent, WebhookVerification } from "./webhooks.js"
export type * from "./types.js"
export type { components, operations, paths } from "./openapi.js"
import type * as T from "./types.js"

// ---------------------------------------------------------------------------------------------

/** A failed call the service answered: its error `code` and `message`, the HTTP status, and its request id. */
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

/**
 * A call that got no answer from the service: connection refused or reset, an unknown host, a
 * TLS failure, or no response within `timeoutMs`, after every retry it was allowed. Nothing is
 * known about whether a write arrived: retry it with the same `idempotencyKey`.
 */
export class PartnerNetworkError extends Error {
  override readonly name = "PartnerNetworkError"
  /** `timeout` when no response came within `timeoutMs`, else `network_error`. */
  readonly code: "timeout" | "network_error"
  constructor(
    readonly method: string,
    /** The path and query that was requested (never the credentials). */
    readonly path: string,
    /** How many attempts were made. */
    readonly attempts: number,
    options: { readonly cause: unknown; readonly timedOut: boolean }
  ) {
    const reason = describeCause(options.cause)
    super(
      `${method} ${path}: ${options.timedOut ? "no response in time" : "no response"} after ${attempts} attempt${
        attempts === 1 ? "" : "s"
      }${reason === "" ? "" : ` (${reason})`}`,
      { cause: options.cause }
    )
    this.code = options.timedOut ? "timeout" : "network_error"
  }
}

/** Node's fetch reports `TypeError: fetch failed` and keeps the reason (ECONNREFUSED…) in `cause`. */
const describeCause = (error: unknown): string => {
  const parts: Array<string> = []
  for (let e: any = error, depth = 0; e !== undefined && e !== null && depth < 4; e = e.cause, depth++) {
    const text = typeof e.code === "string" ? `${e.code}${e.message ? `: ${e.message}` : ""}` : String(e.message ?? e)
    if (text !== "" && !parts.includes(text)) parts.push(text)
  }
  return parts.join("; ")
}

const isTimeout = (error: unknown) =>
  typeof error === "object" && error !== null && ((error as any).name === "TimeoutError" || (error as any).name === "AbortError")

/** fetch refused the address before connecting (a port fetch blocks, a malformed URL): no retry can help. */
const isRefusedByFetch = (error: unknown) => {
  const cause = (error as any)?.cause
  return error instanceof TypeError && (cause?.message === "bad port" || cause?.code === "ERR_INVALID_URL")
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

export interface RequestOptions {
  readonly idempotencyKey?: string
  /** `text`: return the body as a string (CSV exports); default JSON. */
  readonly as?: "json" | "text"
}

const RETRYABLE = new Set([429, 502, 503, 504])

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Params = { readonly [key: string]: string | number | boolean | undefined }

const query = (params: Params = {}): string => {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v))
  const s = q.toString()
  return s === "" ? "" : `?${s}`
}

const segment = (value: string) => encodeURIComponent(value)

type Paged<K extends string, A> = { readonly [P in K]: ReadonlyArray<A> } & { readonly next_cursor: string | null }

export class PartnerClient {
  readonly #options: PartnerClientOptions
  readonly #fetch: typeof fetch

  constructor(options: PartnerClientOptions) {
    if (!/^https?:\/\//.test(options.baseUrl)) throw new TypeError("baseUrl must be an http(s) origin")
    this.#options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, "") }
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  }

  /** One signed call: JSON in, JSON (or text) out, retried when that is safe. */
  async request<A>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<A> {
    const { baseUrl, keyId, secret } = this.#options
    const maxRetries = this.#options.maxRetries ?? 3
    const base = this.#options.retryBaseMs ?? 250
    const text = body === undefined ? undefined : JSON.stringify(body)
    for (let attempt = 0;; attempt++) {
      const signed = await signRequest({ keyId, secret }, { method, url: path, body: text })
      const headers: Record<string, string> = {
        accept: options.as === "text" ? "text/csv, application/json" : "application/json",
        ...this.#options.headers,
        ...signed
      }
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
      const retryable = response === undefined ? !isRefusedByFetch(failure) : RETRYABLE.has(response.status)
      // A write without an idempotency key is retried only when it surely never arrived (429).
      const safe = method === "GET" || options.idempotencyKey !== undefined || response?.status === 429
      if (retryable && safe && attempt < maxRetries) {
        const retryAfter = Number(response?.headers.get("retry-after"))
        const backoff = base * 2 ** attempt * (0.5 + Math.random())
        await response?.body?.cancel().catch(() => undefined)
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 60_000) : backoff)
        continue
      }
      if (response === undefined) {
        throw new PartnerNetworkError(method, path, attempt + 1, { cause: failure, timedOut: isTimeout(failure) })
      }
      let raw: string
      try {
        raw = await response.text()
      } catch (error) {
        // The connection broke while the body was arriving.
        throw new PartnerNetworkError(method, path, attempt + 1, { cause: error, timedOut: isTimeout(error) })
      }
      if (response.ok && options.as === "text") return raw as A
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

  #get<A>(path: string, params?: Params): Promise<A> {
    return this.request<A>("GET", `${path}${query(params)}`)
  }

  #write<A>(method: string, path: string, body: unknown, options?: WriteOptions) {
    return this.request<A>(method, path, body, { idempotencyKey: options?.idempotencyKey ?? globalThis.crypto.randomUUID() })
  }

  /** Every item of a cursor-paged list, page after page. */
  async *#all<K extends string, A>(key: K, page: (cursor: string | undefined) => Promise<Paged<K, A>>): AsyncGenerator<A> {
    let cursor: string | undefined
    do {
      const p = await page(cursor)
      yield* p[key]
      cursor = p.next_cursor ?? undefined
    } while (cursor !== undefined)
  }

  // Inventory (scope search) ------------------------------------------------------------------

  /** Up to five listed domains for free text or a name, best first. */
  search(q: string): Promise<T.SearchResponse> {
    return this.#get("/api/partner/v1/domains/search", { q })
  }
  /** One listed domain: price, availability, metadata (404 not_found when it is not listed). */
  domain(name: string): Promise<T.DomainDetail> {
    return this.#get(`/api/partner/v1/domains/${segment(name)}`)
  }
  availability(domain: string): Promise<T.Availability> {
    return this.#get("/api/partner/v1/availability", { domain })
  }
  pricing(domain: string): Promise<T.Pricing> {
    return this.#get("/api/partner/v1/pricing", { domain })
  }

  // Quotes, orders and refunds (scope buy) ----------------------------------------------------

  /** A firm price and a 10-minute reservation. */
  createQuote(domain: string, options?: WriteOptions): Promise<T.Quote> {
    return this.#write("POST", "/api/partner/v1/quotes", { domain } satisfies T.Body<"partnerOrders.createQuote">, options)
  }
  /** Records a sale you collected. Retries reuse one Idempotency-Key: never two orders. */
  createOrder(order: T.OrderRequest, options?: WriteOptions): Promise<T.Order> {
    return this.#write("POST", "/api/partner/v1/orders", order, options)
  }
  /** One order with its timeline. */
  getOrder(publicId: string): Promise<T.OrderDetail> {
    return this.#get(`/api/partner/v1/orders/${segment(publicId)}`)
  }
  /** One page of orders, newest first. */
  listOrders(filter: T.Query<"partnerOrders.listOrders"> = {}): Promise<T.OrderPage> {
    return this.#get("/api/partner/v1/orders", filter)
  }
  /** Every order matching the filter, page after page. */
  orders(filter: T.OrderFilter = {}): AsyncGenerator<T.Order> {
    return this.#all("orders", (cursor) => this.listOrders({ ...filter, cursor }))
  }
  /**
   * Says where a sold name goes: `{method: "push", target_account}` (your account at the same
   * registrar) or `{method: "auth_code"}`. Accepted until the delivery starts; afterwards 409.
   */
  setDelivery(publicId: string, choice: T.Body<"partnerDelivery.setDelivery">): Promise<T.OrderDetail> {
    return this.request("PUT", `/api/partner/v1/orders/${segment(publicId)}/delivery`, choice)
  }
  /** The auth code of a delivery, once: `token` is from the `retrieve_url` of `transfer.auth_code_ready`. */
  retrieveAuthCode(
    publicId: string,
    token: string
  ): Promise<{ readonly order_id: string; readonly domain: string; readonly auth_code: string }> {
    return this.#get(`/api/partner/v1/orders/${segment(publicId)}/delivery/auth-code`, { token })
  }
  /** Refunds an order you collected yourself (partner-collected, or your own checkout session); any other order is 404 not_found. */
  createRefund(request: T.RefundRequest, options?: WriteOptions): Promise<T.Refund> {
    return this.#write("POST", "/api/partner/v1/refunds", request, options)
  }

  // Hosted checkout (scope buy) ---------------------------------------------------------------

  /** A hosted checkout page for one listed domain: send the buyer to `checkout_url`. */
  createCheckoutSession(request: T.CheckoutSessionRequest, options?: WriteOptions): Promise<T.CheckoutSessionCreated> {
    return this.#write("POST", "/api/partner/v1/checkout-session", request, options)
  }
  getCheckoutSession(id: string): Promise<T.CheckoutSession> {
    return this.#get(`/api/partner/v1/checkout-session/${segment(id)}`)
  }

  // Brokerage (scope broker; the list: scope report) ------------------------------------------

  /** Every reason a domain cannot be brokered now (empty when eligible). */
  brokerageEligibility(domain: string): Promise<T.BrokerageEligibility> {
    return this.#get("/api/partner/v1/brokerage/eligibility", { domain })
  }
  /** Opens a case; 409 conflict (details.reasons) when ineligible. Retries reuse one Idempotency-Key. */
  createBrokerageCase(request: T.BrokerageCaseRequest, options?: WriteOptions): Promise<T.BrokerageCase> {
    return this.#write("POST", "/api/partner/v1/brokerage", request, options)
  }
  getBrokerageCase(id: string): Promise<T.BrokerageCaseDetail> {
    return this.#get(`/api/partner/v1/brokerage/${segment(id)}`)
  }
  /** One page of your cases, newest first. */
  listBrokerageCases(filter: T.Query<"partnerBrokerage.listCases"> = {}): Promise<T.BrokerageCasePage> {
    return this.#get("/api/partner/v1/brokerage", filter)
  }
  /** Every case matching the filter, page after page. */
  brokerageCases(filter: T.BrokerageFilter = {}): AsyncGenerator<T.BrokerageCase> {
    return this.#all("cases", (cursor) => this.listBrokerageCases({ ...filter, cursor }))
  }

  // Settlements, transactions, payouts (settlements: scope buy; the rest: scope report) -------

  /** One page of settlement statements, newest first. */
  listSettlements(filter: T.Query<"partnerMoney.listSettlements"> = {}): Promise<T.SettlementPage> {
    return this.#get("/api/partner/v1/settlements", filter)
  }
  /** Every statement in the window, page after page. */
  settlements(filter: T.SettlementFilter = {}): AsyncGenerator<T.Settlement> {
    return this.#all("settlements", (cursor) => this.listSettlements({ ...filter, cursor }))
  }
  /** One statement with its lines. */
  getSettlement(id: string): Promise<T.Settlement> {
    return this.#get(`/api/partner/v1/settlements/${segment(id)}`)
  }
  /** One statement as CSV (RFC 4180, header row), e.g. for your accounting system. */
  settlementCsv(id: string): Promise<string> {
    return this.request("GET", `/api/partner/v1/settlements/${segment(id)}.csv`, undefined, { as: "text" })
  }
  /** One page of transactions with the totals of every row matching the filter. */
  listTransactions(filter: T.Query<"partnerMoney.listTransactions"> = {}): Promise<T.TransactionPage> {
    return this.#get("/api/partner/v1/transactions", filter)
  }
  /** Every transaction matching the filter, page after page. */
  transactions(filter: T.TransactionFilter = {}): AsyncGenerator<T.Transaction> {
    return this.#all("transactions", (cursor) => this.listTransactions({ ...filter, cursor }))
  }
  /** Every transaction matching the filter as CSV (one response, no paging). */
  transactionsCsv(filter: T.TransactionCsvFilter = {}): Promise<string> {
    return this.request("GET", `/api/partner/v1/transactions.csv${query(filter)}`, undefined, { as: "text" })
  }
  /** One page of payouts, newest first, with the total paid. */
  listPayouts(filter: T.Query<"partnerMoney.listPayouts"> = {}): Promise<T.PayoutPage> {
    return this.#get("/api/partner/v1/payouts", filter)
  }
  /** Every payout, page after page. */
  payouts(filter: T.PayoutFilter = {}): AsyncGenerator<T.Payout> {
    return this.#all("payouts", (cursor) => this.listPayouts({ ...filter, cursor }))
  }
  /** Affiliates: one page of the payouts of your referral commissions. */
  listMyPayouts(filter: T.Query<"partnerMoney.listMyPayouts"> = {}): Promise<T.PayoutPage> {
    return this.#get("/api/partner/v1/me/payouts", filter)
  }
  /** Affiliates: every payout of your referral commissions, page after page. */
  myPayouts(filter: T.Filter<"partnerMoney.listMyPayouts"> = {}): AsyncGenerator<T.Payout> {
    return this.#all("payouts", (cursor) => this.listMyPayouts({ ...filter, cursor }))
  }

  // Referral links and reports (scope refer; /me/*: affiliates) -------------------------------

  /** A tracked link: generic (the storefront), to one listed domain's buy page, or to a product. */
  createLink(input: T.ReferralLinkInput, options?: WriteOptions): Promise<T.ReferralLink> {
    return this.#write("POST", "/api/partner/v1/links", input, options)
  }
  /** One page of your links with their click and sale counts. */
  listLinks(filter: T.Query<"partnerReferrals.listLinks"> = {}): Promise<T.ReferralLinkPage> {
    return this.#get("/api/partner/v1/links", filter)
  }
  /** Every link, page after page. */
  links(filter: T.Filter<"partnerReferrals.listLinks"> = {}): AsyncGenerator<T.ReferralLinkWithStats> {
    return this.#all("links", (cursor) => this.listLinks({ ...filter, cursor }))
  }
  /** Clicks and unique clicks per day in a window (optionally one link). */
  myClicks(filter: T.ClickFilter = {}): Promise<T.ClickReport> {
    return this.#get("/api/partner/v1/me/clicks", filter)
  }
  /** One page of sales through your links, with totals. */
  listMySales(filter: T.Query<"partnerReferrals.mySales"> = {}): Promise<T.ReferralSalePage> {
    return this.#get("/api/partner/v1/me/sales", filter)
  }
  /** Every sale through your links, page after page. */
  mySales(filter: T.SaleFilter = {}): AsyncGenerator<T.ReferralSale> {
    return this.#all("sales", (cursor) => this.listMySales({ ...filter, cursor }))
  }
  /** One page of your commission ledger entries, with the balance. */
  listMyCommissions(filter: T.Query<"partnerReferrals.myCommissions"> = {}): Promise<T.CommissionPage> {
    return this.#get("/api/partner/v1/me/commissions", filter)
  }
  /** Every commission entry, page after page. */
  myCommissions(filter: T.Filter<"partnerReferrals.myCommissions"> = {}): AsyncGenerator<T.CommissionEntry> {
    return this.#all("entries", (cursor) => this.listMyCommissions({ ...filter, cursor }))
  }
  /** Clicks, checkouts, sales, conversion and money in a window, with a daily series. */
  analytics(filter: T.AnalyticsFilter = {}): Promise<T.ReferralAnalytics> {
    return this.#get("/api/partner/v1/analytics", filter)
  }

  // Events and webhooks (scope webhook) -------------------------------------------------------

  /** One page of events after `after_id`, oldest first. */
  listEvents(params: T.Query<"partnerEvents.listEvents"> = {}): Promise<T.EventPage> {
    return this.#get("/api/partner/v1/events", params)
  }
  /** Every event after `afterId` (catching up after downtime); ends at the newest. */
  async *events(afterId?: string): AsyncGenerator<T.PartnerEvent> {
    let after = afterId
    for (;;) {
      const page = await this.listEvents({ ...(after === undefined ? {} : { after_id: after }), limit: 100 })
      yield* page.events
      if (page.events.length === 0 || page.next_cursor === null) return
      after = page.next_cursor
    }
  }
  /** Registers (or replaces) your webhook endpoint; omit the secret to have one issued. */
  registerWebhook(registration: T.WebhookRegistration): Promise<T.WebhookEndpoint> {
    return this.request("PUT", "/api/partner/webhooks", registration)
  }
  /** Your endpoint, its state (disabled by a 410?) and its last delivery attempt. */
  getWebhook(): Promise<T.WebhookState> {
    return this.#get("/api/partner/webhooks")
  }
  /** Removes your endpoint; its pending deliveries are cancelled. */
  async deleteWebhook(): Promise<void> {
    await this.request("DELETE", "/api/partner/webhooks")
  }
  /** Queues a signed `webhook.test` event, delivered like every other event. */
  testWebhook(): Promise<T.WebhookTestResult> {
    return this.request("POST", "/api/partner/webhooks/test")
  }
  /** One page of the delivery log, newest first, each delivery with its attempts. */
  listWebhookDeliveries(filter: T.Query<"partnerWebhooks.listWebhookDeliveries"> = {}): Promise<T.WebhookDeliveryPage> {
    return this.#get("/api/partner/v1/webhook-deliveries", filter)
  }
  /** Every delivery matching the filter, newest first, page after page. */
  webhookDeliveries(filter: T.WebhookDeliveryFilter = {}): AsyncGenerator<T.WebhookDelivery> {
    return this.#all("deliveries", (cursor) => this.listWebhookDeliveries({ ...filter, cursor }))
  }
  /** Queues one event again, or every failed one since a time; idempotent (a pending delivery is never doubled). */
  redeliver(request: T.RedeliverRequest, options?: WriteOptions): Promise<T.RedeliverResult> {
    return this.#write("POST", "/api/partner/v1/webhook-deliveries/redeliver", request, options)
  }

  // Sandbox -----------------------------------------------------------------------------------

  /** Sandbox credentials only: moves a sandbox order one step along its lifecycle (from TRANSFER_COMPLETED: settles it). */
  advanceSandboxOrder(publicId: string): Promise<T.OrderDetail> {
    return this.request("POST", `/api/partner/v1/sandbox/orders/${segment(publicId)}/advance`, {})
  }
  /** Sandbox credentials only: moves a sandbox brokerage case one step (to closed_won, then settles its commission). */
  advanceSandboxBrokerageCase(id: string): Promise<T.BrokerageCaseDetail> {
    return this.request("POST", `/api/partner/v1/sandbox/brokerage/${segment(id)}/advance`, {})
  }
}
