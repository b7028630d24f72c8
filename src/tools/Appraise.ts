/**
 * appraise: a transparent estimate of a domain's aftermarket value in USD. Pure; the comparable
 * listings are passed in.
 *
 * Method (docs/tools.md#appraise):
 *   base by TLD            com 1,000 · net/org/io/ai 400 · co/app/dev 300 · other known TLDs 100 ·
 *                          unknown suffix 50
 *   × length of the label  ≤3: 8 · 4: 4 · 5: 2 · 6–8: 1.2 · 9–12: 1 · 13–16: 0.6 · longer: 0.3
 *   × composition          letters only 1 · with digits 0.6 · with hyphens 0.5 (each applies) ·
 *                          digits only 1.5 when ≤ 4 characters
 *   × words                the label splits into dictionary words: 1 word 2, 2 words 1.4, else 1
 *   × IDN                  0.6 for an internationalised label
 *   comparables            when active listings with the same TLD and a label length within ±2
 *                          exist, the estimate moves halfway to their median buy-now price
 *   range                  estimate × 0.6 … × 1.6; everything rounded to whole dollars (min 10)
 */
import { COMMON_WORDS } from "./words.js"

export interface Comparable {
  readonly domain: string
  readonly bin_price: number
}

export interface Factor {
  readonly name: string
  readonly multiplier: number
  readonly detail: string
}

export interface Appraisal {
  readonly domain: string
  readonly estimate: number
  readonly low: number
  readonly high: number
  readonly currency: "USD"
  readonly base: number
  readonly factors: ReadonlyArray<Factor>
  readonly comparables: ReadonlyArray<Comparable>
  readonly method: string
}

const TLD_BASE: Readonly<Record<string, number>> = {
  com: 1000,
  net: 400,
  org: 400,
  io: 400,
  ai: 400,
  co: 300,
  app: 300,
  dev: 300
}

/** Greedy longest-first split into known words; undefined when the label does not split. */
export const splitWords = (label: string): ReadonlyArray<string> | undefined => {
  const best: Array<ReadonlyArray<string> | undefined> = Array(label.length + 1).fill(undefined)
  best[0] = []
  for (let i = 1; i <= label.length; i++) {
    for (let j = Math.max(0, i - 12); j < i; j++) {
      const prev = best[j]
      const word = label.slice(j, i)
      if (
        prev !== undefined && COMMON_WORDS.has(word) && (best[i] === undefined || prev.length + 1 < best[i]!.length)
      ) {
        best[i] = [...prev, word]
      }
    }
  }
  return best[label.length]
}

const round = (n: number) => Math.max(10, Math.round(n))

export const appraise = (
  name: { readonly ascii: string; readonly label: string; readonly suffix: string; readonly knownSuffix: boolean },
  comparables: ReadonlyArray<Comparable>
): Appraisal => {
  const factors: Array<Factor> = []
  const base = TLD_BASE[name.suffix] ?? (name.knownSuffix ? 100 : 50)
  const label = name.label
  const isIdn = label.startsWith("xn--")
  const len = label.length
  const lengthMultiplier = len <= 3
    ? 8
    : len === 4
    ? 4
    : len === 5
    ? 2
    : len <= 8
    ? 1.2
    : len <= 12
    ? 1
    : len <= 16
    ? 0.6
    : 0.3
  factors.push({ name: "length", multiplier: lengthMultiplier, detail: `${len} characters` })
  if (/^\d+$/.test(label) && len <= 4) {
    factors.push({ name: "short_numeric", multiplier: 1.5, detail: "digits only, 4 or fewer" })
  } else if (/\d/.test(label) && !isIdn) factors.push({ name: "digits", multiplier: 0.6, detail: "contains digits" })
  if (label.includes("-") && !isIdn) factors.push({ name: "hyphens", multiplier: 0.5, detail: "contains hyphens" })
  const words = isIdn ? undefined : splitWords(label)
  if (words !== undefined && words.length > 0 && words.length <= 2) {
    factors.push({
      name: "words",
      multiplier: words.length === 1 ? 2 : 1.4,
      detail: `dictionary words: ${words.join(" + ")}`
    })
  }
  if (isIdn) factors.push({ name: "idn", multiplier: 0.6, detail: "internationalised label" })
  let estimate = factors.reduce((v, f) => v * f.multiplier, base)
  const prices = comparables.map((c) => c.bin_price).sort((a, b) => a - b)
  if (prices.length > 0) {
    const median = prices.length % 2 === 1
      ? prices[(prices.length - 1) / 2]
      : (prices[prices.length / 2 - 1] + prices[prices.length / 2]) / 2
    const before = estimate
    estimate = (estimate + median) / 2
    factors.push({
      name: "comparables",
      multiplier: Math.round((estimate / before) * 1000) / 1000,
      detail: `${prices.length} comparable listing(s), median buy-now $${median}`
    })
  }
  return {
    domain: name.ascii,
    estimate: round(estimate),
    low: round(estimate * 0.6),
    high: round(estimate * 1.6),
    currency: "USD",
    base,
    factors,
    comparables,
    method:
      "TLD base × length × composition × words × IDN, moved halfway to the median of comparable listings; see docs/tools.md#appraise"
  }
}
