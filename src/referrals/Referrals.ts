/**
 * Referrals: affiliates' links, the click redirect, attribution and the affiliate's reports.
 *
 * - Links belong to one partner and environment; codes are 10 base62 characters from the CSPRNG
 *   (≈ 59 bits: not guessable, not enumerable).
 * - A click answers from memory: the link (cached by code; links never change), a signed cookie
 *   `{link, partner, environment, click id, time, visitor}` (SERVICE_SECRET, purpose
 *   `referral-cookie`), and the click handed to the ClickWriter. Each click overwrites the
 *   cookie: last click wins; the visitor (the browser's first click) carries over.
 * - Reports read the daily roll-up (clicks, funnel, analytics), the referral orders (sales) and
 *   the partner's ledger entries (commissions, src/domain/Referral.ts `commissionLedger`).
 */
import { Clock, Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import {
  commissionLedger,
  conversionRate,
  DAY_MS,
  destinationOf,
  type LinkKind,
  type Product,
  reportWindow,
  withinWindow
} from "../domain/Referral.js"
import type { PartnerEnvironment, PartnerIdentity } from "../partner/Auth.js"

/** Who asks: a signed request's identity, or a console member (MemberReferrals.ts) binding cursors. */
export type ReferralCaller = Pick<PartnerIdentity, "partnerId" | "environment" | "affiliate" | "credentialId">
import { domainParam, iso } from "../partner/Common.js"
import { NotAnAffiliate } from "../partner/Errors.js"
import { LedgerReads } from "../partner/ledger/LedgerReads.js"
import { Orders } from "../partner/orders/Orders.js"
import { AppConfig } from "../platform/Config.js"
import { pageCursor, PAGED_LISTS } from "../platform/http/PageCursor.js"
import { makeId } from "../platform/Ids.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import type { Attribution } from "./Attribution.js"
import { ClickWriter } from "./ClickWriter.js"
import { InvalidLinkRequest, InvalidReportQuery, ReferralLinkNotFound } from "./Errors.js"
import { type LinkRow, type Owner, ReferralRepo } from "./Repo.js"
import { ReferralConfig } from "./Settings.js"

const COOKIE_PURPOSE = "referral-cookie"
const CODE_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** 10 base62 characters, unbiased (rejection sampling). */
export const newCode = (): string => {
  let out = ""
  while (out.length < 10) {
    for (const b of randomBytes(16)) {
      if (b < 248 && out.length < 10) out += CODE_ALPHABET[b % 62]
    }
  }
  return out
}

interface CookiePayload {
  readonly l: string
  readonly p: string
  readonly e: PartnerEnvironment
  readonly c: string
  readonly t: number
  /** The visitor: the browser's first click id, carried over by each later click (absent on older cookies: `c`). */
  readonly v?: string
}

export interface ClickInput {
  readonly ip: string
  readonly userAgent: string | null
  readonly referrer: string | null
}

const notAffiliate = () =>
  new NotAnAffiliate({
    message:
      "This credential's partner is not an affiliate account: referral links and reports need one (the operator creates it with `partner create --affiliate`)"
  })

/** A cookie's visitor (a string id, or undefined for a cookie written before visitors were kept). */
const visitorOf = (c: CookiePayload): string | undefined =>
  typeof c.v === "string" && c.v.length <= 64 ? c.v : typeof c.c === "string" ? c.c : undefined

const ownerOf = (p: ReferralCaller): Owner => ({ partnerId: p.partnerId, environment: p.environment })

const make = Effect.gen(function*() {
  const repo = yield* ReferralRepo
  const orders = yield* Orders
  const ledgerReads = yield* LedgerReads
  const writer = yield* ClickWriter
  const secrets = yield* ServiceSecret
  const config = yield* AppConfig
  const referralsSettings = yield* ReferralConfig
  const windowMs = referralsSettings.windowDays * DAY_MS
  const byCode = new Map<string, LinkRow>()

  const linkJson = (l: LinkRow) => ({
    id: l.id,
    code: l.code,
    url: `${config.baseUrl}/r/${l.code}`,
    kind: l.kind,
    domain: l.domain,
    product: l.product as Product | null,
    campaign: l.campaign,
    created_at: iso(l.created_at)!
  })

  const affiliate = (p: ReferralCaller) => (p.affiliate ? Effect.void : Effect.fail(notAffiliate()))

  const window = (from: string | undefined, to: string | undefined) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const w = reportWindow(from, to, now)
      return w.ok
        ? Effect.succeed(w)
        : Effect.fail(
          new InvalidReportQuery({
            message: `${w.field}: ${w.message}`,
            details: [{ path: [w.field], message: w.message }]
          })
        )
    })

  const ownLink = (owner: Owner, linkId: string | undefined) =>
    linkId === undefined
      ? Effect.void
      : Effect.flatMap(
        repo.linkOwned(owner, linkId),
        (ok) => (ok ? Effect.void : Effect.fail(ReferralLinkNotFound.of(linkId)))
      )

  const createLink = (
    partner: ReferralCaller,
    input: {
      readonly kind: LinkKind
      readonly domain?: string | undefined
      readonly product?: Product | undefined
      readonly campaign?: string | undefined
    }
  ) =>
    Effect.gen(function*() {
      yield* affiliate(partner)
      let domain: string | null = null
      let product: Product | null = null
      if (input.kind === "domain") {
        if (input.domain === undefined) return yield* InvalidLinkRequest.of("domain", "required for kind domain")
        domain = (yield* domainParam("domain", input.domain)).ascii
      } else if (input.domain !== undefined) {
        return yield* InvalidLinkRequest.of("domain", "only for kind domain")
      }
      if (input.kind === "product") {
        if (input.product === undefined) {
          return yield* InvalidLinkRequest.of("product", "required for kind product")
        }
        product = input.product
      } else if (input.product !== undefined) {
        return yield* InvalidLinkRequest.of("product", "only for kind product")
      }
      const row = yield* repo.insertLink({
        id: makeId("lnk"),
        code: newCode(),
        partner_id: partner.partnerId,
        environment: partner.environment,
        kind: input.kind,
        domain,
        product,
        campaign: input.campaign?.trim() || null
      })
      return linkJson(row)
    })

  const listLinks = (partner: ReferralCaller, cursor: string | undefined, limit = 25) =>
    Effect.gen(function*() {
      yield* affiliate(partner)
      const pages = pageCursor(secrets, PAGED_LISTS.referralLinks, partner.credentialId, [])
      const before = yield* pages.read(cursor)
      const rows = yield* repo.listLinks(ownerOf(partner), before, limit + 1)
      const page = rows.slice(0, limit)
      return {
        links: page.map((r) => ({
          ...linkJson(r),
          clicks: r.clicks,
          unique_clicks: r.unique_clicks,
          sales: r.sales,
          gmv_cents: r.gmv_cents,
          commission_cents: r.commission_cents
        })),
        next_cursor: pages.next(page[page.length - 1]?.id, rows.length > limit)
      }
    })

  /**
   * The redirect of a code: where to, and the cookie value; None for an unknown code. `previous`
   * is the browser's current cookie: its visitor carries over to the new one.
   */
  const click = (code: string, input: ClickInput, previous?: string) =>
    Effect.gen(function*() {
      let link = byCode.get(code)
      if (link === undefined) {
        if (!/^[0-9A-Za-z]{1,32}$/.test(code)) return Option.none()
        const found = yield* repo.linkByCode(code)
        if (Option.isNone(found)) return Option.none()
        link = found.value
        if (byCode.size >= 100_000) byCode.clear()
        byCode.set(code, link)
      }
      const at = Date.now()
      const id = makeId("clk", at)
      writer.enqueue({ id, linkId: link.id, partnerId: link.partner_id, environment: link.environment, at, ...input })
      const before = previous === undefined || previous.length > 1024
        ? Option.none<CookiePayload>()
        : secrets.verify<CookiePayload>(COOKIE_PURPOSE, previous)
      const visitor = Option.match(before, { onNone: () => id, onSome: (c) => visitorOf(c) ?? id })
      const payload: CookiePayload = { l: link.id, p: link.partner_id, e: link.environment, c: id, t: at, v: visitor }
      return Option.some({ location: destinationOf(link), cookie: secrets.sign(COOKIE_PURPOSE, payload) })
    })

  /** The attribution a cookie carries, if genuine and its click is within the window at `now`. */
  const resolve = (cookie: string | undefined, now: Date): Option.Option<Attribution> => {
    if (cookie === undefined || cookie.length > 1024) return Option.none()
    return Option.flatMap(
      secrets.verify<CookiePayload>(COOKIE_PURPOSE, cookie),
      (c) =>
        typeof c.t === "number" && withinWindow(c.t, now.getTime(), windowMs)
          ? Option.some({ partnerId: c.p, environment: c.e, linkId: c.l, clickId: c.c, visitorId: visitorOf(c) ?? c.c })
          : Option.none()
    )
  }

  const checkoutStarted = (a: Attribution, input: { readonly sessionId: string; readonly domain: string }) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      repo.checkoutStarted({
        sessionId: input.sessionId,
        linkId: a.linkId,
        partnerId: a.partnerId,
        environment: a.environment,
        clickId: a.clickId,
        visitor: a.visitorId,
        domain: input.domain,
        at: new Date(now)
      })).pipe(Effect.asVoid)

  const clicks = (
    partner: ReferralCaller,
    q: { from?: string | undefined; to?: string | undefined; link_id?: string | undefined }
  ) =>
    Effect.gen(function*() {
      yield* affiliate(partner)
      const w = yield* window(q.from, q.to)
      yield* ownLink(ownerOf(partner), q.link_id)
      const rows = new Map((yield* repo.daily(ownerOf(partner), w.from, w.to, q.link_id)).map((r) => [r.day, r]))
      const byDay = w.days.map((date) => ({
        date,
        clicks: rows.get(date)?.clicks ?? 0,
        unique_clicks: rows.get(date)?.unique_clicks ?? 0
      }))
      return {
        from: w.from,
        to: w.to,
        clicks: byDay.reduce((n, d) => n + d.clicks, 0),
        unique_clicks: byDay.reduce((n, d) => n + d.unique_clicks, 0),
        by_day: byDay
      }
    })

  const sales = (
    partner: ReferralCaller,
    q: {
      from?: string | undefined
      to?: string | undefined
      link_id?: string | undefined
      cursor?: string | undefined
      limit?: number | undefined
    }
  ) =>
    Effect.gen(function*() {
      yield* affiliate(partner)
      const w = yield* window(q.from, q.to)
      const owner = ownerOf(partner)
      yield* ownLink(owner, q.link_id)
      const pages = pageCursor(secrets, PAGED_LISTS.referralSales, partner.credentialId, [
        w.from,
        w.to,
        q.link_id ?? null
      ])
      const before = yield* pages.read(q.cursor)
      const limit = q.limit ?? 25
      const filter = {
        from: new Date(`${w.from}T00:00:00Z`),
        to: new Date(Date.parse(`${w.to}T00:00:00Z`) + DAY_MS),
        linkId: q.link_id
      }
      const rows = yield* orders.referralSales(owner, filter, before, limit + 1)
      const totals = yield* orders.referralSalesTotals(owner, filter)
      const page = rows.slice(0, limit)
      // Each sale under its posting's id once the ledger recorded it (the order's id until then).
      const posted = yield* ledgerReads.recordedSales(page.map((r) => r.id))
      return {
        sales: page.map((r) => ({
          id: posted.get(r.id) ?? r.id,
          order_id: r.id,
          domain: r.domain,
          link_id: r.referral_link_id,
          sale_price_cents: r.sale_price_cents,
          commission_cents: r.commission_cents,
          status: r.status,
          created_at: iso(r.created_at)!
        })),
        totals,
        next_cursor: pages.next(page[page.length - 1]?.id, rows.length > limit)
      }
    })

  /**
   * The partner's commission ledger. Every partner that earns commission reads it — hosted
   * checkout, brokerage and referral alike — so it is not limited to affiliate accounts.
   */
  const commissions = (partner: ReferralCaller, q: { cursor?: string | undefined; limit?: number | undefined }) =>
    Effect.gen(function*() {
      const pages = pageCursor(secrets, PAGED_LISTS.referralCommissions, partner.credentialId, [])
      const after = yield* pages.read(q.cursor)
      const limit = q.limit ?? 25
      const ledger = commissionLedger(yield* ledgerReads.commissionMovements(ownerOf(partner)))
      const afterSeq = after === null ? -1 : Number(after)
      const rest = ledger.entries.filter((e) => e.movement.seq > afterSeq)
      const page = rest.slice(0, limit)
      const last = page[page.length - 1]
      return {
        entries: page.map((e) => ({
          id: e.movement.id,
          kind: e.kind,
          amount_cents: e.amount,
          balance_cents: e.balance,
          order_id: e.movement.orderId,
          payout_id: e.movement.payoutId,
          created_at: iso(e.movement.createdAt)!
        })),
        balance: {
          accrued_cents: ledger.balance.accrued,
          payable_cents: ledger.balance.payable,
          paid_out_cents: ledger.balance.paidOut,
          reversed_cents: ledger.balance.reversed
        },
        next_cursor: pages.next(last ? String(last.movement.seq) : undefined, rest.length > limit)
      }
    })

  const analytics = (partner: ReferralCaller, q: { from?: string | undefined; to?: string | undefined }) =>
    Effect.gen(function*() {
      yield* affiliate(partner)
      const w = yield* window(q.from, q.to)
      const rows = new Map((yield* repo.daily(ownerOf(partner), w.from, w.to)).map((r) => [r.day, r]))
      const series = w.days.map((date) => {
        const r = rows.get(date)
        return {
          date,
          clicks: r?.clicks ?? 0,
          unique_clicks: r?.unique_clicks ?? 0,
          checkouts_started: r?.checkouts_started ?? 0,
          sales: r?.sales ?? 0,
          gmv_cents: r?.gmv_cents ?? 0,
          commission_cents: r?.commission_cents ?? 0
        }
      })
      const sum = (k: keyof typeof series[number]) => series.reduce((n, d) => n + (d[k] as number), 0)
      return {
        from: w.from,
        to: w.to,
        clicks: sum("clicks"),
        unique_clicks: sum("unique_clicks"),
        checkouts_started: sum("checkouts_started"),
        sales: sum("sales"),
        conversion_rate: conversionRate(sum("sales"), sum("unique_clicks")),
        gmv_cents: sum("gmv_cents"),
        commission_cents: sum("commission_cents"),
        series
      }
    })

  return {
    createLink,
    listLinks,
    click,
    resolve,
    checkoutStarted,
    clicks,
    sales,
    commissions,
    analytics,
    flushClicks: writer.flush
  }
})

/** Needs `Orders` and `LedgerReads` (the referral sales and their postings), from the Partner API's layer. */
export class Referrals extends Effect.Service<Referrals>()("app/Referrals", { effect: make }) {
  /** Also exposes the click writer and the repository (`provideMerge`; `dependencies` would hide them). */
  static readonly Live = Referrals.Default.pipe(
    Layer.provideMerge(ClickWriter.Default),
    Layer.provideMerge(ReferralRepo.Default)
  )
}
