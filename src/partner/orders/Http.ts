/** Handlers of quotes, orders and refunds. */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../../app/Api.js"
import { BadRequestError } from "../../platform/Errors.js"
import { fingerprint, Idempotency, isValidKey } from "../../platform/Idempotency.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import { CurrentPartner } from "../Auth.js"
import { domainParam, iso, pageCursor, validationError } from "../Common.js"
import { orderJson, Orders } from "./Orders.js"

const CURSOR_PURPOSE = "partner-orders-cursor"

const parseDate = (field: string, s: string | undefined) => {
  if (s === undefined) return Effect.succeed(undefined)
  const ok = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/.test(s)
  const d = new Date(s)
  return ok && !Number.isNaN(d.getTime()) ? Effect.succeed(d) : Effect.fail(validationError(`${field}: must be an RFC 3339 date-time or YYYY-MM-DD`))
}

export const PartnerOrdersHttpLive = HttpApiBuilder.group(Api, "partnerOrders", (handlers) =>
  Effect.gen(function*() {
    const orders = yield* Orders
    const idempotency = yield* Idempotency
    const secrets = yield* ServiceSecret
    return handlers
      .handle("createQuote", ({ payload }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const name = yield* domainParam("domain", payload.domain)
          return yield* orders.createQuote(partner, name.ascii)
        }).pipe(Effect.catchTag("SqlError", Effect.die)))
      .handle("createOrder", ({ payload, request }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const key = request.headers["idempotency-key"]
          if (key === undefined || key.trim() === "") {
            return yield* new BadRequestError({
              code: "missing_idempotency_key",
              message: "POST /orders requires an Idempotency-Key header (1-255 visible ASCII characters, e.g. a UUID v4, the same on every retry of this order)"
            })
          }
          if (!isValidKey(key)) return yield* validationError("Idempotency-Key: 1-255 visible ASCII characters")
          const name = yield* domainParam("domain", payload.domain)
          const body = yield* request.text.pipe(Effect.orDie)
          const result = yield* idempotency.run(
            {
              scope: `partner-orders:${partner.credentialId}`,
              key,
              fingerprint: fingerprint("POST", "/api/partner/v1/orders", body),
              transactional: true
            },
            Effect.map(orders.createOrder(partner, payload, name.ascii), (order) => ({ status: 201, body: orderJson(order) }))
          )
          return HttpServerResponse.unsafeJson(result.response.body, {
            status: result.response.status,
            headers: { "idempotency-key": key, ...(result.replayed ? { "idempotent-replayed": "true" } : {}) }
          })
        }).pipe(Effect.catchTag("SqlError", Effect.die)))
      .handle("listOrders", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const from = yield* parseDate("from", urlParams.from)
          const to = yield* parseDate("to", urlParams.to)
          const domain = urlParams.domain === undefined ? undefined : (yield* domainParam("domain", urlParams.domain)).ascii
          const filters = { status: urlParams.status, domain, from, to }
          const cursor = pageCursor(secrets, CURSOR_PURPOSE, [filters.status ?? null, domain ?? null, iso(from ?? null), iso(to ?? null)])
          const before = yield* cursor.read(urlParams.cursor)
          const limit = urlParams.limit ?? 25
          const page = yield* orders.list(partner, filters, before, limit)
          const last = page.orders[page.orders.length - 1]
          return {
            orders: page.orders.map(orderJson),
            next_cursor: cursor.next(last, page.hasMore)
          }
        }).pipe(Effect.catchTag("SqlError", Effect.die)))
      .handle("getOrder", ({ path }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          return yield* orders.detail(path.public_id, partner)
        }).pipe(Effect.catchTag("SqlError", Effect.die)))
      .handle("createRefund", ({ payload }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const result = yield* orders.refund(partner, payload.order_id, payload.reason ?? null)
          return HttpServerResponse.unsafeJson(
            {
              refund_id: result.refundId!,
              order_id: result.order.id,
              amount_cents: result.order.sale_price_cents,
              currency: result.order.currency,
              status: "REFUNDED",
              created_at: iso(result.order.updated_at),
              order: orderJson(result.order)
            },
            { status: 201 }
          )
        }).pipe(Effect.catchTag("SqlError", Effect.die)))
  }))
