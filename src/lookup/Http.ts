/** Handler of POST /api/tools/whois: the name, idempotency, then `Lookups.whois` (quota and lookup). */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { CurrentViewer } from "../identity/Viewer.js"
import { AppConfig } from "../platform/Config.js"
import { clientIpOf } from "../platform/http/ClientIp.js"
import { domainInput } from "../platform/http/DomainInput.js"
import { fingerprint, Idempotency } from "../platform/http/Idempotency.js"
import { makePeek, type RateLimitDecision, rateLimitHeaders } from "../platform/http/RateLimit.js"
import { addResponseHeaders } from "../platform/http/ResponseHeaders.js"
import { WhoisResponse } from "./Api.js"
import { Lookups } from "./Lookups.js"

const headersOf = (d: RateLimitDecision): Record<string, string> =>
  d.allowed ? rateLimitHeaders(d) : { ...rateLimitHeaders(d), "retry-after": String(d.resetSeconds) }

export const LookupHttpLive = HttpApiBuilder.group(Api, "lookup", (handlers) =>
  Effect.gen(function*() {
    const lookups = yield* Lookups
    // "The same lookup" is the same name however it was spelt (its A-label), as every stored key's fingerprint.
    const whoisKeys = (yield* Idempotency).endpoint({
      success: WhoisResponse,
      status: 201,
      fingerprint: (domain: string) => fingerprint("whois", domain)
    })
    const config = yield* AppConfig
    const peek = yield* makePeek

    return handlers.handle("whois", ({ headers, payload, request }) =>
      Effect.gen(function*() {
        const viewer = yield* CurrentViewer
        const key = headers["idempotency-key"]
        const domain = (yield* domainInput("domain", payload.domain)).ascii
        const quota = lookups.quotaOf(viewer, clientIpOf(request, config.trustProxy))

        let decision: RateLimitDecision | undefined
        const extra: Record<string, string> = key === undefined ? {} : { "idempotency-key": key }
        // Headers for every answer once the quota was looked at: errors included.
        yield* HttpApp.appendPreResponseHandler((_req, response) =>
          Effect.succeed(
            decision === undefined
              ? HttpServerResponse.setHeaders(response, extra)
              : HttpServerResponse.setHeaders(response, { ...headersOf(decision), ...extra })
          )
        )

        const work = lookups.whois(domain, quota, (d) => Effect.sync(() => (decision = d)))

        const result = yield* whoisKeys.run({ scope: `whois:${quota.key}`, key, request: domain }, work)
        if (result.replayed) decision = yield* peek(quota.policy, quota.key)
        // This endpoint also says when a keyed answer is not a replay (docs/lookup.md).
        else if (key !== undefined) yield* addResponseHeaders({ "idempotent-replayed": "false" })
        return result.value
      }))
  }))
