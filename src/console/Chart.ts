/**
 * A day-by-day series drawn as a bar chart in SVG on the server (no chart script): `role="img"`
 * named by its `<title>` and `<desc>`, labels on both axes, and the same numbers in a table inside
 * `<details>`, for screen readers and for copying. Colours come from the stylesheet's tokens
 * through classes (`svg.chart .bar`, platform/http/PageStyle.ts), never a style attribute or a
 * colour of its own, so both schemes and the CSP hold. Pure; `layout` is property-tested.
 *
 * Contract: for any non-negative series every bar lies inside the viewBox (a zero or empty series
 * draws flat bars on a 0–1 axis), and the day labels are the series' days, in order.
 */
import { html, type SafeHtml } from "../platform/http/Html.js"

export interface Point {
  /** YYYY-MM-DD */
  readonly day: string
  readonly value: number
}

/** The drawing's size and the margins around the plot (viewBox units). */
export const VIEW = { width: 360, height: 180, left: 48, right: 16, top: 12, bottom: 26 } as const

export interface Bar {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** At most this many day labels under the bars (every `step`-th day, the first included). */
const DAY_LABELS = 7

const round = (n: number) => Math.round(n * 100) / 100

/** The top of the value axis: the smallest 1, 2 or 5 × 10ⁿ at or above `max` (1 when nothing is above 0). */
export const niceTop = (max: number): number => {
  if (!(max > 0) || !Number.isFinite(max)) return 1
  const p = 10 ** Math.floor(Math.log10(max))
  return [1, 2, 5, 10].map((m) => m * p).find((t) => t >= max) ?? 10 * p
}

/** The bars of a series, the axis top, its ticks and which days are labelled (indices, ascending). */
export const layout = (values: ReadonlyArray<number>) => {
  const clean = values.map((v) => (Number.isFinite(v) && v > 0 ? v : 0))
  const top = niceTop(clean.reduce((m, v) => Math.max(m, v), 0))
  const plotW = VIEW.width - VIEW.left - VIEW.right
  const plotH = VIEW.height - VIEW.top - VIEW.bottom
  const slot = plotW / Math.max(1, clean.length)
  const gap = slot >= 4 ? slot * 0.2 : 0
  const bars: ReadonlyArray<Bar> = clean.map((v, i) => {
    const height = round((Math.min(v, top) / top) * plotH)
    return {
      x: round(VIEW.left + i * slot + gap / 2),
      y: round(VIEW.top + plotH - height),
      width: round(slot - gap),
      height
    }
  })
  const ticks = [0, top / 2, top].filter(Number.isInteger).map((value) => ({
    value,
    y: round(VIEW.top + plotH - (value / top) * plotH)
  }))
  const step = Math.max(1, Math.ceil(clean.length / DAY_LABELS))
  const labelled = clean.flatMap((_, i) => (i % step === 0 ? [i] : []))
  return { top, bars, ticks, labelled, baseline: VIEW.top + plotH }
}

/** "11-28" under a bar; the table and the bar's own title say the whole date. */
const shortDay = (day: string) => day.slice(5)

/** One series as a captioned chart with its numbers. `id` is unique on the page. */
export const barChart = (c: {
  readonly id: string
  readonly title: string
  readonly points: ReadonlyArray<Point>
  readonly format: (value: number) => string
  /** The value axis' labels, short ("$5K"); default `format`. */
  readonly axisFormat?: (value: number) => string
}): SafeHtml => {
  const axis = c.axisFormat ?? c.format
  const l = layout(c.points.map((p) => p.value))
  const total = c.points.reduce((n, p) => n + p.value, 0)
  const best = c.points.reduce<Point | undefined>((b, p) => (b === undefined || p.value > b.value ? p : b), undefined)
  const first = c.points[0]?.day
  const last = c.points[c.points.length - 1]?.day
  const summary = first === undefined
    ? "No days."
    : `${c.points.length} days, ${first} to ${last}: ${c.format(total)} in all${
      best !== undefined && best.value > 0 ? `, most on ${best.day} (${c.format(best.value)})` : ""
    }.`
  return html`<figure class="chart">
<figcaption>${c.title}</figcaption>
<svg class="chart" viewBox="0 0 ${VIEW.width} ${VIEW.height}" role="img" aria-labelledby="${c.id}-title ${c.id}-desc">
<title id="${c.id}-title">${c.title} by day</title>
<desc id="${c.id}-desc">${summary}</desc>
<g class="grid">${
    l.ticks.map((t) =>
      html`<line x1="${VIEW.left}" x2="${VIEW.width - VIEW.right}" y1="${t.y}" y2="${t.y}"/><text x="${
        VIEW.left - 6
      }" y="${t.y + 4}" text-anchor="end">${axis(t.value)}</text>`
    )
  }</g>
<g class="bars">${
    l.bars.map((b, i) =>
      html`<rect class="bar" x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}"><title>${
        c.points[i]!.day
      }: ${c.format(c.points[i]!.value)}</title></rect>`
    )
  }</g>
<line class="axis" x1="${VIEW.left}" x2="${VIEW.width - VIEW.right}" y1="${l.baseline}" y2="${l.baseline}"/>
<g class="days">${
    l.labelled.map((i) =>
      html`<text x="${round(l.bars[i]!.x + l.bars[i]!.width / 2)}" y="${VIEW.height - 8}" text-anchor="middle">${
        shortDay(c.points[i]!.day)
      }</text>`
    )
  }</g>
</svg>
<details><summary>${c.title}: the numbers</summary>
<table class="lines"><thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="amount">${c.title}</th></tr></thead>
<tbody>${
    c.points.map((p) => html`<tr><th scope="row">${p.day}</th><td class="amount">${c.format(p.value)}</td></tr>`)
  }</tbody></table>
</details>
</figure>`
}
