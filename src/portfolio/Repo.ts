/**
 * SQL of the portfolio: the owned domains' registrar state (columns of `user_domains`, whose rows
 * accounts create through ./OwnedDomains.ts), bulk operations and their items, and (./RepoCarts.ts,
 * spread in) carts and their items. Rows are decoded by their schema; a database failure is a
 * defect here, once (`transaction` too).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { transactionOf } from "../platform/db/SqlTransaction.js"
import { cartQueries } from "./RepoCarts.js"

export { CartItemRow, CartRow, FAILED_ITEM_STATUSES, FailedCartItemRow, type FailedItemStatus } from "./RepoCarts.js"

export const PortfolioDomainRow = Schema.Struct({
  domain: Schema.String,
  locked: Schema.Boolean,
  auto_renew: Schema.Boolean,
  nameservers: Schema.Array(Schema.String),
  folder: Schema.NullOr(Schema.String),
  contacts_handle: Schema.NullOr(Schema.String),
  expires_at: Schema.DateFromSelf,
  added_at: Schema.DateFromSelf
})
export type PortfolioDomainRow = typeof PortfolioDomainRow.Type

const OwnedDomainRow = Schema.Struct({ ...PortfolioDomainRow.fields, user_id: Schema.String })

const Skipped = Schema.Array(Schema.Struct({ domain: Schema.String, error: Schema.String }))

export const BulkOpRow = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  op: Schema.String,
  /** The op's decoded payload as the job stores it (Bulk.ts `JobPayload`). */
  payload: Schema.Unknown,
  skipped: Skipped,
  job_id: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  started_at: Schema.NullOr(Schema.DateFromSelf),
  finished_at: Schema.NullOr(Schema.DateFromSelf),
  /** renew/restore: the op's cart (migration 0230); its items are the cart's. */
  cart_id: Schema.NullOr(Schema.String)
})
export type BulkOpRow = typeof BulkOpRow.Type

export const BulkItemRow = Schema.Struct({
  position: Schema.Number,
  domain: Schema.String,
  status: Schema.Literal("queued", "running", "succeeded", "failed"),
  error: Schema.NullOr(Schema.String)
})
export type BulkItemRow = typeof BulkItemRow.Type

/** An item a run claimed, with the status it had: `running` when an earlier run started it. */
export const ClaimedItem = Schema.Struct({
  position: Schema.Number,
  domain: Schema.String,
  previous: Schema.Literal("queued", "running")
})
export type ClaimedItem = typeof ClaimedItem.Type

const BulkCounts = Schema.Struct({
  total: Schema.Number,
  succeeded: Schema.Number,
  failed: Schema.Number,
  pending: Schema.Number
})

export type DomainPatch = Partial<{
  locked: boolean
  auto_renew: boolean
  nameservers: ReadonlyArray<string>
  folder: string | null
  contacts_handle: string | null
  expires_at: Date
}>

const DomainOnly = Schema.Struct({ domain: Schema.String })
const Positions = Schema.Struct({ id: Schema.String, positions: Schema.Array(Schema.Number), run: Schema.Number })

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const transaction = transactionOf(sql)

  const patchColumns = (patch: DomainPatch) => {
    const row: Record<string, unknown> = { ...patch }
    if (patch.nameservers !== undefined) row.nameservers = JSON.stringify(patch.nameservers)
    return row
  }

  const domainsOf = SqlSchema.findAll({
    Request: Schema.String,
    Result: PortfolioDomainRow,
    execute: (userId) =>
      sql`select domain, locked, auto_renew, nameservers, folder, contacts_handle, expires_at, added_at
          from user_domains where user_id = ${userId} order by domain`
  })
  const domain = SqlSchema.findOne({
    Request: Schema.String,
    Result: OwnedDomainRow,
    execute: (domain) =>
      sql`select domain, user_id, locked, auto_renew, nameservers, folder, contacts_handle, expires_at, added_at
          from user_domains where domain = ${domain}`
  })
  const ownedAmong = SqlSchema.findAll({
    Request: Schema.Struct({ userId: Schema.String, domains: Schema.Array(Schema.String) }),
    Result: DomainOnly,
    execute: ({ domains, userId }) =>
      sql`select domain from user_domains where user_id = ${userId} and domain in ${sql.in(domains)}`
  })
  const op = SqlSchema.findOne({
    Request: Schema.String,
    Result: BulkOpRow,
    execute: (id) => sql`select * from bulk_ops where id = ${id}`
  })
  const items = SqlSchema.findAll({
    Request: Schema.String,
    Result: BulkItemRow,
    execute: (id) =>
      sql`select position, domain, status, error from bulk_items where bulk_op_id = ${id} order by position`
  })
  const unfinishedItems = SqlSchema.findAll({
    Request: Schema.String,
    Result: BulkItemRow,
    execute: (id) =>
      sql`select position, domain, status, error from bulk_items
          where bulk_op_id = ${id} and status in ('queued', 'running') order by position`
  })
  const counts = SqlSchema.single({
    Request: Schema.String,
    Result: BulkCounts,
    execute: (id) =>
      sql`
        select count(*) as total,
               count(*) filter (where status = 'succeeded') as succeeded,
               count(*) filter (where status = 'failed') as failed,
               count(*) filter (where status in ('queued', 'running')) as pending
        from bulk_items where bulk_op_id = ${id}`
  })
  const claimItems = SqlSchema.findAll({
    Request: Positions,
    Result: ClaimedItem,
    execute: ({ id, positions, run }) =>
      sql`
        update bulk_items i set status = 'running', attempts = i.attempts + 1, run = ${run}, updated_at = now()
        from (select position, status as previous from bulk_items
              where bulk_op_id = ${id} and position in ${sql.in(positions)} for update) p
        where i.bulk_op_id = ${id} and i.position = p.position
          and (i.status = 'queued' or (i.status = 'running' and i.run < ${run}))
        returning i.position, i.domain, p.previous`
  })
  const opsOf = SqlSchema.findAll({
    Request: Schema.Struct({ userId: Schema.String, limit: Schema.Number }),
    Result: BulkOpRow,
    execute: ({ limit, userId }) =>
      sql`select * from bulk_ops where user_id = ${userId} order by created_at desc, id desc limit ${limit}`
  })
  /** A statement with no rows to read; its failure a defect. */
  const run = <A, E, R>(statement: Effect.Effect<A, E, R>) => Effect.orDie(Effect.asVoid(statement))

  return {
    /** Runs `effect` in one transaction; a failed BEGIN/COMMIT is a defect, `effect`'s own errors stay. */
    transaction,
    domainsOf: (userId: string) => Effect.orDie(domainsOf(userId)),

    /** The domain with its owner; undefined when no one owns it. */
    domain: (name: string) => Effect.orDie(Effect.map(domain(name), Option.getOrUndefined)),

    /** The subset of `domains` the user owns. */
    ownedAmong: (userId: string, domains: ReadonlyArray<string>) =>
      domains.length === 0
        ? Effect.succeed(new Set<string>())
        : Effect.orDie(Effect.map(ownedAmong({ userId, domains }), (rows) => new Set(rows.map((r) => r.domain)))),

    patchDomain: (domain: string, patch: DomainPatch) =>
      Object.keys(patch).length === 0
        ? Effect.void
        : run(sql`update user_domains set ${sql.update(patchColumns(patch))} where domain = ${domain}`),

    createOp: (
      row: { id: string; user_id: string; op: string; payload: unknown; skipped: unknown; cart_id?: string },
      domains: ReadonlyArray<string>
    ) =>
      transaction(Effect.gen(function*() {
        yield* run(sql`insert into bulk_ops (id, user_id, op, payload, skipped, cart_id)
                       values (${row.id}, ${row.user_id}, ${row.op}, ${JSON.stringify(row.payload)}, ${
          JSON.stringify(row.skipped)
        }, ${row.cart_id ?? null})`)
        for (let start = 0; start < domains.length; start += 500) {
          const chunk = domains.slice(start, start + 500).map((domain, i) => ({
            bulk_op_id: row.id,
            position: start + i,
            domain,
            status: "queued"
          }))
          yield* run(sql`insert into bulk_items ${sql.insert(chunk)}`)
        }
      })),

    setJob: (id: string, jobId: string) => run(sql`update bulk_ops set job_id = ${jobId} where id = ${id}`),

    /** The op; undefined when there is none. */
    op: (id: string) => Effect.orDie(Effect.map(op(id), Option.getOrUndefined)),

    items: (id: string) => Effect.orDie(items(id)),

    unfinishedItems: (id: string) => Effect.orDie(unfinishedItems(id)),

    counts: (id: string) => Effect.orDie(counts(id)),

    markStarted: (id: string) =>
      run(sql`update bulk_ops set started_at = coalesce(started_at, now()) where id = ${id}`),
    markFinished: (id: string) =>
      run(sql`update bulk_ops set finished_at = coalesce(finished_at, now()) where id = ${id}`),

    /**
     * Claims a chunk of items for run `run` (the job's attempt number). Returns each claimed
     * item with the status it had (`queued`, or `running` when an earlier run started it);
     * finished items, and items a later run holds, are not returned: a handler whose lease
     * lapsed cannot take items the new holder runs.
     */
    claimItems: (id: string, positions: ReadonlyArray<number>, run: number) =>
      positions.length === 0
        ? Effect.succeed([] as ReadonlyArray<ClaimedItem>)
        : Effect.orDie(claimItems({ id, positions, run })),

    /**
     * Marks items of run `run` succeeded and applies `patch` to our copy of their domains, in one
     * statement: only the items this run still holds, so a run whose lease lapsed changes nothing.
     */
    itemsSucceeded: (id: string, userId: string, positions: ReadonlyArray<number>, runNo: number, patch: DomainPatch) =>
      positions.length === 0
        ? Effect.void
        : run(sql`with done as (
                    update bulk_items set status = 'succeeded', error = null, updated_at = now()
                    where bulk_op_id = ${id} and run = ${runNo} and status = 'running' and position in ${
          sql.in(positions)
        }
                    returning domain)
                  update user_domains set ${sql.update(patchColumns(patch))}
                  where user_id = ${userId} and domain in (select domain from done)`),

    /** Marks items of run `run` failed with one error (items not run after a failure). */
    itemsFailed: (id: string, positions: ReadonlyArray<number>, runNo: number, error: string) =>
      positions.length === 0
        ? Effect.void
        : run(sql`update bulk_items set status = 'failed', error = ${error}, updated_at = now()
                  where bulk_op_id = ${id} and run = ${runNo} and status = 'running' and position in ${
          sql.in(positions)
        }`),

    itemFinished: (
      id: string,
      position: number,
      runNo: number,
      outcome: { status: "succeeded" | "failed"; error: string | null }
    ) =>
      run(sql`update bulk_items set status = ${outcome.status}, error = ${outcome.error}, updated_at = now()
              where bulk_op_id = ${id} and position = ${position} and run = ${runNo} and status = 'running'`),

    /** Items not yet started, after a failure with skip_on_error false. */
    failQueued: (id: string, error: string) =>
      run(sql`update bulk_items set status = 'failed', error = ${error}, updated_at = now()
              where bulk_op_id = ${id} and status = 'queued'`),

    /** The user's latest bulk operations, newest first (the account page; its carts: `cartIdsOf`). */
    opsOf: (userId: string, limit: number) => Effect.orDie(opsOf({ userId, limit })),

    ...cartQueries(sql, transaction)
  }
})

export class PortfolioRepo extends Effect.Service<PortfolioRepo>()("app/PortfolioRepo", { effect: make }) {
  /** Kept for the existing wiring (src/portfolio/Layer.ts, src/portfolio/Fulfilment.ts, test/portfolio/cart.test.ts). */
  static readonly Live = PortfolioRepo.Default
}
