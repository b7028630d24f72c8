/**
 * The HTML of GET/POST /oauth/authorize: sign-in form, consent screen, error page. Self-contained
 * (inline CSS, no scripts, no external assets), so they work under a strict CSP and offline.
 */
import { SCOPE_DESCRIPTIONS } from "../../domain/OAuthRules.js"

export const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

const STYLE = `
  :root { color-scheme: light dark; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f5f7; color: #1d2330; }
  main { max-width: 26rem; margin: 8vh auto; padding: 2rem; background: #fff; border-radius: 12px; box-shadow: 0 2px 12px rgba(0,0,0,.08); }
  h1 { font-size: 1.35rem; margin: 0 0 1rem; }
  p { margin: .5rem 0 1rem; }
  label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
  input[type=email], input[type=password] { width: 100%; padding: .6rem .7rem; font: inherit; border: 1px solid #b8bfcc; border-radius: 8px; }
  button { font: inherit; padding: .6rem 1.1rem; border-radius: 8px; border: 1px solid transparent; cursor: pointer; }
  .primary { background: #2357d9; color: #fff; }
  .secondary { background: transparent; border-color: #b8bfcc; color: inherit; }
  .actions { display: flex; gap: .75rem; margin-top: 1.5rem; }
  .error { background: #fdecec; color: #8a1c1c; padding: .6rem .8rem; border-radius: 8px; }
  .muted { color: #5b6474; font-size: .9rem; }
  ul.scopes { padding-left: 1.2rem; }
  code { font-size: .9em; word-break: break-all; }
  @media (prefers-color-scheme: dark) {
    body { background: #12151b; color: #e6e9ef; }
    main { background: #1c2029; box-shadow: none; }
    .muted { color: #a0a8b8; }
    input[type=email], input[type=password] { background: #12151b; color: inherit; border-color: #3a4150; }
  }
`

const layout = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`

export interface PageContext {
  /** The application's registered name (or its client_id when it gave none). */
  readonly clientName: string
  readonly redirectHost: string
  readonly scopes: ReadonlyArray<string>
  /** Where the forms post (`/oauth/authorize?<the request's parameters>`). */
  readonly formAction: string
}

const scopeList = (scopes: ReadonlyArray<string>) =>
  scopes.length === 0
    ? `<p class="muted">No additional permissions: the application only learns that you approved it.</p>`
    : `<ul class="scopes">${
      scopes.map((s) => `<li><strong><code>${escapeHtml(s)}</code></strong>: ${escapeHtml(SCOPE_DESCRIPTIONS[s] ?? s)}</li>`).join("")
    }</ul>`

export const signInPage = (ctx: PageContext & { readonly error?: string; readonly email?: string }) =>
  layout(
    "Sign in",
    `<h1>Sign in to continue</h1>
<p><strong>${escapeHtml(ctx.clientName)}</strong> wants to access your account.</p>
${ctx.error ? `<p class="error" role="alert">${escapeHtml(ctx.error)}</p>` : ""}
<form method="post" action="${escapeHtml(ctx.formAction)}">
  <input type="hidden" name="action" value="login">
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(ctx.email ?? "")}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`
  )

export const consentPage = (ctx: PageContext & { readonly userEmail: string; readonly csrf: string }) =>
  layout(
    "Authorize access",
    `<h1>Authorize ${escapeHtml(ctx.clientName)}</h1>
<p><strong>${escapeHtml(ctx.clientName)}</strong> asks for permission to:</p>
${scopeList(ctx.scopes)}
<p class="muted">Signed in as ${escapeHtml(ctx.userEmail)}. After you decide, you will be sent back to <code>${escapeHtml(ctx.redirectHost)}</code>.</p>
<form method="post" action="${escapeHtml(ctx.formAction)}">
  <input type="hidden" name="csrf" value="${escapeHtml(ctx.csrf)}">
  <div class="actions">
    <button class="primary" type="submit" name="action" value="approve">Allow</button>
    <button class="secondary" type="submit" name="action" value="deny">Deny</button>
  </div>
</form>`
  )

export const errorPage = (title: string, message: string) =>
  layout(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p class="muted">You were not sent back to the application, because the request could not be verified. Close this page and start again from the application.</p>`
  )
