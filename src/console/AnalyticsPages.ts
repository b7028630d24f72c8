/**
 * The console's analytics (docs/consoles.md#analytics): the partner's referral funnel over a
 * window of UTC days chosen in the URL (`from`, `to`), as `GET /api/partner/v1/analytics` answers
 * it: the totals, then one server-drawn chart per measure (./Chart.ts), each with its numbers.
 * Built with `html` (escapes by default).
 */
import { moneyInWords } from "../domain/TimeWords.js"
import type { Membership } from "../partner/members/Members.js"
import { html, type SafeHtml } from "../platform/http/Html.js"
import type { Analytics } from "../referrals/Api.js"
import { CONSOLE_WINDOW_DAYS } from "../referrals/MemberReferrals.js"
import type { StorePage } from "../storefront/Layout.js"
import { barChart } from "./Chart.js"
import { environmentChoice, sectionPath } from "./Lists.js"
import { consoleFrame, problem } from "./Pages.js"

export interface AnalyticsView {
  readonly membership: Membership
  readonly others: ReadonlyArray<Membership>
  readonly environments: ReadonlyArray<string>
  readonly environment: string | null
  readonly affiliate: boolean
  /** None when the window was refused (`error` says why) or there is nothing to report. */
  readonly report: typeof Analytics.Type | null
  /** The window as asked (refilled in the form after a refusal). */
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly error?: string
}

type Day = typeof Analytics.Type["series"][number]

const usd = (cents: number) => moneyInWords(cents, "USD")

/** An axis label: "1.2K", "$5K", "$0.01". */
const COMPACT = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 })
const COMPACT_USD = new Intl.NumberFormat("en-US", {
  notation: "compact",
  style: "currency",
  currency: "USD",
  minimumFractionDigits: 0,
  maximumFractionDigits: 2
})
const count = (n: number) => COMPACT.format(n)
const usdShort = (cents: number) => COMPACT_USD.format(cents / 100)

type Format = (n: number) => string

/** The measures charted, in the funnel's order: the field, the title, its numbers and its axis. */
const MEASURES: ReadonlyArray<readonly [keyof Day & string, string, Format, Format]> = [
  ["clicks", "Clicks", String, count],
  ["unique_clicks", "Unique clicks", String, count],
  ["checkouts_started", "Checkouts started", String, count],
  ["sales", "Sales", String, count],
  ["gmv_cents", "GMV (USD)", usd, usdShort],
  ["commission_cents", "Commission (USD)", usd, usdShort]
]

const windowForm = (v: AnalyticsView) =>
  html`<form method="get" action="/console/analytics" class="filters" aria-label="Window">
<input type="hidden" name="partner" value="${v.membership.partnerId}">
${v.environment === null ? "" : html`<input type="hidden" name="environment" value="${v.environment}">`}
<div><label for="from">From (UTC day)</label><input id="from" name="from" type="date" value="${
    v.report?.from ?? v.from ?? ""
  }"></div>
<div><label for="to">To</label><input id="to" name="to" type="date" value="${v.report?.to ?? v.to ?? ""}"></div>
<div><button type="submit" class="secondary">Show</button></div>
</form>`

const totals = (r: typeof Analytics.Type) =>
  html`<dl class="facts" aria-label="Totals">
<dt>Clicks</dt><dd data-field="clicks">${r.clicks}</dd>
<dt>Unique clicks</dt><dd data-field="unique_clicks">${r.unique_clicks}</dd>
<dt>Checkouts started</dt><dd data-field="checkouts_started">${r.checkouts_started}</dd>
<dt>Sales</dt><dd data-field="sales">${r.sales}</dd>
<dt>Conversion</dt><dd>${(r.conversion_rate * 100).toFixed(2)} % of unique clicks</dd>
<dt>GMV</dt><dd>${usd(r.gmv_cents)}</dd>
<dt>Commission</dt><dd>${usd(r.commission_cents)}</dd>
</dl>`

const charts = (r: typeof Analytics.Type) =>
  MEASURES.map(([key, title, format, axisFormat]) =>
    barChart({
      id: `chart-${key}`,
      title,
      points: r.series.map((d) => ({ day: d.date, value: Number(d[key]) })),
      format,
      axisFormat
    })
  )

const body = (v: AnalyticsView): SafeHtml => {
  if (v.environment === null) {
    return html`<p>This partner has no referral reports yet: the operators grant them (the <code>report</code> scope) with the partner's keys.</p>`
  }
  if (!v.affiliate) {
    return html`<p>This partner is not an affiliate account: referral analytics need one (the operators make it one).</p>`
  }
  return html`${
    environmentChoice(
      v.environments,
      v.environment,
      (e) => sectionPath("/console/analytics", v.membership.partnerId, e)
    )
  }
${windowForm(v)}
${
    v.report === null ? "" : html`<h2>${v.report.from} to ${v.report.to} (${v.environment})</h2>
${totals(v.report)}
${charts(v.report)}`
  }`
}

/** `/console/analytics` */
export const analyticsPage = (v: AnalyticsView): StorePage => ({
  title: `Analytics · ${v.membership.partnerName}`,
  body: consoleFrame(
    v.membership,
    "analytics",
    v.others,
    html`<h1>Analytics</h1>
${problem(v.error)}
<p>Clicks on the partner's referral links and what followed, by UTC day, as the
<a href="/docs/referrals.md#analytics">analytics API</a> reports them: the last 30 days unless a window is chosen (at most ${CONSOLE_WINDOW_DAYS} days here).</p>
${body(v)}`
  )
})
