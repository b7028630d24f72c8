/**
 * The console's orders and checkout sessions (docs/consoles.md#orders): one environment's rows,
 * newest first, as the services answer them (money as the storefront writes it, times in words),
 * with the filters in a GET form and a `Next page` link; an empty list says how rows come to be.
 * Built with `html` (escapes by default) in the console's frame.
 */
import type { SessionRow } from "../checkout/Repo.js"
import { PAYMENT_MODELS } from "../domain/Ledger.js"
import { ORDER_STATUSES } from "../domain/OrderState.js"
import { moneyInWords, timeInWords } from "../domain/TimeWords.js"
import type { PartnerEnvironment } from "../partner/Auth.js"
import type { Membership } from "../partner/members/Members.js"
import type { OrderRow } from "../partner/orders/Repo.js"
import { html } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { environmentPicker, filterForm, nextPage, rowsOr, selectField, textField } from "./Lists.js"
import { consoleFrame } from "./Pages.js"

/** The orders page's filters as the URL spells them. */
export interface OrderQuery {
  readonly status?: string | undefined
  readonly payment_model?: string | undefined
  readonly domain?: string | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly limit?: string | undefined
}

export interface ListView<Row, Query> {
  readonly membership: Membership
  readonly others: ReadonlyArray<Membership>
  readonly environment: PartnerEnvironment
  readonly query: Query
  readonly rows: ReadonlyArray<Row>
  readonly nextCursor: string | null
}

const keep = <Row, Query>(v: ListView<Row, Query>) => ({
  partner: v.membership.partnerId,
  environment: v.environment,
  ...v.query
})

const orderItem = (o: OrderRow) =>
  html`<li data-order="${o.id}"><span class="name">${o.domain}</span>
<span class="status" data-field="order-status">${o.status}</span>
<span class="next">${moneyInWords(o.sale_price_cents, o.currency)} · commission ${
    moneyInWords(o.commission_cents, o.currency)
  } · <span data-field="payment-model">${o.payment_model}</span> · created ${
    timeInWords(o.created_at)
  } · <code>${o.id}</code></span></li>`

const noOrders = (environment: PartnerEnvironment, filtered: boolean) =>
  filtered
    ? html`No orders match these filters.`
    : environment === "sandbox"
    ? html`No orders yet — a sandbox order appears here as soon as it is recorded (<code>POST /api/partner/v1/orders</code>
with a sandbox key, see <a href="/docs/partner.md">the Partner API</a>), or when a sandbox checkout session is paid.`
    : html`No live orders yet — they appear here as soon as the first sale is recorded.`

/** `/console/orders` */
export const ordersPage = (v: ListView<OrderRow, OrderQuery>): StorePage => {
  const q = v.query
  const path = "/console/orders"
  return {
    title: `Orders · ${v.membership.partnerName}`,
    body: consoleFrame(
      v.membership,
      "orders",
      v.others,
      html`<h1>Orders</h1>
${environmentPicker(path, v.membership.partnerId, v.environment)}
${
        filterForm(path, "Filter the orders", { partnerId: v.membership.partnerId, environment: v.environment }, [
          selectField("order-status", "status", "Status", ORDER_STATUSES, q.status),
          selectField("order-model", "payment_model", "Payment model", PAYMENT_MODELS, q.payment_model),
          textField("order-domain", "domain", "Domain", q.domain, "example.com"),
          textField("order-from", "from", "Created from", q.from, "2026-01-01"),
          textField("order-to", "to", "Created before", q.to, "2026-12-31")
        ])
      }
${
        rowsOr(
          "Orders",
          v.rows,
          orderItem,
          noOrders(v.environment, [q.status, q.payment_model, q.domain, q.from, q.to].some((f) => f))
        )
      }
${nextPage(path, keep(v), v.nextCursor)}`
    )
  }
}

const sessionItem = (s: SessionRow) =>
  html`<li data-session="${s.id}"><span class="name">${s.domain ?? "—"}</span>
<span class="status" data-field="session-status">${s.status}</span>
<span class="next">${moneyInWords(s.price_cents, s.currency)} · ${
    s.status === "paid" || s.status === "refunded"
      ? html`paid ${s.paid_at === null ? "" : timeInWords(s.paid_at)}`
      : html`${s.status === "expired" ? "expired" : "expires"} ${timeInWords(s.expires_at)}`
  }${s.reference === null ? "" : html` · reference <code>${s.reference}</code>`} · created ${
    timeInWords(s.created_at)
  } · <code>${s.id}</code>${s.order_id === null ? "" : html` · order <code>${s.order_id}</code>`}</span></li>`

/** `/console/checkout-sessions` */
export const checkoutSessionsPage = (v: ListView<SessionRow, { readonly limit?: string | undefined }>): StorePage => {
  const path = "/console/checkout-sessions"
  return {
    title: `Checkout sessions · ${v.membership.partnerName}`,
    body: consoleFrame(
      v.membership,
      "checkout",
      v.others,
      html`<h1>Checkout sessions</h1>
<p>Hosted checkout sessions opened with <code>POST /api/partner/v1/checkout-session</code>: the buyer pays on our page,
and a paid session becomes an order (<a href="/docs/checkout.md">hosted checkout</a>).</p>
${environmentPicker(path, v.membership.partnerId, v.environment)}
${
        rowsOr(
          "Checkout sessions",
          v.rows,
          sessionItem,
          html`No checkout sessions yet — a session appears here as soon as it is opened with a ${v.environment} key.`
        )
      }
${nextPage(path, keep(v), v.nextCursor)}`
    )
  }
}
