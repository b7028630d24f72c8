/** Handlers of the brokerage endpoints: partner, admin and the progress page. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option } from "effect"
import { Api } from "../../app/Api.js"
import { operatorAction } from "../../audit/Actor.js"
import { errorPageHtml, htmlResponse } from "../../platform/http/Html.js"
import { Idempotency, payloadFingerprint } from "../../platform/http/Idempotency.js"
import { pageCursor, PAGED_LISTS } from "../../platform/http/PageCursor.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import { CurrentPartner } from "../Auth.js"
import { dateWindow, iso } from "../Common.js"
import { Case, CaseRequest } from "./Api.js"
import { Brokerage } from "./Brokerage.js"
import { progressPage } from "./Pages.js"

export const PartnerBrokerageHttpLive = HttpApiBuilder.group(
  Api,
  "partnerBrokerage",
  (handlers) =>
    Effect.gen(function*() {
      const brokerage = yield* Brokerage
      const secrets = yield* ServiceSecret
      const createCases = (yield* Idempotency).endpoint({
        success: Case,
        status: 201,
        fingerprint: payloadFingerprint("POST /api/partner/v1/brokerage", CaseRequest)
      })
      return handlers
        .handle(
          "eligibility",
          ({ urlParams }) =>
            Effect.flatMap(CurrentPartner, (partner) => brokerage.eligibility(urlParams.domain, partner.environment))
        )
        .handle("createCase", ({ headers, payload }) =>
          Effect.gen(function*() {
            const partner = yield* CurrentPartner
            // Optional here (the SDK sends one on every write): a retried create answers the first 201.
            const result = yield* createCases.run(
              {
                scope: `partner-brokerage:${partner.credentialId}`,
                key: headers["idempotency-key"],
                request: payload
              },
              brokerage.create(partner, payload)
            )
            return result.value
          }))
        .handle("listCases", ({ urlParams }) =>
          Effect.gen(function*() {
            const partner = yield* CurrentPartner
            const { from, to } = yield* dateWindow(urlParams.from, urlParams.to)
            const cursor = pageCursor(secrets, PAGED_LISTS.brokerageCases, partner.credentialId, [
              urlParams.status ?? null,
              iso(from ?? null),
              iso(to ?? null)
            ])
            const before = yield* cursor.read(urlParams.cursor)
            const page = yield* brokerage.list(
              { partnerId: partner.partnerId, environment: partner.environment, status: urlParams.status, from, to },
              before,
              urlParams.limit ?? 25
            )
            return { cases: page.cases, next_cursor: cursor.next(page.cases[page.cases.length - 1]?.id, page.hasMore) }
          }))
        .handle(
          "getCase",
          ({ path }) => Effect.flatMap(CurrentPartner, (partner) => brokerage.detail(path.id, partner))
        )
        .handle(
          "advanceSandbox",
          ({ path }) => Effect.flatMap(CurrentPartner, (partner) => brokerage.advanceSandbox(path.id, partner))
        )
    })
)

export const AdminBrokerageHttpLive = HttpApiBuilder.group(Api, "adminBrokerage", (handlers) =>
  Effect.gen(function*() {
    const brokerage = yield* Brokerage
    return handlers
      .handle("listCases", ({ urlParams }) =>
        Effect.map(
          brokerage.list(
            { status: urlParams.status, partnerId: urlParams.partner, environment: urlParams.env },
            null,
            urlParams.limit ?? 25
          ),
          (page) => ({ cases: page.cases })
        ))
      .handle("getCase", ({ path }) => brokerage.detail(path.id))
      .handle("advance", ({ path, urlParams }) =>
        operatorAction(
          { action: "brokerage.advance", target: path.id, before: brokerage.detail(path.id) },
          Effect.zipRight(
            brokerage.move(path.id, { _tag: "advance" }, {
              actor: "admin",
              priceCents: urlParams.price,
              note: urlParams.note
            }),
            brokerage.detail(path.id)
          )
        ))
      .handle("close", ({ path, urlParams }) =>
        operatorAction(
          { action: "brokerage.close", target: path.id, before: brokerage.detail(path.id) },
          Effect.zipRight(
            brokerage.move(path.id, { _tag: "close", outcome: urlParams.outcome }, {
              actor: "admin",
              priceCents: urlParams.price,
              note: urlParams.note
            }),
            brokerage.detail(path.id)
          )
        ))
  }))

export const BrokeragePagesHttpLive = HttpApiBuilder.group(Api, "brokeragePages", (handlers) =>
  Effect.gen(function*() {
    const brokerage = yield* Brokerage
    const invalid = htmlResponse(
      errorPageHtml(
        "This link does not work",
        "The progress link is incomplete or has been altered.",
        "Open the link exactly as you received it, or ask the service that sent it for a new one."
      ),
      { status: 400 }
    )
    return handlers.handle("progress", ({ urlParams }) =>
      Effect.gen(function*() {
        if (urlParams.t === undefined || urlParams.t === "") return invalid
        const found = yield* brokerage.progress(urlParams.t)
        if (Option.isNone(found)) return invalid
        const { case: c, timeline } = found.value
        return htmlResponse(progressPage({
          domain: c.domain,
          tier: c.tier,
          status: c.status,
          createdAt: c.created_at,
          timeline: timeline.map((t) => ({ status: t.status, at: t.at }))
        }))
      }))
  }))
