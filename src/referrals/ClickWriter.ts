/**
 * Write-behind for clicks: `GET /r/{code}` only appends to an in-memory queue and answers; one
 * background fiber writes the queue as multi-row inserts (plus the daily roll-up increments)
 * every REFERRAL_FLUSH_INTERVAL, or at once when REFERRAL_FLUSH_BATCH clicks wait.
 *
 * Contract: nothing accepted is lost on a graceful stop. The layer's finalizer runs after the HTTP
 * server has stopped accepting and finished its requests (the composition root releases HTTP
 * first) and before the database closes: it lets the batch in progress finish (the write is
 * uninterruptible), then writes whatever is still queued. A failed write is retried with backoff,
 * the batch kept. The raw IP lives only in this queue (≤ one flush period); what is stored is
 * SHA-256(daily salt ‖ IP), the salt shared by replicas in `referral_salts` and deleted after two days.
 *
 * Uniqueness is decided when a batch is written, not when the click is answered: clicks of one
 * visitor (hashed IP + user agent) on one link within the batch are classified here
 * (src/referrals/Visitors.ts), and the batch's first click of each visitor against the visitor's
 * last click stored by any replica (`referral_visitors`, in the batch's transaction). So a repeat
 * is a repeat whichever replica it reaches, and after a restart; the redirect still never waits
 * for the database.
 */
import { Duration, Effect, Fiber, Queue, Schedule } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { isBot, utcDay } from "../domain/Referral.js"
import type { PartnerEnvironment } from "../partner/Auth.js"
import { type ClickRow, ReferralRepo } from "./Repo.js"
import { ReferralConfig } from "./Settings.js"
import { classifyBatch } from "./Visitors.js"

export interface PendingClick {
  readonly id: string
  readonly linkId: string
  readonly partnerId: string
  readonly environment: PartnerEnvironment
  readonly at: number
  readonly ip: string
  readonly userAgent: string | null
  readonly referrer: string | null
}

/** 128 bits of SHA-256 over the parts joined by "|": the stored IP hash (salt, IP) and the visitor key (IP hash, user agent). */
const sha = (...parts: ReadonlyArray<string>) => createHash("sha256").update(parts.join("|")).digest("hex").slice(0, 32)

const clip = (s: string | null, max: number) => (s === null ? null : s.length > max ? s.slice(0, max) : s)

const make = Effect.gen(function*() {
  const repo = yield* ReferralRepo
  const settings = yield* ReferralConfig
  const repeatMs = Duration.toMillis(settings.repeatWindow)
  const queue = yield* Queue.unbounded<PendingClick>()
  const salts = new Map<string, string>()

  const saltOf = (day: string) =>
    Effect.suspend(() => {
      const known = salts.get(day)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.map(repo.saltFor(day, randomBytes(32).toString("base64url")), (salt) => {
        salts.clear()
        salts.set(day, salt)
        return salt
      })
    })

  const toRows = (batch: ReadonlyArray<PendingClick>) =>
    Effect.gen(function*() {
      const hashed: Array<{ readonly click: PendingClick; readonly ipHash: string; readonly bot: boolean }> = []
      for (const click of batch) {
        hashed.push({ click, ipHash: sha(yield* saltOf(utcDay(click.at)), click.ip), bot: isBot(click.userAgent) })
      }
      const { unique, visits } = classifyBatch(
        hashed.map(({ bot, click, ipHash }) => ({
          id: click.id,
          linkId: click.linkId,
          visitor: sha(ipHash, click.userAgent ?? ""),
          at: click.at,
          bot
        })),
        repeatMs
      )
      const rows = hashed.map(({ bot, click: c, ipHash }): ClickRow => ({
        id: c.id,
        link_id: c.linkId,
        partner_id: c.partnerId,
        environment: c.environment,
        clicked_at: new Date(c.at),
        ip_hash: ipHash,
        user_agent: clip(c.userAgent, 512),
        referrer: clip(c.referrer, 1024),
        bot,
        is_unique: unique.get(c.id) === true
      }))
      return { rows, visits }
    })

  const write = (batch: ReadonlyArray<PendingClick>) =>
    Effect.flatMap(toRows(batch), ({ rows, visits }) =>
      repo.writeClicks(rows, visits, repeatMs).pipe(
        Effect.tapError((e) => Effect.logWarning("click batch not written; retrying", e)),
        Effect.retry(
          Schedule.exponential("100 millis").pipe(
            Schedule.either(Schedule.spaced("5 seconds")),
            Schedule.upTo("2 minutes")
          )
        ),
        Effect.catchAllCause((cause) =>
          Effect.logError(`lost ${rows.length} clicks: the database refused them for 2 minutes`, cause)
        )
      ))

  /** Takes what waits (up to one batch) and writes it; uninterruptible, so a stop never cuts a batch in half. */
  const flushOnce = Effect.uninterruptible(
    Effect.gen(function*() {
      const batch = yield* Queue.takeUpTo(queue, settings.flushBatch)
      if (batch.length > 0) yield* write([...batch])
      return batch.length
    })
  )

  // Opened by `enqueue` when a whole batch waits, so a burst does not wait for the period.
  const full = yield* Effect.makeLatch(false)

  const loop = Effect.gen(function*() {
    while (true) {
      yield* Effect.raceFirst(Effect.sleep(settings.flushInterval), full.await)
      yield* full.close
      while ((yield* flushOnce) >= settings.flushBatch) {
        // a backlog: keep writing whole batches
      }
    }
  })

  const fiber = yield* Effect.forkDaemon(loop)
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      yield* Fiber.interrupt(fiber)
      while ((yield* flushOnce) > 0) {
        // drain
      }
    })
  )

  return {
    /** Accepts a click for writing (synchronous, never waits for the database). */
    enqueue: (click: PendingClick): void => {
      Queue.unsafeOffer(queue, click)
      const size = queue.unsafeSize()
      if (size._tag === "Some" && size.value >= settings.flushBatch) full.unsafeOpen()
    },
    /** Writes everything accepted so far (tests, benchmarks). */
    flush: Effect.gen(function*() {
      while ((yield* flushOnce) > 0) {
        // drain
      }
    })
  }
})

export class ClickWriter extends Effect.Service<ClickWriter>()("app/ReferralClickWriter", { scoped: make }) {}
