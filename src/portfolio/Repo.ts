/**
 * SQL of the portfolio: the owned domains' registrar state (columns of `user_domains`, whose rows
 * accounts create), bulk operations and their items, carts and their items.
 */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"

export interface PortfolioDomainRow {
  readonly domain: string
  readonly locked: boolean
  readonly auto_renew: boolean
  readonly nameservers: ReadonlyArray<string>
  readonly folder: string | null
  readonly contacts_handle: string | null
  readonly expires_at: Date
  readonly added_at: Date
}

export interface BulkOpRow {
  readonly id: string
  readonly user_id: string
  readonly op: string
  readonly payload: any
  readonly skipped: ReadonlyArray<{ domain: string; error: string }>
  readonly job_id: string | null
  readonly created_at: Date
  readonly started_at: Date | null
  readonly finished_at: Date | null
}

export interface BulkItemRow {
  readonly position: number
  readonly domain: string
  readonly status: "queued" | "running" | "succeeded" | "failed"
  readonly error: string | null
}

/** An item a run claimed, with the status it had: `running` when an earlier run started it. */
export interface ClaimedItem {
  readonly position: number
  readonly domain: string
  readonly previous: "queued" | "running"
}

export interface CartRow {
  readonly id: string
  readonly user_id: string
  readonly status: "open" | "paid"
  readonly currency: string
  readonly total_cents: string | number
  readonly session_id: string | null
}

export interface CartItemRow {
  readonly id: string
  readonly cart_id: string
  readonly domain: string
  readonly op: "renew" | "restore"
  readonly years: number
  readonly price_cents: string | number
  readonly status: "pending" | "running" | "succeeded" | "failed"
  readonly error: string | null
}

export type DomainPatch = Partial<{
  locked: boolean
  auto_renew: boolean
  nameservers: ReadonlyArray<string>
  folder: string | null
  contacts_handle: string | null
  expires_at: Date
}>

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const orDie = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.orDie(e)

  const patchColumns = (patch: DomainPatch) => {
    const row: Record<string, unknown> = { ...patch }
    if (patch.nameservers !== undefined) row.nameservers = JSON.stringify(patch.nameservers)
    return row
  }

  return {
    sql,
    domainsOf: (userId: string) =>
      orDie(sql<PortfolioDomainRow>`
        select domain, locked, auto_renew, nameservers, folder, contacts_handle, expires_at, added_at
        from user_domains where user_id = ${userId} order by domain`),

    domain: (domain: string) =>
      orDie(sql<PortfolioDomainRow & { user_id: string }>`
        select domain, user_id, locked, auto_renew, nameservers, folder, contacts_handle, expires_at, added_at
        from user_domains where domain = ${domain}`).pipe(Effect.map((rows) => rows[0])),

    /** The subset of `domains` the user owns. */
    ownedAmong: (userId: string, domains: ReadonlyArray<string>) =>
      domains.length === 0
        ? Effect.succeed(new Set<string>())
        : orDie(sql<{ domain: string }>`select domain from user_domains where user_id = ${userId} and domain in ${sql.in(domains)}`).pipe(
          Effect.map((rows) => new Set(rows.map((r) => r.domain)))
        ),

    patchDomain: (domain: string, patch: DomainPatch) =>
      Object.keys(patch).length === 0
        ? Effect.void
        : orDie(sql`update user_domains set ${sql.update(patchColumns(patch))} where domain = ${domain}`).pipe(Effect.asVoid),

    createOp: (row: { id: string; user_id: string; op: string; payload: unknown; skipped: unknown }, domains: ReadonlyArray<string>) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`insert into bulk_ops (id, user_id, op, payload, skipped)
                   values (${row.id}, ${row.user_id}, ${row.op}, ${JSON.stringify(row.payload)}, ${JSON.stringify(row.skipped)})`
        for (let start = 0; start < domains.length; start += 500) {
          const chunk = domains.slice(start, start + 500).map((domain, i) => ({ bulk_op_id: row.id, position: start + i, domain, status: "queued" }))
          yield* sql`insert into bulk_items ${sql.insert(chunk)}`
        }
      })).pipe(orDie),

    setJob: (id: string, jobId: string) => orDie(sql`update bulk_ops set job_id = ${jobId} where id = ${id}`).pipe(Effect.asVoid),

    op: (id: string) => orDie(sql<BulkOpRow>`select * from bulk_ops where id = ${id}`).pipe(Effect.map((rows) => rows[0])),

    items: (id: string) =>
      orDie(sql<BulkItemRow>`select position, domain, status, error from bulk_items where bulk_op_id = ${id} order by position`),

    unfinishedItems: (id: string) =>
      orDie(sql<BulkItemRow>`select position, domain, status, error from bulk_items
                             where bulk_op_id = ${id} and status in ('queued', 'running') order by position`),

    counts: (id: string) =>
      orDie(sql<{ total: string; succeeded: string; failed: string; pending: string }>`
        select count(*) as total,
               count(*) filter (where status = 'succeeded') as succeeded,
               count(*) filter (where status = 'failed') as failed,
               count(*) filter (where status in ('queued', 'running')) as pending
        from bulk_items where bulk_op_id = ${id}`).pipe(
        Effect.map(([r]) => ({ total: Number(r.total), succeeded: Number(r.succeeded), failed: Number(r.failed), pending: Number(r.pending) }))
      ),

    markStarted: (id: string) => orDie(sql`update bulk_ops set started_at = coalesce(started_at, now()) where id = ${id}`).pipe(Effect.asVoid),
    markFinished: (id: string) => orDie(sql`update bulk_ops set finished_at = coalesce(finished_at, now()) where id = ${id}`).pipe(Effect.asVoid),

    /**
     * Claims a chunk of items for run `run` (the job's attempt number). Returns each claimed
     * item with the status it had (`queued`, or `running` when an earlier run started it);
     * finished items, and items a later run holds, are not returned: a handler whose lease
     * lapsed cannot take items the new holder runs.
     */
    claimItems: (id: string, positions: ReadonlyArray<number>, run: number) =>
      positions.length === 0
        ? Effect.succeed([] as ReadonlyArray<ClaimedItem>)
        : orDie(sql<ClaimedItem>`
        update bulk_items i set status = 'running', attempts = i.attempts + 1, run = ${run}, updated_at = now()
        from (select position, status as previous from bulk_items
              where bulk_op_id = ${id} and position in ${sql.in(positions)} for update) p
        where i.bulk_op_id = ${id} and i.position = p.position
          and (i.status = 'queued' or (i.status = 'running' and i.run < ${run}))
        returning i.position, i.domain, p.previous`),

    /**
     * Marks items of run `run` succeeded and applies `patch` to our copy of their domains, in one
     * statement: only the items this run still holds, so a run whose lease lapsed changes nothing.
     */
    itemsSucceeded: (id: string, userId: string, positions: ReadonlyArray<number>, run: number, patch: DomainPatch) =>
      positions.length === 0
        ? Effect.void
        : orDie(sql`with done as (
                      update bulk_items set status = 'succeeded', error = null, updated_at = now()
                      where bulk_op_id = ${id} and run = ${run} and status = 'running' and position in ${sql.in(positions)}
                      returning domain)
                    update user_domains set ${sql.update(patchColumns(patch))}
                    where user_id = ${userId} and domain in (select domain from done)`).pipe(Effect.asVoid),

    /** Marks items of run `run` failed with one error (items not run after a failure). */
    itemsFailed: (id: string, positions: ReadonlyArray<number>, run: number, error: string) =>
      positions.length === 0
        ? Effect.void
        : orDie(sql`update bulk_items set status = 'failed', error = ${error}, updated_at = now()
                    where bulk_op_id = ${id} and run = ${run} and status = 'running' and position in ${sql.in(positions)}`).pipe(Effect.asVoid),

    itemFinished: (id: string, position: number, run: number, outcome: { status: "succeeded" | "failed"; error: string | null }) =>
      orDie(sql`update bulk_items set status = ${outcome.status}, error = ${outcome.error}, updated_at = now()
                where bulk_op_id = ${id} and position = ${position} and run = ${run} and status = 'running'`).pipe(Effect.asVoid),

    /** Items not yet started, after a failure with skip_on_error false. */
    failQueued: (id: string, error: string) =>
      orDie(sql`update bulk_items set status = 'failed', error = ${error}, updated_at = now()
                where bulk_op_id = ${id} and status = 'queued'`).pipe(Effect.asVoid),

    createCart: (cart: { id: string; user_id: string; currency: string; total_cents: number }, items: ReadonlyArray<Omit<CartItemRow, "status" | "error" | "cart_id">>) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`insert into carts ${sql.insert({ ...cart, status: "open" })}`
        if (items.length > 0) yield* sql`insert into cart_items ${sql.insert(items.map((i) => ({ ...i, cart_id: cart.id })))}`
      })).pipe(orDie),

    setCartSession: (id: string, sessionId: string) => orDie(sql`update carts set session_id = ${sessionId} where id = ${id}`).pipe(Effect.asVoid),

    cart: (id: string) => orDie(sql<CartRow>`select * from carts where id = ${id}`).pipe(Effect.map((rows) => rows[0])),

    /** Marks the cart paid; false when it was already paid (the payment is not fulfilled twice). */
    markCartPaid: (id: string, sessionId: string) =>
      orDie(sql<{ id: string }>`update carts set status = 'paid', paid_at = now(), session_id = coalesce(session_id, ${sessionId})
                               where id = ${id} and status = 'open' returning id`).pipe(Effect.map((rows) => rows.length > 0)),

    setCartJob: (id: string, jobId: string) => orDie(sql`update carts set job_id = ${jobId} where id = ${id}`).pipe(Effect.asVoid),

    cartItems: (cartId: string) => orDie(sql<CartItemRow>`select * from cart_items where cart_id = ${cartId} order by id`),

    cartItemStatus: (id: string, status: CartItemRow["status"], error: string | null) =>
      orDie(sql`update cart_items set status = ${status}, error = ${error} where id = ${id}`).pipe(Effect.asVoid)
  }
})

export class PortfolioRepo extends Context.Tag("app/PortfolioRepo")<PortfolioRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(PortfolioRepo, make)
}
