/**
 * The queues that need a person (docs/consoles.md#operator-console): held orders and orders to
 * transfer, open brokerage cases, pending offers and failed deliveries, each row with the moves
 * the admin API and the CLI offer for it. The services decide whether a move is allowed; a row
 * only offers the moves that make sense from where it stands.
 */
import { CLOSE_OUTCOMES } from "../domain/Brokerage.js"
import { moneyInWords, timeInWords } from "../domain/TimeWords.js"
import { html } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { opsPage, rowForm, rowInput, rows } from "./Pages.js"

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
