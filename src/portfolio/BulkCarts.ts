/**
 * Renew and restore in bulk: one cart for one hosted checkout, holding only what can run (each
 * name checked against the registrar's expiry first, domain/BulkRules.ts `cartItemRefusal`, the
 * same in a dry run, then priced); once paid, its job runs each item once and refunds every item
 * the registrar still refused.
 *
 * The contract: a refund is named by the refused items, so a retry after a crash is the same
 * refund, once; the owner is told once, when the cart is done.
 */
import { Clock, Data, Effect, Either, Option } from "effect"
import { cartItemRefusal, type CartOp } from "../domain/BulkRules.js"
import { format as formatMoney, money as moneyOf } from "../domain/Money.js"
import { postCartItemRefunded } from "../partner/ledger/Books.js"
import { makeId } from "../platform/Ids.js"
import { JobFailure, type RunningJob } from "../platform/jobs/Jobs.js"
import { BulkCart } from "./Api.js"
import type { BulkDeps } from "./Bulk.js"
import { describeError, registrarUnavailable, retrying } from "./BulkRegistrar.js"
import { clipList, suffixOf } from "./BulkRequest.js"
import { CheckoutUnavailable, ItemsRefused, PriceUnavailable } from "./Errors.js"
import type { CartItemRow, CartRow } from "./Repo.js"

/** The provider did not refund (yet): the cart's job is retried later. */
class CartRefundPending extends Data.TaggedError("CartRefundPending")<{
  readonly cartId: string
  readonly amountCents: number
}> {
  override get message() {
    return `refund of ${this.amountCents} cents for cart ${this.cartId} not made yet; retried`
  }
}

const DONE_WORD = { renew: "renewed", restore: "restored" } as const

/** The owner's notice of a finished cart: what ran, and what was refunded (with its `rf_…`). */
const cartOutcome = (cart: CartRow, items: ReadonlyArray<CartItemRow>) => {
  const money = (cents: number) => formatMoney(moneyOf(cents, cart.currency))
  const lines = items.map((i) =>
    i.status === "succeeded"
      ? `${i.domain}: ${DONE_WORD[i.op]}`
      : i.status === "refunded"
      ? `${i.domain}: not ${DONE_WORD[i.op]} (${i.error ?? "failed"}); ${
        money(i.price_cents)
      } refunded (${i.refund_id})`
      : `${i.domain}: ${i.status}${i.error ? ` (${i.error})` : ""}`
  )
  return `Cart ${cart.id} (${money(cart.total_cents)} paid): ${lines.join("; ")}.`
}

/** A renew/restore request: the owned names, the years, and what was skipped before. */
export interface CartRequest {
  readonly user: { readonly id: string; readonly email: string }
  readonly op: CartOp
  readonly years: number
  readonly domains: ReadonlyArray<string>
  readonly skipped: ReadonlyArray<{ readonly domain: string; readonly error: string }>
  readonly skipOnError: boolean
  readonly dryRun: boolean
}

/**
 * What the live run checks, the dry run checks: the registrar's expiry of each name against the
 * rules (src/domain/BulkRules.ts), before any price or cart.
 */
const checkExpiries = (d: BulkDeps, req: CartRequest) =>
  Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    const refused: Array<{ domain: string; error: string }> = []
    const runnable: Array<string> = []
    yield* Effect.forEach(req.domains, (domain) =>
      Effect.gen(function*() {
        const info = yield* Effect.either(retrying(d.registrar.info(domain)))
        if (Either.isLeft(info)) {
          if (info.left.retryable) return yield* registrarUnavailable(info.left)
          refused.push({ domain, error: info.left.code })
          return
        }
        const refusal = cartItemRefusal({ op: req.op, years: req.years, expiresAt: info.right.expiresAt }, now)
        if (refusal !== undefined) refused.push({ domain, error: refusal })
        else runnable.push(domain)
      }), { concurrency: d.concurrency, discard: true })
    return { refused, runnable }
  })

/** Each runnable name's price for the years asked: the registrar's premium price, else the TLD's. */
const priceOf = (d: BulkDeps, req: CartRequest, runnable: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const priced: Array<{ domain: string; priceCents: number }> = []
    const unpriced: Array<{ domain: string; error: string }> = []
    yield* Effect.forEach(runnable, (domain) =>
      Effect.gen(function*() {
        const premium = yield* d.registrar.premiumPrice(domain, req.op)
        const regular = yield* Effect.orDie(d.catalogue.getPrice(suffixOf(domain), req.op))
        const perYear = Option.orElse(premium, () => regular)
        if (Option.isNone(perYear)) {
          unpriced.push({ domain, error: `price_unavailable: no ${req.op} price for .${suffixOf(domain)}` })
        } else priced.push({ domain, priceCents: perYear.value * req.years })
      }), { concurrency: d.concurrency, discard: true })
    return { priced, unpriced }
  })

/** The cart, its bulk op and its checkout session, for the priced names. */
const openCart = (
  d: BulkDeps,
  req: CartRequest,
  priced: ReadonlyArray<{ domain: string; priceCents: number }>,
  totalCents: number,
  allSkipped: ReadonlyArray<{ readonly domain: string; readonly error: string }>
) =>
  Effect.gen(function*() {
    const cartId = makeId("cart")
    const bulkOpId = makeId("bulk")
    const items = priced.map((p) => ({
      id: makeId("cit"),
      domain: p.domain,
      op: req.op,
      years: req.years,
      price_cents: p.priceCents
    }))
    yield* d.repo.transaction(Effect.gen(function*() {
      yield* d.repo.createCart({ id: cartId, user_id: req.user.id, currency: "USD", total_cents: totalCents }, items)
      yield* d.repo.createOp({
        id: bulkOpId,
        user_id: req.user.id,
        op: req.op,
        payload: { years: req.years },
        skipped: allSkipped,
        cart_id: cartId
      }, [])
    }))
    const opened = yield* d.checkout.open({
      cartId,
      userId: req.user.id,
      buyerEmail: req.user.email,
      currency: "USD",
      items: items.map((i) => ({ domain: i.domain, op: i.op, years: i.years, priceCents: i.price_cents })),
      totalCents
    }).pipe(
      Effect.mapError(() =>
        new CheckoutUnavailable({
          message: "The hosted checkout is not available right now; the cart was kept, retry shortly"
        })
      )
    )
    yield* d.repo.setCartSession(cartId, opened.sessionId)
    return { cartId, bulkOpId, itemIds: items.map((i) => i.id), checkoutPath: opened.checkoutPath }
  })

/** renew / restore: one cart, holding only what can run (or, in a dry run, what it would hold). */
export const cartFor = (d: BulkDeps, req: CartRequest) =>
  Effect.gen(function*() {
    const order = new Map(req.domains.map((domain, i) => [domain, i]))
    const byInput = <A extends { readonly domain: string }>(xs: Array<A>) =>
      xs.sort((a, b) => order.get(a.domain)! - order.get(b.domain)!)
    const { refused, runnable } = yield* checkExpiries(d, req)
    byInput(refused)
    if (refused.length > 0 && (!req.skipOnError || runnable.length === 0)) {
      return yield* new ItemsRefused({
        message: `Cannot ${req.op}: ${
          clipList(refused.map((r) => `${r.domain} (${r.error})`))
        }; nothing was put in a cart`,
        details: { refused }
      })
    }
    const { priced, unpriced } = yield* priceOf(d, req, runnable)
    if (unpriced.length > 0 && (!req.skipOnError || priced.length === 0)) {
      return yield* new PriceUnavailable({
        message: `No ${req.op} price for: ${clipList(unpriced.map((u) => u.domain))}`,
        details: { unpriced }
      })
    }
    byInput(priced)
    const totalCents = priced.reduce((sum, p) => sum + p.priceCents, 0)
    const allSkipped = [...req.skipped, ...refused, ...byInput(unpriced)]
    const skippedAll = allSkipped.length > 0 ? { skipped: allSkipped } : {}
    if (req.dryRun) {
      return new BulkCart({
        addedToCart: false,
        cartId: null,
        bulkOpId: null,
        cartItemIds: [],
        totalCents,
        checkoutPath: null,
        ...skippedAll,
        dryRun: true
      })
    }
    const opened = yield* openCart(d, req, priced, totalCents, allSkipped)
    return new BulkCart({
      addedToCart: true,
      cartId: opened.cartId,
      bulkOpId: opened.bulkOpId,
      cartItemIds: opened.itemIds,
      totalCents,
      checkoutPath: opened.checkoutPath,
      ...skippedAll
    })
  })

/** One paid item through the registrar, once: a resumed `running` item is checked first. */
const runCartItem = (d: BulkDeps, item: CartItemRow) =>
  Effect.gen(function*() {
    if (item.status === "succeeded" || item.status === "failed" || item.status === "refunded") return
    const before = yield* d.repo.domain(item.domain)
    if (item.status === "running" && before !== undefined) {
      const info = yield* Effect.either(retrying(d.registrar.info(item.domain)))
      if (Either.isRight(info) && info.right.expiresAt !== null && info.right.expiresAt > before.expires_at) {
        yield* d.repo.patchDomain(item.domain, { expires_at: info.right.expiresAt })
        return yield* d.repo.cartItemStatus(item.id, "succeeded", null)
      }
    }
    yield* d.repo.cartItemStatus(item.id, "running", null)
    const call = item.op === "renew"
      ? d.registrar.renew(item.domain, item.years)
      : d.registrar.restore(item.domain, "Restore paid by the owner")
    const outcome = yield* Effect.either(retrying(call))
    if (Either.isLeft(outcome)) return yield* d.repo.cartItemStatus(item.id, "failed", describeError(outcome.left))
    if (outcome.right.expiresAt !== null) {
      yield* d.repo.patchDomain(item.domain, { expires_at: outcome.right.expiresAt })
    }
    yield* d.repo.cartItemStatus(item.id, "succeeded", null)
  })

/**
 * The refused items' refund: the provider first, then each item and its ledger reversal in one
 * transaction. A refund the provider did not make fails the job, which retries it later.
 */
const refundRefused = (d: BulkDeps, cart: CartRow, failed: ReadonlyArray<CartItemRow>) =>
  Effect.gen(function*() {
    const cartId = cart.id
    const amount = failed.reduce((sum, i) => sum + i.price_cents, 0)
    // The refused items name the refund: a retry after a crash is the same refund, once.
    const key = `cart:${cartId}:items:${failed.map((i) => i.id).sort().join(",")}`
    const refunded = yield* d.checkout.refund({ cartId, amountCents: amount, key })
    // Not a JobFailure: the job is retried with back-off, and runs no item twice.
    if (!refunded) return yield* new CartRefundPending({ cartId, amountCents: amount })
    yield* d.repo.transaction(Effect.forEach(failed, (item) =>
      Effect.gen(function*() {
        if (yield* d.repo.markItemRefunded(item.id, makeId("rf"))) {
          yield* postCartItemRefunded(d.books, {
            cartId,
            sessionId: cart.session_id,
            itemId: item.id,
            currency: cart.currency,
            amountCents: item.price_cents
          })
        }
      }), { discard: true }))
  })

/**
 * Runs a paid cart's items once each, then refunds every item the registrar refused (the
 * provider first, then the item and its ledger reversal in one transaction), then marks the
 * cart done and tells the owner, once. A refund the provider did not make fails the job, which
 * retries it later (items already run are not run again).
 */
export const runCart = (d: BulkDeps, job: RunningJob<{ readonly cartId: string }>) =>
  Effect.gen(function*() {
    const cartId = job.input.cartId
    const items = yield* d.repo.cartItems(cartId)
    yield* Effect.forEach(items, (item) => runCartItem(d, item), { concurrency: d.concurrency, discard: true })

    const cart = yield* d.repo.cart(cartId)
    if (cart === undefined) return yield* new JobFailure({ message: `cart ${cartId} no longer exists` })
    const failed = (yield* d.repo.cartItems(cartId)).filter((i) => i.status === "failed")
    if (failed.length > 0) yield* refundRefused(d, cart, failed)
    const after = yield* d.repo.cartItems(cartId)
    yield* d.repo.transaction(Effect.gen(function*() {
      if (!(yield* d.repo.markCartDone(cartId))) return
      yield* d.notifications.notify({
        userId: cart.user_id,
        kind: "cart.completed",
        subject: cartId,
        message: cartOutcome(cart, after),
        key: `cart:${cartId}:completed`
      })
    }))
    return {
      cartId,
      succeeded: after.filter((i) => i.status === "succeeded").length,
      refunded: after.filter((i) => i.status === "refunded").length
    }
  })
