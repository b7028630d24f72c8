/**
 * The account pages (docs/storefront.md#account): sign in, sign up, the portfolio with its bulk
 * actions, a job's progress and a cart's outcome, in the one visual language of
 * platform/http/Html.ts, built with `html` (escapes by default). Every form posts with its CSRF
 * token and works without JavaScript; the job page is live with the bulk island (client/bulk.ts).
 */
import { moneyInWords, timeInWords } from "../domain/TimeWords.js"
import { html } from "../platform/http/Html.js"
import type { BulkStatus, CartView, PortfolioList } from "../portfolio/Api.js"
import { countsInWords, ITEM_WORDS, JOB_WORDS, opInWords } from "./BulkWords.js"
import type { StorePage } from "./Layout.js"

/** The bulk actions the account page offers (setFolder and setContacts stay with the API). */
export const PAGE_OPS = ["lock", "unlock", "setNameservers", "autoRenewOn", "autoRenewOff", "renew", "restore"] as const
export type PageOp = typeof PAGE_OPS[number]
const PAGE_OP_WORDS: Readonly<Record<PageOp, string>> = {
  lock: "Lock (transfer lock on)",
  unlock: "Unlock",
  setNameservers: "Set nameservers",
  autoRenewOn: "Turn auto-renew on",
  autoRenewOff: "Turn auto-renew off",
  renew: "Renew (pay in one checkout)",
  restore: "Restore (pay in one checkout)"
}

const problem = (message: string | undefined) =>
  message === undefined ? "" : html`<p class="error" role="alert">${message}</p>`

export interface CredentialsFormInput {
  readonly csrf: string
  readonly next: string
  readonly email?: string
  readonly error?: string
}

const credentialsForm = (action: "/signin" | "/signup", f: CredentialsFormInput, submit: string) =>
  html`<form method="post" action="${action}">
<input type="hidden" name="csrf" value="${f.csrf}">
<input type="hidden" name="next" value="${f.next}">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" required maxlength="254" autocomplete="email" value="${f.email ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required minlength="${
    action === "/signup" ? 8 : 1
  }" maxlength="1024" autocomplete="${action === "/signup" ? "new-password" : "current-password"}"${
    action === "/signup" ? html` aria-describedby="password-hint"` : ""
  }>
${action === "/signup" ? html`<p id="password-hint" class="muted">At least 8 characters.</p>` : ""}
<div class="actions"><button type="submit" class="primary">${submit}</button></div>
</form>`

const withNext = (path: string, next: string) => next === "/account" ? path : `${path}?next=${encodeURIComponent(next)}`

/** `/signin` */
export const signInPage = (f: CredentialsFormInput): StorePage => ({
  title: "Sign in",
  body: html`<h1>Sign in</h1>
${problem(f.error)}
${credentialsForm("/signin", f, "Sign in")}
<p>New here? <a href="${withNext("/signup", f.next)}">Create an account</a>.</p>`
})

/** `/signup` */
export const signUpPage = (f: CredentialsFormInput): StorePage => ({
  title: "Create an account",
  body: html`<h1>Create an account</h1>
${problem(f.error)}
${credentialsForm("/signup", f, "Create account")}
<p>Already have one? <a href="${withNext("/signin", f.next)}">Sign in</a>.</p>`
})

const signOutForm = (csrf: string) =>
  html`<form method="post" action="/signout" class="actions">
<input type="hidden" name="csrf" value="${csrf}">
<button type="submit" class="secondary">Sign out</button>
</form>`

type Domain = PortfolioList["domains"][number]

const domainItem = (d: Domain) =>
  html`<li><input type="checkbox" name="domain" value="${d.domain}" id="${`pick-${d.domain}`}">
<label class="name" for="${`pick-${d.domain}`}">${d.domain_unicode ?? d.domain}</label>
<span class="status">${d.locked ? "Locked" : "Unlocked"} · auto-renew ${d.autoRenew ? "on" : "off"}</span>
<span class="next">Expires ${timeInWords(new Date(d.expiresAt))}${
    d.nameservers.length > 0 ? html` · ${d.nameservers.join(", ")}` : ""
  }</span></li>`

const bulkForm = (domains: ReadonlyArray<Domain>, csrf: string) =>
  domains.length === 0
    ? html`<p>You do not own any names here yet. <a href="/">Search for one</a>.</p>`
    : html`<form method="post" action="/account/bulk" aria-labelledby="portfolio-title">
<input type="hidden" name="csrf" value="${csrf}">
<fieldset><legend class="muted">Tick the names to act on</legend>
<ol class="results portfolio" aria-label="Your names">${domains.map(domainItem)}</ol>
</fieldset>
<label for="op">Action</label>
<select id="op" name="op">${PAGE_OPS.map((op) => html`<option value="${op}">${PAGE_OP_WORDS[op]}</option>`)}</select>
<div class="row">
<div><label for="nameservers">Nameservers (for “Set nameservers”)</label>
<input id="nameservers" name="nameservers" placeholder="ns1.example.net, ns2.example.net" maxlength="2000" autocomplete="off"></div>
<div><label for="years">Years (for “Renew”)</label>
<select id="years" name="years">${
      [1, 2, 3, 5, 10].map((y) => html`<option value="${y}">${y} ${y === 1 ? "year" : "years"}</option>`)
    }</select></div>
</div>
<div class="actions"><button type="submit" class="primary">Apply to ticked names</button></div>
</form>`

const jobItem = (j: BulkStatus) =>
  html`<li><a class="name" href="${`/account/jobs/${encodeURIComponent(j.bulkOpId)}`}">${opInWords(j.op)}: ${j.total} ${
    j.total === 1 ? "name" : "names"
  }</a>
<span class="status">${JOB_WORDS[j.status]}</span>
<span class="next">${countsInWords(j)} · started <time datetime="${j.createdAt}">${
    timeInWords(new Date(j.createdAt))
  }</time></span></li>`

const CART_WORDS: Readonly<Record<CartView["status"], string>> = {
  open: "Awaiting payment",
  paid: "Paid, renewing",
  done: "Finished"
}

const cartItem = (c: CartView) =>
  html`<li><a class="name" href="${`/account/carts/${encodeURIComponent(c.id)}`}">Cart of ${c.items.length} ${
    c.items.length === 1 ? "name" : "names"
  }</a>
<span class="status">${CART_WORDS[c.status]} · ${moneyInWords(c.total_cents, c.currency)}</span>
<span class="next">Created <time datetime="${c.created_at}">${timeInWords(new Date(c.created_at))}</time></span></li>`

export interface AccountView {
  readonly email: string
  readonly csrf: string
  readonly portfolio: PortfolioList
  readonly jobs: ReadonlyArray<BulkStatus>
  readonly carts: ReadonlyArray<CartView>
  readonly error?: string
  readonly notice?: string
}

/** `/account` */
export const accountPage = (v: AccountView): StorePage => ({
  title: "Your account",
  body: html`<h1>Your account</h1>
<p class="muted">Signed in as ${v.email}.</p>
${problem(v.error)}
${v.notice === undefined ? "" : html`<p class="success" role="status">${v.notice}</p>`}
<h2 id="portfolio-title">Your names (${v.portfolio.count})</h2>
${bulkForm(v.portfolio.domains, v.csrf)}
<h2>Bulk jobs</h2>
${
    v.jobs.length === 0
      ? html`<p class="muted">No bulk jobs yet.</p>`
      : html`<ol class="results" aria-label="Bulk jobs">${v.jobs.map(jobItem)}</ol>`
  }
<h2>Carts</h2>
${
    v.carts.length === 0
      ? html`<p class="muted">No renewal or restore carts yet.</p>`
      : html`<ol class="results" aria-label="Carts">${v.carts.map(cartItem)}</ol>`
  }
${signOutForm(v.csrf)}`
})

/** `/account/jobs/{id}`: live with the bulk island; without it, `<noscript>` refreshes until done. */
export const jobPage = (j: BulkStatus): StorePage => ({
  title: `${opInWords(j.op)}: progress`,
  body: html`<h1>${opInWords(j.op)}: ${j.total} ${j.total === 1 ? "name" : "names"}</h1>
${j.status === "done" ? "" : html`<noscript><meta http-equiv="refresh" content="2"></noscript>`}
<section data-job-id="${j.bulkOpId}" data-status="${j.status}" aria-labelledby="job-status-label">
<p><span id="job-status-label">Status:</span> <strong data-field="status" data-testid="job-status" role="status">${
    JOB_WORDS[j.status]
  }</strong></p>
<progress max="${Math.max(1, j.total)}" value="${j.succeeded + j.failed}" aria-label="Progress"></progress>
<p data-field="counts">${countsInWords(j)}</p>
<ol class="results" aria-label="Names">${
    j.items.map((i) =>
      html`<li data-domain="${i.domain}"><span class="name">${i.domain}</span><span class="status">${
        ITEM_WORDS[i.status]
      }</span><span class="next">${i.error ?? ""}</span></li>`
    )
  }</ol>
${
    j.skipped.length === 0 ? "" : html`<h2>Left out</h2>
<ol class="results" aria-label="Left out">${
      j.skipped.map((s) => html`<li><span class="name">${s.domain}</span><span class="next">${s.error}</span></li>`)
    }</ol>`
  }
</section>
<p class="muted">Started <time datetime="${j.createdAt}">${timeInWords(new Date(j.createdAt))}</time>${
    j.finishedAt === null
      ? ""
      : html`, finished <time datetime="${j.finishedAt}">${timeInWords(new Date(j.finishedAt))}</time>`
  }. <a href="/account">Back to your account</a></p>`
})

const ITEM_OUTCOME: Readonly<Record<CartView["items"][number]["status"], string>> = {
  pending: "Pending",
  done: "Done",
  failed: "Failed",
  refunded: "Refunded"
}

/** `/account/carts/{id}`: each item with its amount and outcome. */
export const cartPage = (c: CartView): StorePage => ({
  title: "Your cart",
  body: html`<h1>Cart: ${CART_WORDS[c.status]}</h1>
<dl class="facts">
<dt>Total</dt><dd data-testid="cart-total">${moneyInWords(c.total_cents, c.currency)}</dd>
<dt>Created</dt><dd><time datetime="${c.created_at}">${timeInWords(new Date(c.created_at))}</time></dd>
${
    c.paid_at === null
      ? ""
      : html`<dt>Paid</dt><dd><time datetime="${c.paid_at}">${timeInWords(new Date(c.paid_at))}</time></dd>`
  }
</dl>
<ol class="results" aria-label="Items">${
    c.items.map((i) =>
      html`<li><span class="name">${i.domain}</span><span class="status">${opInWords(i.op)} · ${
        moneyInWords(i.amount_cents, c.currency)
      } · ${ITEM_OUTCOME[i.status]}</span>${
        i.error === undefined && i.refund_id === undefined
          ? ""
          : html`<span class="next">${i.error ?? ""}${
            i.refund_id === undefined ? "" : html` (refund ${i.refund_id})`
          }</span>`
      }</li>`
    )
  }</ol>
<p><a href="/account">Back to your account</a></p>`
})

/** A job or cart that is not this person's (or does not exist): one answer for both. */
export const accountNotFoundPage = (what: "job" | "cart"): StorePage => ({
  title: `No such ${what}`,
  body: html`<h1>No such ${what}</h1>
<p class="error" role="alert">There is no ${what} at this address in your account.</p>
<p><a href="/account">Back to your account</a></p>`
})
