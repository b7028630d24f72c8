/**
 * The one visual language of every HTML page the service serves (OAuth sign-in and consent,
 * hosted checkout, the buy page, receipts, brokerage progress, referral and error pages).
 *
 * Pages are server-rendered, self-contained (inline CSS, no third-party assets), work without
 * JavaScript and stay within `pageCsp`. Every page has the same frame: the site header (name,
 * logo, main links), one `<main>`, the site footer (every link, Terms, Privacy and Contact
 * included) and the one stylesheet of ./PageStyle.ts. A page that needs a script sets `script` and
 * the layout adds it inline with the nonce given (the CSP then allows that nonce only), or
 * `scriptSrc`: a script file of this service, loaded with the page's nonce (the CSP then also
 * allows fetches to the page's own origin).
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { STYLE } from "./PageStyle.js"
import { html, SafeHtml } from "./SafeHtml.js"

export { html, SafeHtml } from "./SafeHtml.js"

/**
 * The Content-Security-Policy of every HTML page (a nonce admits one inline script). No
 * `form-action`: browsers apply it to the redirect after a post, and our forms end by redirecting
 * to the client's own return URL.
 */
export const pageCsp = (nonce?: string, options: { readonly connectSelf?: boolean } = {}) =>
  [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    nonce ? `script-src 'nonce-${nonce}'` : "script-src 'none'",
    // A page with a script file (the storefront's search island) fetches from its own origin only.
    ...(options.connectSelf ? ["connect-src 'self'"] : []),
    "img-src 'self' data:",
    "frame-ancestors 'none'",
    "base-uri 'none'"
  ].join("; ")

export interface PageOptions {
  /** `narrow` for short forms (sign-in, consent, checkout, errors). */
  readonly width?: "normal" | "narrow"
  /** One inline script (progressive enhancement only: the page works without it). */
  readonly script?: { readonly nonce: string; readonly source: string }
  /** The page's CSP nonce, carried by its stylesheet (the storefront pages always have one). */
  readonly nonce?: string
  /** A script file of this service (progressive enhancement), loaded with `nonce`. */
  readonly scriptSrc?: string
}

/** The mark beside the name: a globe on the accent square (decorative; the name is the link's text). */
const LOGO = `<svg class="logo" viewBox="0 0 32 32" aria-hidden="true" focusable="false">` +
  `<rect class="mark" width="32" height="32" rx="8"/>` +
  `<g class="globe"><circle cx="16" cy="16" r="9"/><ellipse cx="16" cy="16" rx="4" ry="9"/><path d="M7 16h18"/></g></svg>`

/** The links of the header (where to go) and of the footer (every page of the site). */
const MAIN_LINKS = [
  ["/", "Search"],
  ["/market", "Market"],
  ["/docs/storefront.md", "Docs"],
  // A reader without a session sees "Sign in" here instead (`sitePages` below).
  ["/account", "Account"]
] as const
const SITE_LINKS = [
  ...MAIN_LINKS,
  ["/docs", "API"],
  ["/terms", "Terms"],
  ["/privacy", "Privacy"],
  ["/contact", "Contact"]
] as const

const links = (list: ReadonlyArray<readonly [string, string]>) =>
  list.map(([href, text]) => `<a href="${href}">${text}</a>`).join("")

/** The site header of every page: the name with its logo, and the main links. */
export const SITE_HEADER = `<header class="site"><div class="bar">
<a class="brand" href="/">${LOGO}<span>Domain Marketplace</span></a>
<nav aria-label="Main">${links(MAIN_LINKS)}</nav>
</div></header>`

/** The site footer of every page: every link of the site, Terms, Privacy and Contact included. */
export const SITE_FOOTER = `<footer class="site"><div class="bar">
<nav aria-label="Site">${links(SITE_LINKS)}</nav>
<p>Domain Marketplace: search, buy and broker domain names. Payments go through our payment provider.</p>
</div></footer>`

/** Markup of this module's own (the stylesheet, the header and footer, an inline script's source). */
const trusted = (markup: string) => new SafeHtml(markup)

/** The full document of a page: same header, footer, type and stylesheet everywhere. */
export const page = (title: string, body: SafeHtml, options: PageOptions = {}): string =>
  html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · Domain Marketplace</title>
<style${options.nonce && html` nonce="${options.nonce}"`}>${trusted(STYLE)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${trusted(SITE_HEADER)}
<main id="main"${options.width === "narrow" && html` class="narrow"`}>
${body}
</main>
${trusted(SITE_FOOTER)}
${options.script && html`<script nonce="${options.script.nonce}">${trusted(options.script.source)}</script>`}${
    options.scriptSrc && options.nonce &&
    html`<script nonce="${options.nonce}" src="${options.scriptSrc}" defer></script>`
  }
</body>
</html>`.value

/** A form post's 303 See Other, never cached (the checkout's and the signed-in pages' redirects). */
export const seeOther = (location: string) =>
  HttpServerResponse.redirect(location, { status: 303, headers: { "cache-control": "no-store" } })

/** An HTML answer with the page headers (CSP, no-store, no framing, no sniffing). */
export const htmlResponse = (
  html: string,
  options: { readonly status?: number; readonly nonce?: string; readonly connectSelf?: boolean } = {}
) =>
  HttpServerResponse.text(html, {
    status: options.status ?? 200,
    contentType: "text/html; charset=utf-8",
    headers: {
      "content-security-policy": pageCsp(options.nonce, { connectSelf: options.connectSelf ?? false }),
      "cache-control": "no-store",
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin"
    }
  })

/** A whole error page (410 expired link, 400 tampered link, 404 unknown code…). */
export const errorPageHtml = (title: string, message: string, hint?: string) =>
  page(
    title,
    html`<h1>${title}</h1>
<p class="error" role="alert">${message}</p>
${hint && html`<p class="muted">${hint}</p>`}`,
    { width: "narrow" }
  )

/**
 * TEST_MODE=true (src/platform/Deployment.ts): every HTML answer — pages, receipts, error pages,
 * whichever capability renders them — carries this banner first thing in its body, so nobody
 * mistakes a test deployment for the real shop. Inline colours: it shows on pages without STYLE.
 */
export const TEST_MODE_BANNER = `<div class="test-mode" role="region" aria-label="Test mode" ` +
  `style="background:#ffd84d;color:#1a1400;text-align:center;font:600 15px/1.4 system-ui,sans-serif;padding:.5rem 1rem">` +
  `Test mode: this is a test deployment. Payments are simulated and nothing sold here is real.</div>`

/** `html` with the test-mode banner right after its `<body>` tag (unchanged without one). */
export const withTestModeBanner = (html: string) => html.replace(/<body[^>]*>/i, (tag) => `${tag}\n${TEST_MODE_BANNER}`)

/** The header's account link, and what a reader without a session cookie sees in its place. */
const ACCOUNT_LINK = `<a href="/account">Account</a>`
const SIGN_IN_LINK = `<a href="/signin">Sign in</a>`

const decoder = new TextDecoder()

/**
 * What every HTML answer gets from the request, whichever capability rendered it (src/app/Server.ts
 * wraps the app in it): the header's "Account" becomes "Sign in" for a reader without
 * `sessionCookie` (its presence only: a stale cookie still sees "Account", and /account then asks
 * them to sign in), and with `testMode` the test-mode banner. A pre-response handler, since the
 * server middleware runs after the response is chosen; pages themselves stay pure functions.
 */
export const sitePages = (options: { readonly testMode: boolean; readonly sessionCookie: string }) => {
  const decorate: HttpApp.PreResponseHandler = (request, response) => {
    const body = response.body
    if (body._tag !== "Uint8Array" || !body.contentType.toLowerCase().startsWith("text/html")) {
      return Effect.succeed(response)
    }
    const anonymous = request.cookies[options.sessionCookie] === undefined
    if (!anonymous && !options.testMode) return Effect.succeed(response)
    let text = decoder.decode(body.body)
    // The first occurrence is the header's (the footer keeps its "Account").
    if (anonymous) text = text.replace(ACCOUNT_LINK, SIGN_IN_LINK)
    if (options.testMode) text = withTestModeBanner(text)
    return Effect.succeed(HttpServerResponse.setBody(response, HttpBody.text(text, body.contentType)))
  }
  return (app: HttpApp.Default): HttpApp.Default => Effect.zipRight(HttpApp.appendPreResponseHandler(decorate), app)
}

/**
 * A page of the site (the storefront's pages and the HTML 404) as an HTML answer: the site header
 * and footer around `body`, the one stylesheet, and a fresh CSP nonce that the stylesheet carries.
 */
export const sitePageResponse = (title: string, body: SafeHtml, status = 200, scriptSrc?: string) => {
  const nonce = randomBytes(16).toString("base64url")
  return htmlResponse(
    page(title, body, { nonce, ...(scriptSrc !== undefined ? { scriptSrc } : {}) }),
    { status, nonce, connectSelf: scriptSrc !== undefined }
  )
}

/** The 404 page of an unknown route for a browser (the JSON 404 stays for API callers): home and a search box. */
export const notFoundPageResponse = () =>
  sitePageResponse(
    "Page not found",
    html`<h1>Page not found</h1>
<p>There is no page at this address. <a href="/">Go to the home page</a>, or search for a name:</p>
<form class="search" method="get" action="/search" role="search">
<input name="q" type="search" aria-label="Domain name" placeholder="yourname.com" maxlength="253">
<button type="submit" class="primary">Search</button>
</form>`,
    404
  )

/** Whether a request prefers a page (a browser's `Accept: text/html…`) over JSON. */
export const wantsHtml = (accept: string | undefined) => accept !== undefined && /(^|,)\s*text\/html/i.test(accept)
