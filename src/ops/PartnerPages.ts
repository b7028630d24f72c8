/**
 * The operator console's partners (docs/consoles.md#operator-console): every partner with its
 * keys (never secrets) and commission, with the forms that invite a person to it and change the
 * commission for orders recorded from now on; the form for a new partner (its first key and the
 * owner's invitation shown once, as `partner create` and `partner invite` print them); a partner
 * suspended or resumed, and an active key's scopes changed (`partner suspend|resume`,
 * `partner set-scopes`).
 */
import { timeInWords } from "../domain/TimeWords.js"
import { type Scope, SCOPES } from "../partner/Auth.js"
import type { IssuedCredential } from "../partner/Credentials.js"
import type { Invitation } from "../partner/members/Members.js"
import { ROLES } from "../partner/members/Roles.js"
import type { PartnerSummaryRow } from "../partner/Repo.js"
import { html } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { opsPage, rowForm, rowInput, rows } from "./Pages.js"

const keys = (p: PartnerSummaryRow) =>
  p.credentials.length === 0
    ? "no keys"
    : html`${
      p.credentials.map((c, i) =>
        html`${i > 0 ? ", " : ""}<code>${c.key_id}</code> (${c.environment}: ${c.scopes.join(" ")}${
          c.active ? "" : "; revoked"
        })`
      )
    }`

/** Scope boxes, those given ticked (`prefix` keeps the ids unique on the page). */
const scopeBoxes = (prefix: string, ticked: ReadonlyArray<Scope>) =>
  html`<ul class="scopes">${
    SCOPES.map((s) =>
      html`<li><input type="checkbox" name="scope" value="${s}" id="${`${prefix}${s}`}"${
        ticked.includes(s) ? html` checked` : ""
      }> <label for="${`${prefix}${s}`}">${s}</label></li>`
    )
  }</ul>`

/** Each active key's scopes, in a form that changes them (folded: most visits change none). */
const scopeForms = (csrf: string, p: PartnerSummaryRow) =>
  p.credentials.filter((c) => c.active).map((c) =>
    html`<details><summary>Scopes of <code>${c.key_id}</code></summary>
<form method="post" action="/ops/partners/scopes">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="key_id" value="${c.key_id}">
<fieldset><legend>Scopes of ${c.key_id} (from its next request)</legend>${
      scopeBoxes(`scope-${c.key_id}-`, c.scopes)
    }</fieldset>
<div class="actions"><button type="submit" class="secondary">Set scopes</button></div>
</form></details>`
  )

/** Suspend (every key refused) or resume, with the state it is in. */
const suspensionForm = (csrf: string, p: PartnerSummaryRow) =>
  rowForm(
    "/ops/partners/suspension",
    csrf,
    { partner_id: p.id, suspended: p.suspended_at === null ? "yes" : "no" },
    p.suspended_at === null ? "Suspend" : "Resume",
    `${p.suspended_at === null ? "Suspend" : "Resume"}: ${p.name}`
  )

/** `/ops/partners` */
export const partnersPage = (email: string, csrf: string, partners: ReadonlyArray<PartnerSummaryRow>): StorePage =>
  opsPage(
    "partners",
    "Partners",
    email,
    html`<h1>Partners</h1>
${
      rows("Partners", partners, (p) =>
        html`<li data-partner="${p.id}"><span class="name">${p.name}</span><span class="status" data-field="commission">${
          p.commission_bps / 100
        } %</span>
<span class="next"><code>${p.id}</code>${p.affiliate ? " · affiliate" : ""} · created ${timeInWords(p.created_at)}${
          p.suspended_at === null
            ? ""
            : html` · <strong data-field="suspended">suspended ${
              timeInWords(p.suspended_at)
            }: every key is refused</strong>`
        } · ${keys(p)}</span>
${suspensionForm(csrf, p)}
${scopeForms(csrf, p)}
${
          rowForm(
            "/ops/partners/commission",
            csrf,
            { partner_id: p.id },
            "Set commission",
            `Set commission: ${p.name}`,
            rowInput(`bps-${p.id}`, "bps", "Commission in basis points (1000 = 10 %)", {
              inputmode: "numeric",
              value: String(p.commission_bps)
            })
          )
        }
${
          rowForm(
            "/ops/partners/invite",
            csrf,
            { partner_id: p.id },
            "Invite",
            `Invite a person to ${p.name}`,
            html`${rowInput(`email-${p.id}`, "email", "E-mail")}
<label for="${`role-${p.id}`}">Role</label>
<select id="${`role-${p.id}`}" name="role">${
              ROLES.map((r) => html`<option value="${r}">${r}</option>`)
            }</select>`
          )
        }</li>`, "No partners yet.")
    }
${createForm(csrf)}`
  )

const createForm = (csrf: string) =>
  html`<h2 id="create-title">New partner</h2>
<form method="post" action="/ops/partners" aria-labelledby="create-title">
<input type="hidden" name="csrf" value="${csrf}">
<label for="name">Name</label>
<input id="name" name="name" required maxlength="100" autocomplete="organization">
<label for="environment">Environment of its first key</label>
<select id="environment" name="environment"><option value="sandbox">Sandbox (test)</option><option value="live">Live</option></select>
<fieldset><legend>Scopes it is granted</legend>${scopeBoxes("scope-", [])}</fieldset>
<label for="commission_bps">Commission in basis points (1000 = 10 %)</label>
<input id="commission_bps" name="commission_bps" inputmode="numeric" pattern="[0-9]*" value="1000" autocomplete="off">
<p><input type="checkbox" id="affiliate" name="affiliate" value="yes"> <label for="affiliate">An affiliate (earns on referred sales)</label></p>
<label for="owner_email">Owner's e-mail (optional: they get an invitation to the console)</label>
<input id="owner_email" name="owner_email" type="email" autocomplete="off">
<div class="actions"><button type="submit" class="primary">Create partner</button></div>
</form>`

const invitationFacts = (i: Invitation) =>
  html`<h2>The invitation</h2>
<p>Send this link to ${i.email}; it lets one person join as ${i.role}, once, until ${i.expires_at}.</p>
<label for="invitation">Invitation link</label>
<input id="invitation" readonly value="${i.url}" autocomplete="off" spellcheck="false">`

/** After `POST /ops/partners`: the partner, its first key's secret and the invitation, this once. */
export const partnerCreatedPage = (
  email: string,
  name: string,
  issued: IssuedCredential,
  invitation: Invitation | undefined
): StorePage =>
  opsPage(
    "partners",
    "Partner created",
    email,
    html`<h1>${name} is a partner</h1>
<p class="note" role="status">The secret and the link are shown only this once.</p>
<dl class="facts">
<dt>Partner</dt><dd><code data-testid="partner-id">${issued.partner_id}</code></dd>
<dt>First key</dt><dd><code data-testid="key-id">${issued.key_id}</code> (${issued.environment}: ${
      issued.scopes.join(", ")
    })</dd>
</dl>
<label for="secret">The first key's secret</label>
<input id="secret" readonly value="${issued.secret}" autocomplete="off" spellcheck="false">
<p class="muted">Hand it over safely, or revoke the key (<code>partner revoke</code>): the partner's owner can create
their own keys in the console, with the scopes and environment granted here.</p>
${invitation === undefined ? "" : invitationFacts(invitation)}
<p><a href="/ops/partners">Back to the partners</a></p>`
  )

/** After `POST /ops/partners/invite`: the link, this once. */
export const invitedPage = (email: string, invitation: Invitation): StorePage =>
  opsPage(
    "partners",
    "Invitation",
    email,
    html`<h1>${invitation.email} is invited to ${invitation.partner_name}</h1>
<p class="note" role="status">The link is shown only this once.</p>
${invitationFacts(invitation)}
<p><a href="/ops/partners">Back to the partners</a></p>`
  )
