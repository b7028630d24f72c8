/**
 * The queues that need a person (docs/consoles.md#operator-console): held orders and orders to
 * transfer, open brokerage cases, pending offers, failed deliveries and failed cart items, each
 * row with the moves the admin API and the CLI offer for it (a cart item has none: the page says
 * what to do). The services decide whether a move is allowed; a row only offers the moves that
 * make sense from where it stands.
 */
import { CLOSE_OUTCOMES } from "../domain/Brokerage.js"
import { moneyInWords, timeInWords } from "../domain/TimeWords.js"
import { html } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { olderLink, opsPage, rowForm, rowInput, rows } from "./Pages.js"

export interface OrderItem {
  readonly public_id: string
  readonly domain: string
  readonly status: string
  readonly sale_price_cents: number
  readonly currency: string
  readonly environment: string
  readonly created_at: string
}

const orderLine = (o: OrderItem) =>
  html`<span class="name">${o.domain}</span><span class="status">${o.status}</span>
<span class="next"><code>${o.public_id}</code> · ${moneyInWords(o.sale_price_cents, o.currency)} · ${o.environment} · ${
    timeInWords(new Date(o.created_at))
  }</span>`

const move = (csrf: string, o: OrderItem, action: string, button: string) =>
  rowForm("/ops/orders/move", csrf, { order_id: o.public_id, action }, button, `${button}: ${o.domain}`)

/** `/ops/orders` */
export const ordersPage = (
  email: string,
  csrf: string,
  held: ReadonlyArray<OrderItem>,
  toTransfer: ReadonlyArray<OrderItem>
): StorePage =>
  opsPage(
    "orders",
    "Orders",
    email,
    html`<h1>Orders</h1>
<h2>Held for review</h2>
${
      rows(
        "Held orders",
        held,
        (o) =>
          html`<li data-order="${o.public_id}">${orderLine(o)}
<div class="actions">${move(csrf, o, "clear-review", "Clear")}${move(csrf, o, "cancel", "Refuse")}</div></li>`,
        "No held orders."
      )
    }
<h2>To transfer</h2>
${
      rows("Orders to transfer", toTransfer, (o) =>
        html`<li data-order="${o.public_id}">${orderLine(o)}
<div class="actions">${move(csrf, o, "start-transfer", "Start transfer")}${
          o.status === "EXTERNALLY_PAID" ? move(csrf, o, "hold", "Hold") : ""
        }</div></li>`, "Nothing to transfer.")
    }
<p class="muted">Refusing a held order cancels it (order.refunded to the partner). Refunds stay with the admin API and <code>order refund</code>.</p>`
  )

export interface CaseItem {
  readonly id: string
  readonly domain: string
  readonly status: string
  readonly tier: string
  readonly buyer_email: string | null
  readonly agreed_price_cents: number | null
  readonly currency: string
  readonly created_at: string
}

const caseForms = (csrf: string, c: CaseItem) =>
  html`${
    rowForm(
      "/ops/brokerage/advance",
      csrf,
      { case_id: c.id },
      "Advance",
      `Advance: ${c.domain}`,
      html`${
        rowInput(`advance-price-${c.id}`, "price_cents", "Price in cents (when agreeing a deal)", {
          inputmode: "numeric"
        })
      }
${rowInput(`advance-note-${c.id}`, "note", "Note")}`
    )
  }${
    rowForm(
      "/ops/brokerage/close",
      csrf,
      { case_id: c.id },
      "Close",
      `Close: ${c.domain}`,
      html`<label for="${`close-outcome-${c.id}`}">Outcome</label>
<select id="${`close-outcome-${c.id}`}" name="outcome">${
        CLOSE_OUTCOMES.map((o) => html`<option value="${o}">${o}</option>`)
      }</select>
${rowInput(`close-price-${c.id}`, "price_cents", "Deal price in cents (won)", { inputmode: "numeric" })}
${rowInput(`close-note-${c.id}`, "note", "Note")}`
    )
  }`

/** `/ops/brokerage` */
export const brokeragePage = (email: string, csrf: string, cases: ReadonlyArray<CaseItem>): StorePage =>
  opsPage(
    "brokerage",
    "Brokerage",
    email,
    html`<h1>Open brokerage cases</h1>
${
      rows("Open cases", cases, (c) =>
        html`<li data-case="${c.id}"><span class="name">${c.domain}</span><span class="status">${c.status}</span>
<span class="next"><code>${c.id}</code> · ${c.tier} · ${c.buyer_email ?? "no buyer e-mail"}${
          c.agreed_price_cents === null ? "" : html` · agreed ${moneyInWords(c.agreed_price_cents, c.currency)}`
        } · ${timeInWords(new Date(c.created_at))}</span>
${caseForms(csrf, c)}</li>`, "No open cases.")
    }`
  )

export interface OfferItem {
  readonly id: string
  readonly domain: string
  readonly amount_cents: number
  readonly currency: string
  readonly email: string
  readonly created_at: Date
}

/** `/ops/offers` */
export const offersPage = (email: string, csrf: string, offers: ReadonlyArray<OfferItem>): StorePage =>
  opsPage(
    "offers",
    "Offers",
    email,
    html`<h1>Pending offers</h1>
${
      rows("Pending offers", offers, (o) =>
        html`<li data-offer="${o.id}"><span class="name">${o.domain}</span><span class="status">${
          moneyInWords(o.amount_cents, o.currency)
        }</span>
<span class="next"><code>${o.id}</code> · ${o.email} · ${timeInWords(o.created_at)}</span>
<div class="actions">${
          rowForm("/ops/offers/decide", csrf, { offer_id: o.id, decision: "accept" }, "Accept", `Accept: ${o.domain}`)
        }${
          rowForm(
            "/ops/offers/decide",
            csrf,
            { offer_id: o.id, decision: "decline" },
            "Decline",
            `Decline: ${o.domain}`
          )
        }</div>
${
          rowForm(
            "/ops/offers/decide",
            csrf,
            { offer_id: o.id, decision: "counter" },
            "Counter",
            `Counter: ${o.domain}`,
            rowInput(`counter-${o.id}`, "amount_cents", "Counter price in cents", { inputmode: "numeric" })
          )
        }</li>`, "No pending offers.")
    }
<p class="muted">Accepting or countering sends the buyer a checkout link by e-mail; declining tells them.</p>`
  )

export interface DeliveryItem {
  readonly order_id: string
  readonly domain: string
  readonly environment: string
  readonly attempts: number
  readonly last_error: string | null
  readonly updated_at: string
}

/** `/ops/deliveries` */
export const deliveriesPage = (email: string, csrf: string, failed: ReadonlyArray<DeliveryItem>): StorePage =>
  opsPage(
    "deliveries",
    "Deliveries",
    email,
    html`<h1>Failed deliveries</h1>
${
      rows("Failed deliveries", failed, (d) =>
        html`<li data-delivery="${d.order_id}"><span class="name">${d.domain}</span><span class="status">failed</span>
<span class="next"><code>${d.order_id}</code> · ${d.environment} · ${d.attempts} attempts · ${
          d.last_error ?? "no error recorded"
        } · ${timeInWords(new Date(d.updated_at))}</span>
<div class="actions">${
          rowForm("/ops/deliveries/retry", csrf, { order_id: d.order_id }, "Retry", `Retry: ${d.domain}`)
        }${
          rowForm(
            "/ops/deliveries/mark-delivered",
            csrf,
            { order_id: d.order_id },
            "Mark delivered",
            `Mark delivered: ${d.domain}`
          )
        }</div></li>`, "No failed deliveries.")
    }`
  )

export interface FailedCartItem {
  readonly id: string
  readonly cart_id: string
  readonly domain: string
  readonly op: string
  readonly years: number
  readonly price_cents: number
  readonly currency: string
  readonly status: "failed" | "refunded"
  readonly error: string | null
  readonly refund_id: string | null
  readonly refunded_at: Date | null
  readonly user_id: string
  readonly session_id: string | null
  readonly paid_at: Date | null
}

const STATUS_WORDS = { failed: "refund under way", refunded: "refunded" } as const

const cartItemLine = (i: FailedCartItem) =>
  html`<li data-cart-item="${i.id}"><span class="name">${i.domain}</span><span class="status">${
    STATUS_WORDS[i.status]
  }</span>
<span class="next">${i.op} ${i.years === 1 ? "1 year" : `${i.years} years`} · ${
    moneyInWords(i.price_cents, i.currency)
  } · ${i.error ?? "no error recorded"}</span>
<span class="next">cart <code>${i.cart_id}</code> · checkout session <code>${
    i.session_id ?? "none"
  }</code> · owner <code>${i.user_id}</code>${i.paid_at === null ? "" : html` · paid ${timeInWords(i.paid_at)}`}${
    i.refund_id === null
      ? ""
      : html` · refund <code>${i.refund_id}</code>${i.refunded_at === null ? "" : html` ${timeInWords(i.refunded_at)}`}`
  }</span></li>`

/** `/ops/carts` */
export const cartsPage = (email: string, items: ReadonlyArray<FailedCartItem>, older: string | null): StorePage =>
  opsPage(
    "carts",
    "Carts",
    email,
    html`<h1>Failed cart items</h1>
<p>Items of paid renew and restore carts whose registrar call failed after payment, newest first
(<a href="/docs/portfolio.md#after-payment">after payment</a>).</p>
${rows("Failed cart items", items, cartItemLine, "No failed cart items.")}
${olderLink("/ops/carts", {}, older)}
<h2>What to do</h2>
<ul>
<li><strong>Refund under way</strong>: the cart's job gives the item's price back through the payment provider of
its checkout session, retrying with back-off, and the item becomes refunded by itself. One that stays here means the
provider keeps refusing: look up the checkout session's payment at the provider and the service's log for the cart.</li>
<li><strong>Refunded</strong>: nothing to do. The owner was told, with the refund's id, in their notifications; they
can ask for the renewal or restore again from their account once the registry allows it.</li>
</ul>
<p class="muted">Neither the admin API nor the CLI has an action on a cart item (no new registrar call, no refund by
hand), so these rows have no buttons.</p>`
  )
