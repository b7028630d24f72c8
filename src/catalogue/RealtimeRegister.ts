/**
 * The registrar back-end ("rtr"): Realtime Register's REST API.
 *
 * - `GET /v2/tlds/{tld}/info`           → TLD metadata (periods in months, features, contacts…)
 * - `GET /v2/customers/{c}/pricelist`   → cost prices in cents per product/action
 * - `GET /v2/domains/{name}/check`      → availability, premium flag and price
 *
 * Authentication: `Authorization: ApiKey <key>`. The live client is used when `RTR_API_URL` is
 * set; otherwise the sandbox implementation answers from the bundled snapshot and price list, so
 * the service works on a bare machine without credentials.
 */
import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Context, Data, Duration, Effect, Layer, Option, Redacted, type Schema } from "effect"
import { AppConfig } from "../platform/Config.js"
import { describeHttpFailure } from "../platform/UpstreamFault.js"
import { defaultPriceList, snapshot } from "./data/index.js"
import { RtrDomainCheck, RtrPriceList, type RtrPrice, RtrTldInfo } from "./RealtimeRegisterSchema.js"

export * from "./RealtimeRegisterSchema.js"

// --- Errors ----------------------------------------------------------------------------------

export class RtrError extends Data.TaggedError("RtrError")<{
  readonly reason: "not_found" | "unauthorized" | "rate_limited" | "upstream" | "timeout" | "decode" | "unreachable"
  readonly message: string
  readonly status?: number
  /** Seconds, from Retry-After on a 429. */
  readonly retryAfter?: number
}> {}

// --- Service ---------------------------------------------------------------------------------

export interface RealtimeRegisterShape {
  /** "live" when talking to a configured server, "sandbox" when answering from bundled data. */
  readonly mode: "live" | "sandbox"
  readonly tldInfo: (tld: string) => Effect.Effect<RtrTldInfo, RtrError>
  readonly priceList: Effect.Effect<ReadonlyArray<RtrPrice>, RtrError>
  readonly checkDomain: (domain: string) => Effect.Effect<RtrDomainCheck, RtrError>
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
    const body = yield* response.json.pipe(Effect.orElseSucceed(() => ({} as any)))
    const upstreamMessage = typeof body?.message === "string" ? body.message : `HTTP ${response.status}`
    const status = response.status
    const reason = status === 404
      ? "not_found" as const
      : status === 401 || status === 403
      ? "unauthorized" as const
      : status === 429
      ? "rate_limited" as const
      : "upstream" as const
    return yield* new RtrError({
      reason,
      message: `Realtime Register ${status}: ${upstreamMessage}`,
      status,
      retryAfter: retryAfterSeconds(response.headers["retry-after"])
    })
  })

export const makeLive = (options: {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted
  readonly customer: Option.Option<string>
  readonly timeout: Duration.DurationInput
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
      client.get(path).pipe(
        Effect.flatMap((response) =>
          response.status >= 200 && response.status < 300
            ? HttpClientResponse.schemaBodyJson(schema)(response).pipe(
              Effect.mapError((e) =>
                new RtrError({ reason: "decode", message: "Unexpected Realtime Register response (not the documented shape)" })
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
          Effect.fail(new RtrError({ reason: "unreachable", message: `Realtime Register unreachable: ${describeHttpFailure(e)}` }))),
        Effect.catchTag("ResponseError", (e) =>
          Effect.fail(new RtrError({ reason: "upstream", message: `Realtime Register: ${describeHttpFailure(e)}` }))),
        Effect.withSpan("rtr.get", { attributes: { path } })
      )

    const service: RealtimeRegisterShape = {
      mode: "live",
      tldInfo: (tld) => get(`/v2/tlds/${encodeURIComponent(tld)}/info`, RtrTldInfo),
      priceList: Option.match(options.customer, {
        onNone: () =>
          Effect.fail(new RtrError({ reason: "unauthorized", message: "RTR_CUSTOMER is not configured; cannot read the price list" })),
        onSome: (customer) =>
          get(`/v2/customers/${encodeURIComponent(customer)}/pricelist`, RtrPriceList).pipe(Effect.map((l) => l.prices))
      }),
      checkDomain: (domain) => get(`/v2/domains/${encodeURIComponent(domain)}/check`, RtrDomainCheck)
    }
    return service
  })

/** Answers from the bundled snapshot: the embedded default, and anywhere without credentials. */
export const sandbox: RealtimeRegisterShape = {
  mode: "sandbox",
  tldInfo: (tld) => {
    const info = snapshot.find((i) => i.applicableFor.includes(tld))
    return info
      ? Effect.succeed(info)
      : Effect.fail(new RtrError({ reason: "not_found", message: `No TLD information for ${tld}`, status: 404 }))
  },
  priceList: Effect.sync(() =>
    defaultPriceList.map((p) => ({
      product: `domain_${p.tld}`,
      action: p.op === "register" ? "CREATE" : p.op.toUpperCase(),
      currency: "USD",
      price: p.priceCents
    }))
  ),
  checkDomain: (domain) =>
    Effect.fail(new RtrError({ reason: "unreachable", message: `No registrar configured to check ${domain}` }))
}

export const RealtimeRegisterLive = Layer.effect(
  RealtimeRegister,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const { apiKey, apiUrl } = config.rtr
    if (Option.isNone(apiUrl)) return sandbox
    return yield* makeLive({
      baseUrl: apiUrl.value,
      apiKey: Option.getOrElse(apiKey, () => Redacted.make("")),
      customer: config.rtr.customer,
      timeout: config.rtr.timeout
    })
  })
)
