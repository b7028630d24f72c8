/**
 * The operator console's frame and its small pages (docs/consoles.md#operator-console): the
 * console's nav under the site header, the overview of what waits, refusals, the one small form
 * every row action is, and the `Older →` link of a paged list. Built with `html` (escapes by
 * default) in the storefront's one layout (../storefront/Layout.ts).
 */
import { pathWith } from "../console/Lists.js"
import { html, type SafeHtml } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"

export type Section =
  | "home"
  | "orders"
  | "brokerage"
  | "offers"
  | "deliveries"
  | "carts"
  | "money"
  | "partners"
  | "audit"

const SECTIONS: ReadonlyArray<readonly [Section, string, string]> = [
  ["home", "/ops", "Overview"],
  ["orders", "/ops/orders", "Orders"],
  ["brokerage", "/ops/brokerage", "Brokerage"],
  ["offers", "/ops/offers", "Offers"],
  ["deliveries", "/ops/deliveries", "Deliveries"],
  ["carts", "/ops/carts", "Carts"],
  ["money", "/ops/money", "Money"],
  ["partners", "/ops/partners", "Partners"],
  ["audit", "/ops/audit", "Audit log"]
]

export const problem = (message: string | undefined) =>
  message === undefined ? "" : html`<p class="error" role="alert">${message}</p>`

/** The frame of every console page: who is signed in, the console's nav, the body. */
export const opsPage = (section: Section, title: string, email: string, body: SafeHtml): StorePage => ({
  title: `${title} · Operator console`,
  body: html`<p class="muted">Operator console · signed in as ${email}</p>
<nav aria-label="Operator console" class="actions">${
    SECTIONS.map(([s, path, label]) =>
      html`<a class="${s === section ? "button primary" : "button secondary"}" href="${path}"${
        s === section ? html` aria-current="page"` : ""
      }>${label}</a>`
    )
  }</nav>
${body}`
})

/**
 * One row action: a form posting `fields` and the CSRF token to `action`, with one button whose
 * accessible name says what and on what (`label`), and any visible inputs given in `inputs`.
 */
export const rowForm = (
  action: string,
  csrf: string,
  fields: Readonly<Record<string, string>>,
  button: string,
  label: string,
  inputs: SafeHtml | "" = ""
) =>
  html`<form method="post" action="${action}" class="actions">
<input type="hidden" name="csrf" value="${csrf}">
${Object.entries(fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
${inputs}<button type="submit" class="secondary" aria-label="${label}">${button}</button>
</form>`

/** A labelled text input inside a row form (`id` unique on the page). */
export const rowInput = (
  id: string,
  name: string,
  label: string,
  options: { readonly inputmode?: "numeric"; readonly value?: string } = {}
) =>
  html`<label for="${id}">${label}</label>
<input id="${id}" name="${name}" ${
    options.inputmode === "numeric" ? html`inputmode="numeric" pattern="[0-9]*"` : ""
  } value="${options.value ?? ""}" autocomplete="off">`

/**
 * `Older →`: the next page of a list, newest first, keeping the URL's filters (`params`); nothing
 * on the last page. `cursor` is the list's own (platform/http/PageCursor.ts `pageCursor`).
 */
export const olderLink = <P extends { readonly [K in keyof P]: string | undefined | null }>(
  path: string,
  params: P,
  cursor: string | null,
  fragment = ""
) =>
  cursor === null
    ? ""
    : html`<p><a href="${
      pathWith(path, { ...params, cursor }) + fragment
    }" rel="next">Older <span aria-hidden="true">→</span></a></p>`

/** A list of rows, or a sentence when there are none. */
export const rows = <A>(label: string, items: ReadonlyArray<A>, item: (a: A) => SafeHtml, none: string) =>
  items.length === 0
    ? html`<p>${none}</p>`
    : html`<ol class="results" aria-label="${label}">${items.map(item)}</ol>`

export interface Counts {
  readonly held: number
  readonly toTransfer: number
  readonly cases: number
  readonly offers: number
  readonly failedDeliveries: number
  readonly failedCartItems: number
}

/** `/ops` */
export const homePage = (email: string, c: Counts): StorePage =>
  opsPage(
    "home",
    "Overview",
    email,
    html`<h1>What waits for a person</h1>
<dl class="facts">
<dt><a href="/ops/orders">Held orders</a></dt><dd data-count="held">${c.held}</dd>
<dt><a href="/ops/orders">Orders to transfer</a></dt><dd data-count="to-transfer">${c.toTransfer}</dd>
<dt><a href="/ops/brokerage">Open brokerage cases</a></dt><dd data-count="cases">${c.cases}</dd>
<dt><a href="/ops/offers">Pending offers</a></dt><dd data-count="offers">${c.offers}</dd>
<dt><a href="/ops/deliveries">Failed deliveries</a></dt><dd data-count="failed-deliveries">${c.failedDeliveries}</dd>
<dt><a href="/ops/carts">Failed cart items, refund under way</a></dt><dd data-count="failed-cart-items">${c.failedCartItems}</dd>
</dl>
<p><a href="/ops/money">Money</a>: statements, settlement and payout runs, <a href="/ops/money/verify">ledger verify</a>,
receipts. <a href="/ops/partners">Partners</a>. Every action here is in the <a href="/ops/audit">audit log</a> under your e-mail.</p>`
  )

/** A refusal (403 not an operator or a stale form, 404, 409, 400 with the reason). */
export const refusalPage = (title: string, message: string, back: string): StorePage => ({
  title,
  body: html`<h1>${title}</h1>
${problem(message)}
<p><a href="${back}">Back</a></p>`
})
