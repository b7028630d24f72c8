/**
 * The storefront's pages (docs/storefront.md): the search-first home page and the server-rendered
 * results of `/search?q=…`, in the one visual language of platform/http/Html.ts. Every page is built
 * with `html` (escapes by default) and works without JavaScript; with it, the search island
 * (client/search.ts) answers as you type into the box, in the `#results` region after it.
 */
import { html, type SafeHtml } from "../platform/http/Html.js"
import type { RowEvent } from "../search/Rows.js"
import type { StorePage } from "./Layout.js"
import { resultRow, waitWords } from "./ResultRows.js"

export { describeRow } from "./ResultRows.js"

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

/** Where the results go: the island replaces what is inside as the search stream answers. */
const resultsRegion = (inside: SafeHtml | "") => html`<div id="results" aria-live="polite">${inside}</div>`

const layout = (title: string, body: SafeHtml): StorePage => ({ title, body })

/** `/`: search first. */
export const homePage = () =>
  layout(
    "Find your domain name",
    html`<h1>Find your domain name</h1>
<p class="muted">Type a name to see whether it is free to register, for sale, or taken, with its price.</p>
${searchForm("", true)}
${resultsRegion("")}`
  )

/** `/search?q=…`: the answer for each name, the queried one first. */
export const resultsPage = (q: string, rows: ReadonlyArray<RowEvent>) =>
  layout(
    `${q.slice(0, ECHO_MAX)}: search results`,
    html`<h1>Results for <span id="results-q">${q.slice(0, ECHO_MAX)}</span></h1>
${searchForm(q, false)}
${resultsRegion(html`<ol class="results" aria-label="Results">${rows.map(resultRow)}</ol>`)}`
  )

/** `/search` with nothing or something that is not a domain name: the box and a friendly word. */
export const searchProblemPage = (q: string, message: string) =>
  layout(
    "Search for a domain name",
    html`<h1>Search for a domain name</h1>
${message === "" ? "" : html`<p class="error" role="alert">${message}</p>`}
${searchForm(q, true)}
${resultsRegion("")}`
  )

/** The search budget is spent: wait, then search again (a 429 with Retry-After). */
export const waitPage = (q: string, retryAfterSeconds: number) =>
  layout(
    "Please wait a moment",
    html`<h1>Please wait a moment</h1>
<p class="error" role="alert">${waitWords(retryAfterSeconds)}</p>
${searchForm(q, false)}`
  )
