/**
 * SQL of a partner's people: `partner_members` and `partner_invitations` (this slice's tables
 * only). An invitation is claimed by one conditional update (unused, unexpired), in the same
 * transaction as the membership it grants, so a link works once even when opened twice at once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { transactionOf } from "../../platform/db/SqlTransaction.js"
import { ROLES } from "./Roles.js"

const RoleSchema = Schema.Literal(...ROLES)

export const MemberRow = Schema.Struct({
  partner_id: Schema.String,
  user_id: Schema.String,
  email: Schema.String,
  role: RoleSchema,
  created_at: Schema.DateFromSelf
})
export type MemberRow = typeof MemberRow.Type

export const InvitationRow = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  email: Schema.String,
  role: RoleSchema,
  expires_at: Schema.DateFromSelf,
  accepted_at: Schema.NullOr(Schema.DateFromSelf),
  created_at: Schema.DateFromSelf
})
export type InvitationRow = typeof InvitationRow.Type

const NewInvitation = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  email: Schema.String,
  role: RoleSchema,
  tokenHash: Schema.String,
  invitedBy: Schema.String,
  expiresAt: Schema.DateFromSelf
})

const Claimed = Schema.Struct({ partner_id: Schema.String, role: RoleSchema })

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const inTransaction = transactionOf(sql)

  const membershipsOf = SqlSchema.findAll({
    Request: Schema.String,
    Result: MemberRow,
    execute: (userId) =>
      sql`select partner_id, user_id, email, role, created_at from partner_members
          where user_id = ${userId} order by created_at, partner_id`
  })

  const members = SqlSchema.findAll({
    Request: Schema.String,
    Result: MemberRow,
    execute: (partnerId) =>
      sql`select partner_id, user_id, email, role, created_at from partner_members
          where partner_id = ${partnerId} order by created_at, user_id`
  })

  const insertInvitation = SqlSchema.void({
    Request: NewInvitation,
    execute: (i) =>
      sql`insert into partner_invitations (id, partner_id, email, role, token_hash, invited_by, expires_at)
          values (${i.id}, ${i.partnerId}, ${i.email}, ${i.role}, ${i.tokenHash}, ${i.invitedBy}, ${i.expiresAt})`
  })

  const pending = SqlSchema.findAll({
    Request: Schema.String,
    Result: InvitationRow,
    execute: (partnerId) =>
      sql`select id, partner_id, email, role, expires_at, accepted_at, created_at from partner_invitations
          where partner_id = ${partnerId} and accepted_at is null and expires_at > now()
          order by created_at desc limit 50`
  })

  const invitationByHash = SqlSchema.findOne({
    Request: Schema.String,
    Result: InvitationRow,
    execute: (hash) =>
      sql`select id, partner_id, email, role, expires_at, accepted_at, created_at from partner_invitations
          where token_hash = ${hash}`
  })

  const claim = SqlSchema.findOne({
    Request: Schema.Struct({ hash: Schema.String, userId: Schema.String }),
    Result: Claimed,
    execute: (r) =>
      sql`update partner_invitations set accepted_at = now(), accepted_by = ${r.userId}
          where token_hash = ${r.hash} and accepted_at is null and expires_at > now()
          returning partner_id, role`
  })

  const join = SqlSchema.void({
    Request: Schema.Struct({ partnerId: Schema.String, userId: Schema.String, email: Schema.String, role: RoleSchema }),
    execute: (m) =>
      sql`insert into partner_members (partner_id, user_id, email, role)
          values (${m.partnerId}, ${m.userId}, ${m.email}, ${m.role})
          on conflict (partner_id, user_id) do update set role = excluded.role, email = excluded.email`
  })

  // The last owner stays: the delete's own condition counts the owners, so no read-then-write.
  const remove = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, userId: Schema.String }),
    Result: Schema.Struct({ user_id: Schema.String }),
    execute: (r) =>
      sql`delete from partner_members m
          where m.partner_id = ${r.partnerId} and m.user_id = ${r.userId}
            and (m.role <> 'owner'
                 or (select count(*) from partner_members o where o.partner_id = ${r.partnerId} and o.role = 'owner') > 1)
          returning m.user_id`
  })

  return {
    membershipsOf: (userId: string) => Effect.orDie(membershipsOf(userId)),
    members: (partnerId: string) => Effect.orDie(members(partnerId)),
    insertInvitation: (i: typeof NewInvitation.Type) => Effect.orDie(insertInvitation(i)),
    pending: (partnerId: string) => Effect.orDie(pending(partnerId)),
    invitationByHash: (hash: string) => Effect.orDie(invitationByHash(hash)),
    /** Uses the invitation and joins the person, in one transaction; none when unusable. */
    claim: (hash: string, user: { readonly id: string; readonly email: string }) =>
      inTransaction(Effect.gen(function*() {
        const claimed = yield* Effect.orDie(claim({ hash, userId: user.id }))
        if (Option.isNone(claimed)) return claimed
        yield* Effect.orDie(
          join({ partnerId: claimed.value.partner_id, userId: user.id, email: user.email, role: claimed.value.role })
        )
        return claimed
      })),
    /** False when not a member, or the partner's last owner. */
    remove: (partnerId: string, userId: string) =>
      Effect.orDie(Effect.map(remove({ partnerId, userId }), Option.isSome))
  }
})

export class MembersRepo extends Effect.Service<MembersRepo>()("app/PartnerMembersRepo", { effect: make }) {}
