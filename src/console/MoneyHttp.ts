/**
 * Handlers of the console's money section (./MoneyApi.ts): the console's door (./Door.ts), the
 * URL's filters and cursor read once (./Lists.ts: a value the page cannot use is a 400 page), then
 * one call of MemberBusiness, which checks membership before it reads → the page, or the CSV of
 * the signed API's exporter as a download (`Content-Disposition: attachment`, never cached).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { PAYMENT_MODELS } from "../domain/Ledger.js"
import { ORDER_STATUSES } from "../domain/OrderState.js"
import type { PartnerEnvironment } from "../partner/Auth.js"
import { iso } from "../partner/Common.js"
import { NotAMember } from "../partner/members/Errors.js"
import { MemberBusiness } from "../partner/members/MemberBusiness.js"
import { PAGED_LISTS } from "../platform/http/PageCursor.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { makeDoor, type Refusal } from "./Door.js"
import { environmentOf, limitOf, listCursor, oneOf, windowOf } from "./Lists.js"
import { moneyPage } from "./MoneyPages.js"

interface SalesParams {
  readonly status?: string | undefined
  readonly payment_model?: string | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
}

/** The sales history's filters, as `GET /transactions` takes them. */
const salesFilters = (q: SalesParams) =>
  Effect.gen(function*() {
    const status = yield* oneOf("status", ORDER_STATUSES, q.status)
    const paymentModel = yield* oneOf("payment_model", PAYMENT_MODELS, q.payment_model)
    const window = yield* windowOf(q.from, q.to)
    return { ...window, status, paymentModel }
  })

/** A CSV download: never cached, saved under `filename` (ids only: nothing to escape). */
const attachment = (text: string, filename: string) =>
  HttpServerResponse.text(text, {
    contentType: "text/csv; charset=utf-8",
    headers: { "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store" }
  })

export const ConsoleMoneyHttpLive = HttpApiBuilder.group(
  Api,
  "consoleMoneyPages",
  (handlers) =>
    Effect.gen(function*() {
      const door = yield* makeDoor
      const business = yield* MemberBusiness
      const secrets = yield* ServiceSecret
      /** The partner's default environment (asked first: membership before any filter), or the URL's. */
      const environment = (asked: string | undefined, userId: string, partnerId: string) =>
        Effect.flatMap(business.defaultEnvironment(userId, partnerId), (fallback) => environmentOf(asked, fallback))

      /** A CSV of the chosen partner's environment (none of the person's: the 404 page); a refusal is its page. */
      const download = <E extends Refusal>(
        q: { readonly partner?: string | undefined; readonly environment?: string | undefined },
        csv: (
          userId: string,
          partnerId: string,
          env: PartnerEnvironment
        ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E>
      ) =>
        door.withSession("/console/money", (session) =>
          Effect.gen(function*() {
            const { partnerId } = yield* door.chosen(session, q.partner)
            if (partnerId === undefined) return door.refused(new NotAMember({ message: "No such partner of yours" }))
            return yield* Effect.flatMap(
              environment(q.environment, session.user.id, partnerId),
              (env) => csv(session.user.id, partnerId, env)
            ).pipe(Effect.catchAll((e) => Effect.succeed(door.refused(e))))
          }))

      return handlers
        .handle("moneyPage", ({ urlParams: q }) =>
          door.sectionPage("/console/money", q.partner, (session, others, partnerId) =>
            Effect.gen(function*() {
              const env = yield* environment(q.environment, session.user.id, partnerId)
              const filters = yield* salesFilters(q)
              const limit = yield* limitOf(q.limit)
              const cursor = listCursor(secrets, PAGED_LISTS.consoleTransactions, session, {
                partnerId,
                environment: env,
                filters: [
                  iso(filters.from ?? null),
                  iso(filters.to ?? null),
                  filters.status ?? null,
                  filters.paymentModel ?? null
                ]
              })
              const beforeId = yield* cursor.read(q.cursor)
              const seen = yield* business.money(session.user.id, partnerId, env, filters, { beforeId, limit })
              return moneyPage({
                membership: seen.membership,
                others,
                environment: env,
                query: {
                  status: filters.status,
                  payment_model: filters.paymentModel,
                  from: q.from,
                  to: q.to,
                  limit: q.limit
                },
                statements: seen.statements,
                transactions: seen.transactions,
                totals: seen.totals,
                payouts: seen.payouts,
                totalPaid: seen.totalPaid,
                nextCursor: cursor.next(seen.transactions[seen.transactions.length - 1]?.order_id, seen.hasMore)
              })
            })))
        .handle("transactionsCsv", ({ urlParams: q }) =>
          download(q, (userId, partnerId, env) =>
            Effect.gen(function*() {
              const text = yield* business.transactionsCsv(userId, partnerId, env, yield* salesFilters(q))
              return attachment(text, `transactions-${partnerId}-${env}.csv`)
            })))
        .handle("statementCsv", ({ path, urlParams: q }) =>
          download(q, (userId, partnerId, env) =>
            Effect.map(
              business.statementCsv(userId, partnerId, env, path.id),
              (text) =>
                attachment(text, `statement-${path.id}.csv`)
            )))
    })
)
