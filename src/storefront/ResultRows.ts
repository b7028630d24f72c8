/**
 * How a search row reads (pure): its status, its next action and its `<li>` on the results list,
 * and the words of the wait after too many searches. The server-rendered `/search` page and the
 * browser island (client/search.ts) both render rows with these functions, so a name reads the
 * same whether the page or the island showed it. No Node or Effect import: it is bundled into the
 * island.
 */
import { moneyInWords } from "../domain/TimeWords.js"
import { html, type SafeHtml } from "../platform/http/SafeHtml.js"
import type { RowEvent } from "../search/Rows.js"

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

/** One name on the results list. */
export const resultRow = (row: RowEvent) => {
  const { next, status } = describeRow(row)
  return html`<li data-state="${row.state}" data-domain="${row.domain}">
<span class="name"><a href="/d/${encodeURIComponent(row.domain)}">${row.domain_unicode}</a></span>
<span class="status">${status}</span>
<span class="next">${next}</span>
</li>`
}

/** The search budget is spent: when to try again. */
export const waitWords = (retryAfterSeconds: number) =>
  `You have searched a lot in a short time. Try again in ${retryAfterSeconds} ${
    retryAfterSeconds === 1 ? "second" : "seconds"
  }.`
