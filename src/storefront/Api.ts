/**
 * The storefront's pages (docs/storefront.md): HTML, same origin, no JavaScript needed.
 *
 *   GET /                 search first: one box (a GET form to /search)
 *   GET /search?q=…       the server-rendered answer for each name (rate limited like the search API)
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt, htmlErrorPages, HtmlPage, rateLimited } from "../platform/ApiAnnotations.js"
import { InternalError } from "../platform/Errors.js"
import { limits as searchLimits } from "../search/Api.js"

/** `q` once (a form submits it once); a repeated `q` uses the first rather than a JSON 400. */
export const SearchParams = Schema.Struct({
  q: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))).annotations({
    description: "A domain name (e.g. example.com); the page also answers its alternates"
  })
})

export class StorefrontPagesApi extends HttpApiGroup.make("storefrontPages")
  .add(
    HttpApiEndpoint.get("home", "/")
      .addSuccess(HtmlPage(200, "The search-first home page"))
      .annotate(
        OpenApi.Description,
        "The search-first home page (HTML): one search box, a GET form to /search; a partner's generic referral link lands here."
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
      .pipe(rateLimited(searchLimits.search), documentedAt("/docs/storefront.md#search"))
  )
  .addError(InternalError)
  .annotate(OpenApi.Title, "Storefront pages")
  .annotate(OpenApi.Description, "The server-rendered storefront: the home page and the search results page")
{}
