/**
 * A partner's people (docs/consoles.md#members): who belongs to which partner with which role,
 * invitations (single-use links that expire; only the token's SHA-256 is stored), joining and
 * removal. Every call that acts for a person takes that person's id and checks the role here, not
 * in the pages; someone who is not a member of a partner gets `NotAMember`, as if it did not exist.
 *
 * Each state-changing action is one method (invite, accept, remove), so an audit record can wrap it.
 */
import { Effect, Option } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { AppConfig } from "../../platform/Config.js"
import { makeId } from "../../platform/Ids.js"
import { Credentials } from "../Credentials.js"
import {
  InvitationForAnother,
  InvitationUnusable,
  LastOwner,
  NotAMember,
  RoleRefused,
  UnknownPartner
} from "./Errors.js"
import { MembersRepo } from "./Repo.js"
import { type ConsoleRight, may, type Role } from "./Roles.js"

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000

export const INVITE_PATH = "/console/invite/"

const hashOf = (token: string) => createHash("sha256").update(token, "utf8").digest("hex")

/** A person's membership of one partner, as the console shows it. */
export interface Membership {
  readonly partnerId: string
  readonly partnerName: string
  readonly role: Role
  /** The operators have suspended the partner: the signed API refuses its keys (the console still opens). */
  readonly suspended: boolean
}

export interface Invitation {
  readonly id: string
  readonly partner_id: string
  readonly partner_name: string
  readonly email: string
  readonly role: Role
  readonly url: string
  readonly expires_at: string
}

const make = Effect.gen(function*() {
  const repo = yield* MembersRepo
  const credentials = yield* Credentials
  const config = yield* AppConfig

  const partnerName = (partnerId: string) => Effect.map(credentials.showPartner(partnerId), Option.map((p) => p.name))

  /** The partner as a membership shows it: its name (its id when it has none) and whether it is suspended. */
  const partnerFacts = (partnerId: string) =>
    Effect.map(
      credentials.showPartner(partnerId),
      Option.match({
        onNone: () => ({ partnerName: partnerId, suspended: false }),
        onSome: (p) => ({ partnerName: p.name, suspended: p.suspended_at !== null })
      })
    )

  /** The person's membership of the partner when the role has the right; else NotAMember / RoleRefused. */
  const require = (userId: string, partnerId: string, right: ConsoleRight) =>
    Effect.gen(function*() {
      const mine = (yield* repo.membershipsOf(userId)).find((m) => m.partner_id === partnerId)
      if (mine === undefined) return yield* new NotAMember({ message: "No such partner of yours" })
      if (!may(mine.role, right)) {
        return yield* new RoleRefused({ message: `A ${mine.role} cannot do this; ask an owner of the partner` })
      }
      return { partnerId, ...(yield* partnerFacts(partnerId)), role: mine.role } satisfies Membership
    })

  const invite = (input: {
    readonly partnerId: string
    readonly email: string
    readonly role: Role
    readonly invitedBy: string
  }) =>
    Effect.gen(function*() {
      const name = yield* partnerName(input.partnerId)
      if (Option.isNone(name)) {
        return yield* new UnknownPartner({ message: `No partner ${input.partnerId}` })
      }
      const token = `inv_${randomBytes(32).toString("base64url")}`
      const id = makeId("pin")
      const expiresAt = new Date(Date.now() + INVITATION_TTL_MS)
      yield* repo.insertInvitation({
        id,
        partnerId: input.partnerId,
        email: input.email.trim().toLowerCase(),
        role: input.role,
        tokenHash: hashOf(token),
        invitedBy: input.invitedBy,
        expiresAt
      })
      return {
        id,
        partner_id: input.partnerId,
        partner_name: name.value,
        email: input.email.trim().toLowerCase(),
        role: input.role,
        url: `${config.baseUrl}${INVITE_PATH}${token}`,
        expires_at: expiresAt.toISOString()
      } satisfies Invitation
    })

  return {
    require,

    /** The partners the person belongs to, oldest membership first. */
    partnersOf: (userId: string) =>
      Effect.flatMap(
        repo.membershipsOf(userId),
        Effect.forEach((m) =>
          Effect.map(
            partnerFacts(m.partner_id),
            (facts): Membership => ({ partnerId: m.partner_id, ...facts, role: m.role })
          )
        )
      ),

    /** An operator's invitation (the CLI's `partner invite`): no membership needed. */
    invite,

    /** An owner's invitation from the console. */
    inviteAsMember: (userId: string, partnerId: string, email: string, role: Role) =>
      Effect.flatMap(
        require(userId, partnerId, "manageMembers"),
        () => invite({ partnerId, email, role, invitedBy: userId })
      ),

    /** What an invitation link offers, before it is accepted (unknown, used or expired: InvitationUnusable). */
    invitation: (token: string) =>
      Effect.gen(function*() {
        const row = yield* repo.invitationByHash(hashOf(token))
        if (Option.isNone(row) || row.value.accepted_at !== null || row.value.expires_at.getTime() <= Date.now()) {
          return yield* new InvitationUnusable({ message: "This invitation link was already used or has expired" })
        }
        const name = yield* partnerName(row.value.partner_id)
        return { ...row.value, partner_name: Option.getOrElse(name, () => row.value.partner_id) }
      }),

    /** Uses the invitation once: the signed-in person (whose e-mail it was sent to) joins with its role. */
    accept: (user: { readonly id: string; readonly email: string }, token: string) =>
      Effect.gen(function*() {
        const row = yield* repo.invitationByHash(hashOf(token))
        if (Option.isSome(row) && row.value.email !== user.email.trim().toLowerCase()) {
          return yield* new InvitationForAnother({
            message: `This invitation was sent to ${row.value.email}; sign in with that address to accept it`
          })
        }
        const claimed = yield* repo.claim(hashOf(token), user)
        if (Option.isNone(claimed)) {
          return yield* new InvitationUnusable({ message: "This invitation link was already used or has expired" })
        }
        return { partnerId: claimed.value.partner_id, role: claimed.value.role }
      }),

    /** The partner's members and open invitations (any member may look). */
    members: (userId: string, partnerId: string) =>
      Effect.gen(function*() {
        const membership = yield* require(userId, partnerId, "view")
        const [members, invitations] = yield* Effect.all([repo.members(partnerId), repo.pending(partnerId)])
        return { membership, members, invitations }
      }),

    /** An owner removes a member (themselves included, unless they are the last owner). */
    remove: (userId: string, partnerId: string, memberId: string) =>
      Effect.gen(function*() {
        yield* require(userId, partnerId, "manageMembers")
        const members = yield* repo.members(partnerId)
        if (!members.some((m) => m.user_id === memberId)) {
          return yield* new NotAMember({ message: "No such member of this partner" })
        }
        if (!(yield* repo.remove(partnerId, memberId))) {
          return yield* new LastOwner({ message: "A partner keeps at least one owner; make someone else owner first" })
        }
      })
  }
})

export class Members extends Effect.Service<Members>()("app/PartnerMembers", {
  effect: make,
  dependencies: [MembersRepo.Default]
}) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = Members.Default
}
