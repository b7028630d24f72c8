/**
 * The buyer's progress page (GET /brokerage/progress?t=…): the case's domain, status and timeline
 * in plain words, in the visual language of platform/http/Html.ts. It never shows the seller, the
 * partner, operator notes, amounts or anything a credential could be derived from.
 */
import { type CaseStatus, CLOSED_STATUSES, PATH, STATUS_WORDS, type Tier } from "../../domain/Brokerage.js"
import { dayInWords, timeInWords } from "../../domain/TimeWords.js"
import { escapeHtml, page } from "../../platform/http/Html.js"

export interface ProgressView {
  readonly domain: string
  readonly tier: Tier
  readonly status: CaseStatus
  readonly createdAt: Date
  readonly timeline: ReadonlyArray<{ readonly status: CaseStatus; readonly at: Date }>
}

/** A time in words ("27 Nov 2026, 16:18 UTC"), with the exact instant for machines. */
const time = (d: Date, words: (d: Date) => string) =>
  `<time datetime="${escapeHtml(d.toISOString())}">${escapeHtml(words(d))}</time>`

const TIER_WORDS: Readonly<Record<Tier, string>> = {
  managed: "Managed: our brokers negotiate for you",
  self_serve: "Self-serve: we find and contact the owner"
}

export const progressPage = (v: ProgressView): string => {
  const words = STATUS_WORDS[v.status]
  const closed = CLOSED_STATUSES.includes(v.status)
  const reached = new Set(v.timeline.map((t) => t.status))
  const steps = PATH.map((s) => {
    const done = reached.has(s)
    const current = s === v.status
    return `<li${current ? ` aria-current="step"` : ""}>${done && !current ? "✓ " : ""}${current ? "<strong>" : ""}${
      escapeHtml(STATUS_WORDS[s].title)
    }${current ? "</strong>" : ""}</li>`
  }).join("\n")
  const history = [...v.timeline].reverse().map((t) =>
    `<li>${time(t.at, timeInWords)} — ${escapeHtml(STATUS_WORDS[t.status].title)}</li>`
  ).join("\n")
  return page(
    `${v.domain}: ${words.title}`,
    `<h1>Acquiring <span class="domain">${escapeHtml(v.domain)}</span></h1>
<p class="${
      v.status === "closed_won" ? "success" : v.status === "closed_lost" || v.status === "cancelled" ? "error" : "muted"
    }" role="status">
  <strong>${escapeHtml(words.title)}.</strong> ${escapeHtml(words.text)}
</p>
<dl class="facts">
  <dt>Domain</dt><dd>${escapeHtml(v.domain)}</dd>
  <dt>Service</dt><dd>${escapeHtml(TIER_WORDS[v.tier])}</dd>
  <dt>Requested</dt><dd>${time(v.createdAt, dayInWords)}</dd>
</dl>
${closed && v.status !== "closed_won" ? "" : `<h2>Steps</h2>\n<ol class="timeline steps">\n${steps}\n</ol>`}
<h2>History</h2>
<ol class="timeline history" reversed>
${history}
</ol>
<p class="muted">This page updates as your request progresses; keep the link private. Questions? Ask the service that sent you this link.</p>`
  )
}
