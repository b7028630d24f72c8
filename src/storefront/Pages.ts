/**
 * The storefront's pages (docs/storefront.md): the search-first home page and the server-rendered
 * results of `/search?q=…`, in the one visual language of platform/http/Html.ts. Every page is built
 * with `html` (escapes by default) and works without JavaScript.
 */
import { moneyInWords } from "../domain/TimeWords.js"
import { html, type SafeHtml } from "../platform/http/Html.js"
import type { RowEvent } from "../search/Rows.js"
import type { StorePage } from "./Layout.js"

/** Longest query echoed back into the page (a domain name is at most 253 characters). */
export const ECHO_MAX = 253

export const searchForm = (q: string, autofocus: boolean) =>
  html`<form class="search" method="get" action="/search" role="search">
<input id="q" name="q" type="search" aria-label="Domain name" value="${
    q.slice(0, ECHO_MAX)
  }" placeholder="yourname.com" autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="253" ${
    autofocus ? html`autofocus` : ""
  }>
<button type="submit" class="primary">Search</button>
</form>`

const layout = (title: string, body: SafeHtml): StorePage => ({ title, body })

/** `/`: search first. */
export const homePage = () =>
  layout(
    "Find your domain name",
    html`<h1>Find your domain name</h1>
<p class="muted">Type a name to see whether it is free to register, for sale, or taken, with its price.</p>
${searchForm("", true)}`
  )

const usd = (dollars: number, currency = "USD") => moneyInWords(Math.round(dollars * 100), currency)

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
          status: html`<strong>For sale</strong> · make an offer`,
          next: html`<a href="/d/${encodeURIComponent(row.domain)}#offer">Make an offer on ${domain}</a>`
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
<span class="name"><a href="/d/${encodeURIComponent(row.domain)}">${row.domain_unicode}</a></span>
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
