/**
 * The partner console's pages (docs/consoles.md): HTML, same origin, sign-in with the storefront's
 * accounts and sessions. Anonymous → 303 to /signin?next=…; every form posts with a CSRF token and
 * passes the same-origin check; the partner services check membership and role on every call, so
 * another partner's data is a 404 page and a role's refusal a 403 page.
 *
 *   GET  /console                     the partner's overview (a person with no partner: a friendly page)
 *   GET  /console/keys                the keys, with create (owner, developer)
 *   POST /console/keys                create a key: the secret shown once
 *   POST /console/keys/rotate         a successor key (shown once); the old one works for 24 hours
 *   POST /console/keys/revoke         the key stops working at once
 *   GET  /console/members             members and open invitations, with invite and remove (owner)
 *   POST /console/members/invite      an invitation link, shown once
 *   POST /console/members/remove      a member leaves the partner
 *   GET  /console/invite/{token}      what the invitation offers, with an Accept button
 *   POST /console/invite/{token}      accept: the signed-in person joins with the invited role
 *
 * `partner` (query or form) chooses among the person's partners; without it, their first.
 * The webhooks section (/console/webhooks) is its own group: ./WebhookApi.ts; so are orders,
 * checkout sessions and brokerage (./OrderApi.ts) and money (./MoneyApi.ts).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt, HtmlPage, Redirect } from "../platform/http/ApiAnnotations.js"
import { InternalError } from "../platform/http/Errors.js"

export const PartnerParam = Schema.Struct({
  partner: Schema.optional(Schema.String).annotations({ description: "Which of the person's partners (ptn_…)" })
})

const partner = Schema.optional(Schema.String)
const csrf = Schema.optional(Schema.String)
const field = Schema.optional(Schema.String)

const CreateKeyFields = Schema.Struct({
  environment: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))).annotations({
    description: "Each ticked scope (the field repeated)"
  }),
  partner: Schema.optional(Schema.String),
  csrf: Schema.optional(Schema.String)
})

/**
 * seam: a form body is decoded from `UrlParams.toRecord`, which gives a repeated field (the ticked
 * scopes) as an array; `withEncoding`'s type check knows only single strings, so it is told so.
 */
export const CreateKeyForm = (CreateKeyFields as unknown as Schema.Schema<
  typeof CreateKeyFields.Type,
  Readonly<Record<string, string | undefined>>
>).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

export const KeyForm = Schema.Struct({ key_id: field, partner, csrf }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)
export const InviteForm = Schema.Struct({ email: field, role: field, partner, csrf }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)
export const RemoveForm = Schema.Struct({ user_id: field, partner, csrf }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)
export const AcceptForm = Schema.Struct({ csrf }).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))

const Token = HttpApiSchema.param("token", Schema.String.annotations({ description: "inv_…" }))

const FORM_ERRORS = [
  HtmlPage(400, "The form is incomplete or asks for what the partner was not granted: the page with the reason"),
  HtmlPage(403, "A stale form token, a post from another site, or a role that may not do this"),
  HtmlPage(404, "No such partner or key of the signed-in person's")
] as const

export const page = <Name extends string>(name: Name, path: `/${string}`, description: string) =>
  HttpApiEndpoint.get(name, path)
    .setUrlParams(PartnerParam)
    .addSuccess(HtmlPage(200, description))
    .addSuccess(Redirect("Not signed in: to /signin?next=<this page>"))
    .addError(HtmlPage(404, "No such partner of the signed-in person's"))
    .annotate(OpenApi.Summary, `${description.split(",")[0]} (sign-in required)`)
    .annotate(OpenApi.Description, `${description}. Membership and role are checked by the partner services.`)
    .pipe(documentedAt("/docs/consoles.md"))

/** A form's post on a fixed path, with the refusals every form shares. */
export const formPost = <
  Name extends string,
  P extends Schema.Schema<any, Readonly<Record<string, string | undefined>>>
>(
  name: Name,
  path: `/${string}`,
  payload: P,
  success: Schema.Schema<any, any, never>
) =>
  HttpApiEndpoint.post(name, path)
    .setPayload(payload)
    .addSuccess(success)
    .addError(FORM_ERRORS[0])
    .addError(FORM_ERRORS[1])
    .addError(FORM_ERRORS[2])
    .annotate(
      OpenApi.Description,
      "A console form's post (same origin, CSRF token bound to the session); the partner services check membership and role."
    )

export class ConsolePagesApi extends HttpApiGroup.make("consolePages")
  .add(page("overview", "/console", "The partner's overview, or a page saying the person has no partner yet"))
  .add(page("keysPage", "/console/keys", "The partner's keys with their last use"))
  .add(
    formPost(
      "createKey",
      "/console/keys",
      CreateKeyForm,
      HtmlPage(201, "The new key with its secret, shown this once, and how to sign with it")
    )
      .annotate(OpenApi.Summary, "Create a key (owner, developer)")
      .pipe(documentedAt("/docs/consoles.md#keys"))
  )
  .add(
    formPost(
      "rotateKey",
      "/console/keys/rotate",
      KeyForm,
      HtmlPage(201, "The successor key with its secret, shown this once")
    )
      .annotate(OpenApi.Summary, "Rotate a key (owner, developer); the old one works for 24 hours")
      .pipe(documentedAt("/docs/consoles.md#keys"))
  )
  .add(
    formPost("revokeKey", "/console/keys/revoke", KeyForm, Redirect("Revoked: back to the keys"))
      .annotate(OpenApi.Summary, "Revoke a key (owner, developer)")
      .pipe(documentedAt("/docs/consoles.md#keys"))
  )
  .add(page("membersPage", "/console/members", "The partner's members and open invitations"))
  .add(
    formPost(
      "inviteMember",
      "/console/members/invite",
      InviteForm,
      HtmlPage(201, "The invitation link, shown this once")
    )
      .annotate(OpenApi.Summary, "Invite a member (owner)")
      .pipe(documentedAt("/docs/consoles.md#members"))
  )
  .add(
    formPost("removeMember", "/console/members/remove", RemoveForm, Redirect("Removed: back to the members"))
      .addError(HtmlPage(409, "The partner's last owner stays"))
      .annotate(OpenApi.Summary, "Remove a member (owner)")
      .pipe(documentedAt("/docs/consoles.md#members"))
  )
  .add(
    HttpApiEndpoint.get("invitationPage")`/console/invite/${Token}`
      .addSuccess(HtmlPage(200, "What the invitation offers, with an Accept button"))
      .addSuccess(Redirect("Not signed in: to /signin?next=<this page> (where signing up is offered)"))
      .addError(HtmlPage(410, "The link was already used or has expired"))
      .annotate(OpenApi.Summary, "An invitation link (sign-in required)")
      .annotate(OpenApi.Description, "Shows the partner and role offered; a GET never joins anyone.")
      .pipe(documentedAt("/docs/consoles.md#invitations"))
  )
  .add(
    HttpApiEndpoint.post("acceptInvitation")`/console/invite/${Token}`
      .setPayload(AcceptForm)
      .addSuccess(Redirect("Joined: to the partner's console"))
      .addError(FORM_ERRORS[0])
      .addError(FORM_ERRORS[1])
      .addError(HtmlPage(410, "The link was already used or has expired"))
      .annotate(OpenApi.Summary, "Accept an invitation (single use)")
      .annotate(
        OpenApi.Description,
        "Joins the signed-in person (whose e-mail the invitation was sent to) with the invited role; the link then stops working."
      )
      .pipe(documentedAt("/docs/consoles.md#invitations"))
  )
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner console pages")
  .annotate(OpenApi.Description, "A partner's members and keys, for its signed-in people (HTML)")
{}
