/**
 * The storefront's answer to a caller over its rate limit: the friendly wait page (with the name
 * being searched in its box), not the JSON envelope. The request guard counts the limit before
 * the page's input is decoded (platform/http/RateLimitEdge.ts), so the name is read from the URL.
 */
import { Effect } from "effect"
import { type Refusal, retryAfterOf } from "../platform/http/RateLimitEdge.js"
import { storePage } from "./Layout.js"
import { waitPage } from "./Pages.js"

/** A path segment as the page decodes it (a malformed escape is kept as it came). */
export const decodeSegment = (raw: string) => {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

const urlOf = (url: string) => new URL(url, "http://storefront.invalid")

/** The wait page, its search box holding what `queryOf` reads from the request's URL. */
const waitRefusal = (queryOf: (url: URL) => string): Refusal => (request, error) =>
  Effect.sync(() => storePage(waitPage(queryOf(urlOf(request.url)), retryAfterOf(error)), { status: 429 }))

/** `/search?q=…`: the query searched. */
export const searchRefused = waitRefusal((url) => (url.searchParams.get("q") ?? "").trim())
/** `/d/{domain}`: the name of the page. */
export const domainRefused = waitRefusal((url) => decodeSegment(url.pathname.split("/")[2] ?? ""))
/** Browsing and offers: an empty search box. */
export const waitRefused = waitRefusal(() => "")
