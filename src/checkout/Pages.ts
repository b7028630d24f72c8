/**
 * The HTML of the hosted checkout: the buy page's offer, payment page, confirmation step, receipt and result pages, in
 * the one visual language of platform/http/Html.ts, built with the `html` template (escapes by
 * default). Works without JavaScript; one small inline script (nonce-admitted) only prevents a
 * double click from posting twice and spaces the card number.
 *
 * Whenever this service takes the card itself (the sandbox payment provider: no real money can
 * move), the page says so and names the test cards, so a person trying the shop knows what to type.
 */
import { moneyInWords, timeInWords } from "../domain/TimeWords.js"
import { html, page, type SafeHtml } from "../platform/http/Html.js"
import type { SessionRow } from "./Repo.js"

/** Money as the pages show it (one rule for every page: src/domain/TimeWords.ts). */
export const formatPrice = moneyInWords

const ENHANCE =
  `document.querySelectorAll("form[data-once]").forEach(function(f){f.addEventListener("submit",function(){var b=f.querySelector("button[type=submit]");if(b){b.disabled=true;b.textContent="Processing…";}});});
var n=document.getElementById("card_number");if(n){n.addEventListener("input",function(){var d=n.value.replace(/\\D/g,"").slice(0,19);n.value=d.replace(/(.{4})/g,"$1 ").trim();});}`

export const script = (nonce: string) => ({ nonce, source: ENHANCE })

interface CartLine {
  readonly domain: string
  readonly op: "renew" | "restore"
  readonly years: number
  readonly priceCents: number
}

/** The cart's lines as stored on the session (jsonb: parsed by the driver, or text). */
const cartLines = (items: unknown): ReadonlyArray<CartLine> => {
  const parsed = typeof items === "string" ? (JSON.parse(items) as unknown) : items
  return Array.isArray(parsed) ? (parsed as ReadonlyArray<CartLine>) : []
}

const cartSummary = (s: SessionRow) =>
  html`<p>Renewals and restores for your domains</p>
<table class="lines">
  <thead><tr><th scope="col">Domain</th><th scope="col">Service</th><th scope="col" class="amount">Price</th></tr></thead>
  <tbody>${
    cartLines(s.items).map((l) =>
      html`<tr><td>${l.domain}</td><td>${l.op === "renew" ? "Renew" : "Restore"}, ${l.years} ${
        l.years === 1 ? "year" : "years"
      }</td><td class="amount">${formatPrice(l.priceCents, s.currency)}</td></tr>`
    )
  }</tbody>
</table>`

const summary = (s: SessionRow, seller: string) =>
  html`${
    s.kind === "cart" ? cartSummary(s) : html`<p class="muted label">Domain</p><p class="price">${s.domain ?? ""}</p>`
  }
<dl class="facts">
  <dt>Price</dt><dd><strong data-testid="price">${formatPrice(s.price_cents, s.currency)}</strong></dd>
  <dt>Sold by</dt><dd data-testid="seller">${seller}</dd>
</dl>`

/** The test cards of the sandbox payment provider, named wherever it takes the card. */
const TEST_CARDS =
  "4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, 4000 0000 0000 3220 asks for a confirmation step"

/**
 * The public buy page (`GET /buy/{domain}`): what is for sale, at what price, by whom, and one
 * button whose form post opens the checkout (the payment step is the payment page, as for every
 * session). The sandbox page says so and names the test cards.
 */
export const buyOfferPage = (ctx: {
  readonly offer: {
    readonly domain: string
    readonly environment: "live" | "sandbox"
    readonly seller: string
    readonly priceCents: number
    readonly currency: string
  }
  readonly action: string
  readonly csrf: string
  readonly nonce: string
}) => {
  const o = ctx.offer
  return page(
    `Buy ${o.domain}`,
    html`<h1>Buy ${o.domain}</h1>
${
      o.environment === "sandbox" &&
      html`<p class="note" role="note" data-testid="sandbox">Sandbox: a test purchase of sandbox inventory; no real money moves. Pay with the test card 4242 4242 4242 4242.</p>`
    }
<p class="muted label">Domain</p><p class="price">${o.domain}</p>
<dl class="facts">
  <dt>Price</dt><dd><strong data-testid="price">${formatPrice(o.priceCents, o.currency)}</strong></dd>
  <dt>Sold by</dt><dd data-testid="seller">${o.seller}</dd>
</dl>
<p>The next step asks for your details and your card. You are charged only when you pay there.</p>
<form method="post" action="${ctx.action}" data-once>
  <input type="hidden" name="csrf" value="${ctx.csrf}">
  <div class="actions">
    <button class="primary" type="submit">Continue to payment</button>
  </div>
</form>`,
    { width: "narrow", script: script(ctx.nonce) }
  )
}

export interface FormValues {
  readonly email?: string
  readonly name?: string
  readonly country?: string
}

/** The card part of the form (the `card` flow only: the sandbox provider). */
const cardFields = html`<h2>Card</h2>
  <label for="card_number">Card number</label>
  <input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required maxlength="23" placeholder="4242 4242 4242 4242">
  <div class="row">
    <div><label for="card_exp">Expiry (MM/YY)</label>
    <input id="card_exp" name="card_exp" inputmode="numeric" autocomplete="cc-exp" required maxlength="7" placeholder="12/34"></div>
    <div><label for="card_cvc">Security code</label>
    <input id="card_cvc" name="card_cvc" inputmode="numeric" autocomplete="cc-csc" required maxlength="4" placeholder="123"></div>
  </div>`

/** What the payment page says about money that cannot move: sandbox inventory, or the sandbox provider. */
const testPaymentNote = (s: SessionRow, takesCard: boolean): SafeHtml | false =>
  s.environment === "sandbox"
    ? html`<p class="note" role="note" data-testid="test-cards">Sandbox: no real money moves. Test cards: ${TEST_CARDS}.</p>`
    : takesCard &&
      html`<p class="note" role="note" data-testid="test-cards">Test payments: this shop runs the sandbox payment provider, so no real money moves. Test cards: ${TEST_CARDS}; any future expiry and any security code.</p>`

export const checkoutPage = (ctx: {
  readonly session: SessionRow
  readonly seller: string
  readonly pt: string
  readonly csrf: string
  readonly nonce: string
  /** False when the buyer pays on the provider's own page (Stripe Checkout): no card fields here. */
  readonly takesCard: boolean
  readonly error?: string
  readonly values?: FormValues
}) => {
  const s = ctx.session
  const v = ctx.values ?? {}
  return page(
    s.domain ? `Buy ${s.domain}` : "Checkout",
    html`<h1>${s.domain ? `Buy ${s.domain}` : "Checkout"}</h1>
${summary(s, ctx.seller)}
${ctx.error && html`<p class="error" role="alert" id="form-error">${ctx.error}</p>`}
<form method="post" action="/checkout/pay?pt=${encodeURIComponent(ctx.pt)}" data-once novalidate>
  <input type="hidden" name="csrf" value="${ctx.csrf}">
  <h2>Your details</h2>
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${
      v.email ?? s.buyer_email ?? ""
    }">
  <div class="row">
    <div><label for="name">Full name</label>
    <input id="name" name="name" autocomplete="name" required maxlength="200" value="${
      v.name ?? s.buyer_name ?? ""
    }"></div>
    <div><label for="country">Country (2 letters)</label>
    <input id="country" name="country" autocomplete="country" required maxlength="2" pattern="[A-Za-z]{2}" placeholder="US" value="${
      v.country ?? ""
    }"></div>
  </div>
  ${
      ctx.takesCard
        ? cardFields
        : html`<p class="muted">You pay by card on Stripe's secure payment page next; this site never sees your card.</p>`
    }
  ${testPaymentNote(s, ctx.takesCard)}
  <div class="actions">
    <button class="primary" type="submit">${ctx.takesCard ? "Pay" : "Continue to pay"} ${
      formatPrice(s.price_cents, s.currency)
    }</button>
    ${s.cancel_url && html`<a class="button secondary" href="${s.cancel_url}">Cancel</a>`}
  </div>
</form>`,
    { width: "narrow", script: script(ctx.nonce) }
  )
}

export const confirmPage = (
  ctx: {
    readonly session: SessionRow
    readonly seller: string
    readonly pt: string
    readonly csrf: string
    readonly nonce: string
  }
) =>
  page(
    "Confirm your payment",
    html`<h1>Confirm your payment</h1>
${summary(ctx.session, ctx.seller)}
<p>Your bank asks you to confirm this payment of <strong>${
      formatPrice(ctx.session.price_cents, ctx.session.currency)
    }</strong>.</p>
<p class="note">Sandbox: this page stands in for the bank's confirmation step.</p>
<form method="post" action="/checkout/confirm?pt=${encodeURIComponent(ctx.pt)}" data-once>
  <input type="hidden" name="csrf" value="${ctx.csrf}">
  <div class="actions">
    <button class="primary" type="submit" name="action" value="confirm">Confirm payment</button>
    <button class="secondary" type="submit" name="action" value="fail">Fail authentication</button>
  </div>
</form>`,
    { width: "narrow", script: script(ctx.nonce) }
  )

/** When it was paid, in words, with the exact instant for machines. */
const paidAt = (d: Date) => html`<time datetime="${d.toISOString()}" data-testid="paid-at">${timeInWords(d)}</time>`

export const receiptPage = (s: SessionRow, seller: string) =>
  page(
    "Payment received",
    html`<h1>Payment received</h1>
<p class="success" role="status">Thank you${
      s.buyer_name && `, ${s.buyer_name}`
    }. Your payment is complete; you will not be charged again.</p>
${summary(s, seller)}
<dl class="facts">
  <dt>Receipt</dt><dd><code>${s.id}</code></dd>
  ${s.order_id && html`<dt>Order</dt><dd><code>${s.order_id}</code></dd>`}
  ${s.card_last4 && html`<dt>Card</dt><dd>${s.card_brand ?? "card"} ending ${s.card_last4}</dd>`}
  ${s.paid_at && html`<dt>Paid</dt><dd>${paidAt(new Date(s.paid_at))}</dd>`}
  ${s.buyer_email && html`<dt>E-mail</dt><dd>${s.buyer_email}</dd>`}
</dl>
${
      s.domain &&
      html`<p class="muted">What happens next: the domain is transferred to you. Keep this receipt; this link shows it again.</p>`
    }
${
      s.return_url &&
      html`<div class="actions"><a class="button primary" href="${s.return_url}">Back to the seller</a></div>`
    }`,
    { width: "narrow" }
  )

export const messagePage = (
  title: string,
  message: string,
  options: {
    readonly kind?: "error" | "muted"
    readonly retry?: string
    readonly retryLabel?: string
    readonly cancel?: string
  } = {}
) =>
  page(
    title,
    html`<h1>${title}</h1>
<p class="${options.kind === "muted" ? "muted" : "error"}" role="${
      options.kind === "muted" ? "status" : "alert"
    }">${message}</p>
${
      options.retry &&
      html`<div class="actions"><a class="button ${options.cancel ? "primary" : "secondary"}" href="${options.retry}">${
        options.retryLabel ?? "Check again"
      }</a>${options.cancel && html`<a class="button secondary" href="${options.cancel}">Cancel the payment</a>`}</div>`
    }`,
    { width: "narrow" }
  )
