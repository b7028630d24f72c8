/** SQL for partners, their credentials and the nonces seen. */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { PartnerEnvironment, Scope } from "./Auth.js"

export interface CredentialRow {
  readonly id: string
  readonly partner_id: string
  readonly key_id: string
  readonly secret_sealed: string
  readonly environment: PartnerEnvironment
  readonly scopes: ReadonlyArray<Scope>
  readonly active: boolean
  readonly affiliate: boolean
  readonly partner_name: string
  readonly created_at: Date
  readonly revoked_at: Date | null
}

export interface PartnerSummaryRow {
  readonly id: string
  readonly name: string
  readonly affiliate: boolean
  readonly commission_bps: number
  readonly created_at: Date
  readonly credentials: ReadonlyArray<{
    readonly key_id: string
    readonly environment: PartnerEnvironment
    readonly scopes: ReadonlyArray<Scope>
    readonly active: boolean
    readonly created_at: string
    readonly revoked_at: string | null
  }>
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const findCredential = (keyId: string) =>
    sql<CredentialRow>`
      select c.id, c.partner_id, c.key_id, c.secret_sealed, c.environment, c.scopes, c.active, c.created_at, c.revoked_at,
             p.affiliate, p.name as partner_name
      from partner_credentials c join partners p on p.id = c.partner_id
      where c.key_id = ${keyId}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])))

  return {
    findCredential,

    insertPartner: (p: { id: string; name: string; affiliate: boolean; commissionBps: number }) =>
      sql`insert into partners (id, name, affiliate, commission_bps)
          values (${p.id}, ${p.name}, ${p.affiliate}, ${p.commissionBps})`.pipe(Effect.asVoid),

    setCommission: (partnerId: string, bps: number) =>
      sql<{ id: string }>`update partners set commission_bps = ${bps} where id = ${partnerId} returning id`.pipe(
        Effect.map((rows) => rows.length > 0)
      ),

    insertCredential: (c: {
      id: string
      partnerId: string
      keyId: string
      secretSealed: string
      environment: PartnerEnvironment
      scopes: ReadonlyArray<Scope>
    }) =>
      sql`insert into partner_credentials (id, partner_id, key_id, secret_sealed, environment, scopes)
          values (${c.id}, ${c.partnerId}, ${c.keyId}, ${c.secretSealed}, ${c.environment}, ${[...c.scopes] as any}::text[])`.pipe(Effect.asVoid),

    deactivate: (keyId: string) =>
      sql<{ key_id: string }>`update partner_credentials set active = false, revoked_at = coalesce(revoked_at, now())
          where key_id = ${keyId} returning key_id`.pipe(Effect.map((rows) => rows.length > 0)),

    /** Records a nonce; false when this credential already used it (a replay). */
    rememberNonce: (keyId: string, nonce: string, ttlSeconds: number) =>
      sql<{ nonce: string }>`
        insert into partner_nonces (key_id, nonce, expires_at)
        values (${keyId}, ${nonce}, now() + ${`${ttlSeconds} seconds`}::interval)
        on conflict do nothing returning nonce`.pipe(Effect.map((rows) => rows.length === 1)),

    /**
     * Admission of many signed requests in one statement (group commit): for each (key id, nonce),
     * whether the credential is active now and, when it is, whether the nonce was new (recorded
     * here; a nonce of an inactive credential is not recorded). Answers in the order given; each
     * (key id, nonce) pair must appear at most once.
     */
    admitNonces: (items: ReadonlyArray<{ readonly keyId: string; readonly nonce: string }>, ttlSeconds: number) =>
      sql<{ i: number; active: boolean; fresh: boolean }>`
        with req as (
          select r.key_id, r.nonce, r.i::int as i
          from unnest(${items.map((x) => x.keyId) as any}::text[], ${items.map((x) => x.nonce) as any}::text[])
            with ordinality as r (key_id, nonce, i)
        ), live as (
          select req.* from req join partner_credentials c on c.key_id = req.key_id and c.active
        ), ins as (
          insert into partner_nonces (key_id, nonce, expires_at)
          select key_id, nonce, now() + ${`${ttlSeconds} seconds`}::interval from live
          on conflict do nothing
          returning key_id, nonce
        )
        select req.i, live.i is not null as active, ins.nonce is not null as fresh
        from req
          left join live on live.i = req.i
          left join ins on ins.key_id = req.key_id and ins.nonce = req.nonce
        order by req.i`.pipe(
        Effect.map((rows) => {
          const out = items.map(() => ({ active: false, fresh: false }))
          for (const r of rows) out[Number(r.i) - 1] = { active: r.active, fresh: r.fresh }
          return out
        })
      ),

    purgeNonces: sql`delete from partner_nonces where expires_at < now()`.pipe(Effect.asVoid),

    partnerExists: (partnerId: string) =>
      sql<{ id: string }>`select id from partners where id = ${partnerId}`.pipe(Effect.map((rows) => rows.length > 0)),

    /** Partners, newest first, with their credentials (never the sealed secrets). */
    listPartners: (limit: number, partnerId?: string) =>
      sql<PartnerSummaryRow>`
        select p.id, p.name, p.affiliate, p.commission_bps, p.created_at,
               coalesce(json_agg(json_build_object(
                 'key_id', c.key_id, 'environment', c.environment, 'scopes', c.scopes, 'active', c.active,
                 'created_at', c.created_at, 'revoked_at', c.revoked_at) order by c.created_at)
                 filter (where c.id is not null), '[]'::json) as credentials
        from partners p left join partner_credentials c on c.partner_id = p.id
        ${partnerId === undefined ? sql`` : sql`where p.id = ${partnerId}`}
        group by p.id, p.name, p.affiliate, p.commission_bps, p.created_at
        order by p.created_at desc, p.id desc
        limit ${limit}`
  }
})

export class PartnerRepo extends Context.Tag("app/PartnerRepo")<PartnerRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(PartnerRepo, make)
}
