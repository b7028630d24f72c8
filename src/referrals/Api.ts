/**
 * Referrals and reporting (docs/referrals.md):
 * affiliates' tracking links and their reports (HMAC-signed, credential linked to an affiliate
 * account, else 403 `forbidden`; the commission ledger `/me/commissions` is every partner's), and
 * the public click redirect `GET /r/{code}`.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { OrderStatusSchema } from "../domain/OrderState.js"
import { LINK_KINDS, PRODUCTS } from "../domain/Referral.js"
import { PartnerAuth, requiresScope } from "../partner/Auth.js"
import { Paging } from "../partner/Common.js"
import { MalformedDomain, NotAnAffiliate } from "../partner/Errors.js"
import { documentedAt } from "../platform/http/ApiAnnotations.js"
import { errorWire, InternalError } from "../platform/http/Errors.js"
import { InvalidCursorWire } from "../platform/http/PageCursor.js"
import { InvalidLinkRequest, InvalidReportQuery, ReferralLinkNotFound } from "./Errors.js"

const Cents = Schema.Int.annotations({ description: "Integer USD cents" })
const Time = Schema.String.annotations({ description: "RFC 3339 UTC with milliseconds" })
const Day = Schema.String.annotations({ description: "UTC calendar day, YYYY-MM-DD" })
const WindowBound = Schema.String.annotations({
  description: "YYYY-MM-DD or RFC 3339 date-time (its UTC day); both ends included; at most 366 days"
})

export const LinkInput = Schema.Struct({
  kind: Schema.Literal(...LINK_KINDS),
  domain: Schema.optional(Schema.String).annotations({
    description: "Required for kind domain: a listed domain; the link lands on /buy/{domain}"
  }),
  product: Schema.optional(Schema.Literal(...PRODUCTS)).annotations({ description: "Required for kind product" }),
  campaign: Schema.optional(Schema.String.pipe(Schema.maxLength(100))).annotations({
    description: "Your own label, up to 100 characters"
  })
}).annotations({ identifier: "ReferralLinkInput" })

const linkFields = {
  id: Schema.String.annotations({ description: "lnk_…" }),
  code: Schema.String.annotations({ description: "Short, unguessable code of the link" }),
  url: Schema.String.annotations({ description: "{base_url}/r/{code}: share this" }),
  kind: Schema.Literal(...LINK_KINDS),
  domain: Schema.NullOr(Schema.String),
  product: Schema.NullOr(Schema.Literal(...PRODUCTS)),
  campaign: Schema.NullOr(Schema.String),
  created_at: Time
}

const LINK_EXAMPLE = {
  id: "lnk_01jd3k9x0a1b2c3d4e5f6g7h8j",
  code: "k7Qm2XpR9a",
  url: "https://marketplace.example.com/r/k7Qm2XpR9a",
  kind: "domain",
  domain: "example.com",
  product: null,
  campaign: "newsletter-january",
  created_at: "2026-01-09T14:02:11.000Z"
} as const

export const Link = Schema.Struct(linkFields).annotations({ identifier: "ReferralLink", examples: [LINK_EXAMPLE] })

export const LinkWithStats = Schema.Struct({
  ...linkFields,
  clicks: Schema.Int,
  unique_clicks: Schema.Int,
  sales: Schema.Int.annotations({ description: "Attributed sales that stand (refunds taken out)" }),
  gmv_cents: Cents,
  commission_cents: Cents
}).annotations({
  identifier: "ReferralLinkWithStats",
  examples: [{
    ...LINK_EXAMPLE,
    clicks: 412,
    unique_clicks: 287,
    sales: 3,
    gmv_cents: 750_000,
    commission_cents: 75_000
  }]
})

export const LinkPage = Schema.Struct({ links: Schema.Array(LinkWithStats), next_cursor: Schema.NullOr(Schema.String) })
  .annotations({
    identifier: "ReferralLinkPage"
  })

export const ClickReport = Schema.Struct({
  from: Day,
  to: Day,
  clicks: Schema.Int,
  unique_clicks: Schema.Int,
  by_day: Schema.Array(Schema.Struct({ date: Day, clicks: Schema.Int, unique_clicks: Schema.Int }))
}).annotations({
  identifier: "ReferralClickReport",
  examples: [{
    from: "2026-01-08",
    to: "2026-01-09",
    clicks: 31,
    unique_clicks: 24,
    by_day: [
      { date: "2026-01-08", clicks: 17, unique_clicks: 13 },
      { date: "2026-01-09", clicks: 14, unique_clicks: 11 }
    ]
  }]
})

export const Sale = Schema.Struct({
  id: Schema.String.annotations({
    description: "The sale's ledger transaction (ltx_…), or the order id before it is posted"
  }),
  order_id: Schema.String,
  domain: Schema.String,
  link_id: Schema.NullOr(Schema.String),
  sale_price_cents: Cents,
  commission_cents: Cents,
  status: OrderStatusSchema,
  created_at: Time
}).annotations({
  identifier: "ReferralSale",
  examples: [{
    id: "ltx_01jd3k9x0a1b2c3d4e5f6g7h8j",
    order_id: "ord_01jd3k9x0a1b2c3d4e5f6g7h8j",
    domain: "example.com",
    link_id: "lnk_01jd3k9x0a1b2c3d4e5f6g7h8j",
    sale_price_cents: 250_000,
    commission_cents: 25_000,
    status: "PAID",
    created_at: "2026-01-09T14:02:11.000Z"
  }]
})

export const SalePage = Schema.Struct({
  sales: Schema.Array(Sale),
  totals: Schema.Struct({ count: Schema.Int, gmv_cents: Cents, commission_cents: Cents }).annotations({
    description: "Over the whole window (not one page), sales that stand: refunded and cancelled ones are left out",
    examples: [{ count: 1, gmv_cents: 250_000, commission_cents: 25_000 }]
  }),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ReferralSalePage" })

export const CommissionEntry = Schema.Struct({
  id: Schema.String.annotations({ description: "The ledger transaction (ltx_…)" }),
  kind: Schema.Literal("accrued", "payable", "paid_out", "reversed"),
  amount_cents: Cents.annotations({
    description:
      "Signed: accrued +, payable + (moved from accrued; balance unchanged), paid_out −, reversed −; a failed payout shows as payable + (returned)"
  }),
  balance_cents: Cents.annotations({
    description: "Commission earned and not yet paid out (accrued + payable), after this entry"
  }),
  order_id: Schema.NullOr(Schema.String),
  payout_id: Schema.NullOr(Schema.String),
  created_at: Time
}).annotations({
  identifier: "CommissionEntry",
  examples: [{
    id: "ltx_01jd3k9x0a1b2c3d4e5f6g7h8j",
    kind: "accrued",
    amount_cents: 25_000,
    balance_cents: 25_000,
    order_id: "ord_01jd3k9x0a1b2c3d4e5f6g7h8j",
    payout_id: null,
    created_at: "2026-01-09T14:02:11.000Z"
  }]
})

export const CommissionPage = Schema.Struct({
  entries: Schema.Array(CommissionEntry),
  balance: Schema.Struct({
    accrued_cents: Cents.annotations({ description: "Accrued now (sales not yet settled)" }),
    payable_cents: Cents.annotations({ description: "Payable now (settled, waiting for a payout)" }),
    paid_out_cents: Cents.annotations({ description: "Paid out in total (payouts started, minus failed ones)" }),
    reversed_cents: Cents.annotations({ description: "Reversed in total (refunded sales)" })
  }).annotations({ examples: [{ accrued_cents: 25_000, payable_cents: 0, paid_out_cents: 0, reversed_cents: 0 }] }),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "CommissionPage" })

export const Analytics = Schema.Struct({
  from: Day,
  to: Day,
  clicks: Schema.Int,
  unique_clicks: Schema.Int,
  checkouts_started: Schema.Int,
  sales: Schema.Int,
  conversion_rate: Schema.Number.annotations({
    description: "sales / unique_clicks (4 decimals; 0 without unique clicks)"
  }),
  gmv_cents: Cents,
  commission_cents: Cents,
  series: Schema.Array(Schema.Struct({
    date: Day,
    clicks: Schema.Int,
    unique_clicks: Schema.Int,
    checkouts_started: Schema.Int,
    sales: Schema.Int,
    gmv_cents: Cents,
    commission_cents: Cents
  }))
}).annotations({
  identifier: "ReferralAnalytics",
  examples: [{
    from: "2026-01-09",
    to: "2026-01-09",
    clicks: 14,
    unique_clicks: 11,
    checkouts_started: 2,
    sales: 1,
    conversion_rate: 0.0909,
    gmv_cents: 250_000,
    commission_cents: 25_000,
    series: [{
      date: "2026-01-09",
      clicks: 14,
      unique_clicks: 11,
      checkouts_started: 2,
      sales: 1,
      gmv_cents: 250_000,
      commission_cents: 25_000
    }]
  }]
})

const Window = { from: Schema.optional(WindowBound), to: Schema.optional(WindowBound) }

export class PartnerReferralsApi extends HttpApiGroup.make("partnerReferrals")
  .add(
    HttpApiEndpoint.post("createLink", "/api/partner/v1/links")
      .setPayload(LinkInput)
      .addSuccess(Link, { status: 201 })
      .addError(errorWire(InvalidLinkRequest))
      .addError(errorWire(MalformedDomain))
      .addError(errorWire(NotAnAffiliate))
      .annotate(
        OpenApi.Description,
        "Creates a tracking link: generic (the home page), for one domain, or for a product, with an optional campaign. The answer's `url` is what you share; clicks on it are attributed to you. 403 when your account is not an affiliate. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Create a tracking link (generic, domain or product)")
      .pipe(requiresScope("refer"), documentedAt("/docs/referrals.md#links"))
  )
  .add(
    HttpApiEndpoint.get("listLinks", "/api/partner/v1/links")
      .setUrlParams(Schema.Struct(Paging))
      .addSuccess(LinkPage)
      .addError(InvalidCursorWire)
      .addError(errorWire(NotAnAffiliate))
      .annotate(
        OpenApi.Description,
        "Your tracking links, newest first, each with its clicks, unique clicks, attributed sales, GMV and commission; page with `limit` and `cursor`. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Your links, newest first, with clicks, unique clicks, sales, GMV and commission")
      .pipe(requiresScope("refer"), documentedAt("/docs/referrals.md#links"))
  )
  .add(
    HttpApiEndpoint.get("myClicks", "/api/partner/v1/me/clicks")
      .setUrlParams(Schema.Struct({ ...Window, link_id: Schema.optional(Schema.String) }))
      .addSuccess(ClickReport)
      .addError(errorWire(InvalidReportQuery))
      .addError(errorWire(NotAnAffiliate))
      .addError(errorWire(ReferralLinkNotFound))
      .annotate(
        OpenApi.Description,
        "Clicks and unique clicks per day over `from`–`to` (default the last 30 days), for all your links or one (`link_id`; 404 when it is not yours). Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Clicks and unique clicks per day (default: the last 30 days)")
      .pipe(requiresScope("report"), documentedAt("/docs/referrals.md#reports"))
  )
  .add(
    HttpApiEndpoint.get("mySales", "/api/partner/v1/me/sales")
      .setUrlParams(Schema.Struct({ ...Window, link_id: Schema.optional(Schema.String), ...Paging }))
      .addSuccess(SalePage)
      .addError(errorWire(InvalidReportQuery))
      .addError(InvalidCursorWire)
      .addError(errorWire(NotAnAffiliate))
      .addError(errorWire(ReferralLinkNotFound))
      .annotate(
        OpenApi.Description,
        "Sales attributed to your links over the window, newest first, with totals (count, GMV, commission) over the whole window; page with `limit` and `cursor`. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Referral sales attributed to your links, newest first, with totals over the window")
      .pipe(requiresScope("report"), documentedAt("/docs/referrals.md#reports"))
  )
  .add(
    HttpApiEndpoint.get("myCommissions", "/api/partner/v1/me/commissions")
      .setUrlParams(Schema.Struct(Paging))
      .addSuccess(CommissionPage)
      .addError(InvalidCursorWire)
      .annotate(OpenApi.Summary, "Your commission ledger, oldest first, with the running balance")
      .annotate(
        OpenApi.Description,
        "Every commission you earn (hosted checkout, brokerage, referral sales), for every partner: no affiliate account needed."
      )
      .pipe(requiresScope("report"), documentedAt("/docs/referrals.md#commissions"))
  )
  .add(
    HttpApiEndpoint.get("analytics", "/api/partner/v1/analytics")
      .setUrlParams(Schema.Struct(Window))
      .addSuccess(Analytics)
      .addError(errorWire(InvalidReportQuery))
      .addError(errorWire(NotAnAffiliate))
      .annotate(
        OpenApi.Description,
        "Your funnel over `from`–`to`: clicks → unique clicks → checkouts started → sales, the conversion rates, GMV, commission and a daily series. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(
        OpenApi.Summary,
        "Funnel (clicks → unique → checkouts started → sales), conversion, GMV, commission and a daily series"
      )
      .pipe(requiresScope("report"), documentedAt("/docs/referrals.md#analytics"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: referral links and reports")
  .annotate(
    OpenApi.Description,
    "HMAC-signed (see docs/partner.md); the credential must be linked to an affiliate account (`partner create --affiliate`), except for /me/commissions, which every partner reads."
  )
{}

const Html = (status: number, description: string) =>
  HttpApiSchema.Text({ contentType: "text/html" }).annotations({
    description,
    ...HttpApiSchema.annotations({ status })
  })

export class ReferralRedirectApi extends HttpApiGroup.make("referralRedirect")
  .add(
    HttpApiEndpoint.get("click")`/r/${HttpApiSchema.param("code", Schema.String)}`
      .addSuccess(Schema.Void.annotations({
        description:
          "Redirect (302) to the link's destination, setting the attribution cookie mk_ref (HttpOnly, SameSite=Lax, Secure in production)",
        ...HttpApiSchema.annotations({ status: 302 })
      }))
      .addError(Html(404, "Error page: no link has this code"))
      .annotate(
        OpenApi.Description,
        "Records the click (bots and a visitor's repeats within REFERRAL_REPEAT_WINDOW are not counted as unique), sets the signed attribution cookie `mk_ref` (the last click wins) and redirects (302) to the link's destination. An unknown code answers a 404 page and sets no cookie."
      )
      .annotate(OpenApi.Summary, "Follow a referral link (records the click)")
      .pipe(documentedAt("/docs/referrals.md#clicks"))
  )
  .annotate(OpenApi.Title, "Referral links")
  .annotate(
    OpenApi.Description,
    "The public redirect of a partner's referral link (`/r/{code}`): sets the attribution cookie and sends the visitor on"
  )
{}
