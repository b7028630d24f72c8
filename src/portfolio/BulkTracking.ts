/**
 * What the owner sees of a bulk operation and of a cart, read from their items: a job op's
 * counts and items, a renew/restore op through its cart (queued until paid), and the cart itself.
 * Counts come from the items, so they are exact whatever happened in between.
 */
import { Effect } from "effect"
import type { Context } from "effect"
import { BulkStatus, CartView } from "./Api.js"
import { BulkOpNotFound, CartNotFound } from "./Errors.js"
import type { BulkOpRow, CartItemRow, PortfolioRepo } from "./Repo.js"

type Repo = Context.Tag.Service<typeof PortfolioRepo>

const statusOf = (op: BulkOpRow, counts: { total: number; pending: number }) =>
  op.finished_at !== null
    ? "done" as const
    : op.started_at !== null || counts.pending < counts.total
    ? "running" as const
    : "queued" as const

/** The op as its owner sees it; `ownerId` undefined: any op (the operator CLI). */
export const status = (repo: Repo, id: string, ownerId?: string) =>
  Effect.gen(function*() {
    const op = yield* repo.op(id)
    if (op === undefined || (ownerId !== undefined && op.user_id !== ownerId)) {
      return yield* new BulkOpNotFound({ message: `No bulk operation ${id.slice(0, 100)}` })
    }
    if (op.cart_id !== null) return yield* cartOpStatus(repo, op, op.cart_id)
    const [counts, items] = yield* Effect.all([repo.counts(id), repo.items(id)], { concurrency: 2 })
    return new BulkStatus({
      bulkOpId: op.id,
      op: op.op,
      status: statusOf(op, counts),
      total: counts.total,
      succeeded: counts.succeeded,
      failed: counts.failed,
      items: items.map((i) => ({ domain: i.domain, status: i.status, error: i.error })),
      skipped: op.skipped,
      createdAt: op.created_at.toISOString(),
      finishedAt: op.finished_at?.toISOString() ?? null,
      cart_id: null
    })
  })

const statusOfItem = (i: CartItemRow) =>
  i.status === "pending"
    ? "queued" as const
    : i.status === "running"
    ? "running" as const
    : i.status === "succeeded"
    ? "succeeded" as const
    : "failed" as const

/** A renew/restore op follows its cart: queued until paid, running while items run, done. */
const cartOpStatus = (repo: Repo, op: BulkOpRow, cartId: string) =>
  Effect.gen(function*() {
    const [cart, items] = yield* Effect.all([repo.cart(cartId), repo.cartItems(cartId)], { concurrency: 2 })
    return new BulkStatus({
      bulkOpId: op.id,
      op: op.op,
      status: cart?.status === "done" ? "done" : cart?.status === "paid" ? "running" : "queued",
      total: items.length,
      succeeded: items.filter((i) => i.status === "succeeded").length,
      failed: items.filter((i) => i.status === "failed" || i.status === "refunded").length,
      items: items.map((i) => ({
        domain: i.domain,
        status: statusOfItem(i),
        error: i.status === "refunded" ? `${i.error ?? "failed"}; refunded (${i.refund_id})` : i.error
      })),
      skipped: op.skipped,
      createdAt: op.created_at.toISOString(),
      finishedAt: cart?.finished_at?.toISOString() ?? null,
      cart_id: cartId
    })
  })

/** The cart as its owner sees it (GET /api/carts/{id}); another user's is not found. */
export const cartView = (repo: Repo, id: string, ownerId: string) =>
  Effect.gen(function*() {
    const cart = yield* repo.cart(id)
    if (cart === undefined || cart.user_id !== ownerId) {
      return yield* new CartNotFound({ message: `No cart ${id.slice(0, 100)}` })
    }
    const items = yield* repo.cartItems(id)
    return new CartView({
      id: cart.id,
      status: cart.status,
      total_cents: cart.total_cents,
      currency: cart.currency,
      items: items.map((i) => ({
        domain: i.domain,
        op: i.op,
        amount_cents: i.price_cents,
        status: i.status === "succeeded"
          ? "done" as const
          : i.status === "failed" || i.status === "refunded"
          ? i.status
          : "pending" as const,
        ...(i.error !== null ? { error: i.error } : {}),
        ...(i.refund_id !== null ? { refund_id: i.refund_id } : {})
      })),
      created_at: cart.created_at.toISOString(),
      paid_at: cart.paid_at?.toISOString() ?? null
    })
  })

/** How many of each the account page lists. */
export const RECENT_LIMIT = 10

/**
 * The owner's latest bulk operations and carts, newest first: read by owner in the query, then
 * each through the same owner-checked views as GET /api/domains/bulk/{id} and /api/carts/{id}.
 */
export const recent = (repo: Repo, ownerId: string) =>
  Effect.gen(function*() {
    const [ops, cartIds] = yield* Effect.all([
      repo.opsOf(ownerId, RECENT_LIMIT),
      repo.cartIdsOf(ownerId, RECENT_LIMIT)
    ], { concurrency: 2 })
    const [jobs, carts] = yield* Effect.all([
      Effect.forEach(ops.filter((op) => op.cart_id === null), (op) => status(repo, op.id, ownerId)),
      Effect.forEach(cartIds, (id) => cartView(repo, id, ownerId))
    ])
    return { jobs, carts }
  }).pipe(Effect.orDie)
