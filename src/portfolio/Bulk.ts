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
 */
import {
  Clock,
  Context,
  Data,
  Deferred,
  Duration,
  Effect,
  Either,
  Fiber,
  Layer,
  Option,
  ParseResult,
  Schedule,
  Schema
} from "effect"
import { Catalogue } from "../catalogue/Catalogue.js"
import { CartCheckout } from "../checkout/Cart.js"
import {
  type BulkOp,
  cartItemRefusal,
  type CartOp,
  folderNameProblem,
  isContactHandle,
  isJobOp,
  type JobOp,
  MAX_NAMESERVERS,
  MIN_NAMESERVERS,
  normalizeDomainList,
  parseHostName
} from "../domain/BulkRules.js"
import { parseDomainName } from "../domain/DomainName.js"
import { format as formatMoney, money as moneyOf } from "../domain/Money.js"
import { Notifications } from "../notifications/Notifications.js"
import { Books, postCartItemRefunded } from "../partner/ledger/Books.js"
import { meaningfulIssues } from "../platform/http/DecodeErrors.js"
import { makeId } from "../platform/Ids.js"
import { JobFailure, Jobs, type RunningJob } from "../platform/jobs/Jobs.js"
import { BulkAccepted, BulkCart, type BulkRequest, BulkStatus, BulkUpdated, CartView } from "./Api.js"
import { PortfolioConfig } from "./Config.js"
import {
  BulkOpNotFound,
  CartNotFound,
  CheckoutUnavailable,
  DomainsNotOwned,
  InvalidBulkDomains,
  InvalidBulkPayload,
  ItemsRefused,
  PriceUnavailable,
  RegistrarUnavailable
} from "./Errors.js"
import { CART_JOB } from "./Fulfilment.js"
import { Registrar, type RegistrarDomain, type RegistrarError } from "./Registrar.js"
import {
  type BulkOpRow,
  type CartItemRow,
  type CartRow,
  type ClaimedItem,
  type DomainPatch,
  PortfolioRepo
} from "./Repo.js"

export { CART_JOB }
export const BULK_JOB = "portfolio:bulk"
/** Items claimed per statement. */
const CLAIM = 64
/** How often a job records the outcomes of its items (one statement for the successes). */
const RECORD_WITHIN = Duration.millis(100)
const NOT_RUN = "not_run: an earlier item failed (skip_on_error is false)"

// --- Per-op payloads ----------------------------------------------------------------------

const Reason = Schema.optional(Schema.String.pipe(Schema.maxLength(500)))
const payloadSchemas = {
  lock: Schema.Struct({ reason: Reason }),
  unlock: Schema.Struct({ reason: Reason }),
  setNameservers: Schema.Struct({
    nameservers: Schema.Array(Schema.String).pipe(Schema.minItems(MIN_NAMESERVERS), Schema.maxItems(MAX_NAMESERVERS))
  }),
  setFolder: Schema.Struct({ folder: Schema.NullOr(Schema.String) }),
  setContacts: Schema.Struct({ contacts: Schema.String }),
  setAutoRenew: Schema.Struct({ autoRenew: Schema.Boolean }),
  renew: Schema.Struct({ years: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 10)), { default: () => 1 }) }),
  restore: Schema.Struct({
    reason: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(500)), {
      default: () => "Restore requested by the owner"
    })
  })
} as const

/** What a stored job needs to run its items. */
interface JobPayload {
  readonly nameservers?: ReadonlyArray<string>
  readonly folder?: string | null
  readonly contacts?: string
  readonly skipOnError: boolean
}

const decodePayload = (op: BulkOp, payload: unknown) =>
  Either.match(
    Schema.decodeUnknownEither(payloadSchemas[op] as Schema.Schema<any, any>, {
      onExcessProperty: "error",
      errors: "all"
    })(payload ?? {}),
    {
      onRight: (value) => Effect.succeed(value as Record<string, any>),
      onLeft: (error) => {
        const issues = meaningfulIssues(ParseResult.ArrayFormatter.formatErrorSync(error))
        const details = issues.slice(0, 20).map((i) => ({
          field: ["payload", ...i.path.map(String)].join("."),
          message: i.message
        }))
        return Effect.fail(
          new InvalidBulkPayload({ message: details.map((d) => `${d.field}: ${d.message}`).join("; "), details })
        )
      }
    }
  )

const suffixOf = (domain: string) =>
  Either.getOrElse(Either.map(parseDomainName(domain), (d) => d.suffix), () => domain.split(".").pop()!)

const describeError = (e: RegistrarError) => `${e.code}: ${e.message}`

const clipList = (xs: ReadonlyArray<string>, n = 10) =>
  xs.slice(0, n).join(", ") + (xs.length > n ? ` and ${xs.length - n} more` : "")

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

// --- Service ------------------------------------------------------------------------------

const make = Effect.gen(function*() {
  const repo = yield* PortfolioRepo
  const registrar = yield* Registrar
  const catalogue = yield* Catalogue
  const jobs = yield* Jobs
  const checkout = yield* CartCheckout
  const books = yield* Books
  const notifications = yield* Notifications
  const config = yield* PortfolioConfig
  const concurrency = config.registrarConcurrency

  /** Retries a registrar call the registrar could not answer (not a refusal). */
  const retrying = <A>(call: Effect.Effect<A, RegistrarError>) =>
    call.pipe(
      Effect.retry({
        while: (e) => e.retryable,
        schedule: Schedule.exponential(Duration.millis(200)).pipe(Schedule.intersect(Schedule.recurs(3)))
      })
    )

  const registrarUnavailable = (e: RegistrarError) =>
    new RegistrarUnavailable({ message: `The registrar could not be reached: ${e.message}` })

  /** Op-specific checks that need the catalogue or the registrar. Returns the normalised payload. */
  const validateFor = (op: BulkOp, payload: Record<string, any>, domains: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const tlds = [...new Set(domains.map(suffixOf))]
      if (op === "setNameservers") {
        const hosts: Array<string> = []
        for (const [i, ns] of (payload.nameservers as ReadonlyArray<string>).entries()) {
          const parsed = parseHostName(ns)
          if (Either.isLeft(parsed)) return yield* InvalidBulkPayload.of(`payload.nameservers.${i}`, parsed.left)
          if (!hosts.includes(parsed.right)) hosts.push(parsed.right)
        }
        if (hosts.length < MIN_NAMESERVERS) {
          return yield* InvalidBulkPayload.of(
            "payload.nameservers",
            `at least ${MIN_NAMESERVERS} different host names are required`
          )
        }
        for (const tld of tlds) {
          const meta = yield* Effect.orDie(catalogue.getMetadata(tld))
          if (Option.isSome(meta)) {
            const { maxNameservers, minNameservers } = meta.value
            if (hosts.length < minNameservers || hosts.length > maxNameservers) {
              return yield* InvalidBulkPayload.of(
                "payload.nameservers",
                `.${tld} accepts ${minNameservers}–${maxNameservers} nameservers, got ${hosts.length}`,
                { tld }
              )
            }
          }
        }
        return { nameservers: hosts }
      }
      if (op === "setFolder") {
        if (payload.folder === null) return { folder: null }
        const folder = (payload.folder as string).normalize("NFC")
        const problem = folderNameProblem(folder)
        if (problem !== undefined) return yield* InvalidBulkPayload.of("payload.folder", problem)
        return { folder }
      }
      if (op === "setContacts") {
        const handle = payload.contacts as string
        if (!isContactHandle(handle)) {
          return yield* InvalidBulkPayload.of("payload.contacts", "a contact handle is 3–40 letters, digits, _ - or .")
        }
        const exists = yield* registrar.contactExists(handle).pipe(Effect.mapError(registrarUnavailable))
        if (!exists) {
          return yield* InvalidBulkPayload.of(
            "payload.contacts",
            `no contact with handle "${handle}" exists at the registrar`
          )
        }
        return { contacts: handle }
      }
      if (op === "renew") {
        for (const tld of tlds) {
          const meta = yield* Effect.orDie(catalogue.getMetadata(tld))
          const allowed = Option.match(meta, {
            onNone: () => [1],
            onSome: (m) => m.allowedYears.length > 0 ? m.allowedYears : [1]
          })
          if (!allowed.includes(payload.years)) {
            return yield* InvalidBulkPayload.of(
              "payload.years",
              `.${tld} renews for ${allowed.join(", ")} year(s), not ${payload.years}`,
              { tld, allowed }
            )
          }
        }
        return { years: payload.years as number }
      }
      return payload
    })

  const bulk = (user: { readonly id: string; readonly email: string }, op: BulkOp, request: BulkRequest) =>
    Effect.gen(function*() {
      const skipOnError = request.options?.skip_on_error ?? true
      const dryRun = request.options?.dry_run ?? false
      const decoded = yield* decodePayload(op, request.payload)
      const list = normalizeDomainList(request.domains)
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
      const owned = yield* repo.ownedAmong(user.id, list.domains)
      const unowned = list.domains.filter((d) => !owned.has(d))
      if (unowned.length > 0 && (!skipOnError || owned.size === 0)) {
        return yield* new DomainsNotOwned({
          message: `You do not own ${unowned.length} of these domains: ${clipList(unowned)}; nothing was changed`,
          details: { unowned }
        })
      }
      const domains = list.domains.filter((d) => owned.has(d))
      const skipped = unowned.map((domain) => ({ domain, error: "not_owned" }))
      const payload = yield* validateFor(op, decoded, domains)
      const skippedField = skipped.length > 0 ? { skipped } : {}

      if (isJobOp(op)) {
        if (dryRun) {
          return new BulkAccepted({ bulkOpId: null, total: domains.length, op, ...skippedField, dryRun: true })
        }
        const id = makeId("bulk")
        const stored: JobPayload = { ...payload, skipOnError }
        yield* repo.transaction(Effect.gen(function*() {
          yield* repo.createOp({ id, user_id: user.id, op, payload: stored, skipped }, domains)
          const job = yield* jobs.enqueue(BULK_JOB, { bulkOpId: id }, { maxAttempts: 10 })
          yield* repo.setJob(id, job.id)
        }))
        // The enqueue's own wake-up came before the commit, when no worker could see the job.
        yield* jobs.wake(BULK_JOB)
        return new BulkAccepted({ bulkOpId: id, total: domains.length, op, ...skippedField })
      }

      if (op === "setAutoRenew") {
        if (dryRun) return new BulkUpdated({ updated: false, count: domains.length, ...skippedField, dryRun: true })
        const on = payload.autoRenew as boolean
        const failed: Array<{ domain: string; error: string }> = []
        let stopped = false
        let count = 0
        yield* Effect.forEach(domains, (domain) =>
          Effect.suspend(() => {
            if (stopped) {
              failed.push({ domain, error: "not_run: an earlier item failed (skip_on_error is false)" })
              return Effect.void
            }
            return retrying(registrar.setAutoRenew(domain, on)).pipe(
              Effect.zipRight(repo.patchDomain(domain, { auto_renew: on })),
              Effect.tap(() => Effect.sync(() => count++)),
              Effect.catchAll((e) =>
                Effect.sync(() => {
                  failed.push({ domain, error: describeError(e) })
                  if (!skipOnError) stopped = true
                })
              )
            )
          }), { concurrency, discard: true })
        return new BulkUpdated({ updated: count > 0, count, ...(failed.length > 0 ? { failed } : {}), ...skippedField })
      }

      // renew / restore: one cart, holding only what can run.
      const cartOp = op as CartOp
      const years = cartOp === "renew" ? (payload.years as number) : 1
      const order = new Map(domains.map((d, i) => [d, i]))
      const byInput = <A extends { readonly domain: string }>(xs: Array<A>) =>
        xs.sort((a, b) => order.get(a.domain)! - order.get(b.domain)!)
      // What the live run checks, the dry run checks: the registrar's expiry of each name
      // against the rules (src/domain/BulkRules.ts), before any price or cart.
      const now = new Date(yield* Clock.currentTimeMillis)
      const refused: Array<{ domain: string; error: string }> = []
      const runnable: Array<string> = []
      yield* Effect.forEach(domains, (domain) =>
        Effect.gen(function*() {
          const info = yield* Effect.either(retrying(registrar.info(domain)))
          if (Either.isLeft(info)) {
            if (info.left.retryable) return yield* registrarUnavailable(info.left)
            refused.push({ domain, error: info.left.code })
            return
          }
          const refusal = cartItemRefusal({ op: cartOp, years, expiresAt: info.right.expiresAt }, now)
          if (refusal !== undefined) refused.push({ domain, error: refusal })
          else runnable.push(domain)
        }), { concurrency, discard: true })
      byInput(refused)
      if (refused.length > 0 && (!skipOnError || runnable.length === 0)) {
        return yield* new ItemsRefused({
          message: `Cannot ${cartOp}: ${
            clipList(refused.map((r) => `${r.domain} (${r.error})`))
          }; nothing was put in a cart`,
          details: { refused }
        })
      }
      const priced: Array<{ domain: string; priceCents: number }> = []
      const unpriced: Array<{ domain: string; error: string }> = []
      yield* Effect.forEach(runnable, (domain) =>
        Effect.gen(function*() {
          const premium = yield* registrar.premiumPrice(domain, cartOp)
          const regular = yield* Effect.orDie(catalogue.getPrice(suffixOf(domain), cartOp))
          const perYear = Option.orElse(premium, () => regular)
          if (Option.isNone(perYear)) {
            unpriced.push({ domain, error: `price_unavailable: no ${cartOp} price for .${suffixOf(domain)}` })
          } else priced.push({ domain, priceCents: perYear.value * years })
        }), { concurrency, discard: true })
      if (unpriced.length > 0 && (!skipOnError || priced.length === 0)) {
        return yield* new PriceUnavailable({
          message: `No ${cartOp} price for: ${clipList(unpriced.map((u) => u.domain))}`,
          details: { unpriced }
        })
      }
      byInput(priced)
      const totalCents = priced.reduce((sum, p) => sum + p.priceCents, 0)
      const allSkipped = [...skipped, ...refused, ...byInput(unpriced)]
      const skippedAll = allSkipped.length > 0 ? { skipped: allSkipped } : {}
      if (dryRun) {
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
      const cartId = makeId("cart")
      const bulkOpId = makeId("bulk")
      const items = priced.map((p) => ({
        id: makeId("cit"),
        domain: p.domain,
        op: cartOp,
        years,
        price_cents: p.priceCents
      }))
      yield* repo.transaction(Effect.gen(function*() {
        yield* repo.createCart({ id: cartId, user_id: user.id, currency: "USD", total_cents: totalCents }, items)
        yield* repo.createOp({
          id: bulkOpId,
          user_id: user.id,
          op: cartOp,
          payload: { years },
          skipped: allSkipped,
          cart_id: cartId
        }, [])
      }))
      const opened = yield* checkout.open({
        cartId,
        userId: user.id,
        buyerEmail: user.email,
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
      yield* repo.setCartSession(cartId, opened.sessionId)
      return new BulkCart({
        addedToCart: true,
        cartId,
        bulkOpId,
        cartItemIds: items.map((i) => i.id),
        totalCents,
        checkoutPath: opened.checkoutPath,
        ...skippedAll
      })
    })

  // --- Tracking ---------------------------------------------------------------------------

  const statusOf = (op: BulkOpRow, counts: { total: number; pending: number }) =>
    op.finished_at !== null
      ? "done" as const
      : op.started_at !== null || counts.pending < counts.total
      ? "running" as const
      : "queued" as const

  /** The op as its owner sees it; `ownerId` undefined: any op (the operator CLI). */
  const status = (id: string, ownerId?: string) =>
    Effect.gen(function*() {
      const op = yield* repo.op(id)
      if (op === undefined || (ownerId !== undefined && op.user_id !== ownerId)) {
        return yield* new BulkOpNotFound({ message: `No bulk operation ${id.slice(0, 100)}` })
      }
      if (op.cart_id !== null) return yield* cartOpStatus(op, op.cart_id)
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

  /** A renew/restore op follows its cart: queued until paid, running while items run, done. */
  const cartOpStatus = (op: BulkOpRow, cartId: string) =>
    Effect.gen(function*() {
      const [cart, items] = yield* Effect.all([repo.cart(cartId), repo.cartItems(cartId)], { concurrency: 2 })
      const statusOfItem = (i: CartItemRow) =>
        i.status === "pending"
          ? "queued" as const
          : i.status === "running"
          ? "running" as const
          : i.status === "succeeded"
          ? "succeeded" as const
          : "failed" as const
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
  const cartView = (id: string, ownerId: string) =>
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

  // --- The job: one bulk op, fanned out per item --------------------------------------------

  const apply = (op: JobOp, domain: string, p: JobPayload): Effect.Effect<DomainPatch, RegistrarError> => {
    switch (op) {
      case "lock":
        return Effect.as(registrar.setLock(domain, true), { locked: true })
      case "unlock":
        return Effect.as(registrar.setLock(domain, false), { locked: false })
      case "setNameservers":
        return Effect.as(registrar.setNameservers(domain, p.nameservers!), { nameservers: p.nameservers! })
      case "setContacts":
        return Effect.as(registrar.setContacts(domain, p.contacts!), { contacts_handle: p.contacts! })
      case "setFolder":
        return Effect.succeed({ folder: p.folder ?? null }) // ours alone: no registrar call
    }
  }

  /** Our copy of the registrar state once the change is applied (the same for every item). */
  const patchFor = (op: JobOp, p: JobPayload): DomainPatch => {
    switch (op) {
      case "lock":
        return { locked: true }
      case "unlock":
        return { locked: false }
      case "setNameservers":
        return { nameservers: p.nameservers! }
      case "setContacts":
        return { contacts_handle: p.contacts! }
      case "setFolder":
        return { folder: p.folder ?? null }
    }
  }

  /** Whether the registrar already holds the change (an item resumed after a crash). */
  const alreadyApplied = (op: JobOp, info: RegistrarDomain, p: JobPayload): Option.Option<DomainPatch> => {
    switch (op) {
      case "lock":
        return info.locked ? Option.some({ locked: true }) : Option.none()
      case "unlock":
        return !info.locked ? Option.some({ locked: false }) : Option.none()
      case "setNameservers": {
        const same = info.nameservers.length === p.nameservers!.length &&
          p.nameservers!.every((n) => info.nameservers.includes(n))
        return same ? Option.some({ nameservers: p.nameservers! }) : Option.none()
      }
      case "setContacts":
        return info.contactsHandle === p.contacts ? Option.some({ contacts_handle: p.contacts! }) : Option.none()
      case "setFolder":
        return Option.none()
    }
  }

  const runBulk = (job: RunningJob<{ readonly bulkOpId: string }>) =>
    Effect.gen(function*() {
      const id = job.input.bulkOpId
      const op = yield* repo.op(id)
      if (op === undefined) return yield* new JobFailure({ message: `bulk operation ${id} no longer exists` })
      if (!isJobOp(op.op)) return yield* new JobFailure({ message: `${op.op} is not a job operation` })
      const kind = op.op
      const payload = op.payload as JobPayload
      const patch = patchFor(kind, payload)
      yield* repo.markStarted(id)
      const pending = yield* repo.unfinishedItems(id)
      let stopped = false
      const run = job.attempt

      /** One claimed item through the registrar; a refusal is recorded at once, a success later. */
      const runItem = (item: ClaimedItem) =>
        Effect.gen(function*() {
          if (stopped) return "not_run" as const
          if (item.previous === "running" && kind !== "setFolder") {
            // Started by an earlier run: the call may have reached the registrar before the crash.
            const info = yield* Effect.either(retrying(registrar.info(item.domain)))
            if (Either.isRight(info) && Option.isSome(alreadyApplied(kind, info.right, payload))) {
              return "succeeded" as const
            }
          }
          const outcome = yield* Effect.either(retrying(apply(kind, item.domain, payload)))
          if (Either.isRight(outcome)) return "succeeded" as const
          yield* repo.itemFinished(id, item.position, run, { status: "failed", error: describeError(outcome.left) })
          if (!payload.skipOnError) stopped = true
          return "failed" as const
        })

      // Items are claimed CLAIM per statement, each batch once (cached): the first item of a batch
      // starts claiming the next one, so a claim rarely stands between two calls.
      const batches = Array.from({ length: Math.ceil(pending.length / CLAIM) }, (_, k) =>
        pending.slice(k * CLAIM, (k + 1) * CLAIM).map((i) => i.position))
      const claims = yield* Effect.forEach(batches, (positions) =>
        Effect.cached(Effect.suspend(() =>
          stopped
            ? Effect.succeed(new Map<number, ClaimedItem>())
            : Effect.map(repo.claimItems(id, positions, run), (rows) =>
              new Map(rows.map((r) => [r.position, r])))
        )))

      // Outcomes wait here and are recorded every RECORD_WITHIN, behind the calls: successes in one
      // statement (with our copy of the domains), items not run after a failure in another.
      let outcomes: Array<{ readonly position: number; readonly outcome: "succeeded" | "not_run" }> = []
      const record = Effect.suspend(() => {
        const batch = outcomes
        outcomes = []
        const positions = (outcome: "succeeded" | "not_run") =>
          batch.filter((o) => o.outcome === outcome).map((o) => o.position)
        return Effect.zipRight(
          repo.itemsSucceeded(id, op.user_id, positions("succeeded"), run, patch),
          repo.itemsFailed(id, positions("not_run"), run, NOT_RUN)
        )
      })

      // One sliding window over all the items: `concurrency` calls in flight from the first item to
      // the last. (Claimed chunks run one after another drained the window at each chunk's tail and
      // left it empty during its statements: 10 calls in flight on average instead of 16 in
      // bench/bulk.ts. A Stream pipeline kept 16 in flight but cost ~1 ms of CPU per item against
      // ~0.05 ms here.)
      yield* Effect.scoped(Effect.gen(function*() {
        const ran = yield* Deferred.make<void>()
        const recorder = yield* Effect.forkScoped(Effect.gen(function*() {
          while (!(yield* Deferred.isDone(ran))) {
            yield* Effect.raceFirst(Effect.sleep(RECORD_WITHIN), Deferred.await(ran))
            yield* record
          }
          yield* record
        }))
        yield* Effect.forEach(pending, (item, index) =>
          Effect.gen(function*() {
            const k = Math.floor(index / CLAIM)
            if (index % CLAIM === 0 && k + 1 < claims.length) yield* Effect.forkScoped(claims[k + 1])
            const claimed = (yield* claims[k]).get(item.position)
            if (claimed === undefined) return // its batch came after a failure, or a later run holds it
            const outcome = yield* runItem(claimed)
            if (outcome !== "failed") outcomes.push({ position: claimed.position, outcome })
          }), { concurrency, discard: true })
        yield* Deferred.succeed(ran, undefined)
        yield* Fiber.join(recorder)
      }))
      if (stopped) yield* repo.failQueued(id, NOT_RUN)
      yield* repo.markFinished(id)
      const counts = yield* repo.counts(id)
      return { bulkOpId: id, succeeded: counts.succeeded, failed: counts.failed }
    })

  // --- Paid carts -----------------------------------------------------------------------------

  /**
   * Runs a paid cart's items once each, then refunds every item the registrar refused (the
   * provider first, then the item and its ledger reversal in one transaction), then marks the
   * cart done and tells the owner, once. A refund the provider did not make fails the job, which
   * retries it later (items already run are not run again).
   */
  const runCart = (job: RunningJob<{ readonly cartId: string }>) =>
    Effect.gen(function*() {
      const cartId = job.input.cartId
      const items = yield* repo.cartItems(cartId)
      const runItem = (item: (typeof items)[number]) =>
        Effect.gen(function*() {
          if (item.status === "succeeded" || item.status === "failed" || item.status === "refunded") return
          const before = yield* repo.domain(item.domain)
          if (item.status === "running" && before !== undefined) {
            const info = yield* Effect.either(retrying(registrar.info(item.domain)))
            if (Either.isRight(info) && info.right.expiresAt !== null && info.right.expiresAt > before.expires_at) {
              yield* repo.patchDomain(item.domain, { expires_at: info.right.expiresAt })
              return yield* repo.cartItemStatus(item.id, "succeeded", null)
            }
          }
          yield* repo.cartItemStatus(item.id, "running", null)
          const call = item.op === "renew"
            ? registrar.renew(item.domain, item.years)
            : registrar.restore(item.domain, "Restore paid by the owner")
          const outcome = yield* Effect.either(retrying(call))
          if (Either.isLeft(outcome)) return yield* repo.cartItemStatus(item.id, "failed", describeError(outcome.left))
          if (outcome.right.expiresAt !== null) {
            yield* repo.patchDomain(item.domain, { expires_at: outcome.right.expiresAt })
          }
          yield* repo.cartItemStatus(item.id, "succeeded", null)
        })
      yield* Effect.forEach(items, runItem, { concurrency, discard: true })

      const cart = yield* repo.cart(cartId)
      if (cart === undefined) return yield* new JobFailure({ message: `cart ${cartId} no longer exists` })
      const failed = (yield* repo.cartItems(cartId)).filter((i) => i.status === "failed")
      if (failed.length > 0) {
        const amount = failed.reduce((sum, i) => sum + i.price_cents, 0)
        // The refused items name the refund: a retry after a crash is the same refund, once.
        const key = `cart:${cartId}:items:${failed.map((i) => i.id).sort().join(",")}`
        const refunded = yield* checkout.refund({ cartId, amountCents: amount, key })
        // Not a JobFailure: the job is retried with back-off, and runs no item twice.
        if (!refunded) return yield* new CartRefundPending({ cartId, amountCents: amount })
        yield* repo.transaction(Effect.forEach(failed, (item) =>
          Effect.gen(function*() {
            if (yield* repo.markItemRefunded(item.id, makeId("rf"))) {
              yield* postCartItemRefunded(books, {
                cartId,
                sessionId: cart.session_id,
                itemId: item.id,
                currency: cart.currency,
                amountCents: item.price_cents
              })
            }
          }), { discard: true }))
      }
      const after = yield* repo.cartItems(cartId)
      yield* repo.transaction(Effect.gen(function*() {
        if (!(yield* repo.markCartDone(cartId))) return
        yield* notifications.notify({
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

  return { bulk, status, cart: cartView, runBulk, runCart }
})

export class Bulk extends Context.Tag("app/Bulk")<Bulk, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(Bulk, make)
}

/** Bulk and cart job workers (BULK_JOB_CONCURRENCY each). */
export const BulkWorkersLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const bulk = yield* Bulk
    const jobs = yield* Jobs
    const config = yield* PortfolioConfig
    const options = { concurrency: config.jobConcurrency, pollInterval: Duration.millis(250) }
    yield* jobs.work(BULK_JOB, bulk.runBulk, options)
    yield* jobs.work(CART_JOB, bulk.runCart, options)
  })
)
