/**
 * Handlers of the operator console's partners (./PartnerApi.ts): the door (./Door.ts), the form
 * read and refused before anything is written, then the same calls as the CLI (`partner create`,
 * `partner invite`, `partner set-commission`, `partner suspend|resume`, `partner set-scopes`), each
 * through `door.act` under the CLI's audit action names, recorded with the operator's e-mail.
 * Neither a secret nor an invitation link is recorded: whoever holds one can act as the partner.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option } from "effect"
import { Api } from "../app/Api.js"
import { isPlausibleEmail } from "../identity/accounts/Accounts.js"
import { isScope, type Scope } from "../partner/Auth.js"
import { Credentials, type IssuedCredential } from "../partner/Credentials.js"
import { type Invitation, Members } from "../partner/members/Members.js"
import { ROLES } from "../partner/members/Roles.js"
import { seeOther } from "../platform/http/Html.js"
import { badInput, makeDoor, notFound } from "./Door.js"
import { bpsOf, idOf, isOneOf } from "./Fields.js"
import { invitedPage, partnerCreatedPage, partnersPage } from "./PartnerPages.js"

const ENVIRONMENTS = ["sandbox", "live"] as const

/** The ticked scopes (the field repeated, once, or absent): at least one, each a scope. */
const scopesOf = (value: string | ReadonlyArray<string> | undefined) => {
  const ticked = value === undefined ? [] : typeof value === "string" ? [value] : value
  const scopes = ticked.filter(isScope)
  return ticked.length === 0 || scopes.length !== ticked.length
    ? Effect.fail(badInput("Tick at least one scope (of search, embed, buy, broker, refer, report, webhook)"))
    : Effect.succeed<ReadonlyArray<Scope>>([...new Set(scopes)])
}

/** An e-mail field, trimmed and lower-cased: empty is undefined, one that is not an address refused. */
const emailOf = (name: string, value: string | undefined) => {
  const email = (value ?? "").trim().toLowerCase()
  if (email === "") return Effect.succeed(undefined)
  return isPlausibleEmail(email) ? Effect.succeed(email) : Effect.fail(badInput(`${name}: an e-mail address`))
}

/** The audit record's `after` of a key: never its secret. */
const keyFacts = (c: IssuedCredential) => ({
  partner_id: c.partner_id,
  key_id: c.key_id,
  environment: c.environment,
  scopes: c.scopes
})

/** The audit record's `after` of an invitation: never its link. */
const invitationFacts = (i: Invitation) => ({ id: i.id, email: i.email, role: i.role, expires_at: i.expires_at })

export const OpsPartnerHttpLive = HttpApiBuilder.group(Api, "opsPartnerPages", (handlers) =>
  Effect.gen(function*() {
    const door = yield* makeDoor
    const credentials = yield* Credentials
    const members = yield* Members

    return handlers
      .handle("opsPartners", ({ request }) =>
        door.page("/ops/partners", request, (op) =>
          Effect.map(credentials.listPartners(200), (partners) =>
            partnersPage(op.email, op.csrf, partners))))
      .handle("createPartner", ({ payload, request }) =>
        door.post("/ops/partners", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const name = yield* idOf("name", payload.name)
            if (name.length > 100) {
              return yield* Effect.fail(badInput("name: at most 100 characters"))
            }
            if (!isOneOf(ENVIRONMENTS, payload.environment)) {
              return yield* Effect.fail(badInput("environment: sandbox or live"))
            }
            const environment = payload.environment
            const scopes = yield* scopesOf(payload.scope)
            const commissionBps = yield* bpsOf("commission_bps", payload.commission_bps, 1000)
            const owner = yield* emailOf("owner_email", payload.owner_email)
            const affiliate = payload.affiliate !== undefined
            const issued = yield* door.act(
              op,
              {
                action: "partner.create",
                target: null,
                after: (c) => ({ ...keyFacts(c), name, affiliate, commission_bps: commissionBps })
              },
              credentials.createPartner({ name, environment, scopes, affiliate, commissionBps })
            )
            const invitation = owner === undefined ? undefined : yield* door.act(
              op,
              { action: "member.invite", target: issued.partner_id, after: invitationFacts },
              members.invite({ partnerId: issued.partner_id, email: owner, role: "owner", invitedBy: op.email })
            )
            return door.show(partnerCreatedPage(op.email, name, issued, invitation), 201)
          })))
      .handle("invitePartnerMember", ({ payload, request }) =>
        door.post("/ops/partners", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const partnerId = yield* idOf("partner_id", payload.partner_id)
            const email = yield* emailOf("email", payload.email)
            if (email === undefined) {
              return yield* Effect.fail(badInput("email is required"))
            }
            if (!isOneOf(ROLES, payload.role)) {
              return yield* Effect.fail(badInput(`role: one of ${ROLES.join(", ")}`))
            }
            const role = payload.role
            const invitation = yield* door.act(
              op,
              { action: "member.invite", target: partnerId, after: invitationFacts },
              members.invite({ partnerId, email, role, invitedBy: op.email }).pipe(
                Effect.catchTag("UnknownPartner", (e) =>
                  Effect.fail(notFound(e.message)))
              )
            )
            return door.show(invitedPage(op.email, invitation), 201)
          })))
      .handle("setCommission", ({ payload, request }) =>
        door.post("/ops/partners", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const partnerId = yield* idOf("partner_id", payload.partner_id)
            const bps = yield* bpsOf("bps", payload.bps)
            // The same record as `partner set-commission` on the CLI.
            const before = Effect.map(
              credentials.showPartner(partnerId),
              Option.match({
                onNone: () =>
                  null,
                onSome: (p) => ({ commission_bps: p.commission_bps })
              })
            )
            yield* door.act(
              op,
              { action: "partner.set_commission", target: partnerId, before },
              Effect.flatMap(credentials.setCommission(partnerId, bps), (done) =>
                done ? Effect.succeed({ commission_bps: bps }) : Effect.fail(notFound(`No partner ${partnerId}`)))
            )
            return seeOther("/ops/partners")
          })))
      .handle("setPartnerSuspension", ({ payload, request }) =>
        door.post("/ops/partners", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const partnerId = yield* idOf("partner_id", payload.partner_id)
            if (!isOneOf(["yes", "no"] as const, payload.suspended)) {
              return yield* Effect.fail(badInput("suspended: yes or no"))
            }
            const suspended = payload.suspended === "yes"
            // The same record as `partner suspend|resume` on the CLI.
            yield* door.act(
              op,
              {
                action: suspended ? "partner.suspend" : "partner.resume",
                target: partnerId,
                before: credentials.suspensionOf(partnerId)
              },
              Effect.flatMap(credentials.setSuspended(partnerId, suspended), (done) =>
                done ? Effect.succeed({ suspended }) : Effect.fail(notFound(`No partner ${partnerId}`)))
            )
            return seeOther("/ops/partners")
          })))
      .handle("setKeyScopes", ({ payload, request }) =>
        door.post("/ops/partners", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const keyId = yield* idOf("key_id", payload.key_id)
            const scopes = yield* scopesOf(payload.scope)
            // The same record as `partner set-scopes` on the CLI.
            yield* door.act(
              op,
              { action: "credential.set_scopes", target: keyId },
              Effect.flatMap(credentials.setScopes(keyId, scopes), (done) =>
                done ? Effect.succeed({ scopes }) : Effect.fail(notFound(`No active key ${keyId}`)))
            )
            return seeOther("/ops/partners")
          })))
  }))
