/**
 * The buyer's progress page (GET /brokerage/progress?t=…): the case's domain, status and timeline
 * in plain words, in the visual language of platform/http/Html.ts. It never shows the seller, the
 * partner, operator notes, amounts or anything a credential could be derived from. Built with the
 * `html` template (escapes by default).
 */
import { type CaseStatus, CLOSED_STATUSES, PATH, STATUS_WORDS, type Tier } from "../../domain/Brokerage.js"
import { dayInWords, timeInWords } from "../../domain/TimeWords.js"
import { html, page } from "../../platform/http/Html.js"

export interface ProgressView {
  readonly domain: string
  readonly tier: Tier
  readonly status: CaseStatus
  readonly createdAt: Date
  readonly timeline: ReadonlyArray<{ readonly status: CaseStatus; readonly at: Date }>
}

/** A time in words ("27 Nov 2026, 16:18 UTC"), with the exact instant for machines. */
const time = (d: Date, words: (d: Date) => string) => html`<time datetime="${d.toISOString()}">${words(d)}</time>`

const TIER_WORDS: Readonly<Record<Tier, string>> = {
  managed: "Managed: our brokers negotiate for you",
  self_serve: "Self-serve: we find and contact the owner"
}

const tone = (status: CaseStatus) =>
  status === "closed_won" ? "success" : status === "closed_lost" || status === "cancelled" ? "error" : "muted"

export const progressPage = (v: ProgressView): string => {
  const words = STATUS_WORDS[v.status]
  const closed = CLOSED_STATUSES.includes(v.status)
  const reached = new Set(v.timeline.map((t) => t.status))
  const steps = PATH.map((s) => {
    const title = STATUS_WORDS[s].title
    return s === v.status
      ? html`<li aria-current="step"><strong>${title}</strong></li>\n`
      : html`<li>${reached.has(s) && "✓ "}${title}</li>\n`
  })
  const history = [...v.timeline].reverse().map((t) =>
    html`<li>${time(t.at, timeInWords)} — ${STATUS_WORDS[t.status].title}</li>\n`
  )
  return page(
    `${v.domain}: ${words.title}`,
    html`<h1>Acquiring <span class="domain">${v.domain}</span></h1>
<p class="${tone(v.status)}" role="status">
  <strong>${words.title}.</strong> ${words.text}
</p>
<dl class="facts">
  <dt>Domain</dt><dd>${v.domain}</dd>
  <dt>Service</dt><dd>${TIER_WORDS[v.tier]}</dd>
  <dt>Requested</dt><dd>${time(v.createdAt, dayInWords)}</dd>
</dl>
${!(closed && v.status !== "closed_won") && html`<h2>Steps</h2>\n<ol class="timeline steps">\n${steps}</ol>`}
<h2>History</h2>
<ol class="timeline history" reversed>
${history}</ol>
<p class="muted">This page updates as your request progresses; keep the link private. Questions? Ask the service that sent you this link.</p>`
  )
}
