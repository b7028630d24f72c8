/**
 * The console's brokerage (docs/consoles.md#brokerage): the partner's cases in one environment,
 * newest first, with status and window filters and a `Next page` link; and one case as the signed
 * API's `GET /brokerage/{id}` answers it, its figures and the timeline of every step. Built with
 * `html` (escapes by default) in the console's frame.
 */
import { CASE_STATUSES } from "../domain/Brokerage.js"
import { moneyInWords, timeInWords } from "../domain/TimeWords.js"
import type { PartnerEnvironment } from "../partner/Auth.js"
import type { CaseJson } from "../partner/brokerage/Brokerage.js"
import type { timelineJson } from "../partner/brokerage/CaseJson.js"
import type { Membership } from "../partner/members/Members.js"
import { html } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { environmentPicker, filterForm, nextPage, pathWith, rowsOr, selectField, textField } from "./Lists.js"
import type { ListView } from "./OrderPages.js"
import { consoleFrame } from "./Pages.js"

export interface CaseQuery {
  readonly status?: string | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly limit?: string | undefined
}

const when = (iso: string | null) => iso === null ? "—" : timeInWords(new Date(iso))
const cents = (v: number | null, currency: string) => v === null ? "—" : moneyInWords(v, currency)

/** A case's page for the partner and environment. */
export const casePath = (partnerId: string, environment: PartnerEnvironment, id: string) =>
  pathWith(`/console/brokerage/${encodeURIComponent(id)}`, { partner: partnerId, environment })

const caseItem = (partnerId: string) => (c: CaseJson) =>
  html`<li data-case="${c.id}"><span class="name"><a href="${
    casePath(partnerId, c.environment, c.id)
  }">${c.domain}</a></span>
<span class="status" data-field="case-status">${c.status}</span>
<span class="next">${c.tier} · budget ${moneyInWords(c.budget, c.currency)}${
    c.deal_price_cents === null ? "" : html` · deal ${moneyInWords(c.deal_price_cents, c.currency)}`
  } · created ${when(c.created_at)} · <code>${c.id}</code></span></li>`

/** `/console/brokerage` */
export const brokeragePage = (v: ListView<CaseJson, CaseQuery>): StorePage => {
  const q = v.query
  const path = "/console/brokerage"
  const filtered = [q.status, q.from, q.to].some((f) => f)
  return {
    title: `Brokerage · ${v.membership.partnerName}`,
    body: consoleFrame(
      v.membership,
      "brokerage",
      v.others,
      html`<h1>Brokerage</h1>
${environmentPicker(path, v.membership.partnerId, v.environment)}
${
        filterForm(path, "Filter the cases", { partnerId: v.membership.partnerId, environment: v.environment }, [
          selectField("case-status", "status", "Status", CASE_STATUSES, q.status),
          textField("case-from", "from", "Created from", q.from, "2026-01-01"),
          textField("case-to", "to", "Created before", q.to, "2026-12-31")
        ])
      }
${
        rowsOr(
          "Brokerage cases",
          v.rows,
          caseItem(v.membership.partnerId),
          filtered
            ? html`No cases match these filters.`
            : html`No brokerage cases yet — a case appears here once it is opened with
<code>POST /api/partner/v1/brokerage</code> (<a href="/docs/brokerage.md">brokerage</a>).`
        )
      }
${
        nextPage(
          path,
          { partner: v.membership.partnerId, environment: v.environment, ...q },
          v.nextCursor
        )
      }`
    )
  }
}

type Step = ReturnType<typeof timelineJson>

const stepItem = (currency: string) => (t: Step) =>
  html`<li><span class="name">${t.status}</span><span class="status">${when(t.at)}</span>
<span class="next">${t.from_status === null ? "opened" : html`from ${t.from_status}`}${
    t.price_cents === null ? "" : html` · ${moneyInWords(t.price_cents, currency)}`
  } · by <code>${t.actor}</code>${t.note === null ? "" : html` · ${t.note}`}</span></li>`

/** `/console/brokerage/{id}` */
export const casePage = (
  m: Membership,
  others: ReadonlyArray<Membership>,
  c: CaseJson & { readonly timeline: ReadonlyArray<Step> }
): StorePage => ({
  title: `${c.domain} · Brokerage · ${m.partnerName}`,
  body: consoleFrame(
    m,
    "brokerage",
    others,
    html`<h1>${c.domain}</h1>
<dl class="facts">
<dt>Case</dt><dd><code>${c.id}</code> (${c.environment})</dd>
<dt>Status</dt><dd data-field="case-status">${c.status}</dd>
<dt>Tier</dt><dd>${c.tier}</dd>
<dt>Budget</dt><dd>${moneyInWords(c.budget, c.currency)}</dd>
<dt>Agreed price</dt><dd>${cents(c.agreed_price_cents, c.currency)}</dd>
<dt>Deal price</dt><dd>${cents(c.deal_price_cents, c.currency)}</dd>
<dt>Brokerage fee</dt><dd>${cents(c.brokerage_fee_cents, c.currency)}</dd>
<dt>Your commission</dt><dd>${cents(c.partner_commission_cents, c.currency)}</dd>
<dt>Order</dt><dd>${c.order_id === null ? "—" : html`<code>${c.order_id}</code>`}</dd>
<dt>Created</dt><dd>${when(c.created_at)}</dd>
<dt>Closed</dt><dd>${when(c.closed_at)}</dd>
</dl>
<h2>Timeline</h2>
${rowsOr("Timeline", c.timeline, stepItem(c.currency), html`No steps yet.`)}
<p><a href="${
      pathWith("/console/brokerage", { partner: m.partnerId, environment: c.environment })
    }">Back to the cases</a></p>`
  )
})
