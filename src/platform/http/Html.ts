/**
 * The one visual language of every HTML page the service serves (OAuth sign-in and consent,
 * hosted checkout, the buy page, receipts, brokerage progress, referral and error pages).
 *
 * Pages are server-rendered, self-contained (inline CSS, no third-party assets), work without
 * JavaScript and stay within `PAGE_CSP`. A page that needs a script sets `script` and the layout
 * adds it inline with the nonce given (the CSP then allows that nonce only), or `scriptSrc`: a
 * script file of this service, loaded with the page's nonce (the CSP then also allows fetches to
 * the page's own origin).
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"

import { escapeHtml, html, type SafeHtml } from "./SafeHtml.js"

export { escapeHtml, html, SafeHtml } from "./SafeHtml.js"

export const STYLE = `
  :root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6474; --bg: #f4f5f7; --card: #fff; --line: #b8bfcc; --accent: #2357d9; --link: #2357d9; --ok: #116b3a; --okbg: #e5f5ec; --err: #8a1c1c; --errbg: #fdecec; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--fg); }
  header.site { max-width: 34rem; margin: 0 auto; padding: 1.25rem 1rem 0; font-weight: 700; letter-spacing: .01em; }
  header.site a { color: inherit; text-decoration: none; }
  main { max-width: 34rem; margin: 1rem auto 3rem; padding: 2rem; background: var(--card); border-radius: 12px; box-shadow: 0 2px 12px rgba(0,0,0,.08); }
  main.narrow { max-width: 26rem; }
  h1 { font-size: 1.35rem; margin: 0 0 1rem; }
  h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
  p { margin: .5rem 0 1rem; }
  label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
  input, select { width: 100%; padding: .6rem .7rem; font: inherit; border: 1px solid var(--line); border-radius: 8px; background: var(--card); color: inherit; }
  input[type=checkbox], input[type=radio] { width: auto; }
  button, .button { display: inline-block; font: inherit; padding: .6rem 1.1rem; border-radius: 8px; border: 1px solid transparent; cursor: pointer; text-decoration: none; }
  .primary { background: var(--accent); color: #fff; }
  .secondary { background: transparent; border-color: var(--line); color: inherit; }
  .actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1.5rem; }
  .error { background: var(--errbg); color: var(--err); padding: .6rem .8rem; border-radius: 8px; }
  .success { background: var(--okbg); color: var(--ok); padding: .6rem .8rem; border-radius: 8px; }
  .muted { color: var(--muted); font-size: .9rem; }
  .price { font-size: 1.6rem; font-weight: 700; }
  .row { display: flex; gap: .75rem; } .row > * { flex: 1; }
  dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; } dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; }
  ol.timeline { padding-left: 1.2rem; } ol.timeline li { margin: .35rem 0; }
  ul.scopes { padding-left: 1.2rem; }
  code { font-size: .9em; word-break: break-all; }
  :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
  a { color: var(--link); }
  header.site nav, footer.site nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
  header.site { display: flex; flex-wrap: wrap; justify-content: space-between; gap: .5rem 1rem; }
  header.site nav a { font-weight: 500; }
  footer.site { max-width: 34rem; margin: 0 auto 2rem; padding: 0 1rem; color: var(--muted); font-size: .9rem; }
  footer.site a { color: inherit; }
  form.search { display: flex; gap: .5rem; margin: 0 0 1rem; }
  form.search input { flex: 1; min-width: 0; }
  form.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: 0 0 1rem; }
  form.filters > div { flex: 1 1 8rem; } form.filters label { margin-top: 0; }
  ol.results { list-style: none; padding: 0; margin: 1rem 0 0; }
  ol.results li { display: flex; flex-wrap: wrap; align-items: baseline; gap: .25rem .75rem; padding: .75rem 0; border-top: 1px solid var(--line); }
  ol.results .name { font-weight: 700; flex: 1 1 12rem; overflow-wrap: anywhere; }
  ol.results .status { font-size: .9rem; }
  ol.results .next { flex: 1 1 100%; font-size: .9rem; }
  nav.pages { display: flex; justify-content: space-between; margin-top: 1.5rem; }
  @media (max-width: 30rem) { main { margin: .5rem; padding: 1.25rem; } .row { flex-direction: column; gap: 0; } }
  @media (prefers-color-scheme: dark) {
    :root { --fg: #e6e9ef; --muted: #a0a8b8; --bg: #12151b; --card: #1c2029; --line: #3a4150; --okbg: #12321f; --ok: #8fe0b0; --errbg: #3a1717; --err: #f3b0b0; --link: #9db8ff; }
    main { box-shadow: none; }
  }
`

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
  /** `narrow` for short forms (sign-in, consent, errors). */
  readonly width?: "normal" | "narrow"
  /** One inline script (progressive enhancement only: the page works without it). */
  readonly script?: { readonly nonce: string; readonly source: string }
  /** Rendered after `<main>` (the storefront's site footer; `html` output, already escaped). */
  readonly footer?: string
  /** Replaces the default site header (the storefront's header with its links; `html` output). */
  readonly header?: string
  /** The page's CSP nonce, carried by its stylesheet (the storefront pages always have one). */
  readonly nonce?: string
  /** A script file of this service (progressive enhancement), loaded with `nonce`. */
  readonly scriptSrc?: string
}

/** The full document of a page: same header, type and stylesheet everywhere. */
export const page = (title: string, body: string, options: PageOptions = {}) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style${options.nonce ? ` nonce="${escapeHtml(options.nonce)}"` : ""}>${STYLE}</style>
</head>
<body>
${options.header ?? `<header class="site"><a href="/">Domain Marketplace</a></header>`}
<main${options.width === "narrow" ? ` class="narrow"` : ""}>
${body}
</main>
${options.footer ?? ""}
${options.script ? `<script nonce="${escapeHtml(options.script.nonce)}">${options.script.source}</script>` : ""}${
    options.scriptSrc && options.nonce
      ? `<script nonce="${escapeHtml(options.nonce)}" src="${escapeHtml(options.scriptSrc)}" defer></script>`
      : ""
  }
</body>
</html>`

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
    `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
${hint ? `<p class="muted">${escapeHtml(hint)}</p>` : ""}`,
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

const decoder = new TextDecoder()

const bannered: HttpApp.PreResponseHandler = (_request, response) => {
  const body = response.body
  if (body._tag !== "Uint8Array" || !body.contentType.toLowerCase().startsWith("text/html")) {
    return Effect.succeed(response)
  }
  return Effect.succeed(HttpServerResponse.setBody(
    response,
    HttpBody.text(withTestModeBanner(decoder.decode(body.body)), body.contentType)
  ))
}

/**
 * The server middleware that puts the banner on every HTML answer (src/app/Server.ts, TEST_MODE=true
 * only): a pre-response handler, since the server middleware runs after the response is chosen.
 */
export const testModePages = (app: HttpApp.Default): HttpApp.Default =>
  Effect.zipRight(HttpApp.appendPreResponseHandler(bannered), app)

/** The site header of the storefront's pages: the name and the main links. */
const SITE_HEADER = html`<header class="site">
<a href="/">Domain Marketplace</a>
<nav aria-label="Main"><a href="/">Search</a><a href="/market">Market</a><a href="/docs/storefront.md">Docs</a></nav>
</header>`

/** The site footer of the storefront's pages: where to go next. */
const SITE_FOOTER = html`<footer class="site">
<nav aria-label="Site"><a href="/">Search</a><a href="/market">Market</a><a href="/docs/storefront.md">Docs</a><a href="/docs">API</a><a href="/docs/storefront.md#terms">Terms</a><a href="/docs/storefront.md#privacy">Privacy</a><a href="/docs/storefront.md#contact">Contact</a></nav>
<p>Domain Marketplace: search, buy and broker domain names.</p>
</footer>`

/**
 * A page of the site (the storefront's pages and the HTML 404) as an HTML answer: the site header
 * and footer around `body`, the one stylesheet, and a fresh CSP nonce that the stylesheet carries.
 */
export const sitePageResponse = (title: string, body: SafeHtml, status = 200, scriptSrc?: string) => {
  const nonce = randomBytes(16).toString("base64url")
  return htmlResponse(
    page(title, body.value, {
      header: SITE_HEADER.value,
      footer: SITE_FOOTER.value,
      nonce,
      ...(scriptSrc !== undefined ? { scriptSrc } : {})
    }),
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
