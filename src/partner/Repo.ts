/**
 * SQL for partners, their credentials and the nonces seen. Rows are decoded by the schemas below
 * (one row, or one per request of a group-committed batch, on the signed path); a database error
 * is a defect here, once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { sqlArray } from "../platform/db/SqlArray.js"
import { countRequests } from "../platform/http/RateLimit.js"
import { type Scope, SCOPES } from "./Auth.js"

const Environment = Schema.Literal("live", "sandbox")
const Scopes = Schema.Array(Schema.Literal(...SCOPES))

export const CredentialRow = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  key_id: Schema.String,
  secret_sealed: Schema.String,
  environment: Environment,
  scopes: Scopes,
  active: Schema.Boolean,
  affiliate: Schema.Boolean,
  partner_name: Schema.String,
  created_at: Schema.DateFromSelf,
  revoked_at: Schema.NullOr(Schema.DateFromSelf)
})
export type CredentialRow = typeof CredentialRow.Type

export const PartnerSummaryRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  affiliate: Schema.Boolean,
  commission_bps: Schema.Number,
  created_at: Schema.DateFromSelf,
  /** Set while an operator has the partner suspended: none of its keys is admitted. */
  suspended_at: Schema.NullOr(Schema.DateFromSelf),
  /** What its people may give a new key, once an operator set a key's scopes (null: every key's so far). */
  granted_scopes: Schema.NullOr(Scopes),
  /** Aggregated as JSON: the times arrive as strings. */
  credentials: Schema.Array(Schema.Struct({
    key_id: Schema.String,
    environment: Environment,
    scopes: Scopes,
    active: Schema.Boolean,
    created_at: Schema.Date,
    revoked_at: Schema.NullOr(Schema.Date)
  }))
})
export type PartnerSummaryRow = typeof PartnerSummaryRow.Type

/** A credential as its partner's console shows it. */
export const KeyRow = Schema.Struct({
  key_id: Schema.String,
  environment: Environment,
  scopes: Scopes,
  active: Schema.Boolean,
  created_at: Schema.DateFromSelf,
  revoked_at: Schema.NullOr(Schema.DateFromSelf),
  expires_at: Schema.NullOr(Schema.DateFromSelf),
  last_used_at: Schema.NullOr(Schema.DateFromSelf),
  last_used_ip: Schema.NullOr(Schema.String)
})
export type KeyRow = typeof KeyRow.Type

const NewPartner = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  affiliate: Schema.Boolean,
  commissionBps: Schema.Number
})

const NewCredential = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  keyId: Schema.String,
  secretSealed: Schema.String,
  environment: Environment,
  scopes: Scopes
})

const Admission = Schema.Struct({
  i: Schema.Number,
  active: Schema.Boolean,
  fresh: Schema.Boolean,
  count: Schema.NullOr(Schema.NumberFromString),
  /** The live credential's scopes as the database has them now (null when it is not live). */
  scopes: Schema.NullOr(Scopes)
})

/** A rate-limit window to count an admitted request in (platform/http/RateLimit.ts `windowOf`). */
export interface AdmissionCount {
  readonly bucket: string
  readonly windowStart: number
  readonly expiresAt: Date
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const findCredential = SqlSchema.findOne({
    Request: Schema.String,
    Result: CredentialRow,
    execute: (keyId) =>
      sql`
        select c.id, c.partner_id, c.key_id, c.secret_sealed, c.environment, c.scopes, c.active, c.created_at, c.revoked_at,
               p.affiliate, p.name as partner_name
        from partner_credentials c join partners p on p.id = c.partner_id
        where c.key_id = ${keyId}`
  })

  const insertPartner = SqlSchema.void({
    Request: NewPartner,
    execute: (p) =>
      sql`insert into partners (id, name, affiliate, commission_bps)
          values (${p.id}, ${p.name}, ${p.affiliate}, ${p.commissionBps})`
  })

  const setCommission = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, bps: Schema.Number }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: (r) => sql`update partners set commission_bps = ${r.bps} where id = ${r.partnerId} returning id`
  })

  const setSuspended = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, suspended: Schema.Boolean }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: (r) =>
      sql`update partners
          set suspended_at = ${r.suspended ? sql`coalesce(suspended_at, now())` : sql`null`}
          where id = ${r.partnerId} returning id`
  })

  const setScopes = SqlSchema.findOne({
    Request: Schema.Struct({ keyId: Schema.String, scopes: Scopes }),
    Result: Schema.Struct({ key_id: Schema.String }),
    // The partner's grant becomes what its live keys hold after the change (the other keys as they
    // are, this one as it will be): an operator's narrowing is not undone by a new console key.
    execute: (r) =>
      sql`
        with changed as (
          update partner_credentials set scopes = ${sqlArray([...r.scopes])}::text[]
          where key_id = ${r.keyId} and active returning key_id, partner_id
        ), granted as (
          update partners p set granted_scopes = array(
            select distinct s from (
              select unnest(c.scopes) as s from partner_credentials c
              where c.partner_id = p.id and c.active and c.key_id <> ${r.keyId}
              union all select unnest(${sqlArray([...r.scopes])}::text[])
            ) x order by s)
          from changed where p.id = changed.partner_id
          returning p.id
        )
        select key_id from changed`
  })

  const payoutAccount = SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ payout_account: Schema.NullOr(Schema.String) }),
    execute: (partnerId) => sql`select payout_account from partners where id = ${partnerId}`
  })

  const setPayoutAccount = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, account: Schema.String }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: (r) => sql`update partners set payout_account = ${r.account} where id = ${r.partnerId} returning id`
  })

  const insertCredential = SqlSchema.void({
    Request: NewCredential,
    execute: (c) =>
      sql`insert into partner_credentials (id, partner_id, key_id, secret_sealed, environment, scopes)
          values (${c.id}, ${c.partnerId}, ${c.keyId}, ${c.secretSealed}, ${c.environment}, ${
        sqlArray([...c.scopes])
      }::text[])`
  })

  const deactivate = SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ key_id: Schema.String }),
    execute: (keyId) =>
      sql`update partner_credentials set active = false, revoked_at = coalesce(revoked_at, now())
          where key_id = ${keyId} returning key_id`
  })

  const admitNonces = SqlSchema.findAll({
    Request: Schema.Struct({
      keyIds: Schema.Array(Schema.String),
      nonces: Schema.Array(Schema.String),
      buckets: Schema.Array(Schema.NullOr(Schema.String)),
      windowStarts: Schema.Array(Schema.NullOr(Schema.Number)),
      expiresMs: Schema.Array(Schema.NullOr(Schema.Number)),
      ips: Schema.Array(Schema.NullOr(Schema.String)),
      ttlSeconds: Schema.Number
    }),
    Result: Admission,
    // `counted`/`bumped`: the admitted requests that carry a rate-limit window are added to the
    // shared counter in the same statement, each getting its ordinal in its window (as the
    // limiter's own group commit does); the counters' part is the limiter's (`countRequests`,
    // platform/http/RateLimit.ts owns `rate_limit_counters`), which upserts in key order, so two
    // replicas' batches never wait on each other's counters in opposite orders. A credential past its `expires_at`
    // (a rotation's grace period), or of a suspended partner, is not live; a live one's scopes are
    // returned, so a scope change holds at once on every replica whatever a replica has cached. `touched`: the last use and its IP, written at most
    // once a minute per credential, so the signed path adds no write to most requests.
    execute: (r) =>
      sql`
        with req as (
          select r.key_id, r.nonce, r.bucket, r.window_start, r.expires_ms, r.ip, r.i::int as i
          from unnest(${sqlArray(r.keyIds)}::text[], ${sqlArray(r.nonces)}::text[], ${sqlArray(r.buckets)}::text[],
                      ${sqlArray(r.windowStarts)}::bigint[], ${sqlArray(r.expiresMs)}::float8[], ${
        sqlArray(r.ips)
      }::text[])
            with ordinality as r (key_id, nonce, bucket, window_start, expires_ms, ip, i)
        ), live as (
          select req.*, c.scopes from req join partner_credentials c on c.key_id = req.key_id and c.active
            and (c.expires_at is null or c.expires_at > now())
            join partners p on p.id = c.partner_id and p.suspended_at is null
        ), touched as (
          update partner_credentials c set last_used_at = now(), last_used_ip = u.ip
          from (select distinct on (key_id) key_id, ip from live order by key_id, i desc) u
          where c.key_id = u.key_id and (c.last_used_at is null or c.last_used_at < now() - interval '1 minute')
          returning c.key_id
        ), ins as (
          insert into partner_nonces (key_id, nonce, expires_at)
          select key_id, nonce, now() + ${`${r.ttlSeconds} seconds`}::interval from live
          on conflict do nothing
          returning key_id, nonce
        ), counted as (
          select req.i, req.bucket, req.window_start, req.expires_ms,
                 row_number() over (partition by req.bucket, req.window_start order by req.i) as rn,
                 count(*) over (partition by req.bucket, req.window_start) as n
          from req join ins on ins.key_id = req.key_id and ins.nonce = req.nonce
          where req.bucket is not null
        ), bumped as (
          ${countRequests(sql, sql`counted`)}
        )
        select req.i, live.i is not null as active, ins.nonce is not null as fresh,
               (bumped.count - counted.n + counted.rn)::text as count, live.scopes
        from req
          left join live on live.i = req.i
          left join ins on ins.key_id = req.key_id and ins.nonce = req.nonce
          left join counted on counted.i = req.i
          left join bumped on bumped.bucket = counted.bucket and bumped.window_start = counted.window_start
        order by req.i`
  })

  const keysOf = SqlSchema.findAll({
    Request: Schema.String,
    Result: KeyRow,
    execute: (partnerId) =>
      sql`select key_id, environment, scopes, active and (expires_at is null or expires_at > now()) as active,
                 created_at, revoked_at, expires_at, last_used_at, last_used_ip
          from partner_credentials where partner_id = ${partnerId}
          order by created_at desc, key_id desc`
  })

  const endAt = SqlSchema.findOne({
    Request: Schema.Struct({ keyId: Schema.String, seconds: Schema.Number }),
    Result: Schema.Struct({ key_id: Schema.String }),
    execute: (r) =>
      sql`update partner_credentials
          set expires_at = least(coalesce(expires_at, 'infinity'), now() + ${`${r.seconds} seconds`}::interval)
          where key_id = ${r.keyId} and active returning key_id`
  })

  const purgeNonces = SqlSchema.void({
    Request: Schema.Void,
    execute: () => sql`delete from partner_nonces where expires_at < now()`
  })

  const listPartners = SqlSchema.findAll({
    Request: Schema.Struct({ limit: Schema.Number, partnerId: Schema.optional(Schema.String) }),
    Result: PartnerSummaryRow,
    execute: ({ limit, partnerId }) =>
      sql`
        select p.id, p.name, p.affiliate, p.commission_bps, p.created_at, p.suspended_at, p.granted_scopes,
               coalesce(json_agg(json_build_object(
                 'key_id', c.key_id, 'environment', c.environment, 'scopes', c.scopes, 'active', c.active,
                 'created_at', c.created_at, 'revoked_at', c.revoked_at) order by c.created_at)
                 filter (where c.id is not null), '[]'::json) as credentials
        from partners p left join partner_credentials c on c.partner_id = p.id
        ${partnerId === undefined ? sql`` : sql`where p.id = ${partnerId}`}
        group by p.id, p.name, p.affiliate, p.commission_bps, p.created_at, p.suspended_at, p.granted_scopes
        order by p.created_at desc, p.id desc
        limit ${limit}`
  })

  return {
    findCredential: (keyId: string) => Effect.orDie(findCredential(keyId)),

    insertPartner: (p: typeof NewPartner.Type) => Effect.orDie(insertPartner(p)),

    /** False when there is no such partner. */
    setCommission: (partnerId: string, bps: number) =>
      Effect.orDie(Effect.map(setCommission({ partnerId, bps }), Option.isSome)),

    insertCredential: (c: typeof NewCredential.Type) => Effect.orDie(insertCredential(c)),

    /** False when there is no such credential. */
    deactivate: (keyId: string) => Effect.orDie(Effect.map(deactivate(keyId), Option.isSome)),

    /**
     * Admission of many signed requests in one statement (group commit): for each (key id, nonce),
     * whether the credential is active now and, when it is, whether the nonce was new (recorded
     * here; a nonce of an inactive credential is not recorded). An admitted (active, fresh) item
     * with a `count` window is also counted in the shared rate-limit counter: `count` is its ordinal
     * in that window. Answers in the order given; each (key id, nonce) pair must appear at most once.
     */
    admitNonces: (
      items: ReadonlyArray<
        {
          readonly keyId: string
          readonly nonce: string
          readonly count?: AdmissionCount | undefined
          readonly ip?: string | undefined
        }
      >,
      ttlSeconds: number
    ) =>
      admitNonces({
        keyIds: items.map((x) => x.keyId),
        nonces: items.map((x) => x.nonce),
        buckets: items.map((x) => x.count?.bucket ?? null),
        windowStarts: items.map((x) => x.count?.windowStart ?? null),
        expiresMs: items.map((x) => x.count?.expiresAt.getTime() ?? null),
        ips: items.map((x) => x.ip ?? null),
        ttlSeconds
      }).pipe(
        Effect.map((rows) => {
          const out: Array<
            { active: boolean; fresh: boolean; count: number | undefined; scopes: ReadonlyArray<Scope> | null }
          > = items.map(() => ({ active: false, fresh: false, count: undefined, scopes: null }))
          for (const r of rows) {
            out[r.i - 1] = { active: r.active, fresh: r.fresh, count: r.count ?? undefined, scopes: r.scopes }
          }
          return out
        }),
        Effect.orDie
      ),

    purgeNonces: Effect.orDie(purgeNonces(undefined)),

    /** The partner's account at the payout provider (the ledger's payout run); none when there is no such partner. */
    payoutAccount: (partnerId: string) => Effect.orDie(payoutAccount(partnerId)),
    /** Suspends (or resumes) a partner: its keys are refused while suspended; false when there is no such partner. */
    setSuspended: (partnerId: string, suspended: boolean) =>
      Effect.orDie(Effect.map(setSuspended({ partnerId, suspended }), Option.isSome)),

    /** A live credential's scopes from now on; false when there is no such active credential. */
    setScopes: (keyId: string, scopes: ReadonlyArray<Scope>) =>
      Effect.orDie(Effect.map(setScopes({ keyId, scopes }), Option.isSome)),

    /** False when there is no such partner. */
    setPayoutAccount: (partnerId: string, account: string) =>
      Effect.orDie(Effect.map(setPayoutAccount({ partnerId, account }), Option.isSome)),

    /** A partner's credentials, newest first (never the sealed secrets); `active` false once past `expires_at`. */
    keysOf: (partnerId: string) => Effect.orDie(keysOf(partnerId)),

    /** The credential stops working in `seconds` (a rotation's grace); false when there is no active one. */
    endAt: (keyId: string, seconds: number) => Effect.orDie(Effect.map(endAt({ keyId, seconds }), Option.isSome)),

    /** Partners, newest first, with their credentials (never the sealed secrets). */
    listPartners: (limit: number, partnerId?: string) => Effect.orDie(listPartners({ limit, partnerId }))
  }
})

export class PartnerRepo extends Effect.Service<PartnerRepo>()("app/PartnerRepo", { effect: make }) {}
