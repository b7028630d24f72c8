/**
 * SQL of the renew/restore carts and their items (docs/portfolio.md#carts), a part of the
 * portfolio's repository (./Repo.ts spreads it in): the cart's life (open → paid → done), its
 * items' outcomes (failed → refunded, once), the owner's carts, and the operators' queue of items
 * whose registrar call failed after payment. Rows are decoded by their schema; a database failure
 * is a defect here, once.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import type { transactionOf } from "../platform/db/SqlTransaction.js"

export const CartItemRow = Schema.Struct({
  id: Schema.String,
  cart_id: Schema.String,
  domain: Schema.String,
  op: Schema.Literal("renew", "restore"),
  years: Schema.Number,
  price_cents: Schema.Number,
  status: Schema.Literal("pending", "running", "succeeded", "failed", "refunded"),
  error: Schema.NullOr(Schema.String),
  refund_id: Schema.NullOr(Schema.String)
})
export type CartItemRow = typeof CartItemRow.Type

export const CartRow = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  status: Schema.Literal("open", "paid", "done"),
  currency: Schema.String,
  total_cents: Schema.Number,
  session_id: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  paid_at: Schema.NullOr(Schema.DateFromSelf),
  finished_at: Schema.NullOr(Schema.DateFromSelf)
})
export type CartRow = typeof CartRow.Type

/** The outcomes of an item whose registrar call failed after payment: refund under way, refunded. */
export const FAILED_ITEM_STATUSES = ["failed", "refunded"] as const
export type FailedItemStatus = typeof FAILED_ITEM_STATUSES[number]

/** A failed item with what an operator needs of its cart: the owner, the checkout session, the times. */
export const FailedCartItemRow = Schema.Struct({
  ...CartItemRow.fields,
  status: Schema.Literal(...FAILED_ITEM_STATUSES),
  refunded_at: Schema.NullOr(Schema.DateFromSelf),
  user_id: Schema.String,
  session_id: Schema.NullOr(Schema.String),
  currency: Schema.String,
  paid_at: Schema.NullOr(Schema.DateFromSelf),
  finished_at: Schema.NullOr(Schema.DateFromSelf)
})
export type FailedCartItemRow = typeof FailedCartItemRow.Type

const Id = Schema.Struct({ id: Schema.String })

const failedItemsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Struct({
      statuses: Schema.Array(Schema.Literal(...FAILED_ITEM_STATUSES)),
      beforeId: Schema.NullOr(Schema.String),
      limit: Schema.Number
    }),
    Result: FailedCartItemRow,
    execute: ({ beforeId, limit, statuses }) =>
      sql`
        select i.id, i.cart_id, i.domain, i.op, i.years, i.price_cents, i.status, i.error, i.refund_id,
               i.refunded_at, c.user_id, c.session_id, c.currency, c.paid_at, c.finished_at
        from cart_items i join carts c on c.id = i.cart_id
        where i.status in ${sql.in(statuses)}
          ${beforeId ? sql`and i.id < ${beforeId}` : sql``}
        order by i.id desc limit ${limit}`
  })

/** The carts' statements, of the repository. */
export const cartQueries = (sql: SqlClient.SqlClient, transaction: ReturnType<typeof transactionOf>) => {
  /** A statement with no rows to read; its failure a defect. */
  const run = <A, E, R>(statement: Effect.Effect<A, E, R>) => Effect.orDie(Effect.asVoid(statement))
  const markCartPaid = SqlSchema.findOne({
    Request: Schema.Struct({ id: Schema.String, sessionId: Schema.String }),
    Result: CartRow,
    execute: ({ id, sessionId }) =>
      sql`update carts set status = 'paid', paid_at = now(), session_id = coalesce(session_id, ${sessionId})
          where id = ${id} and status = 'open'
          returning id, user_id, status, currency, total_cents, session_id, created_at, paid_at, finished_at`
  })
  const cart = SqlSchema.findOne({
    Request: Schema.String,
    Result: CartRow,
    execute: (id) =>
      sql`select id, user_id, status, currency, total_cents, session_id, created_at, paid_at, finished_at
          from carts where id = ${id}`
  })
  const markCartDone = SqlSchema.findOne({
    Request: Schema.String,
    Result: Id,
    execute: (id) =>
      sql`update carts set status = 'done', finished_at = now() where id = ${id} and status = 'paid' returning id`
  })
  const markItemRefunded = SqlSchema.findOne({
    Request: Schema.Struct({ id: Schema.String, refundId: Schema.String }),
    Result: Id,
    execute: ({ id, refundId }) =>
      sql`update cart_items set status = 'refunded', refund_id = ${refundId}, refunded_at = now()
          where id = ${id} and status = 'failed' returning id`
  })
  const cartsOf = SqlSchema.findAll({
    Request: Schema.Struct({ userId: Schema.String, limit: Schema.Number }),
    Result: Id,
    execute: ({ limit, userId }) =>
      sql`select id from carts where user_id = ${userId} order by created_at desc, id desc limit ${limit}`
  })
  const cartItems = SqlSchema.findAll({
    Request: Schema.String,
    Result: CartItemRow,
    execute: (cartId) => sql`select * from cart_items where cart_id = ${cartId} order by id`
  })
  const failedItems = failedItemsQuery(sql)

  return {
    createCart: (
      cart: { id: string; user_id: string; currency: string; total_cents: number },
      items: ReadonlyArray<Omit<CartItemRow, "status" | "error" | "cart_id" | "refund_id">>
    ) =>
      transaction(Effect.gen(function*() {
        yield* run(sql`insert into carts ${sql.insert({ ...cart, status: "open" })}`)
        if (items.length > 0) {
          yield* run(sql`insert into cart_items ${sql.insert(items.map((i) => ({ ...i, cart_id: cart.id })))}`)
        }
      })),

    setCartSession: (id: string, sessionId: string) =>
      run(sql`update carts set session_id = ${sessionId} where id = ${id}`),

    /** Marks the cart paid; none when it was already paid (the payment is not fulfilled twice). */
    markCartPaid: (id: string, sessionId: string) => Effect.orDie(markCartPaid({ id, sessionId })),

    /** The cart; undefined when there is none. */
    cart: (id: string) => Effect.orDie(Effect.map(cart(id), Option.getOrUndefined)),

    /** paid → done, once (true the first time). */
    markCartDone: (id: string) => Effect.orDie(Effect.map(markCartDone(id), Option.isSome)),

    /** failed → refunded with its `rf_…`, once (true the first time: post the reversal then). */
    markItemRefunded: (id: string, refundId: string) =>
      Effect.orDie(Effect.map(markItemRefunded({ id, refundId }), Option.isSome)),

    setCartJob: (id: string, jobId: string) => run(sql`update carts set job_id = ${jobId} where id = ${id}`),

    cartItems: (cartId: string) => Effect.orDie(cartItems(cartId)),

    cartIdsOf: (userId: string, limit: number) =>
      Effect.orDie(Effect.map(cartsOf({ userId, limit }), (rows) => rows.map((r) => r.id))),

    cartItemStatus: (id: string, status: CartItemRow["status"], error: string | null) =>
      run(sql`update cart_items set status = ${status}, error = ${error} where id = ${id}`),

    /** Every owner's items in these statuses, newest first; `beforeId` continues a page. */
    failedCartItems: (statuses: ReadonlyArray<FailedItemStatus>, beforeId: string | null, limit: number) =>
      Effect.orDie(failedItems({ statuses, beforeId, limit }))
  }
}
