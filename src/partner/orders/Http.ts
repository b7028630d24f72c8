/** Handlers of quotes, orders and refunds. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Schema } from "effect"
import { Api } from "../../app/Api.js"
import { Idempotency, payloadFingerprint } from "../../platform/http/Idempotency.js"
import { pageCursor, PAGED_LISTS } from "../../platform/http/PageCursor.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import { CurrentPartner } from "../Auth.js"
import { dateParam, domainParam, iso } from "../Common.js"
import { Order, OrderRequest } from "./Api.js"
import { Orders } from "./Orders.js"
import { orderOf, refundOf } from "./View.js"

/**
 * `Order` for the Idempotency-Key store: a response stored before `payment_model`,
 * `commission_cents` and `brokerage` existed (keys live 7 days) still replays, with them filled
 * in (POST /orders records partner-collected sales only; the commission was not stored: 0).
 */
const StoredOrder = Schema.Struct({
  ...Order.fields,
  payment_model: Schema.optionalWith(Order.fields.payment_model, { default: () => "partner_collected" as const }),
  commission_cents: Schema.optionalWith(Order.fields.commission_cents, { default: () => 0 }),
  brokerage: Schema.optionalWith(Order.fields.brokerage, { default: () => null })
})

export const PartnerOrdersHttpLive = HttpApiBuilder.group(Api, "partnerOrders", (handlers) =>
  Effect.gen(function*() {
    const orders = yield* Orders
    const createOrders = (yield* Idempotency).endpoint({
      success: StoredOrder,
      status: 201,
      fingerprint: payloadFingerprint("POST /api/partner/v1/orders", OrderRequest)
    })
    const secrets = yield* ServiceSecret
    return handlers
      .handle("createQuote", ({ payload }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const name = yield* domainParam("domain", payload.domain)
          return yield* orders.createQuote(partner, name.ascii)
        }))
      .handle("createOrder", ({ headers, payload }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const name = yield* domainParam("domain", payload.domain)
          const result = yield* createOrders.run(
            {
              scope: `partner-orders:${partner.credentialId}`,
              key: headers["idempotency-key"],
              request: payload,
              transactional: true
            },
            Effect.map(orders.createOrder(partner, payload, name.ascii), orderOf)
          )
          return result.value
        }))
      .handle("listOrders", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const from = yield* dateParam("from", urlParams.from)
          const to = yield* dateParam("to", urlParams.to)
          const domain = urlParams.domain === undefined
            ? undefined
            : (yield* domainParam("domain", urlParams.domain)).ascii
          const filters = { status: urlParams.status, paymentModel: urlParams.payment_model, domain, from, to }
          const cursor = pageCursor(secrets, PAGED_LISTS.partnerOrders, partner.credentialId, [
            filters.status ?? null,
            ...(filters.paymentModel === undefined ? [] : [filters.paymentModel]),
            domain ?? null,
            iso(from ?? null),
            iso(to ?? null)
          ])
          const before = yield* cursor.read(urlParams.cursor)
          const page = yield* orders.list(partner, filters, before, urlParams.limit ?? 25)
          return {
            orders: page.orders.map(orderOf),
            next_cursor: cursor.next(page.orders[page.orders.length - 1]?.id, page.hasMore)
          }
        }))
      .handle("getOrder", ({ path }) =>
        Effect.flatMap(CurrentPartner, (partner) => orders.detail(path.public_id, partner)))
      .handle("createRefund", ({ payload }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const { order, refundId } = yield* orders.refund(partner, payload.order_id, payload.reason ?? null)
          return refundOf(order, refundId!)
        }))
  }))
