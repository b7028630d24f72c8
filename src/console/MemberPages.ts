/**
 * The console's members (docs/consoles.md#members): who belongs to the partner with which role,
 * the open invitations, and for an owner the invite form and remove buttons; the page that shows a
 * new invitation link once, with a copy button.
 */
import { timeInWords } from "../domain/TimeWords.js"
import type { Invitation, Membership } from "../partner/members/Members.js"
import type { InvitationRow, MemberRow } from "../partner/members/Repo.js"
import { ROLES } from "../partner/members/Roles.js"
import { html } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { consoleFrame, consolePath, notice, problem } from "./Pages.js"

export interface MembersView {
  readonly membership: Membership
  readonly others: ReadonlyArray<Membership>
  readonly members: ReadonlyArray<MemberRow>
  readonly invitations: ReadonlyArray<InvitationRow>
  readonly canManage: boolean
  readonly csrf: string
  readonly error?: string
  readonly notice?: string
}

const removeButton = (v: MembersView, m: MemberRow) =>
  html`<form method="post" action="/console/members/remove" class="actions">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="partner" value="${v.membership.partnerId}">
<input type="hidden" name="user_id" value="${m.user_id}">
<button type="submit" class="secondary" aria-label="${`Remove ${m.email}`}">Remove</button>
</form>`

const inviteForm = (v: MembersView) =>
  html`<h2 id="invite-title">Invite someone</h2>
<form method="post" action="/console/members/invite" aria-labelledby="invite-title">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="partner" value="${v.membership.partnerId}">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" required maxlength="254" autocomplete="off">
<label for="role">Role</label>
<select id="role" name="role">${
    ROLES.map((r) => html`<option value="${r}"${r === "viewer" ? " selected" : ""}>${r}</option>`)
  }</select>
<p class="muted">Owners manage members and keys; developers manage keys; finance and viewers look.</p>
<div class="actions"><button type="submit" class="primary">Create the invitation link</button></div>
</form>`

/** `/console/members` */
export const membersPage = (v: MembersView): StorePage => ({
  title: `Members · ${v.membership.partnerName}`,
  body: consoleFrame(
    v.membership,
    "members",
    v.others,
    html`<h1>Members</h1>
${problem(v.error)}
${notice(v.notice)}
<ol class="results" aria-label="Members">${
      v.members.map((m) =>
        html`<li data-member="${m.email}"><span class="name">${m.email}</span><span class="status">${m.role}</span>
<span class="next">since ${timeInWords(m.created_at)}</span>${v.canManage ? removeButton(v, m) : ""}</li>`
      )
    }</ol>
<h2>Open invitations</h2>
${
      v.invitations.length === 0
        ? html`<p>None.</p>`
        : html`<ol class="results" aria-label="Open invitations">${
          v.invitations.map((i) =>
            html`<li><span class="name">${i.email}</span><span class="status">${i.role}</span>
<span class="next">until ${timeInWords(i.expires_at)}</span></li>`
          )
        }</ol>`
    }
${v.canManage ? inviteForm(v) : ""}`
  )
})

/** The new invitation's link, this once (only its hash is kept). */
export const invitedPage = (m: Membership, others: ReadonlyArray<Membership>, invited: Invitation): StorePage => ({
  title: `Invitation · ${m.partnerName}`,
  body: consoleFrame(
    m,
    "members",
    others,
    html`<h1>Invitation created</h1>
<p class="note" role="status">Send this link to ${invited.email}: it works once, until ${
      timeInWords(new Date(invited.expires_at))
    }, for whoever signs in with that address. It is shown only now.</p>
<label for="invite-link">Invitation link (${invited.role})</label>
<input id="invite-link" readonly value="${invited.url}" autocomplete="off" spellcheck="false">
<div class="actions"><button type="button" class="secondary" data-copy="invite-link" hidden>Copy the link</button>
<span id="invite-link-copied" role="status" aria-live="polite"></span></div>
<p><a href="${consolePath("/console/members", m.partnerId)}">Back to the members</a></p>`
  )
})
