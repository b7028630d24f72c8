/**
 * The partner console's frame and its simple pages (docs/consoles.md): the console's own nav
 * (Overview, Orders, Checkout, Brokerage, Money, Keys, Webhooks, Members) under the site header, the partner picker when a person has several,
 * the overview, the page for a person with no partner yet, an invitation, and refusals. Built with
 * `html` (escapes by default) in the storefront's one layout (../storefront/Layout.ts).
 */
import { timeInWords } from "../domain/TimeWords.js"
import type { Membership } from "../partner/members/Members.js"
import type { KeyRow } from "../partner/Repo.js"
import { html, type SafeHtml } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"

export type Section =
  | "overview"
  | "orders"
  | "checkout"
  | "brokerage"
  | "money"
  | "keys"
  | "webhooks"
  | "links"
  | "analytics"
  | "members"

const SECTIONS: ReadonlyArray<readonly [Section, string, string]> = [
  ["overview", "/console", "Overview"],
  ["orders", "/console/orders", "Orders"],
  ["checkout", "/console/checkout-sessions", "Checkout"],
  ["brokerage", "/console/brokerage", "Brokerage"],
  ["money", "/console/money", "Money"],
  ["keys", "/console/keys", "Keys"],
  ["webhooks", "/console/webhooks", "Webhooks"],
  ["links", "/console/links", "Links"],
  ["analytics", "/console/analytics", "Analytics"],
  ["members", "/console/members", "Members"]
]

/** A console path for the chosen partner. */
export const consolePath = (path: string, partnerId: string) => `${path}?partner=${encodeURIComponent(partnerId)}`

export const problem = (message: string | undefined) =>
  message === undefined ? "" : html`<p class="error" role="alert">${message}</p>`

export const notice = (message: string | undefined) =>
  message === undefined ? "" : html`<p class="success" role="status">${message}</p>`

/** The frame of every console page: heading, the partner and role (and its suspension), the console's nav. */
export const consoleFrame = (
  m: Membership,
  section: Section,
  others: ReadonlyArray<Membership>,
  body: SafeHtml
): SafeHtml =>
  html`<p class="muted">Partner console · ${m.partnerName} (<code>${m.partnerId}</code>) · you are ${
    m.role === "owner" ? "an" : "a"
  } ${m.role}</p>
${
    m.suspended
      ? html`<p class="error" role="status" data-field="suspended">The operators have suspended this partner: the API refuses every one of its keys (403 <code>credential_not_active</code>) until they resume it. Orders, money and this console stay as they are.</p>`
      : ""
  }
<nav aria-label="Console" class="actions">${
    SECTIONS.map(([s, path, label]) =>
      html`<a class="${s === section ? "button primary" : "button secondary"}" href="${
        consolePath(path, m.partnerId)
      }"${s === section ? html` aria-current="page"` : ""}>${label}</a>`
    )
  }</nav>
${
    others.length > 1
      ? html`<p class="muted">Your partners: ${
        others.map((o, i) =>
          html`${i > 0 ? ", " : ""}<a href="${consolePath("/console", o.partnerId)}">${o.partnerName}</a>`
        )
      }</p>`
      : ""
  }
${body}`

/** `/console` */
export const overviewPage = (
  m: Membership,
  others: ReadonlyArray<Membership>,
  keys: ReadonlyArray<KeyRow>,
  memberCount: number
): StorePage => {
  const active = keys.filter((k) => k.active)
  const lastUsed =
    keys.flatMap((k) => k.last_used_at === null ? [] : [k.last_used_at]).sort((a, b) => b.getTime() - a.getTime())[0]
  return {
    title: `${m.partnerName} · Partner console`,
    body: consoleFrame(
      m,
      "overview",
      others,
      html`<h1>${m.partnerName}</h1>
<dl class="facts">
<dt>Active keys</dt><dd>${active.filter((k) => k.environment === "sandbox").length} sandbox, ${
        active.filter((k) => k.environment === "live").length
      } live</dd>
<dt>Last signed request</dt><dd>${lastUsed === undefined ? "none yet" : timeInWords(lastUsed)}</dd>
<dt>Members</dt><dd>${memberCount}</dd>
</dl>
<p><a href="${consolePath("/console/keys", m.partnerId)}">Manage keys</a> · <a href="${
        consolePath("/console/members", m.partnerId)
      }">See members</a> · <a href="/docs/partner.md">How to sign requests</a></p>`
    )
  }
}

/** `/console` for a signed-in person who belongs to no partner. */
export const noPartnerPage = (email: string): StorePage => ({
  title: "Partner console",
  body: html`<h1>Partner console</h1>
<p>You are signed in as ${email}, but you are not a member of any partner yet.</p>
<p>A partner's owner (or our operators) can invite you: open the invitation link from the e-mail,
signed in with this address. Partners who want to sell through us can write to the operators
from the <a href="/contact">contact page</a>.</p>`
})

/** A refusal inside the console (404 no such partner, 403 a role's limit, 410 an unusable link). */
export const refusalPage = (title: string, message: string): StorePage => ({
  title,
  body: html`<h1>${title}</h1>
${problem(message)}
<p><a href="/console">Back to the console</a></p>`
})

/** `/console/invite/{token}` */
export const invitationPage = (
  v: {
    readonly partnerName: string
    readonly role: string
    readonly email: string
    readonly expiresAt: Date
    readonly signedInAs: string
    readonly csrf: string
    readonly action: string
    readonly error?: string
  }
): StorePage => ({
  title: `Join ${v.partnerName}`,
  body: html`<h1>Join ${v.partnerName}</h1>
${problem(v.error)}
<p>You are invited as ${v.role === "owner" ? "an" : "a"} <strong>${v.role}</strong> of ${v.partnerName}.
The invitation is for ${v.email} and works once, until ${timeInWords(v.expiresAt)}.</p>
<p class="muted">Signed in as ${v.signedInAs}.</p>
<form method="post" action="${v.action}">
<input type="hidden" name="csrf" value="${v.csrf}">
<div class="actions"><button type="submit" class="primary">Accept the invitation</button></div>
</form>`
})
