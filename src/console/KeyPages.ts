/**
 * The console's keys (docs/consoles.md#keys): the list with each key's last use, the create form
 * (only the scopes and environments the partner was granted), rotate and revoke buttons for the
 * roles that may use them, and the one page that shows a new secret, with a copy button (the copy
 * island) and how to sign with it.
 */
import { timeInWords } from "../domain/TimeWords.js"
import type { IssuedCredential } from "../partner/Credentials.js"
import type { Membership } from "../partner/members/Members.js"
import type { KeyRow } from "../partner/Repo.js"
import { html } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { consoleFrame, consolePath, notice, problem } from "./Pages.js"

export interface KeysView {
  readonly membership: Membership
  readonly others: ReadonlyArray<Membership>
  readonly keys: ReadonlyArray<KeyRow>
  readonly canManage: boolean
  readonly grants: { readonly scopes: ReadonlyArray<string>; readonly environments: ReadonlyArray<string> }
  readonly csrf: string
  readonly error?: string
  readonly notice?: string
}

const stateOf = (k: KeyRow) =>
  k.active
    ? k.expires_at === null ? "Active" : `Active until ${timeInWords(k.expires_at)} (rotated)`
    : `Revoked ${timeInWords(k.revoked_at ?? k.expires_at ?? k.created_at)}`

const keyButton = (v: KeysView, k: KeyRow, action: "rotate" | "revoke") =>
  html`<form method="post" action="${`/console/keys/${action}`}">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="partner" value="${v.membership.partnerId}">
<input type="hidden" name="key_id" value="${k.key_id}">
<button type="submit" class="secondary" aria-label="${`${action === "rotate" ? "Rotate" : "Revoke"} ${k.key_id}`}">${
    action === "rotate" ? "Rotate" : "Revoke"
  }</button>
</form>`

const keyItem = (v: KeysView) => (k: KeyRow) =>
  html`<li data-key-id="${k.key_id}"><code class="name">${k.key_id}</code>
<span class="status" data-field="state">${stateOf(k)}</span>
<span class="next">${k.environment} · ${k.scopes.join(", ")} · created ${timeInWords(k.created_at)} · last used ${
    k.last_used_at === null ? "never" : html`${timeInWords(k.last_used_at)} from ${k.last_used_ip ?? "unknown"}`
  }</span>
${
    v.canManage && k.active
      ? html`<div class="actions">${k.expires_at === null ? keyButton(v, k, "rotate") : ""}${
        keyButton(v, k, "revoke")
      }</div>`
      : ""
  }</li>`

const createForm = (v: KeysView) =>
  html`<h2 id="create-title">Create a key</h2>
<form method="post" action="/console/keys" aria-labelledby="create-title">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="partner" value="${v.membership.partnerId}">
<label for="environment">Environment</label>
<select id="environment" name="environment">${
    v.grants.environments.map((e) => html`<option value="${e}">${e === "sandbox" ? "Sandbox (test)" : "Live"}</option>`)
  }</select>
<fieldset><legend>Scopes</legend>
<ul class="scopes">${
    v.grants.scopes.map((s) =>
      html`<li><input type="checkbox" name="scope" value="${s}" id="${`scope-${s}`}"> <label for="${`scope-${s}`}">${s}</label></li>`
    )
  }</ul></fieldset>
<div class="actions"><button type="submit" class="primary">Create key</button></div>
</form>`

/** `/console/keys` */
export const keysPage = (v: KeysView): StorePage => ({
  title: `Keys · ${v.membership.partnerName}`,
  body: consoleFrame(
    v.membership,
    "keys",
    v.others,
    html`<h1>Keys</h1>
${problem(v.error)}
${notice(v.notice)}
<p>Each request to the Partner API is signed with a key's secret: see <a href="/docs/partner.md">how to sign requests</a>.
${v.canManage ? "" : "Your role can look at the keys; an owner or a developer manages them."}</p>
${
      v.keys.length === 0
        ? html`<p>No keys yet.</p>`
        : html`<ol class="results" aria-label="Keys">${v.keys.map(keyItem(v))}</ol>`
    }
${v.canManage ? createForm(v) : ""}`
  )
})

/** The new (or successor) key: its secret, this once. */
export const secretPage = (
  m: Membership,
  others: ReadonlyArray<Membership>,
  issued: IssuedCredential,
  rotatedFrom?: string
): StorePage => ({
  title: `New key · ${m.partnerName}`,
  body: consoleFrame(
    m,
    "keys",
    others,
    html`<h1>Your new key</h1>
<p class="note" role="status">Copy the secret now: it is shown only this once. ${
      rotatedFrom === undefined ? "" : html`The previous key <code>${rotatedFrom}</code> keeps working for 24 hours.`
    }</p>
<dl class="facts">
<dt>Key id</dt><dd><code data-testid="key-id">${issued.key_id}</code></dd>
<dt>Environment</dt><dd>${issued.environment}</dd>
<dt>Scopes</dt><dd>${issued.scopes.join(", ")}</dd>
</dl>
<label for="secret">Secret</label>
<input id="secret" readonly value="${issued.secret}" autocomplete="off" spellcheck="false">
<div class="actions"><button type="button" class="secondary" data-copy="secret" hidden>Copy the secret</button>
<span id="secret-copied" role="status" aria-live="polite"></span></div>
<h2>Signing requests</h2>
<p>Send the key id in <code>X-Service-Key-Id</code>, a fresh <code>X-Service-Nonce</code> and the time in
<code>X-Service-Timestamp</code> (Unix seconds) with every request, and <code>X-Service-Signature</code>: <code>v1=</code> and the hex HMAC-SHA256,
with this secret, of the canonical string of the request. The SDK does it for you; the steps and
examples are in <a href="/docs/partner.md">the Partner API guide</a>.</p>
<p><a href="${consolePath("/console/keys", m.partnerId)}">Back to the keys</a></p>`
  )
})
