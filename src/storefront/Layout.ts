/**
 * The storefront's one layout (docs/storefront.md): the site page of platform/http/Html.ts (the one
 * stylesheet, header and footer with the same links everywhere, `<main>`, `lang`, and a fresh CSP
 * nonce per answer). A page function returns its title and body; the handler answers with it.
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { type SafeHtml, sitePageResponse } from "../platform/http/Html.js"

/** What a page function returns: its title and the body of its `<main>`. */
export interface StorePage {
  readonly title: string
  readonly body: SafeHtml
}

/** A storefront page as an HTML answer with the page headers (CSP with the page's nonce). */
export const storePage = (
  p: StorePage,
  options: {
    readonly status?: number
    /** The `src` of the page's island script (loaded with the page's nonce), if it has one. */
    readonly script?: string | undefined
  } = {}
): HttpServerResponse.HttpServerResponse => sitePageResponse(p.title, p.body, options.status ?? 200, options.script)
