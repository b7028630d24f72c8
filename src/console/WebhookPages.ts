/**
 * The console's webhooks (docs/consoles.md#webhooks): the endpoint of one environment with its
 * state, the URL form, rotate and test buttons for the roles that may use them, the delivery log
 * (each delivery's event type, status, time and every attempt as the webhooks service keeps it:
 * status code, duration, error, the first 4 KiB of the answer) with a redeliver button, and the
 * one page that shows a new secret.
 * Never the current secret: the service keeps it sealed.
 */
import { timeInWords } from "../domain/TimeWords.js"
import type { Membership } from "../partner/members/Members.js"
import type { WebhookDelivery, WebhookState } from "../partner/webhooks/Api.js"
import { html, type SafeHtml } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { environmentChoice, sectionPath } from "./Lists.js"
import { consoleFrame, notice, problem } from "./Pages.js"

export interface WebhooksView {
  readonly membership: Membership
  readonly others: ReadonlyArray<Membership>
  readonly environments: ReadonlyArray<string>
  readonly environment: string | null
  readonly endpoint: typeof WebhookState.Type | null
  readonly deliveries: ReadonlyArray<typeof WebhookDelivery.Type>
  readonly canManage: boolean
  readonly csrf: string
  readonly error?: string
  readonly notice?: string
}

/** This page for the partner and environment. */
export const webhooksPath = (partnerId: string, environment: string) =>
  sectionPath("/console/webhooks", partnerId, environment)

const when = (iso: string | null) => iso === null ? "—" : timeInWords(new Date(iso))

const hidden = (v: WebhooksView) =>
  html`<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="partner" value="${v.membership.partnerId}">
<input type="hidden" name="environment" value="${v.environment ?? ""}">`

const button = (v: WebhooksView, action: string, label: string, extra: SafeHtml | "" = "", aria?: string) =>
  html`<form method="post" action="${action}">
${hidden(v)}${extra}
<button type="submit" class="secondary"${aria === undefined ? "" : html` aria-label="${aria}"`}>${label}</button>
</form>`

const environmentPicker = (v: WebhooksView) =>
  environmentChoice(v.environments, v.environment, (e) => webhooksPath(v.membership.partnerId, e))

const endpointFacts = (v: WebhooksView, e: typeof WebhookState.Type) =>
  html`<dl class="facts">
<dt>URL</dt><dd><code data-field="url">${e.url}</code></dd>
<dt>State</dt><dd data-field="endpoint-state">${
    e.state === "active"
      ? "Active"
      : `Disabled (${e.disabled_reason ?? "410 Gone"}): set the URL again to re-activate it`
  }</dd>
<dt>Waiting deliveries</dt><dd>${e.pending_deliveries}</dd>
<dt>Last attempt</dt><dd>${
    e.last_attempt === null
      ? "none yet"
      : `${when(e.last_attempt.at)}: ${e.last_attempt.status ?? "no answer"}${
        e.last_attempt.error === null ? "" : ` (${e.last_attempt.error})`
      }`
  }</dd>
</dl>
${
    v.canManage
      ? html`<div class="actions">${button(v, "/console/webhooks/test", "Send a test event")}${
        button(v, "/console/webhooks/rotate", "Rotate the secret")
      }</div>`
      : ""
  }`

const urlForm = (v: WebhooksView) =>
  html`<h2 id="url-title">${v.endpoint === null ? "Set the endpoint" : "Change the URL"}</h2>
<form method="post" action="/console/webhooks" aria-labelledby="url-title">
${hidden(v)}
<label for="url">URL</label>
<input id="url" name="url" type="url" required inputmode="url" autocomplete="off" value="${v.endpoint?.url ?? ""}">
<p class="muted">HTTPS, on a public address (as the API checks it). ${
    v.endpoint === null
      ? "A signing secret is issued and shown once."
      : "The signing secret stays the same."
  }</p>
<div class="actions"><button type="submit" class="primary">Save the URL</button></div>
</form>`

/** The signature check: a delivery as received, pasted back; the answer comes as the page's notice. */
const checkForm = (v: WebhooksView) =>
  html`<h2 id="check-title">Check a signature</h2>
<form method="post" action="/console/webhooks/check" aria-labelledby="check-title">
${hidden(v)}
<p class="muted">Paste a delivery your receiver got (the raw body, byte for byte, and its headers) to see whether
it was signed with this endpoint's current secret. Only "matches" or "does not match" is shown.</p>
<label for="check-body">Raw body</label>
<textarea id="check-body" name="body" rows="4" required spellcheck="false"></textarea>
<label for="check-service">X-Service-Signature</label>
<input id="check-service" name="x_service_signature" autocomplete="off" spellcheck="false">
<label for="check-id">webhook-id</label>
<input id="check-id" name="webhook_id" autocomplete="off" spellcheck="false">
<label for="check-timestamp">webhook-timestamp</label>
<input id="check-timestamp" name="webhook_timestamp" inputmode="numeric" autocomplete="off">
<label for="check-standard">webhook-signature</label>
<input id="check-standard" name="webhook_signature" autocomplete="off" spellcheck="false">
<div class="actions"><button type="submit" class="secondary">Check</button></div>
</form>`

type Attempt = typeof WebhookDelivery.Type["attempts"][number]

/**
 * What the receiver answered, folded away (a log of 20 deliveries must stay scannable). Its text
 * is the receiver's, so it is escaped like any other value; nothing when none was read.
 */
const answerOf = (a: Attempt) =>
  (a.response_body ?? "") === ""
    ? ""
    : html`<details><summary>Response body${a.response_body_truncated === true ? " (first 4 KiB)" : ""}</summary>
<pre data-field="attempt-body">${a.response_body}</pre>${
      a.response_body_truncated === true
        ? html`<p class="muted" data-field="attempt-body-truncated">Cut at 4 KiB: the rest of the answer was not read.</p>`
        : ""
    }</details>`

const attemptItem = (a: Attempt) =>
  html`<li>Attempt ${a.attempt}, ${when(a.started_at)}: <span data-field="attempt-status">${
    a.status === null ? "no answer" : `HTTP ${a.status}`
  }</span> in ${a.duration_ms} ms${a.error === null ? "" : html` · <span class="muted">${a.error}</span>`}${
    answerOf(a)
  }</li>`

const deliveryItem = (v: WebhooksView) => (d: typeof WebhookDelivery.Type) =>
  html`<li data-delivery-id="${d.id}" data-event-id="${d.event_id}"><code class="name">${d.event_type}</code>
<span class="status" data-field="delivery-status">${d.status}</span>
<span class="next">${d.event_id} · ${when(d.created_at)} · ${d.attempt_count} attempt${
    d.attempt_count === 1 ? "" : "s"
  }${d.next_attempt_at === null ? "" : ` · next ${when(d.next_attempt_at)}`}</span>
${d.attempts.length === 0 ? "" : html`<ul aria-label="${`Attempts of ${d.id}`}">${d.attempts.map(attemptItem)}</ul>`}
${
    v.canManage
      ? html`<div class="actions">${
        button(
          v,
          "/console/webhooks/redeliver",
          "Redeliver",
          html`<input type="hidden" name="event_id" value="${d.event_id}">`,
          `Redeliver ${d.event_id}`
        )
      }</div>`
      : ""
  }</li>`

const body = (v: WebhooksView) =>
  v.environment === null
    ? html`<p>This partner has no webhook access yet; the operators grant it with the partner's keys.</p>`
    : html`${environmentPicker(v)}
<h2>Endpoint (${v.environment})</h2>
${v.endpoint === null ? html`<p>No endpoint yet.</p>` : endpointFacts(v, v.endpoint)}
${v.canManage ? urlForm(v) : ""}
${v.canManage && v.endpoint !== null ? checkForm(v) : ""}
<h2>Deliveries</h2>
${
      v.deliveries.length === 0
        ? html`<p>No deliveries yet.</p>`
        : html`<ol class="results" aria-label="Deliveries">${v.deliveries.map(deliveryItem(v))}</ol>`
    }`

/** `/console/webhooks` */
export const webhooksPage = (v: WebhooksView): StorePage => ({
  title: `Webhooks · ${v.membership.partnerName}`,
  body: consoleFrame(
    v.membership,
    "webhooks",
    v.others,
    html`<h1>Webhooks</h1>
${problem(v.error)}
${notice(v.notice)}
<p>Events are POSTed to the partner's endpoint, signed with its secret: see <a href="/docs/partner.md#webhooks">webhooks</a>.
${v.canManage ? "" : "Your role can look at the webhooks; an owner or a developer manages them."}</p>
${body(v)}`
  )
})

/** The new signing secret, this once. */
export const webhookSecretPage = (
  m: Membership,
  others: ReadonlyArray<Membership>,
  issued: { readonly url: string; readonly secret: string },
  environment: string
): StorePage => ({
  title: `Webhook secret · ${m.partnerName}`,
  body: consoleFrame(
    m,
    "webhooks",
    others,
    html`<h1>Your webhook signing secret</h1>
<p class="note" role="status">Copy the secret now: it is shown only this once. Deliveries from now on are signed with it.</p>
<dl class="facts">
<dt>Environment</dt><dd>${environment}</dd>
<dt>URL</dt><dd><code>${issued.url}</code></dd>
</dl>
<label for="secret">Secret</label>
<input id="secret" readonly value="${issued.secret}" autocomplete="off" spellcheck="false">
<div class="actions"><button type="button" class="secondary" data-copy="secret" hidden>Copy the secret</button>
<span id="secret-copied" role="status" aria-live="polite"></span></div>
<p>Verify each delivery's <code>X-Service-Signature</code> (or the Standard Webhooks <code>webhook-signature</code>)
with it: see <a href="/docs/partner.md#verifying-webhooks-in-node">verifying webhooks</a>.</p>
<p><a href="${webhooksPath(m.partnerId, environment)}">Back to the webhooks</a></p>`
  )
})
