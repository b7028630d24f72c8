/**
 * The storefront's pages (docs/storefront.md): the search-first home page and the server-rendered
 * results of `/search?q=…`, in the one visual language of platform/Html.ts. Every page is built
 * with `html` (escapes by default) and works without JavaScript.
 */
import { formatPrice } from "../checkout/Pages.js"
import { html, page, type SafeHtml } from "../platform/Html.js"
import type { RowEvent } from "../search/Rows.js"

/** Longest query echoed back into the page (a domain name is at most 253 characters). */
const ECHO_MAX = 253

/** The site footer of the storefront pages: where to go next. */
const footer = html`<footer class="site">
<nav aria-label="Site"><a href="/">Search</a> · <a href="/docs/storefront.md">Docs</a> · <a href="/docs">API</a></nav>
<p>Domain Marketplace: search, buy and broker domain names.</p>
</footer>`

/** Styles of the storefront pages only (the shared stylesheet's tokens, nothing new). */
const STOREFRONT_STYLE = html`<style>
footer.site { max-width: 34rem; margin: 0 auto 2rem; padding: 0 1rem; color: var(--muted); font-size: .9rem; }
footer.site a { color: inherit; }
form.search { display: flex; gap: .5rem; margin: 0 0 1rem; }
form.search input { flex: 1; min-width: 0; }
ol.results { list-style: none; padding: 0; margin: 1rem 0 0; }
ol.results li { display: flex; flex-wrap: wrap; align-items: baseline; gap: .25rem .75rem; padding: .75rem 0; border-top: 1px solid var(--line); }
ol.results .name { font-weight: 700; flex: 1 1 12rem; overflow-wrap: anywhere; }
ol.results .status { font-size: .9rem; }
ol.results .next { flex: 1 1 100%; font-size: .9rem; }
a { color: var(--accent); }
@media (prefers-color-scheme: dark) { a { color: #9db8ff; } }
</style>`

const searchForm = (q: string, autofocus: boolean) =>
  html`<form class="search" method="get" action="/search" role="search">
<input id="q" name="q" type="search" aria-label="Domain name" value="${
    q.slice(0, ECHO_MAX)
  }" placeholder="yourname.com" autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="253" ${
    autofocus ? html`autofocus` : ""
  }>
<button type="submit" class="primary">Search</button>
</form>`

const layout = (title: string, body: SafeHtml) =>
  page(title, html`${STOREFRONT_STYLE}${body}`.value, { footer: footer.value })

/** `/`: search first. */
export const homePage = () =>
  layout(
    "Find your domain name",
    html`<h1>Find your domain name</h1>
<p class="muted">Type a name to see whether it is free to register, for sale, or taken, with its price.</p>
${searchForm("", true)}`
  )

const usd = (dollars: number, currency = "USD") => formatPrice(Math.round(dollars * 100), currency)

/** One row's status (what it is) and next action (what to do), in words. */
export const describeRow = (row: RowEvent): { readonly status: SafeHtml; readonly next: SafeHtml } => {
  const domain = row.domain_unicode
  switch (row.state) {
    case "available":
      return {
        status: html`<strong>Available</strong>${
          typeof row.price === "number" ? html` · ${usd(row.price)} first year` : ""
        }`,
        next: html`Register it through one of our partner registrars.`
      }
    case "premium":
      return {
        status: html`<strong>Premium</strong>${
          typeof row.price === "number" ? html` · ${usd(row.price)} first year` : ""
        }`,
        next: html`A premium name set by the registry: register it through a partner registrar.`
      }
    case "for_sale": {
      const bin = row.listing?.bin_price ?? null
      return bin !== null
        ? {
          status: html`<strong>For sale</strong> · buy now ${usd(bin, row.listing?.currency ?? "USD")}`,
          next: html`<a href="/buy/${encodeURIComponent(row.domain)}">Buy ${domain} now</a>`
        }
        : {
          status: html`<strong>For sale</strong> · price on request`,
          next: html`Ask our <a href="/docs/brokerage.md">brokers</a> to make an offer.`
        }
    }
    case "registered":
      return {
        status: html`<strong>Registered</strong>`,
        next: html`Someone owns it: our <a href="/docs/brokerage.md">brokers</a> can ask whether they would sell.`
      }
    case "reserved":
      return {
        status: html`<strong>${row.state_label}</strong>`,
        next: html`The registry keeps this name: it cannot be registered.`
      }
    case "unsupported":
      return {
        status: html`<strong>Not supported</strong>`,
        next: html`We do not sell this extension yet: try another.`
      }
    case "invalid":
      return { status: html`<strong>Invalid name</strong>`, next: html`Check the spelling.` }
    case "unknown":
      return {
        status: html`<strong>Unknown</strong>`,
        next: html`We could not check it just now: <a href="/search?q=${encodeURIComponent(row.domain)}">try again</a>.`
      }
  }
}

const resultRow = (row: RowEvent) => {
  const { next, status } = describeRow(row)
  return html`<li data-state="${row.state}" data-domain="${row.domain}">
<span class="name">${row.domain_unicode}</span>
<span class="status">${status}</span>
<span class="next">${next}</span>
</li>`
}

/** `/search?q=…`: the answer for each name, the queried one first. */
export const resultsPage = (q: string, rows: ReadonlyArray<RowEvent>) =>
  layout(
    `${q.slice(0, ECHO_MAX)}: search results`,
    html`<h1>Results for ${q.slice(0, ECHO_MAX)}</h1>
${searchForm(q, false)}
<ol class="results" aria-label="Results">${rows.map(resultRow)}</ol>`
  )

/** `/search` with nothing or something that is not a domain name: the box and a friendly word. */
export const searchProblemPage = (q: string, message: string) =>
  layout(
    "Search for a domain name",
    html`<h1>Search for a domain name</h1>
${message === "" ? "" : html`<p class="error" role="alert">${message}</p>`}
${searchForm(q, true)}`
  )

/** The search budget is spent: wait, then search again (a 429 with Retry-After). */
export const waitPage = (q: string, retryAfterSeconds: number) =>
  layout(
    "Please wait a moment",
    html`<h1>Please wait a moment</h1>
<p class="error" role="alert">You have searched a lot in a short time. Try again in ${retryAfterSeconds} ${
      retryAfterSeconds === 1 ? "second" : "seconds"
    }.</p>
${searchForm(q, false)}`
  )
