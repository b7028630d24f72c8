/**
 * Who may refund an order (pure): only the seller of record.
 *
 * A partner refunds (`POST /api/partner/v1/refunds`) only what it collected itself: its
 * partner-collected orders (it holds the buyer's money) and the orders of the hosted-checkout
 * sessions it opened (its own sale, paid on our page). The marketplace's own /buy sales, referral
 * sales (the affiliate only sent the buyer) and brokerage deals are the operators' to refund
 * (`POST /api/admin/orders/{id}/refund`, `cli order refund`). To any other partner such an order
 * does not exist: the same 404 as an unknown id, so a refusal reveals nothing.
 */
import type { PaymentModel } from "./Ledger.js"

/** Payment models whose orders the partner that holds them refunds itself. */
export const PARTNER_REFUNDABLE: ReadonlyArray<PaymentModel> = ["partner_collected", "hosted_checkout"]

export interface RefundTarget {
  readonly partnerId: string
  readonly environment: string
  readonly paymentModel: PaymentModel
}

export interface RefundCaller {
  readonly partnerId: string
  readonly environment: string
}

/** True when `caller` may refund `order` through the Partner API. */
export const partnerMayRefund = (order: RefundTarget, caller: RefundCaller): boolean =>
  order.partnerId === caller.partnerId &&
  order.environment === caller.environment &&
  PARTNER_REFUNDABLE.includes(order.paymentModel)
