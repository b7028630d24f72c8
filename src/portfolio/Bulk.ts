/**
 * Bulk domain operations (docs/portfolio.md): validation, ownership, and the three ways an op
 * runs — a durable job fanned out per item (lock, unlock, setNameservers, setFolder, setContacts),
 * at once (setAutoRenew), or priced into one cart for one hosted checkout (renew, restore): each
 * item checked against the registrar's expiry first (domain/BulkRules.ts `cartItemRefusal`, the
 * same in a dry run), and refunded when the registrar still refuses it after payment.
 *
 * The contract a reader must keep: each item is applied once. An item is marked `running` before
 * its registrar call; a job resumed after a crash asks the registrar for the domain's state before
 * calling again for an item it finds `running`, and skips the call when the change is already
 * there. Counts are computed from the items, so they are exact whatever happened in between.
 *
 * This file is the service and its request (ownership, then one of the three ways); beside it:
 * BulkRequest.ts (payloads and their checks), BulkJob.ts (the job), BulkCarts.ts (renew/restore
 * carts and their job), BulkTracking.ts (what the owner sees), BulkRegistrar.ts (retries).
 */
import { Context, Effect, Layer } from "effect"
import { Catalogue } from "../catalogue/Catalogue.js"
import { CartCheckout } from "../checkout/Cart.js"
import { type BulkOp, type JobOp, normalizeDomainList } from "../domain/BulkRules.js"
import { Notifications } from "../notifications/Notifications.js"
import { Books } from "../partner/ledger/Books.js"
import { makeId } from "../platform/Ids.js"
import { Jobs, type RunningJob } from "../platform/jobs/Jobs.js"
import { BulkAccepted, type BulkRequest, BulkUpdated } from "./Api.js"
import { cartFor, runCart } from "./BulkCarts.js"
import { runBulk } from "./BulkJob.js"
import { describeError, retrying } from "./BulkRegistrar.js"
import { clipList, decodePayload, type JobPayload, validateFor } from "./BulkRequest.js"
import { cartView, recent, status } from "./BulkTracking.js"
import { PortfolioConfig } from "./Config.js"
import { DomainsNotOwned, InvalidBulkDomains } from "./Errors.js"
import { CART_JOB } from "./Fulfilment.js"
import { Registrar } from "./Registrar.js"
import { type FailedItemStatus, PortfolioRepo } from "./Repo.js"

export { CART_JOB }
export const BULK_JOB = "portfolio:bulk"

/** What every bulk operation works with: its store, the registrar, the services it calls. */
export interface BulkDeps {
  readonly repo: Context.Tag.Service<typeof PortfolioRepo>
  readonly registrar: Context.Tag.Service<typeof Registrar>
  readonly catalogue: Context.Tag.Service<typeof Catalogue>
  readonly jobs: Context.Tag.Service<typeof Jobs>
  readonly checkout: Context.Tag.Service<typeof CartCheckout>
  readonly books: Context.Tag.Service<typeof Books>
  readonly notifications: Context.Tag.Service<typeof Notifications>
  /** Registrar calls in flight per operation (REGISTRAR_CONCURRENCY). */
  readonly concurrency: number
}

type Skipped = ReadonlyArray<{ readonly domain: string; readonly error: string }>

/** The request's names, normalised, that the user owns; the others skipped (or the request refused). */
const ownedDomains = (d: BulkDeps, userId: string, input: BulkRequest["domains"], skipOnError: boolean) =>
  Effect.gen(function*() {
    const list = normalizeDomainList(input)
    if (list.invalid.length > 0) {
      const first = list.invalid[0]
      return yield* new InvalidBulkDomains({
        message: `domains.${first.index}: ${first.message}` +
          (list.invalid.length > 1 ? ` (and ${list.invalid.length - 1} more)` : ""),
        details: list.invalid.slice(0, 100).map((i) => ({
          field: `domains.${i.index}`,
          input: i.input.slice(0, 100),
          message: i.message
        }))
      })
    }
    const owned = yield* d.repo.ownedAmong(userId, list.domains)
    const unowned = list.domains.filter((domain) => !owned.has(domain))
    if (unowned.length > 0 && (!skipOnError || owned.size === 0)) {
      return yield* new DomainsNotOwned({
        message: `You do not own ${unowned.length} of these domains: ${clipList(unowned)}; nothing was changed`,
        details: { unowned }
      })
    }
    const domains = list.domains.filter((domain) => owned.has(domain))
    const skipped = unowned.map((domain) => ({ domain, error: "not_owned" }))
    return { domains, skipped }
  })

/** A job op: stored with its items and its durable job, in one transaction. */
const enqueue = (
  d: BulkDeps,
  userId: string,
  op: JobOp,
  stored: JobPayload,
  domains: ReadonlyArray<string>,
  skipped: Skipped
) =>
  Effect.gen(function*() {
    const id = makeId("bulk")
    yield* d.repo.transaction(Effect.gen(function*() {
      yield* d.repo.createOp({ id, user_id: userId, op, payload: stored, skipped }, domains)
      const job = yield* d.jobs.enqueue(BULK_JOB, { bulkOpId: id }, { maxAttempts: 10 })
      yield* d.repo.setJob(id, job.id)
    }))
    // The enqueue's own wake-up came before the commit, when no worker could see the job.
    yield* d.jobs.wake(BULK_JOB)
    return id
  })

/** setAutoRenew, at once: each name at the registrar, then our copy. */
const setAutoRenew = (
  d: BulkDeps,
  domains: ReadonlyArray<string>,
  on: boolean,
  skipOnError: boolean,
  skippedField: { readonly skipped?: Skipped }
) =>
  Effect.gen(function*() {
    const failed: Array<{ domain: string; error: string }> = []
    let stopped = false
    let count = 0
    yield* Effect.forEach(domains, (domain) =>
      Effect.suspend(() => {
        if (stopped) {
          failed.push({ domain, error: "not_run: an earlier item failed (skip_on_error is false)" })
          return Effect.void
        }
        return retrying(d.registrar.setAutoRenew(domain, on)).pipe(
          Effect.zipRight(d.repo.patchDomain(domain, { auto_renew: on })),
          Effect.tap(() => Effect.sync(() => count++)),
          Effect.catchAll((e) =>
            Effect.sync(() => {
              failed.push({ domain, error: describeError(e) })
              if (!skipOnError) stopped = true
            })
          )
        )
      }), { concurrency: d.concurrency, discard: true })
    return new BulkUpdated({ updated: count > 0, count, ...(failed.length > 0 ? { failed } : {}), ...skippedField })
  })

const bulk = (
  d: BulkDeps,
  user: { readonly id: string; readonly email: string },
  op: BulkOp,
  request: BulkRequest
) =>
  Effect.gen(function*() {
    const skipOnError = request.options?.skip_on_error ?? true
    const dryRun = request.options?.dry_run ?? false
    const decoded = yield* decodePayload(op, request.payload)
    const { domains, skipped } = yield* ownedDomains(d, user.id, request.domains, skipOnError)
    const command = yield* validateFor(d, decoded, domains)
    const skippedField = skipped.length > 0 ? { skipped } : {}

    switch (command.op) {
      case "setAutoRenew":
        if (dryRun) return new BulkUpdated({ updated: false, count: domains.length, ...skippedField, dryRun: true })
        return yield* setAutoRenew(d, domains, command.payload.autoRenew, skipOnError, skippedField)
      case "renew":
      case "restore": {
        const years = command.op === "renew" ? command.payload.years : 1
        return yield* cartFor(d, { user, op: command.op, years, domains, skipped, skipOnError, dryRun })
      }
      default:
        if (dryRun) {
          return new BulkAccepted({ bulkOpId: null, total: domains.length, op, ...skippedField, dryRun: true })
        }
        return new BulkAccepted({
          bulkOpId: yield* enqueue(d, user.id, command.op, { ...command.payload, skipOnError }, domains, skipped),
          total: domains.length,
          op,
          ...skippedField
        })
    }
  })

const make = Effect.gen(function*() {
  const d: BulkDeps = {
    repo: yield* PortfolioRepo,
    registrar: yield* Registrar,
    catalogue: yield* Catalogue,
    jobs: yield* Jobs,
    checkout: yield* CartCheckout,
    books: yield* Books,
    notifications: yield* Notifications,
    concurrency: (yield* PortfolioConfig).registrarConcurrency
  }
  return {
    bulk: (user: { readonly id: string; readonly email: string }, op: BulkOp, request: BulkRequest) =>
      bulk(d, user, op, request),
    status: (id: string, ownerId?: string) => status(d.repo, id, ownerId),
    cart: (id: string, ownerId: string) => cartView(d.repo, id, ownerId),
    /** The owner's latest job ops and carts (the account page); never another user's. */
    recent: (ownerId: string) => recent(d.repo, ownerId),
    /**
     * Every owner's cart items whose registrar call failed after payment, in these statuses, newest
     * first (the operator console's queue): a page after `beforeId`, and whether more follow.
     */
    failedCartItems: (statuses: ReadonlyArray<FailedItemStatus>, beforeId: string | null, limit: number) =>
      Effect.map(d.repo.failedCartItems(statuses, beforeId, limit + 1), (rows) => ({
        items: rows.slice(0, limit),
        hasMore: rows.length > limit
      })),
    runBulk: (job: RunningJob<{ readonly bulkOpId: string }>) => runBulk(d, job),
    runCart: (job: RunningJob<{ readonly cartId: string }>) => runCart(d, job)
  }
})

export class Bulk extends Effect.Service<Bulk>()("app/Bulk", { effect: make }) {
  /** Kept for the existing wiring (src/portfolio/Layer.ts, test/portfolio/cart.test.ts). */
  static readonly Live = Bulk.Default
}

/**
 * Bulk and cart job workers (BULK_JOB_CONCURRENCY each). A job enqueued in this process wakes them
 * at once (and a paid cart, `committed`); the poll, every second as for every job, finds the rest.
 */
export const BulkWorkersLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const bulk = yield* Bulk
    const jobs = yield* Jobs
    const config = yield* PortfolioConfig
    const options = { concurrency: config.jobConcurrency }
    yield* jobs.work(BULK_JOB, bulk.runBulk, options)
    yield* jobs.work(CART_JOB, bulk.runCart, options)
  })
)
