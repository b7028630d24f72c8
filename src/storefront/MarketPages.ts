/**
 * The storefront's market pages (docs/storefront.md): `/market` (listings with the API's filters,
 * sorts and cursor paging, in shareable URLs), `/d/{domain}` (one name), the for-sale lander of a
 * listed domain's own host, and the offer form's answers. Pages show the buy-now price (public on
 * /buy) and never the floor price.
 */
import type { TldMetadata } from "../catalogue/TldMetadata.js"
import { LISTING_SORTS, type ListingSort } from "../domain/ListingOrder.js"
import { moneyInWords, timeInWords } from "../domain/TimeWords.js"
import type { ListingRow } from "../market/Market.js"
import { html, type SafeHtml } from "../platform/http/Html.js"
import type { RowEvent } from "../search/Rows.js"
import type { StorePage } from "./Layout.js"
import { describeRow, ECHO_MAX } from "./Pages.js"

const SORT_WORDS: Readonly<Record<ListingSort, string>> = {
  newest: "Newest first",
  price_asc: "Price, low to high",
  price_desc: "Price, high to low"
}

export interface MarketQuery {
  readonly q: string
  readonly tld: string
  readonly sort: ListingSort
}

/** The shareable URL of a market page: only the parameters that differ from the defaults. */
export const marketUrl = (query: MarketQuery, cursor?: string) => {
  const params = new URLSearchParams()
  if (query.q !== "") params.set("q", query.q)
  if (query.tld !== "") params.set("tld", query.tld)
  if (query.sort !== "newest") params.set("sort", query.sort)
  if (cursor !== undefined) params.set("cursor", cursor)
  const s = params.toString()
  return s === "" ? "/market" : `/market?${s}`
}

const domainPath = (domain: string) => `/d/${encodeURIComponent(domain)}`

const filtersForm = (query: MarketQuery) =>
  html`<form class="filters" method="get" action="/market" role="search" aria-label="Filter listings">
<div><label for="mq">Name contains</label><input id="mq" name="q" type="search" value="${
    query.q.slice(0, ECHO_MAX)
  }" maxlength="253" autocomplete="off"></div>
<div><label for="mtld">Extension</label><input id="mtld" name="tld" value="${
    query.tld.slice(0, 63)
  }" placeholder="com" maxlength="63" autocomplete="off"></div>
<div><label for="msort">Sort</label><select id="msort" name="sort">${
    LISTING_SORTS.map((s) =>
      html`<option value="${s}"${query.sort === s ? html` selected` : ""}>${SORT_WORDS[s]}</option>`
    )
  }</select></div>
<div><button type="submit" class="primary">Show</button></div>
</form>`

const priceOf = (l: ListingRow) =>
  l.bin_price_cents === null
    ? html`Make an offer`
    : html`Buy now ${moneyInWords(l.bin_price_cents, l.currency)}`

const listingItem = (l: ListingRow) =>
  html`<li data-domain="${l.domain}">
<span class="name"><a href="${domainPath(l.domain)}">${l.domain_unicode}</a></span>
<span class="status"><strong>${priceOf(l)}</strong></span>
<span class="next muted">Listed ${timeInWords(l.listed_at)}${l.status === "pending" ? " · sale in progress" : ""}</span>
</li>`

/** `/market`: one page of listings, the filters, and the next page's link. */
export const marketPage = (
  query: MarketQuery,
  rows: ReadonlyArray<ListingRow>,
  page: { readonly total: number; readonly next_cursor: string | null },
  first: boolean
): StorePage => ({
  title: "Domains for sale",
  body: html`<h1>Domains for sale</h1>
${filtersForm(query)}
<p class="muted" role="status">${page.total} ${page.total === 1 ? "name" : "names"} ${
    query.q !== "" || query.tld !== "" ? "match" : "listed"
  }.</p>
${
    rows.length === 0
      ? html`<p>No listing matches. <a href="/market">See every listing</a> or <a href="/">search for a name</a>.</p>`
      : html`<ol class="results" aria-label="Listings">${rows.map(listingItem)}</ol>`
  }
<nav class="pages" aria-label="Pages">${
    first ? html`<span></span>` : html`<a href="${marketUrl(query)}">First page</a>`
  }${
    page.next_cursor === null ? "" : html`<a href="${marketUrl(query, page.next_cursor)}" rel="next">Next page</a>`
  }</nav>`
})

/** `/market` with a filter or cursor it cannot use: the form and a friendly word (400). */
export const marketProblemPage = (query: MarketQuery, message: string): StorePage => ({
  title: "Domains for sale",
  body: html`<h1>Domains for sale</h1>
<p class="error" role="alert">${message}</p>
${filtersForm(query)}
<p><a href="/market">See every listing</a></p>`
})

export interface OfferFormInput {
  readonly domain: string
  readonly csrf: string
  /** Absolute on a lander (its host is the listed domain, not this service). */
  readonly action: string
  readonly amount?: string
  readonly email?: string
  readonly currency: string
}

/** The offer form: an amount and an e-mail; the seller answers by e-mail. */
export const offerForm = (f: OfferFormInput) =>
  html`<form method="post" action="${f.action}" id="offer" aria-labelledby="offer-title">
<h2 id="offer-title">Make an offer</h2>
<input type="hidden" name="csrf" value="${f.csrf}">
<div class="row">
<div><label for="amount">Your offer (${f.currency})</label><input id="amount" name="amount" inputmode="decimal" required maxlength="16" placeholder="1500" value="${
    f.amount ?? ""
  }"></div>
<div><label for="email">Your e-mail</label><input id="email" name="email" type="email" required maxlength="254" autocomplete="email" value="${
    f.email ?? ""
  }"></div>
</div>
<p class="muted">The seller answers by e-mail; an accepted offer comes with a link to pay.</p>
<div class="actions"><button type="submit" class="primary">Send offer</button></div>
</form>`

export interface DomainView {
  readonly primary: RowEvent
  readonly alternates: ReadonlyArray<RowEvent>
  readonly listing: ListingRow | null
  readonly registerCents: number | null
  readonly tld: string
  readonly metadata: TldMetadata | null
  readonly offer: OfferFormInput | null
}

const requirements = (m: TldMetadata) =>
  html`<dl class="facts">
<dt>Registration</dt><dd>${
    m.minYears === m.maxYears ? `${m.minYears} year` : `${m.minYears} to ${m.maxYears} years`
  }</dd>
<dt>Owner</dt><dd>${m.organizationRequired ? "An organisation" : "A person or an organisation"}</dd>
${m.allowedCountries.length > 0 ? html`<dt>Countries</dt><dd>${m.allowedCountries.join(", ")}</dd>` : ""}
<dt>Nameservers</dt><dd>${m.nameserversRequired ? `At least ${m.minNameservers}` : "Optional"}</dd>
</dl>`

const alternateItem = (row: RowEvent) => {
  const { status } = describeRow(row)
  return html`<li data-state="${row.state}" data-domain="${row.domain}">
<span class="name"><a href="${domainPath(row.domain)}">${row.domain_unicode}</a></span>
<span class="status">${status}</span>
</li>`
}

/** `/d/{domain}`: the name's status, listing and price, registration price, alternatives. */
export const domainPage = (v: DomainView): StorePage => {
  const { next, status } = describeRow(v.primary)
  const l = v.listing
  return {
    title: `${v.primary.domain_unicode}`,
    body: html`<h1>${v.primary.domain_unicode}</h1>
<p class="status" data-state="${v.primary.state}">${status}</p>
<p>${next}</p>
${
      l === null ? "" : html`<h2>For sale</h2>
<dl class="facts">
<dt>Buy now</dt><dd>${
        l.bin_price_cents === null ? "No fixed price: make an offer" : moneyInWords(l.bin_price_cents, l.currency)
      }</dd>
<dt>Listed</dt><dd>${timeInWords(l.listed_at)}</dd>
${l.description === null ? "" : html`<dt>About</dt><dd>${l.description}</dd>`}
</dl>
${
        l.status !== "active" ?
          html`<p class="muted">A sale is in progress.</p>` :
          l.bin_price_cents === null ?
          "" :
          html`<div class="actions"><a class="button primary" href="/buy/${
            encodeURIComponent(l.domain)
          }">Buy ${l.domain_unicode} now</a></div>`
      }`
    }
${v.offer === null ? "" : offerForm(v.offer)}
<h2>Registration</h2>
<p>${
      v.registerCents === null
        ? html`We do not register .${v.tld} names.`
        : html`A .${v.tld} name costs ${moneyInWords(v.registerCents, "USD")} for the first year to register.`
    }</p>
${v.metadata === null ? "" : requirements(v.metadata)}
${
      v.alternates.length === 0 ? "" : html`<h2>Alternatives</h2>
<ol class="results" aria-label="Alternatives">${v.alternates.map(alternateItem)}</ol>`
    }`
  }
}

/** `/d/{x}` where x is not a domain name: a 404 page with the search box. */
export const notADomainPage = (raw: string): StorePage => ({
  title: "Not a domain name",
  body: html`<h1>Not a domain name</h1>
<p class="error" role="alert">“${raw.slice(0, ECHO_MAX)}” is not a domain name we can show.</p>
<form class="search" method="get" action="/search" role="search">
<input id="q" name="q" type="search" aria-label="Domain name" placeholder="yourname.com" maxlength="253">
<button type="submit" class="primary">Search</button>
</form>`
})

/** The for-sale page a listed domain shows at its own `/` (its DNS points at this service). */
export const landerPage = (l: ListingRow, baseUrl: string, offer: OfferFormInput): StorePage => ({
  title: `${l.domain_unicode} is for sale`,
  body: html`<h1>${l.domain_unicode} is for sale</h1>
${
    l.bin_price_cents === null
      ? html`<p>The owner takes offers for this name.</p>`
      : html`<p class="price">${moneyInWords(l.bin_price_cents, l.currency)}</p>
${
        l.status === "active"
          ? html`<div class="actions"><a class="button primary" href="${baseUrl}/buy/${
            encodeURIComponent(l.domain)
          }">Buy ${l.domain_unicode} now</a></div>`
          : html`<p class="muted">A sale is in progress.</p>`
      }`
  }
${l.description === null ? "" : html`<p>${l.description}</p>`}
${offerForm(offer)}
<p class="muted">Listed ${timeInWords(l.listed_at)} on <a href="${baseUrl}/d/${
    encodeURIComponent(l.domain)
  }">Domain Marketplace</a>.</p>`
})

/** The offer form's answer: received (201), with what the buyer offered and what happens next. */
export const offerReceivedPage = (o: {
  readonly id: string
  readonly domain: string
  readonly amountCents: number
  readonly currency: string
  readonly email: string
}): StorePage => ({
  title: "Offer sent",
  body: html`<h1>Offer sent</h1>
<p class="success" role="status">Your offer of ${
    moneyInWords(o.amountCents, o.currency)
  } on ${o.domain} was sent to the seller.</p>
<dl class="facts"><dt>Offer</dt><dd><code>${o.id}</code></dd><dt>Status</dt><dd>Pending</dd><dt>Answer to</dt><dd>${o.email}</dd></dl>
<p>The seller answers by e-mail; an accepted offer comes with a link to pay.</p>
<p><a href="/market">Browse more names</a></p>`
})

/** The offer form with a problem (bad amount or e-mail, stale form): the form again, filled in. */
export const offerProblemPage = (domain: string, message: string, form: OfferFormInput | null): StorePage => ({
  title: `Offer on ${domain}`,
  body: html`<h1>Offer on ${domain}</h1>
<p class="error" role="alert">${message}</p>
${
    form === null
      ? html`<p><a href="/d/${encodeURIComponent(domain)}">Open the page of ${domain}</a></p>`
      : offerForm(form)
  }`
})

export type { SafeHtml }
