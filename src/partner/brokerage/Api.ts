/**
 * Brokerage (docs/brokerage.md): eligibility, cases, the sandbox walk (partner, HMAC-signed,
 * scope `broker`; the list: scope `report`), the operator moves (admin, bearer ADMIN_TOKEN) and
 * the buyer's no-login progress page.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { AdminAuth } from "../../admin/Auth.js"
import { CASE_STATUSES, CLOSE_OUTCOMES, TIERS } from "../../domain/Brokerage.js"
import { AmountCentsFromString, MAX_AMOUNT_CENTS, PositiveAmountCents } from "../../domain/Money.js"
import { ListingHeld } from "../../market/Errors.js"
import { documentedAt, htmlErrorPages, HtmlPage } from "../../platform/http/ApiAnnotations.js"
import { BadRequest, Conflict, errorWire, InternalError, Unauthorized } from "../../platform/http/Errors.js"
import { IdempotencyKey } from "../../platform/http/IdempotencyKey.js"
import { InvalidCursorWire } from "../../platform/http/PageCursor.js"
import { PartnerAuth, requiresScope } from "../Auth.js"
import { IsoDate } from "../Common.js"
import { InvalidDateWindow, MalformedParameter } from "../Errors.js"
import { SandboxOnly } from "../sandbox/Errors.js"
import {
  BrokerageCaseNotFound,
  CaseMoveNotAllowed,
  DomainNotEligible,
  InvalidBrokerageDomain,
  InvalidCaseMove
} from "./Errors.js"

export const CaseStatusSchema = Schema.Literal(...CASE_STATUSES).annotations({ title: "BrokerageCaseStatus" })

const Email = Schema.String.pipe(
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an e-mail address" }),
  Schema.maxLength(254)
)

export const EligibilityReason = Schema.Literal("invalid_domain", "reserved", "already_in_case", "live_site")

export const Eligibility = Schema.Struct({
  domain: Schema.String,
  eligible: Schema.Boolean,
  reasons: Schema.Array(EligibilityReason).annotations({
    description: "Every reason the domain cannot be brokered now; empty when eligible"
  }),
  details: Schema.Array(Schema.Struct({ reason: EligibilityReason, message: Schema.String })),
  site: Schema.NullOr(Schema.Struct({
    classification: Schema.Literal("live", "parking", "error", "none", "blocked").annotations({
      description:
        "live: a real site (ineligible); parking: a parking, for-sale or placeholder page; error: an error answer; none: the name does not resolve; blocked: resolves to an address the service never contacts"
    }),
    url: Schema.String,
    status: Schema.NullOr(Schema.Int)
  })).annotations({
    description:
      "The live-site check (null when the name is invalid or reserved); reused for up to BROKERAGE_ELIGIBILITY_TTL"
  }),
  checked_at: Schema.String
}).annotations({
  identifier: "BrokerageEligibility",
  examples: [{
    domain: "example.com",
    eligible: true,
    reasons: [],
    details: [],
    site: { classification: "parking", url: "https://example.com/", status: 200 },
    checked_at: "2026-01-09T14:02:11.000Z"
  }]
})

export const CaseRequest = Schema.Struct({
  domain: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(300)),
  tier: Schema.Literal(...TIERS).annotations({
    description: "managed: our brokers negotiate; self_serve: we find and contact the owner, you negotiate"
  }),
  buyer_email: Email,
  budget: PositiveAmountCents.annotations({
    description: `The buyer's budget, integer USD cents, 1 to ${MAX_AMOUNT_CENTS} ($10,000,000,000.00)`
  }),
  notes: Schema.optional(Schema.String.pipe(Schema.maxLength(2000)))
}).annotations({
  identifier: "BrokerageCaseRequest",
  examples: [{
    domain: "example.com",
    tier: "managed",
    buyer_email: "buyer@example.org",
    budget: 2_500_000,
    notes: "The buyer can close within two weeks"
  }]
})

const CASE_EXAMPLE = {
  id: "brk_01jd3k9x0a1b2c3d4e5f6g7h8j",
  domain: "example.com",
  tier: "managed",
  status: "researching",
  environment: "live",
  buyer_email: "buyer@example.org",
  budget: 2_500_000,
  currency: "USD",
  notes: null,
  progress_url: "https://marketplace.example.com/brokerage/progress?t=" +
    "eyJjIjoiYnJrXzAxamQzazl4MGExYjJjM2Q0ZTVmNmc3aDhqIn0.FWJCsKUhdhbtZ4iMjrzZ7iSB8ez6nxcDSWIdACLCmJo",
  agreed_price_cents: null,
  deal_price_cents: null,
  brokerage_fee_cents: null,
  partner_commission_cents: null,
  order_id: null,
  created_at: "2026-01-09T14:02:11.000Z",
  updated_at: "2026-01-10T08:30:00.000Z",
  closed_at: null
} as const

export const Case = Schema.Struct({
  id: Schema.String.annotations({ description: "brk_…" }),
  domain: Schema.String,
  tier: Schema.Literal(...TIERS),
  status: CaseStatusSchema,
  environment: Schema.Literal("live", "sandbox"),
  buyer_email: Schema.String,
  budget: Schema.Int.annotations({ description: "USD cents" }),
  currency: Schema.String,
  notes: Schema.NullOr(Schema.String),
  progress_url: Schema.String.annotations({
    description: "No-login page for the buyer: status and timeline (signed link; share it with the buyer only)"
  }),
  agreed_price_cents: Schema.NullOr(Schema.Int),
  deal_price_cents: Schema.NullOr(Schema.Int).annotations({ description: "Set when the case closed won" }),
  brokerage_fee_cents: Schema.NullOr(Schema.Int).annotations({
    description: "The service's fee on the deal (BROKERAGE_FEE_BPS of the deal price)"
  }),
  partner_commission_cents: Schema.NullOr(Schema.Int).annotations({
    description: "Your share of the fee (BROKERAGE_PARTNER_SHARE_BPS), payable at the next settlement"
  }),
  order_id: Schema.NullOr(Schema.String).annotations({
    description: "The commission's row in /transactions (payment_model brokerage)"
  }),
  created_at: Schema.String,
  updated_at: Schema.String,
  closed_at: Schema.NullOr(Schema.String)
}).annotations({ identifier: "BrokerageCase", examples: [CASE_EXAMPLE] })

export const CaseTimelineEntry = Schema.Struct({
  at: Schema.String,
  status: CaseStatusSchema,
  from_status: Schema.NullOr(CaseStatusSchema),
  price_cents: Schema.NullOr(Schema.Int),
  event_id: Schema.NullOr(Schema.String),
  actor: Schema.String,
  note: Schema.NullOr(Schema.String)
}).annotations({ identifier: "BrokerageTimelineEntry" })

export const CaseDetail = Schema.Struct({ ...Case.fields, timeline: Schema.Array(CaseTimelineEntry) }).annotations({
  identifier: "BrokerageCaseDetail",
  examples: [{
    ...CASE_EXAMPLE,
    timeline: [{
      at: "2026-01-10T08:30:00.000Z",
      status: "researching",
      from_status: "open",
      price_cents: null,
      event_id: "evt_01jd4m2q7r8s9t0v1w2x3y4z5a",
      actor: "admin",
      note: "Owner identified through the registrar"
    }]
  }]
})

export const CasePage = Schema.Struct({
  cases: Schema.Array(Case),
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "Pass as cursor for the next page; null at the end"
  })
}).annotations({ identifier: "BrokerageCasePage" })

const CaseId = HttpApiSchema.param("id", Schema.String.annotations({ description: "brk_…" }))
const Limit = Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100))).annotations({
  description: "1–100, default 25"
})
const PriceParam = Schema.optional(
  AmountCentsFromString.pipe(Schema.filter((n) => n > 0 || "Expected a positive amount of cents"))
)

export class PartnerBrokerageApi extends HttpApiGroup.make("partnerBrokerage")
  .add(
    HttpApiEndpoint.get("eligibility", "/api/partner/v1/brokerage/eligibility")
      .setUrlParams(Schema.Struct({ domain: Schema.String }))
      .addSuccess(Eligibility)
      .annotate(
        OpenApi.Description,
        "Whether a domain can be brokered, with every reason it cannot (`reasons`, `details`) and what its site serves today (`site`). Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Can this domain be brokered? Every reason it cannot")
      .pipe(requiresScope("broker"), documentedAt("/docs/brokerage.md#eligibility"))
  )
  .add(
    HttpApiEndpoint.post("createCase", "/api/partner/v1/brokerage")
      .setPayload(CaseRequest)
      .setHeaders(Schema.Struct({
        "idempotency-key": Schema.optional(IdempotencyKey).annotations({
          description: "Optional: a retry with the same key and body answers the first 201"
        })
      }))
      .addSuccess(Case, { status: 201 })
      .addError(errorWire(MalformedParameter))
      .addError(errorWire(InvalidBrokerageDomain))
      .addError(errorWire(DomainNotEligible))
      .addError(BadRequest)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Open a brokerage case; returns the buyer's no-login progress link")
      .annotate(
        OpenApi.Description,
        "Ineligible (reserved, already in an open case, a live site): 409 conflict with `details.reasons`. One open case per domain across all partners. Optional Idempotency-Key: a retry with the same key and body answers the first 201 (Idempotent-Replayed: true)."
      )
      .pipe(requiresScope("broker"), documentedAt("/docs/brokerage.md#cases"))
  )
  .add(
    HttpApiEndpoint.get("listCases", "/api/partner/v1/brokerage")
      .setUrlParams(Schema.Struct({
        status: Schema.optional(CaseStatusSchema),
        from: Schema.optional(IsoDate),
        to: Schema.optional(IsoDate),
        limit: Limit,
        cursor: Schema.optional(Schema.String)
      }))
      .addSuccess(CasePage)
      .addError(errorWire(InvalidDateWindow))
      .addError(InvalidCursorWire)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Your brokerage cases, newest first, with their status and outcome; filter by `status` and a window, page with `limit` and `cursor`. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "Your brokerage cases and outcomes, newest first, cursor paging")
      .pipe(requiresScope("report"), documentedAt("/docs/brokerage.md#cases"))
  )
  .add(
    HttpApiEndpoint.get("getCase")`/api/partner/v1/brokerage/${CaseId}`
      .addSuccess(CaseDetail)
      .addError(errorWire(BrokerageCaseNotFound))
      .annotate(
        OpenApi.Description,
        "One of your brokerage cases with its timeline of status changes and notes. Another partner's case is 404. Signed Partner API request (docs/partner.md, Authentication): 401 `invalid_signature` on a bad signature, 403 when the key lacks the scope."
      )
      .annotate(OpenApi.Summary, "One of your cases with its timeline (another partner's case: 404)")
      .pipe(requiresScope("broker"), documentedAt("/docs/brokerage.md#cases"))
  )
  .add(
    HttpApiEndpoint.post("advanceSandbox")`/api/partner/v1/sandbox/brokerage/${CaseId}/advance`
      .addSuccess(CaseDetail)
      .addError(errorWire(InvalidCaseMove))
      .addError(errorWire(BrokerageCaseNotFound))
      .addError(errorWire(CaseMoveNotAllowed))
      .addError(errorWire(ListingHeld))
      .addError(errorWire(SandboxOnly))
      .annotate(OpenApi.Summary, "Sandbox only: move the case one step (to closed_won), then settle its commission")
      .annotate(
        OpenApi.Description,
        "open → researching → contacting_owner → negotiating → deal_agreed → closed_won (deal price: the budget), each with brokerage.case_updated (and brokerage.case_completed when won); one more call settles the commission; then 409. 403 for live credentials."
      )
      .pipe(requiresScope("broker"), documentedAt("/docs/brokerage.md#sandbox"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: brokerage")
  .annotate(OpenApi.Description, "HMAC-signed (see docs/partner.md). See docs/brokerage.md.")
{}

export const AdminMoveParams = Schema.Struct({
  price: PriceParam.annotations({
    description: "Deal price in USD cents: recorded at deal_agreed, required to close won unless agreed before"
  }),
  note: Schema.optional(Schema.String.pipe(Schema.maxLength(500))).annotations({
    description: "Recorded in the case's timeline (not shown to the buyer)"
  })
})

export class AdminBrokerageApi extends HttpApiGroup.make("adminBrokerage")
  .add(
    HttpApiEndpoint.get("listCases", "/api/admin/brokerage")
      .setUrlParams(Schema.Struct({
        status: Schema.optional(CaseStatusSchema),
        partner: Schema.optional(Schema.String),
        env: Schema.optional(Schema.Literal("live", "sandbox")),
        limit: Limit
      }))
      .addSuccess(Schema.Struct({ cases: Schema.Array(Case) }))
      .annotate(
        OpenApi.Description,
        "Every partner's brokerage cases, newest first, filtered by `status`, `partner` and `env`. Operator only: `Authorization: Bearer $ADMIN_TOKEN`, else 401."
      )
      .annotate(OpenApi.Summary, "Every partner's brokerage cases, newest first")
  )
  .add(
    HttpApiEndpoint.get("getCase")`/api/admin/brokerage/${CaseId}`
      .addSuccess(CaseDetail)
      .addError(errorWire(BrokerageCaseNotFound))
      .annotate(
        OpenApi.Description,
        "Any brokerage case with its timeline. Operator only: `Authorization: Bearer $ADMIN_TOKEN`, else 401."
      )
      .annotate(OpenApi.Summary, "Any case with its timeline")
  )
  .add(
    HttpApiEndpoint.post("advance")`/api/admin/brokerage/${CaseId}/advance`
      .setUrlParams(AdminMoveParams)
      .addSuccess(CaseDetail)
      .addError(errorWire(BrokerageCaseNotFound))
      .addError(errorWire(CaseMoveNotAllowed))
      .addError(errorWire(ListingHeld))
      .addError(errorWire(InvalidCaseMove))
      .annotate(
        OpenApi.Description,
        "Moves a case to its next status, with an optional `note` for the timeline; deal_agreed → closed_won needs the deal `price` in cents. 409 when the case's status does not allow the move. Operator only: `Authorization: Bearer $ADMIN_TOKEN`, else 401."
      )
      .annotate(OpenApi.Summary, "Move a case to its next status (deal_agreed → closed_won needs a deal price)")
  )
  .add(
    HttpApiEndpoint.post("close")`/api/admin/brokerage/${CaseId}/close`
      .setUrlParams(Schema.Struct({
        outcome: Schema.Literal(...CLOSE_OUTCOMES).annotations({
          description: "won (from deal_agreed, with a price) | lost | cancelled"
        }),
        ...AdminMoveParams.fields
      }))
      .addSuccess(CaseDetail)
      .addError(errorWire(BrokerageCaseNotFound))
      .addError(errorWire(CaseMoveNotAllowed))
      .addError(errorWire(ListingHeld))
      .addError(errorWire(InvalidCaseMove))
      .annotate(
        OpenApi.Description,
        "Closes a case with `outcome` won (with the deal `price`), lost or cancelled, and an optional `note`. 409 when the case is already closed. Operator only: `Authorization: Bearer $ADMIN_TOKEN`, else 401."
      )
      .annotate(OpenApi.Summary, "Close a case: won, lost or cancelled")
  )
  .middleware(AdminAuth)
  .addError(InternalError)
  .addError(Unauthorized)
  .annotate(OpenApi.Title, "Admin: brokerage")
  .annotate(OpenApi.Description, "Bearer ADMIN_TOKEN. See docs/brokerage.md#operators.")
{}

const Html = HtmlPage

/** The progress page answers an HTML error page (and the typed 400 only for an unparseable query string). */
const htmlErrors = htmlErrorPages(
  "Error page: missing or tampered link; or the typed 400 for a malformed query string"
)

export class BrokeragePagesApi extends HttpApiGroup.make("brokeragePages")
  .add(
    HttpApiEndpoint.get("progress", "/brokerage/progress")
      .setUrlParams(Schema.Struct({ t: Schema.optional(Schema.String) }))
      .addSuccess(Html(200, "The case's status and timeline in plain words"))
      .addError(Html(400, "Error page: missing or tampered link"))
      .annotateContext(htmlErrors)
      .annotate(OpenApi.Summary, "The buyer's no-login progress page (HTML)")
      .annotate(
        OpenApi.Description,
        "Open the case's `progress_url` in a browser. Nothing about the seller or the partner is shown."
      )
  )
  .annotate(OpenApi.Title, "Brokerage progress page")
  .annotate(OpenApi.Description, "The buyer-facing page that shows a brokerage case's progress")
{}
