/**
 * The registrar back-end ("rtr"): Realtime Register's REST API.
 *
 * - `GET /v2/tlds/{tld}/info`           → TLD metadata (periods in months, features, contacts…)
 * - `GET /v2/customers/{c}/pricelist`   → cost prices in cents per product/action
 * - `GET /v2/domains/{name}/check`      → availability, premium flag and price
 * - `GET /v2/domains/{name}`            → a registered domain's status, nameservers, auto-renew, expiry
 * - `POST /v2/domains/{name}/update`    → lock (client statuses), nameservers, registrant, auto-renew
 * - `POST /v2/domains/{name}/renew`     → `{period}` in months; `/restore` → `{reason}`
 * - `GET /v2/customers/{c}/contacts/{handle}` → whether a contact handle exists
 * - delivery of a sold name (src/fulfilment): unlock (`update` without clientTransferProhibited),
 *   `GET /v2/domains/{name}` → its `authcode` (EPP authInfo), `POST /v2/domains/{name}/push`
 *   `{recipient}` → to another customer account at this registrar (a process),
 *   `GET /v2/domains/{name}/transfer` → where a transfer out stands (`none|pending|completed|failed`)
 *
 * Writes may answer `202` with a process (`{id, status}`); the client polls
 * `GET /v2/processes/{id}` until it is COMPLETED (or FAILED/CANCELLED → an RtrError), so callers
 * see one call that is finished when it succeeds.
 *
 * Authentication: `Authorization: ApiKey <key>`. The live client is used when `RTR_API_URL` is
 * set; otherwise the sandbox implementation answers from the bundled snapshot and price list, so
 * the service works on a bare machine without credentials.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Context, Data, Duration, Effect, Layer, Option, Predicate, Redacted, Schema } from "effect"
import { describeHttpFailure } from "../platform/outbound/UpstreamFault.js"
import { defaultPriceList, snapshot } from "./data/index.js"
import {
  RtrAuthCode,
  RtrDomainCheck,
  RtrDomainInfo,
  type RtrDomainUpdate,
  RtrExpiry,
  type RtrPrice,
  RtrPriceList,
  RtrProcess,
  RtrTldInfo,
  RtrTransferStatus
} from "./RealtimeRegisterSchema.js"
import { CatalogueConfig } from "./Settings.js"

export * from "./RealtimeRegisterSchema.js"

// --- Errors ----------------------------------------------------------------------------------

export class RtrError extends Data.TaggedError("RtrError")<{
  readonly reason:
    | "not_found"
    | "unauthorized"
    | "rate_limited"
    | "rejected"
    | "upstream"
    | "timeout"
    | "decode"
    | "unreachable"
  readonly message: string
  /** RTR's error `type` (e.g. `ObjectStatusProhibitsOperation`), when it sent one. */
  readonly type?: string
  readonly status?: number
  /** Seconds, from Retry-After on a 429. */
  readonly retryAfter?: number | undefined
}> {}

// --- Service ---------------------------------------------------------------------------------

export interface RealtimeRegisterShape {
  /** "live" when talking to a configured server, "sandbox" when answering from bundled data. */
  readonly mode: "live" | "sandbox"
  readonly tldInfo: (tld: string) => Effect.Effect<RtrTldInfo, RtrError>
  readonly priceList: Effect.Effect<ReadonlyArray<RtrPrice>, RtrError>
  readonly checkDomain: (domain: string) => Effect.Effect<RtrDomainCheck, RtrError>
  readonly domainInfo: (domain: string) => Effect.Effect<RtrDomainInfo, RtrError>
  /** Applies the changes; finished (process polled to completion) when it succeeds. */
  readonly updateDomain: (domain: string, changes: RtrDomainUpdate) => Effect.Effect<void, RtrError>
  readonly renewDomain: (
    domain: string,
    periodMonths: number
  ) => Effect.Effect<{ readonly expiryDate: string }, RtrError>
  readonly restoreDomain: (domain: string, reason: string) => Effect.Effect<{ readonly expiryDate: string }, RtrError>
  readonly contactExists: (handle: string) => Effect.Effect<boolean, RtrError>
  /** Removes the transfer lock (clientTransferProhibited), keeping the other client statuses. */
  readonly unlockDomain: (domain: string) => Effect.Effect<void, RtrError>
  /** The domain's EPP authInfo. A secret: never logged, never traced. */
  readonly authCode: (domain: string) => Effect.Effect<string, RtrError>
  /** Moves the domain to another customer account at this registrar; finished when it succeeds. */
  readonly pushDomain: (domain: string, recipient: string) => Effect.Effect<void, RtrError>
  readonly transferStatus: (domain: string) => Effect.Effect<RtrTransferStatus, RtrError>
}

export class RealtimeRegister extends Context.Tag("app/RealtimeRegister")<RealtimeRegister, RealtimeRegisterShape>() {}

const retryAfterSeconds = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000))
}

/** Maps an RTR error body (`{"type":"…","message":"…"}`) and status to an RtrError. */
const failFromResponse = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.gen(function*() {
    const body = yield* response.json.pipe(Effect.orElseSucceed((): unknown => ({})))
    const text = (field: string) =>
      Predicate.hasProperty(body, field) && typeof body[field] === "string" ? body[field] : undefined
    const upstreamMessage = text("message") ?? `HTTP ${response.status}`
    const type = text("type")
    const status = response.status
    const reason = status === 404
      ? "not_found" as const
      : status === 401 || status === 403
      ? "unauthorized" as const
      : status === 429
      ? "rate_limited" as const
      : status >= 400 && status < 500
      ? "rejected" as const
      : "upstream" as const
    return yield* new RtrError({
      reason,
      message: `Realtime Register ${status}: ${upstreamMessage}`,
      status,
      ...(type !== undefined ? { type } : {}),
      retryAfter: retryAfterSeconds(response.headers["retry-after"])
    })
  })

export const makeLive = (options: {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted
  readonly customer: Option.Option<string>
  readonly timeout: Duration.DurationInput
  /** Between polls of an asynchronous process. */
  readonly pollInterval?: Duration.DurationInput
  /** Longest wait for a process to finish. */
  readonly processTimeout?: Duration.DurationInput
}) =>
  Effect.gen(function*() {
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((r) =>
        r.pipe(
          HttpClientRequest.prependUrl(options.baseUrl.replace(/\/+$/, "")),
          HttpClientRequest.setHeader("authorization", `ApiKey ${Redacted.value(options.apiKey)}`),
          HttpClientRequest.acceptJson
        )
      )
    )

    const get = <A, I>(path: string, schema: Schema.Schema<A, I>) =>
      call(HttpClientRequest.get(path), schema, "rtr.get")

    const call = <A, I>(request: HttpClientRequest.HttpClientRequest, schema: Schema.Schema<A, I>, span: string) =>
      client.execute(request).pipe(
        Effect.flatMap((response) =>
          response.status >= 200 && response.status < 300
            ? HttpClientResponse.schemaBodyJson(schema)(response).pipe(
              Effect.mapError(() =>
                new RtrError({
                  reason: "decode",
                  message: "Unexpected Realtime Register response (not the documented shape)"
                })
              )
            )
            : failFromResponse(response)
        ),
        Effect.scoped,
        Effect.timeoutFail({
          duration: options.timeout,
          onTimeout: () => new RtrError({ reason: "timeout", message: "Realtime Register did not answer in time" })
        }),
        Effect.catchTag("RequestError", (e) =>
          Effect.fail(
            new RtrError({ reason: "unreachable", message: `Realtime Register unreachable: ${describeHttpFailure(e)}` })
          )),
        Effect.catchTag("ResponseError", (e) =>
          Effect.fail(new RtrError({ reason: "upstream", message: `Realtime Register: ${describeHttpFailure(e)}` }))),
        Effect.withSpan(span, { attributes: { url: request.url } })
      )

    /** A write: 200 with `A`, or 202 with a process that is polled until it finishes. */
    const post = <A, I>(path: string, body: unknown, schema: Schema.Schema<A, I>) =>
      call(
        HttpClientRequest.post(path).pipe(HttpClientRequest.bodyUnsafeJson(body)),
        Schema.Union(Schema.Struct({ process: RtrProcess }), schema as Schema.Schema<A, I>),
        "rtr.post"
      ).pipe(
        Effect.flatMap((answer) =>
          Predicate.hasProperty(answer, "process") && Predicate.hasProperty(answer.process, "id") &&
            typeof answer.process.id === "number"
            ? Effect.as(awaitProcess((answer as { process: RtrProcess }).process), Option.none<A>())
            : Effect.succeed(Option.some(answer as A))
        )
      )

    const pollInterval = Duration.decode(options.pollInterval ?? Duration.millis(200))
    const awaitProcess = (process: RtrProcess): Effect.Effect<void, RtrError> =>
      Effect.gen(function*() {
        let current = process
        while (true) {
          const status = current.status.toUpperCase()
          if (status === "COMPLETED") {
            return
          }
          if (status === "FAILED" || status === "CANCELLED") {
            return yield* new RtrError({
              reason: "rejected",
              message: `Realtime Register process ${current.id} ${status.toLowerCase()}${
                current.message ? `: ${current.message}` : ""
              }`
            })
          }
          yield* Effect.sleep(pollInterval)
          current = yield* get(`/v2/processes/${current.id}`, RtrProcess)
        }
      }).pipe(
        Effect.timeoutFail({
          duration: options.processTimeout ?? Duration.minutes(2),
          onTimeout: () =>
            new RtrError({
              reason: "timeout",
              message: `Realtime Register process ${process.id} did not finish in time`
            })
        })
      )

    const domainPath = (domain: string) =>
      `/v2/domains/${encodeURIComponent(domain)}`
    const expiryAfter = (domain: string, answer: Option.Option<{ readonly expiryDate: string }>) =>
      Option.match(answer, {
        onSome: (a) => Effect.succeed({ expiryDate: a.expiryDate }),
        onNone: () => Effect.map(get(domainPath(domain), RtrDomainInfo), (i) => ({ expiryDate: i.expiryDate ?? "" }))
      })

    const service: RealtimeRegisterShape = {
      mode: "live",
      tldInfo: (tld) => get(`/v2/tlds/${encodeURIComponent(tld)}/info`, RtrTldInfo),
      priceList: Option.match(options.customer, {
        onNone: () =>
          Effect.fail(
            new RtrError({
              reason: "unauthorized",
              message: "RTR_CUSTOMER is not configured; cannot read the price list"
            })
          ),
        onSome: (customer) =>
          get(`/v2/customers/${encodeURIComponent(customer)}/pricelist`, RtrPriceList).pipe(Effect.map((l) => l.prices))
      }),
      checkDomain: (domain) => get(`/v2/domains/${encodeURIComponent(domain)}/check`, RtrDomainCheck),
      domainInfo: (domain) => get(domainPath(domain), RtrDomainInfo),
      updateDomain: (domain, changes) => Effect.asVoid(post(`${domainPath(domain)}/update`, changes, Schema.Unknown)),
      renewDomain: (domain, periodMonths) =>
        Effect.flatMap(post(`${domainPath(domain)}/renew`, { period: periodMonths }, RtrExpiry), (a) =>
          expiryAfter(domain, a)),
      restoreDomain: (domain, reason) =>
        Effect.flatMap(post(`${domainPath(domain)}/restore`, { reason }, RtrExpiry), (a) =>
          expiryAfter(domain, a)),
      contactExists: (handle) =>
        Option.match(options.customer, {
          onNone: () =>
            Effect.fail(
              new RtrError({
                reason: "unauthorized",
                message: "RTR_CUSTOMER is not configured; cannot look up contacts"
              })
            ),
          onSome: (customer) =>
            get(`/v2/customers/${encodeURIComponent(customer)}/contacts/${encodeURIComponent(handle)}`, Schema.Unknown)
              .pipe(
                Effect.as(true),
                Effect.catchIf((e) =>
                  e.reason === "not_found", () => Effect.succeed(false))
              )
        }),
      unlockDomain: (domain) =>
        Effect.flatMap(get(domainPath(domain), RtrDomainInfo), (info) =>
          info.status.includes("clientTransferProhibited")
            ? Effect.asVoid(
              post(`${domainPath(domain)}/update`, {
                status: info.status.filter((s) => s.startsWith("client") && s !== "clientTransferProhibited")
              }, Schema.Unknown)
            )
            : Effect.void),
      authCode: (domain) => Effect.map(get(domainPath(domain), RtrAuthCode), (a) => a.authcode),
      pushDomain: (domain, recipient) =>
        Effect.asVoid(post(`${domainPath(domain)}/push`, { recipient }, Schema.Unknown)),
      transferStatus: (domain) => get(`${domainPath(domain)}/transfer`, RtrTransferStatus)
    }
    return service
  })

const unconfigured = (domain: string) =>
  Effect.fail(new RtrError({ reason: "unreachable", message: `No registrar configured to act on ${domain}` }))

/** Answers from the bundled snapshot: the embedded default, and anywhere without credentials. */
export const sandbox: RealtimeRegisterShape = {
  mode: "sandbox",
  tldInfo: (tld) => {
    const info = snapshot().find((i) => i.applicableFor.includes(tld))
    return info
      ? Effect.succeed(info)
      : Effect.fail(new RtrError({ reason: "not_found", message: `No TLD information for ${tld}`, status: 404 }))
  },
  priceList: Effect.sync(() =>
    defaultPriceList().map((p) => ({
      product: `domain_${p.tld}`,
      action: p.op === "register" ? "CREATE" : p.op.toUpperCase(),
      currency: "USD",
      price: p.priceCents
    }))
  ),
  checkDomain: (domain) =>
    Effect.fail(new RtrError({ reason: "unreachable", message: `No registrar configured to check ${domain}` })),
  // Domain operations without a registrar are the portfolio's sandbox registrar (src/portfolio/Registrar.ts).
  domainInfo: (domain) => unconfigured(domain),
  updateDomain: (domain) => unconfigured(domain),
  renewDomain: (domain) => unconfigured(domain),
  restoreDomain: (domain) => unconfigured(domain),
  contactExists: () => Effect.fail(new RtrError({ reason: "unreachable", message: "No registrar configured" })),
  // Deliveries without a registrar use fulfilment's sandbox registrar (src/fulfilment/Registrar.ts).
  unlockDomain: (domain) => unconfigured(domain),
  authCode: (domain) => unconfigured(domain),
  pushDomain: (domain) => unconfigured(domain),
  transferStatus: (domain) => unconfigured(domain)
}

export const RealtimeRegisterLive = Layer.effect(
  RealtimeRegister,
  Effect.gen(function*() {
    const catalogueSettings = yield* CatalogueConfig
    const { apiKey, apiUrl } = catalogueSettings.rtr
    if (Option.isNone(apiUrl)) return sandbox
    return yield* makeLive({
      baseUrl: apiUrl.value,
      apiKey: Option.getOrElse(apiKey, () => Redacted.make("")),
      customer: catalogueSettings.rtr.customer,
      timeout: catalogueSettings.rtr.timeout
    })
  })
)
