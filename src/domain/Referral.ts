/**
 * Referral rules (pure): which click a purchase is attributed to, which clicks count as unique,
 * where a link sends the visitor, the report windows, and the affiliate's commission ledger
 * with its running balance, read off the partner ledger (src/domain/Ledger.ts).
 *
 * Contract: attribution is "last click wins within the window" — the latest click at or before
 * the purchase, if it is at most `windowMs` old; an older click never wins over a later one,
 * whoever's link it was. The browser cookie implements exactly this (each click overwrites it).
 */
import type { Posting } from "./Ledger.js"

export const LINK_KINDS = ["generic", "domain", "product"] as const
export type LinkKind = typeof LINK_KINDS[number]

export const PRODUCTS = ["search", "whois", "brokerage", "checkout"] as const
export type Product = typeof PRODUCTS[number]

/** Where each product link lands (the service's own pages and docs). */
export const PRODUCT_PAGES: Readonly<Record<Product, string>> = {
  search: "/",
  whois: "/docs/lookup.md",
  brokerage: "/docs/brokerage.md",
  checkout: "/docs/referrals.md#buy"
}

/**
 * The redirect target of a link (a path on this service). A sandbox link's domain leads to the
 * sandbox purchase page (`?env=sandbox`: sandbox inventory, sandbox cards, sandbox books); a live
 * link's to the live one. Neither page sells the other's inventory or credits the other's links.
 */
export const destinationOf = (
  link: {
    readonly kind: LinkKind
    readonly domain: string | null
    readonly product: string | null
    readonly environment?: "live" | "sandbox"
  }
): string => {
  switch (link.kind) {
    case "generic":
      return "/"
    case "domain":
      return `/buy/${encodeURIComponent(link.domain ?? "")}${link.environment === "sandbox" ? "?env=sandbox" : ""}`
    case "product":
      return PRODUCT_PAGES[(link.product ?? "search") as Product] ?? "/"
  }
}

// ---------------------------------------------------------------------------------------------
// Attribution

export interface Click {
  readonly partnerId: string
  readonly linkId: string
  readonly at: number
}

/** The click a purchase at `purchaseAt` is attributed to: the last one at or before it, if within the window. */
export const attributionOf = <C extends Click>(
  clicks: ReadonlyArray<C>,
  purchaseAt: number,
  windowMs: number
): C | undefined => {
  let last: C | undefined
  for (const c of clicks) if (c.at <= purchaseAt && (last === undefined || c.at >= last.at)) last = c
  return last !== undefined && withinWindow(last.at, purchaseAt, windowMs) ? last : undefined
}

/** A click at `clickAt` still counts at `now`. */
export const withinWindow = (clickAt: number, now: number, windowMs: number): boolean =>
  clickAt <= now && now - clickAt <= windowMs

// ---------------------------------------------------------------------------------------------
// Clicks: bots and repeats

/**
 * Known crawlers, link unfurlers, monitors and scripted HTTP clients. A click from one is recorded
 * (the partner sees it) but never counted as unique. An empty user agent is a script too.
 */
const BOT_RE =
  /bot\b|bot\/|crawl|spider|slurp|mediapartners|facebookexternalhit|facebookcatalog|embedly|quora link preview|outbrain|pinterest|vkshare|w3c_validator|whatsapp|skypeuripreview|preview|headless|phantomjs|lighthouse|pingdom|uptime|monitor|curl\/|wget\/|python-requests|python-urllib|aiohttp|httpx|go-http-client|java\/|okhttp|libwww|node-fetch|undici|axios|postman|insomnia|scrapy|feedfetcher|httpclient/i

export const isBot = (userAgent: string | null | undefined): boolean => {
  const ua = (userAgent ?? "").trim()
  return ua.length === 0 || BOT_RE.test(ua)
}

/**
 * Uniqueness: a click is unique unless it is a bot's, or the same visitor (hashed IP + user
 * agent) clicked the same link within `repeatMs` before. `seen` is the visitor memory
 * (key → time of that visitor's last click); it is updated in place, repeats included, so a
 * visitor who keeps clicking stays a repeat.
 */
export const classifyClick = (
  seen: Map<string, number>,
  click: { readonly linkId: string; readonly visitor: string; readonly at: number; readonly bot: boolean },
  repeatMs: number
): boolean => {
  if (click.bot) return false
  const key = `${click.linkId}|${click.visitor}`
  const previous = seen.get(key)
  seen.set(key, Math.max(previous ?? 0, click.at))
  return previous === undefined || click.at - previous > repeatMs
}

// ---------------------------------------------------------------------------------------------
// Report windows

export const DAY_MS = 86_400_000
export const MAX_WINDOW_DAYS = 366

export type WindowResult =
  | { readonly ok: true; readonly from: string; readonly to: string; readonly days: ReadonlyArray<string> }
  | { readonly ok: false; readonly field: "from" | "to"; readonly message: string }

const DATE_RE = /^(\d{4}-\d{2}-\d{2})([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2}))?$/

/** A UTC calendar day (YYYY-MM-DD) from a date or an RFC 3339 date-time, or undefined. */
export const dayOf = (s: string): string | undefined => {
  const m = DATE_RE.exec(s)
  if (!m) return undefined
  const d = new Date(m[2] === undefined ? `${m[1]}T00:00:00Z` : s)
  if (Number.isNaN(d.getTime())) return undefined
  const day = d.toISOString().slice(0, 10)
  // 2026-02-30 parses as March 2nd: refuse dates that do not exist.
  if (m[2] === undefined && day !== m[1]) return undefined
  return day
}

export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/**
 * A report window: whole UTC days `from`..`to`, both included. Defaults: `to` = today, `from` =
 * `to` − 29 days. Refused: unparseable, `from` after `to`, longer than MAX_WINDOW_DAYS.
 */
export const reportWindow = (
  from: string | undefined,
  to: string | undefined,
  now: number,
  defaultDays = 30
): WindowResult => {
  const t = to === undefined ? utcDay(now) : dayOf(to)
  if (t === undefined) {
    return { ok: false, field: "to", message: "must be a date (YYYY-MM-DD) or an RFC 3339 date-time" }
  }
  const f = from === undefined ? utcDay(Date.parse(`${t}T00:00:00Z`) - (defaultDays - 1) * DAY_MS) : dayOf(from)
  if (f === undefined) {
    return { ok: false, field: "from", message: "must be a date (YYYY-MM-DD) or an RFC 3339 date-time" }
  }
  const fMs = Date.parse(`${f}T00:00:00Z`)
  const tMs = Date.parse(`${t}T00:00:00Z`)
  if (fMs > tMs) return { ok: false, field: "from", message: `must not be after to (${t})` }
  const count = (tMs - fMs) / DAY_MS + 1
  if (count > MAX_WINDOW_DAYS) {
    return { ok: false, field: "from", message: `the window is ${count} days; at most ${MAX_WINDOW_DAYS}` }
  }
  const days: Array<string> = []
  for (let d = fMs; d <= tMs; d += DAY_MS) days.push(utcDay(d))
  return { ok: true, from: f, to: t, days }
}

/** Sales per unique click, 4 decimals; 0 without unique clicks. */
export const conversionRate = (sales: number, uniqueClicks: number): number =>
  uniqueClicks <= 0 ? 0 : Math.round((sales / uniqueClicks) * 10_000) / 10_000

// ---------------------------------------------------------------------------------------------
// Commission ledger

/**
 * One ledger transaction of the partner as it touches commission: the change of the
 * credit balances of `commission_accrued` and `commission_payable` (credit-positive: what the
 * service owes the partner).
 */
export interface CommissionMovement {
  readonly id: string
  readonly kind: Posting["kind"]
  readonly accruedDelta: number
  readonly payableDelta: number
}

export type CommissionKind = "accrued" | "payable" | "paid_out" | "reversed"

export interface CommissionEntry<M extends CommissionMovement = CommissionMovement> {
  readonly movement: M
  readonly kind: CommissionKind
  /** Signed: + accrued, + made payable (moved from accrued), − paid out, − reversed; a failed payout returns + to payable. */
  readonly amount: number
  /** Commission earned and not yet paid out (accrued + payable) after this entry. */
  readonly balance: number
}

export interface CommissionBalance {
  readonly accrued: number
  readonly payable: number
  readonly paidOut: number
  readonly reversed: number
}

const KIND_OF: Readonly<Record<CommissionMovement["kind"], CommissionKind | undefined>> = {
  recorded: "accrued",
  reversed: "reversed",
  settled: "payable",
  payout_started: "paid_out",
  payout_failed: "payable",
  payout_paid: undefined,
  // Never touch a commission account (receipts from partners, brokerage fee rebooking).
  receipt: undefined,
  rebooked: undefined
}

/**
 * The affiliate's commission ledger, oldest first, with the running balance: one entry per
 * movement that changes a commission account (a payout confirmation only moves money already
 * in flight, so it shows no entry).
 */
export const commissionLedger = <M extends CommissionMovement>(movements: ReadonlyArray<M>) => {
  const entries: Array<CommissionEntry<M>> = []
  let accrued = 0
  let payable = 0
  let paidOut = 0
  let reversed = 0
  for (const m of movements) {
    const kind = KIND_OF[m.kind]
    if (kind === undefined || (m.accruedDelta === 0 && m.payableDelta === 0)) continue
    accrued += m.accruedDelta
    payable += m.payableDelta
    let amount: number
    switch (kind) {
      case "accrued":
        amount = m.accruedDelta
        break
      case "reversed":
        amount = m.accruedDelta + m.payableDelta
        reversed -= amount
        break
      case "payable":
        amount = m.payableDelta
        break
      case "paid_out":
        amount = m.payableDelta
        paidOut -= amount
        break
    }
    if (m.kind === "payout_failed") paidOut -= m.payableDelta
    entries.push({ movement: m, kind, amount, balance: accrued + payable })
  }
  return { entries, balance: { accrued, payable, paidOut, reversed } satisfies CommissionBalance }
}
