/**
 * The operator console's partners (docs/consoles.md#operator-console), its own group beside the
 * queues and money (./Api.ts), through the same door and with the same form rules:
 *
 *   GET  /ops/partners                 partners, their keys and commission; the create form
 *   POST /ops/partners                 a new partner and its first key (`partner create`), and
 *                                      with an owner's e-mail their invitation: shown once
 *   POST /ops/partners/invite          a person invited to a partner with a role (`partner invite`)
 *   POST /ops/partners/commission      a partner's commission from now on (`partner set-commission`)
 *   POST /ops/partners/suspension      suspend or resume a partner (`partner suspend|resume`)
 *   POST /ops/partners/scopes          a key's scopes from its next request (`partner set-scopes`)
 */
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { HtmlPage } from "../platform/http/ApiAnnotations.js"
import { InternalError } from "../platform/http/Errors.js"
import { BACK, formPost, page } from "./Api.js"

const field = Schema.optional(Schema.String)
const csrf = field

const CreateFields = Schema.Struct({
  name: field,
  environment: field,
  scope: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))).annotations({
    description: "Each ticked scope (the field repeated)"
  }),
  affiliate: field,
  commission_bps: field,
  owner_email: field,
  csrf
})

/**
 * seam: a form body is decoded from `UrlParams.toRecord`, which gives a repeated field (the ticked
 * scopes) as an array; `withEncoding`'s type check knows only single strings, so it is told so
 * (as console/Api.ts `CreateKeyForm`).
 */
export const CreatePartnerForm = (CreateFields as unknown as Schema.Schema<
  typeof CreateFields.Type,
  Readonly<Record<string, string | undefined>>
>).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

export const InviteMemberForm = Schema.Struct({ partner_id: field, email: field, role: field, csrf }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)
export const CommissionForm = Schema.Struct({ partner_id: field, bps: field, csrf }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)

export const SuspensionForm = Schema.Struct({
  partner_id: field,
  suspended: field.annotations({ description: "`yes` suspends the partner, `no` resumes it" }),
  csrf
}).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

const ScopesFields = Schema.Struct({
  key_id: field,
  scope: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))).annotations({
    description: "Each ticked scope (the field repeated)"
  }),
  csrf
})

/** seam: a repeated form field, as `CreatePartnerForm` above. */
export const ScopesForm = (ScopesFields as unknown as Schema.Schema<
  typeof ScopesFields.Type,
  Readonly<Record<string, string | undefined>>
>).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

export class OpsPartnerPagesApi extends HttpApiGroup.make("opsPartnerPages")
  .add(page("opsPartners", "/ops/partners", "Partners with their keys and commission, and the form for a new one"))
  .add(
    formPost(
      "createPartner",
      "/ops/partners",
      CreatePartnerForm,
      HtmlPage(201, "The new partner, its first key's secret and the owner's invitation link, shown once"),
      "Create a partner"
    )
  )
  .add(
    formPost(
      "invitePartnerMember",
      "/ops/partners/invite",
      InviteMemberForm,
      HtmlPage(201, "The invitation link, shown once"),
      "Invite a person to a partner"
    )
  )
  .add(
    formPost("setCommission", "/ops/partners/commission", CommissionForm, BACK("the partners"), "Set a commission")
  )
  .add(
    formPost(
      "setPartnerSuspension",
      "/ops/partners/suspension",
      SuspensionForm,
      BACK("the partners"),
      "Suspend or resume a partner"
    )
  )
  .add(formPost("setKeyScopes", "/ops/partners/scopes", ScopesForm, BACK("the partners"), "Set a key's scopes"))
  .addError(InternalError)
  .annotate(OpenApi.Title, "Operator console: partners")
  .annotate(
    OpenApi.Description,
    "Partners, their first key, invitations, commission, suspension and key scopes, for operator accounts (HTML)"
  )
{}
