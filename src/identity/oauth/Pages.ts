/**
 * The HTML of GET/POST /oauth/authorize: sign-in form, consent screen, error page, in the site's
 * layout (platform/http/Html.ts), built with the `html` template (escapes by default); no scripts.
 */
import { SCOPE_DESCRIPTIONS } from "../../domain/OAuthRules.js"
import { html, page, type SafeHtml } from "../../platform/http/Html.js"

const layout = (title: string, body: SafeHtml) => page(title, body, { width: "narrow" })

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
    ? html`<p class="muted">No additional permissions: the application only learns that you approved it.</p>`
    : html`<ul class="scopes">${
      scopes.map((s) => html`<li><strong><code>${s}</code></strong>: ${SCOPE_DESCRIPTIONS[s] ?? s}</li>`)
    }</ul>`

export const signInPage = (ctx: PageContext & { readonly error?: string; readonly email?: string }) =>
  layout(
    "Sign in",
    html`<h1>Sign in to continue</h1>
<p><strong>${ctx.clientName}</strong> wants to access your account.</p>
${ctx.error && html`<p class="error" role="alert">${ctx.error}</p>`}
<form method="post" action="${ctx.formAction}">
  <input type="hidden" name="action" value="login">
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${ctx.email ?? ""}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`
  )

export const consentPage = (ctx: PageContext & { readonly userEmail: string; readonly csrf: string }) =>
  layout(
    "Authorize access",
    html`<h1>Authorize ${ctx.clientName}</h1>
<p><strong>${ctx.clientName}</strong> asks for permission to:</p>
${scopeList(ctx.scopes)}
<p class="muted">Signed in as ${ctx.userEmail}. After you decide, you will be sent back to <code>${ctx.redirectHost}</code>.</p>
<form method="post" action="${ctx.formAction}">
  <input type="hidden" name="csrf" value="${ctx.csrf}">
  <div class="actions">
    <button class="primary" type="submit" name="action" value="approve">Allow</button>
    <button class="secondary" type="submit" name="action" value="deny">Deny</button>
  </div>
</form>`
  )

export const errorPage = (title: string, message: string) =>
  layout(
    title,
    html`<h1>${title}</h1>
<p class="error" role="alert">${message}</p>
<p class="muted">You were not sent back to the application, because the request could not be verified. Close this page and start again from the application.</p>`
  )
