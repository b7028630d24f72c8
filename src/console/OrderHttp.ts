/**
 * Handlers of the console's orders, checkout sessions and brokerage pages (./OrderApi.ts): the
 * console's door (./Door.ts: session, chosen partner, refusal pages), the URL's filters and cursor
 * read once (./Lists.ts: a value the page cannot use is a 400 page), then one call of the members'
 * doors onto the services (MemberBusiness, MemberSessions), which check membership → the page.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { MemberSessions } from "../checkout/MemberSessions.js"
import { CASE_STATUSES } from "../domain/Brokerage.js"
import { PAYMENT_MODELS } from "../domain/Ledger.js"
import { ORDER_STATUSES } from "../domain/OrderState.js"
import { domainParam, iso } from "../partner/Common.js"
import { MemberBusiness } from "../partner/members/MemberBusiness.js"
import { PAGED_LISTS } from "../platform/http/PageCursor.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { brokeragePage, casePage } from "./BrokeragePages.js"
import { makeDoor } from "./Door.js"
import { environmentOf, limitOf, listCursor, oneOf, windowOf } from "./Lists.js"
import { checkoutSessionsPage, ordersPage } from "./OrderPages.js"

export const ConsoleOrderHttpLive = HttpApiBuilder.group(
  Api,
  "consoleOrderPages",
  (handlers) =>
    Effect.gen(function*() {
      const door = yield* makeDoor
      const business = yield* MemberBusiness
      const sessions = yield* MemberSessions
      const secrets = yield* ServiceSecret
      /** The partner's default environment (asked first: membership before any filter), or the URL's. */
      const environment = (asked: string | undefined, userId: string, partnerId: string) =>
        Effect.flatMap(business.defaultEnvironment(userId, partnerId), (fallback) => environmentOf(asked, fallback))

      return handlers
        .handle("ordersPage", ({ urlParams: q }) =>
          door.sectionPage("/console/orders", q.partner, (session, others, partnerId) =>
            Effect.gen(function*() {
              const env = yield* environment(q.environment, session.user.id, partnerId)
              const status = yield* oneOf("status", ORDER_STATUSES, q.status)
              const paymentModel = yield* oneOf("payment_model", PAYMENT_MODELS, q.payment_model)
              const domain = q.domain === undefined || q.domain.trim() === ""
                ? undefined
                : (yield* domainParam("domain", q.domain)).ascii
              const { from, to } = yield* windowOf(q.from, q.to)
              const limit = yield* limitOf(q.limit)
              const filters = [status ?? null, paymentModel ?? null, domain ?? null, iso(from ?? null), iso(to ?? null)]
              const cursor = listCursor(secrets, PAGED_LISTS.consoleOrders, session, {
                partnerId,
                environment: env,
                filters
              })
              const beforeId = yield* cursor.read(q.cursor)
              const page = yield* business.orders(
                session.user.id,
                partnerId,
                env,
                { status, paymentModel, domain, from, to },
                { beforeId, limit }
              )
              return ordersPage({
                membership: page.membership,
                others,
                environment: env,
                query: { status, payment_model: paymentModel, domain, from: q.from, to: q.to, limit: q.limit },
                rows: page.orders,
                nextCursor: cursor.next(page.orders[page.orders.length - 1]?.id, page.hasMore)
              })
            })))
        .handle("checkoutSessionsPage", ({ urlParams: q }) =>
          door.sectionPage("/console/checkout-sessions", q.partner, (session, others, partnerId) =>
            Effect.gen(function*() {
              const env = yield* environment(q.environment, session.user.id, partnerId)
              const limit = yield* limitOf(q.limit)
              const cursor = listCursor(secrets, PAGED_LISTS.consoleCheckoutSessions, session, {
                partnerId,
                environment: env,
                filters: []
              })
              const beforeId = yield* cursor.read(q.cursor)
              const page = yield* sessions.list(session.user.id, partnerId, env, { beforeId, limit })
              return checkoutSessionsPage({
                membership: page.membership,
                others,
                environment: env,
                query: { limit: q.limit },
                rows: page.sessions,
                nextCursor: cursor.next(page.sessions[page.sessions.length - 1]?.id, page.hasMore)
              })
            })))
        .handle("brokeragePage", ({ urlParams: q }) =>
          door.sectionPage("/console/brokerage", q.partner, (session, others, partnerId) =>
            Effect.gen(function*() {
              const env = yield* environment(q.environment, session.user.id, partnerId)
              const status = yield* oneOf("status", CASE_STATUSES, q.status)
              const { from, to } = yield* windowOf(q.from, q.to)
              const limit = yield* limitOf(q.limit)
              const filters = [status ?? null, iso(from ?? null), iso(to ?? null)]
              const cursor = listCursor(secrets, PAGED_LISTS.consoleBrokerage, session, {
                partnerId,
                environment: env,
                filters
              })
              const beforeId = yield* cursor.read(q.cursor)
              const page = yield* business.cases(session.user.id, partnerId, env, { status, from, to }, {
                beforeId,
                limit
              })
              return brokeragePage({
                membership: page.membership,
                others,
                environment: env,
                query: { status, from: q.from, to: q.to, limit: q.limit },
                rows: page.cases,
                nextCursor: cursor.next(page.cases[page.cases.length - 1]?.id, page.hasMore)
              })
            })))
        .handle("brokerageCasePage", ({ path, urlParams: q }) =>
          door.sectionPage(
            `/console/brokerage/${encodeURIComponent(path.id)}`,
            q.partner,
            (session, others, partnerId) =>
              Effect.gen(function*() {
                const env = yield* environment(q.environment, session.user.id, partnerId)
                const seen = yield* business.caseDetail(session.user.id, partnerId, env, path.id)
                return casePage(seen.membership, others, seen.detail)
              })
          ))
    })
)
