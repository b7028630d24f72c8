/**
 * Quotes, partner-collected orders and the order lifecycle.
 *
 * - A quote fixes the listing's buy-now price for 10 minutes and holds the domain for the
 *   partner on the listing itself (`Market.sales.hold`, src/domain/Reservation.ts), so every
 *   channel's lock (`Market.sales.lockForSale`) refuses another seller with `ListingHeld` (409
 *   `conflict`, `details.held_until`): another partner's quote, order or checkout session, a
 *   `/buy/` purchase, a brokerage deal. `quote_id` is a token signed with SERVICE_SECRET, bound
 *   to partner, environment, domain and price.
 * - Recording an order locks the listing row and reads what its checks need in one round trip
 *   (`OrderRepo.lockListingForOrder`), checks price/quote/reservation, inserts the order, its
 *   timeline, the `order.recorded` event (outbox) and marks the listing `pending` (market's
 *   statement, `Market.sales.holdFragment`), all in the caller's transaction (the
 *   Idempotency-Key store runs it transactionally).
 * - Every lifecycle move (admin, sandbox advance, refund, settlement) runs through `transition`:
 *   one transaction holding the order row lock writes the status, the timeline, the event and
 *   the listing's status. A refused move fails with `OrderMoveNotAllowed` and the reason.
 *
 * This file is the service (its dependencies, the reads, its one record of operations); beside
 * it: Recording.ts (quotes, orders, paid sales) and Lifecycle.ts (the moves).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect } from "effect"
import { nextSandboxAction, type OrderAction } from "../../domain/OrderState.js"
import { Market } from "../../market/Market.js"
import { transactionOf } from "../../platform/db/SqlTransaction.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import type { PartnerIdentity, PartnerOwner } from "../Auth.js"
import { Outbox } from "../events/Outbox.js"
import { Books } from "../ledger/Books.js"
import { PartnerConfig } from "../Settings.js"
import { OrderDeliveries } from "./Deliveries.js"
import { OrderMoveNotAllowed } from "./Errors.js"
import { loadOwned, move, type MoveOptions } from "./Lifecycle.js"
import { createOrder, createQuote, type PaidSale, recordPaidSale } from "./Recording.js"
import { type OrderFilters, OrderRepo } from "./Repo.js"
import { orderDetailOf, orderOf } from "./View.js"

export { eventOrder } from "./View.js"

export interface OrderInput {
  readonly domain: string
  readonly expected_price: number
  readonly currency: string
  readonly external_payment_ref: string
  readonly buyer: { readonly email: string; readonly name?: string | undefined; readonly country?: string | undefined }
  readonly quote_id?: string | undefined
  readonly return_url?: string | undefined
  readonly cancel_url?: string | undefined
}

/** What every order operation works with: its store and transaction, the services it calls, its settings. */
export interface OrdersDeps {
  readonly transaction: ReturnType<typeof transactionOf>
  readonly repo: Context.Tag.Service<typeof OrderRepo>
  readonly listings: Context.Tag.Service<typeof Market>["sales"]
  readonly outbox: Context.Tag.Service<typeof Outbox>
  readonly secrets: Context.Tag.Service<typeof ServiceSecret>
  readonly settings: Context.Tag.Service<typeof PartnerConfig>
  readonly books: Context.Tag.Service<typeof Books>
  readonly deliveries: Context.Tag.Service<typeof OrderDeliveries>
}

const detail = (d: OrdersDeps, publicId: string, partner?: PartnerIdentity) =>
  Effect.gen(function*() {
    const order = yield* loadOwned(d, publicId, partner, false)
    return orderDetailOf(order, yield* d.repo.timeline(order.id), yield* d.deliveries.view(order.id))
  })

const list = (d: OrdersDeps, partner: PartnerOwner, filters: OrderFilters, beforeId: string | null, limit: number) =>
  Effect.map(d.repo.list(partner.partnerId, partner.environment, filters, beforeId, limit + 1), (rows) => ({
    orders: rows.slice(0, limit),
    hasMore: rows.length > limit
  }))

const advanceSandbox = (d: OrdersDeps, publicId: string, partner: PartnerIdentity) =>
  Effect.gen(function*() {
    const order = yield* loadOwned(d, publicId, partner, false)
    const action = nextSandboxAction(order.status)
    if (action === undefined) {
      return yield* new OrderMoveNotAllowed({
        message: `Order ${publicId} is ${order.status}: there is no next step`
      })
    }
    return yield* move(d, publicId, action, { actor: `sandbox:${partner.keyId}`, partner })
  })

const make = Effect.gen(function*() {
  const d: OrdersDeps = {
    transaction: transactionOf(yield* SqlClient.SqlClient),
    repo: yield* OrderRepo,
    listings: (yield* Market).sales,
    outbox: yield* Outbox,
    secrets: yield* ServiceSecret,
    settings: yield* PartnerConfig,
    books: yield* Books,
    deliveries: yield* OrderDeliveries
  }
  const repo = d.repo
  return {
    createQuote: (partner: PartnerIdentity, domain: string) => createQuote(d, partner, domain),
    createOrder: (partner: PartnerIdentity, input: OrderInput, domain: string) =>
      createOrder(d, partner, input, domain),
    recordPaidSale: (input: PaidSale) => recordPaidSale(d, input),
    /** An open order (not refunded/cancelled) on the listing. */
    openOrderOnListing: repo.openOrderOnListing,
    move: (publicId: string, action: OrderAction, options: MoveOptions) => move(d, publicId, action, options),
    detail: (publicId: string, partner?: PartnerIdentity) => detail(d, publicId, partner),
    list: (partner: PartnerOwner, filters: OrderFilters, beforeId: string | null, limit: number) =>
      list(d, partner, filters, beforeId, limit),
    advanceSandbox: (publicId: string, partner: PartnerIdentity) => advanceSandbox(d, publicId, partner),
    /** A delivery step in the order's timeline (src/fulfilment), with the event it wrote, if any. */
    recordTransferStep: (
      publicId: string,
      step: string,
      options: { readonly actor: string; readonly note?: string | null; readonly eventId?: string | null }
    ) =>
      repo.addTimeline({
        orderId: publicId,
        kind: "transfer_step",
        step,
        actor: options.actor,
        note: options.note ?? null,
        eventId: options.eventId ?? null
      }),
    /** The partner's referral sales in a window, newest first, and their totals (src/referrals' reports). */
    referralSales: repo.referralSales,
    referralSalesTotals: repo.referralSalesTotals,
    /** Every partner's orders, newest first (operator CLI). */
    listAll: (filters: Parameters<typeof repo.listAll>[0], limit: number) =>
      Effect.map(repo.listAll(filters, limit), (rows) => rows.map(orderOf)),
    /** The partner's refund of a sale it collected itself (src/domain/RefundAuthority.ts); else OrderNotFound. */
    refund: (partner: PartnerIdentity, publicId: string, reason: string | null) =>
      move(d, publicId, "refund", {
        actor: `partner:${partner.keyId}`,
        partner,
        refund: { reason },
        note: reason ?? undefined
      }),
    /**
     * An operator's refund of any order (admin API, CLI): marketplace, referral and brokerage
     * sales are refunded only this way. The reversing ledger transaction is written with the
     * move; a card-paid order's money goes back at the payment provider through the checkout's
     * reconciliation (src/checkout/Checkout.ts `refundReversed`), as for every refund.
     */
    operatorRefund: (publicId: string, reason: string | null, actor: string) =>
      move(d, publicId, "refund", { actor, refund: { reason }, note: reason ?? undefined })
  }
})

export class Orders extends Effect.Service<Orders>()("app/PartnerOrders", {
  effect: make,
  dependencies: [OrderRepo.Default, Outbox.Default, Books.Default]
}) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = Orders.Default
}
