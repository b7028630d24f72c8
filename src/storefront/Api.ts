/**
 * The storefront's pages (docs/storefront.md): HTML, same origin, no JavaScript needed.
 *
 *   GET /                 search first: one box (a GET form to /search)
 *   GET /search?q=…       the server-rendered answer for each name (rate limited like the search API)
 *   GET /search/stream?q=…   the search stream of the pages' as-you-type search (NDJSON, the pages' prices)
 *   GET /market?q&tld&sort&cursor   the listings, filtered, sorted and paged (shareable URLs)
 *   GET /d/{domain}       one name: status, listing and price, registration price, alternatives
 *   POST /d/{domain}/offer   the offer form (CSRF token; the same Offers service as the API)
 *   GET /terms, /privacy, /contact   the footer's information pages
 *   GET /assets/{file}    the search island's script (content-hashed name, cached for a year)
 *
 * A request whose Host is a listed domain gets that domain's for-sale lander at `/`.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { limits as marketLimits } from "../market/Api.js"
import { limits as offerLimits } from "../offers/Api.js"
import { documentedAt, htmlErrorPages, HtmlPage, rateLimited } from "../platform/http/ApiAnnotations.js"
import { InvalidDomain } from "../platform/http/DomainInput.js"
import { BadRequest, errorWire, InternalError, NotFound, RateLimited } from "../platform/http/Errors.js"
import { limits as searchLimits, NDJSON_DESCRIPTION, withItemSchema } from "../search/Api.js"
import { domainRefused, searchRefused, waitRefused } from "./Refusals.js"

/** `q` once (a form submits it once); a repeated `q` uses the first rather than a JSON 400. */
export const SearchParams = Schema.Struct({
  q: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))).annotations({
    description: "A domain name (e.g. example.com); the page also answers its alternates"
  })
})

/** Every parameter is read leniently: a page answers a friendly 400, never a JSON one. */
export const MarketParams = Schema.Struct({
  q: Schema.optional(Schema.String).annotations({ description: "Substring of the domain" }),
  tld: Schema.optional(Schema.String).annotations({ description: "Only this extension, e.g. com or co.uk" }),
  sort: Schema.optional(Schema.String).annotations({ description: "newest (default) | price_asc | price_desc" }),
  cursor: Schema.optional(Schema.String).annotations({ description: "The page's `Next page` link carries it" })
})

export const OfferForm = Schema.Struct({
  amount: Schema.optional(Schema.String),
  email: Schema.optional(Schema.String),
  csrf: Schema.optional(Schema.String)
}).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

const AssetFile = HttpApiSchema.param("file", Schema.String.annotations({ description: "search.<hash>.js" }))

const DomainSegment = HttpApiSchema.param("domain", Schema.String.annotations({ description: "A domain name" }))

/** An information page of the footer (terms, privacy, contact): plain HTML, no input. */
const infoPage = <const Name extends string, const Path extends `/${string}`>(
  name: Name,
  path: Path,
  summary: string,
  anchor: string
) =>
  HttpApiEndpoint.get(name, path)
    .addSuccess(HtmlPage(200, summary))
    .annotate(OpenApi.Summary, `${summary} (HTML page)`)
    .annotate(
      OpenApi.Description,
      "A page of the site footer, in the site layout (HTML); the operators' address is CONTACT_EMAIL."
    )
    .pipe(documentedAt(`/docs/storefront.md#${anchor}`))

export class StorefrontPagesApi extends HttpApiGroup.make("storefrontPages")
  .add(
    HttpApiEndpoint.get("home", "/")
      .addSuccess(HtmlPage(200, "The search-first home page, or, on a listed domain's own host, its for-sale lander"))
      .annotate(
        OpenApi.Description,
        "The search-first home page (HTML): one search box, a GET form to /search; a partner's generic referral link lands here. On a listed domain's own host (a lander), that name's for-sale page."
      )
      .annotate(OpenApi.Summary, "Home page: search for a domain name")
      .pipe(documentedAt("/docs/storefront.md#home"))
  )
  .add(
    HttpApiEndpoint.get("searchPage", "/search")
      .setUrlParams(SearchParams)
      .addSuccess(HtmlPage(200, "Each name's status and next action; with no `q`, the search box"))
      .addError(HtmlPage(400, "`q` is not a domain name: the search box with a friendly message"))
      .addError(HtmlPage(429, "Searching too fast: a wait page (RateLimit-* and Retry-After headers)"))
      .annotateContext(htmlErrorPages("`q` is not a domain name: the search box with a friendly message (HTML)"))
      .annotate(OpenApi.Summary, "Search results page (server-rendered)")
      .annotate(
        OpenApi.Description,
        "The same answers as POST /api/domain/search, as one HTML page; counts against the same `domain_search` limit."
      )
      .pipe(rateLimited(searchLimits.search, { refusal: searchRefused }), documentedAt("/docs/storefront.md#search"))
  )
  .add(
    HttpApiEndpoint.get("searchStream", "/search/stream")
      .setUrlParams(Schema.Struct({
        q: Schema.String.annotations({ description: "A domain name, as typed", examples: ["yourname.com"] })
      }))
      .addSuccess(
        HttpApiSchema.Text({ contentType: "application/x-ndjson" }).annotations({ description: NDJSON_DESCRIPTION })
      )
      .annotate(OpenApi.Transform, withItemSchema)
      .addError(errorWire(InvalidDomain))
      .addError(RateLimited)
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "The search stream of the storefront's pages (NDJSON)")
      .annotate(
        OpenApi.Description,
        "The lines of POST /api/domain/search, with the prices the storefront's pages show: a listed name's buy-now " +
          "price (as on /search and /buy), never its floor. The pages' as-you-type search reads it; counts against " +
          "the same `domain_search` limit. API callers use POST /api/domain/search."
      )
      .pipe(rateLimited(searchLimits.search), documentedAt("/docs/storefront.md#search"))
  )
  .add(
    HttpApiEndpoint.get("marketPage", "/market")
      .setUrlParams(MarketParams)
      .addSuccess(HtmlPage(200, "One page of listings with the filters and a `Next page` link"))
      .addError(HtmlPage(400, "A filter, sort or cursor the page cannot use: the form with a friendly message"))
      .addError(HtmlPage(429, "Browsing too fast: a wait page (Retry-After)"))
      .annotateContext(htmlErrorPages("A filter, sort or cursor the page cannot use (HTML)"))
      .annotate(OpenApi.Summary, "Browse the listings (server-rendered)")
      .annotate(
        OpenApi.Description,
        "The listings of GET /api/market/listings as a page; counts against the same `market_listings` limit."
      )
      .pipe(rateLimited(marketLimits.listings, { refusal: waitRefused }), documentedAt("/docs/storefront.md#market"))
  )
  .add(
    HttpApiEndpoint.get("domainPage")`/d/${DomainSegment}`
      .addSuccess(HtmlPage(200, "The name's status, listing, prices, TLD requirements and alternatives"))
      .addError(HtmlPage(404, "Not a domain name"))
      .addError(HtmlPage(429, "Searching too fast: a wait page (Retry-After)"))
      .annotate(OpenApi.Summary, "One domain name's page (server-rendered)")
      .annotate(OpenApi.Description, "Counts against the `domain_search` limit, like the search it runs.")
      .pipe(rateLimited(searchLimits.search, { refusal: domainRefused }), documentedAt("/docs/storefront.md#domain"))
  )
  .add(
    HttpApiEndpoint.post("offerForm")`/d/${DomainSegment}/offer`
      .setPayload(OfferForm)
      .addSuccess(HtmlPage(201, "Offer sent: what was offered and what happens next"))
      .addError(HtmlPage(400, "A bad amount or e-mail: the form again with a message"))
      .addError(HtmlPage(403, "A missing or stale form token"))
      .addError(HtmlPage(404, "Not listed, or not a domain name"))
      .addError(HtmlPage(429, "Too many offers: a wait page (Retry-After)"))
      .annotateContext(htmlErrorPages("A bad amount or e-mail (HTML)"))
      .annotate(OpenApi.Summary, "The offer form of a domain's page and lander")
      .annotate(OpenApi.Description, "The same offer as POST /api/market/offers, counted against `market_offers`.")
      .pipe(rateLimited(offerLimits.offers, { refusal: waitRefused }), documentedAt("/docs/storefront.md#offers"))
  )
  .add(infoPage("termsPage", "/terms", "Terms of sale", "terms"))
  .add(infoPage("privacyPage", "/privacy", "Privacy notice: what is kept and why", "privacy"))
  .add(infoPage("contactPage", "/contact", "How to reach the operators", "contact"))
  .add(
    HttpApiEndpoint.get("asset")`/assets/${AssetFile}`
      .addSuccess(
        HttpApiSchema.Text({ contentType: "text/javascript" }).annotations({
          description: "The script; `cache-control: public, max-age=31536000, immutable` (its name changes with it)"
        })
      )
      .addError(NotFound)
      .annotate(OpenApi.Summary, "The storefront's search island script")
      .annotate(
        OpenApi.Description,
        "The as-you-type search of the home and results pages; the pages name the current file."
      )
      .pipe(documentedAt("/docs/storefront.md#search"))
  )
  .addError(InternalError)
  .annotate(OpenApi.Title, "Storefront pages")
  .annotate(OpenApi.Description, "The server-rendered storefront: the home page and the search results page")
{}
