/**
 * The storefront's one layout (docs/storefront.md): the shared stylesheet of platform/Html.ts, a
 * site header and footer with the same links on every page, `<main>`, `lang`, and a fresh CSP
 * nonce per answer (carried by the stylesheet; a page's island script would carry it too).
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { randomBytes } from "node:crypto"
import { html, htmlResponse, page, type SafeHtml } from "../platform/Html.js"

/** The links of every storefront page's header. */
const header = html`<header class="site">
<a href="/">Domain Marketplace</a>
<nav aria-label="Main"><a href="/">Search</a><a href="/market">Market</a><a href="/docs/storefront.md">Docs</a></nav>
</header>`

/** The site footer of the storefront pages: where to go next. */
const footer = html`<footer class="site">
<nav aria-label="Site"><a href="/">Search</a><a href="/market">Market</a><a href="/docs/storefront.md">Docs</a><a href="/docs">API</a><a href="/docs/storefront.md#terms">Terms</a><a href="/docs/storefront.md#privacy">Privacy</a><a href="/docs/storefront.md#contact">Contact</a></nav>
<p>Domain Marketplace: search, buy and broker domain names.</p>
</footer>`

/** The whole document of a storefront page with its nonce. */
export const layout = (title: string, body: SafeHtml, nonce: string) =>
  page(title, body.value, { header: header.value, footer: footer.value, nonce })

const newNonce = () => randomBytes(16).toString("base64url")

/** What a page function returns: its title and the body of its `<main>`. */
export interface StorePage {
  readonly title: string
  readonly body: SafeHtml
}

/** A storefront page as an HTML answer: the layout, a fresh nonce, the page headers (CSP with that nonce). */
export const storePage = (
  p: StorePage,
  options: { readonly status?: number } = {}
): HttpServerResponse.HttpServerResponse => {
  const nonce = newNonce()
  return htmlResponse(layout(p.title, p.body, nonce), { status: options.status ?? 200, nonce })
}
