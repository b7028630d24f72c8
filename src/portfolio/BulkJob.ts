/**
 * The job of a bulk operation (lock, unlock, setNameservers, setFolder, setContacts): its items
 * claimed in batches and run through the registrar in one sliding window, their outcomes recorded
 * behind the calls.
 *
 * The contract (Bulk.ts's header): each item is applied once. An item is marked `running` before
 * its registrar call; a run resumed after a crash asks the registrar for the domain's state
 * before calling again for an item it finds `running`, and skips the call when the change is
 * already there.
 */
import { Deferred, Duration, Effect, Either, Fiber, Option } from "effect"
import type { Context } from "effect"
import { isJobOp, type JobOp } from "../domain/BulkRules.js"
import { JobFailure, type RunningJob } from "../platform/jobs/Jobs.js"
import type { BulkDeps } from "./Bulk.js"
import { describeError, retrying } from "./BulkRegistrar.js"
import type { JobPayload } from "./BulkRequest.js"
import type { Registrar, RegistrarDomain, RegistrarError } from "./Registrar.js"
import type { ClaimedItem, DomainPatch } from "./Repo.js"

/** Items claimed per statement. */
const CLAIM = 64
/** How often a job records the outcomes of its items (one statement for the successes). */
const RECORD_WITHIN = Duration.millis(100)
export const NOT_RUN = "not_run: an earlier item failed (skip_on_error is false)"

const apply = (
  registrar: Context.Tag.Service<typeof Registrar>,
  op: JobOp,
  domain: string,
  p: JobPayload
): Effect.Effect<DomainPatch, RegistrarError> => {
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

/** One run of a bulk op's job. `stopped`: an item failed and the op does not skip on error. */
interface BulkRun {
  readonly id: string
  readonly userId: string
  readonly kind: JobOp
  readonly payload: JobPayload
  readonly patch: DomainPatch
  readonly run: number
  stopped: boolean
}

/** One claimed item through the registrar; a refusal is recorded at once, a success later. */
const runItem = (d: BulkDeps, r: BulkRun, item: ClaimedItem) =>
  Effect.gen(function*() {
    if (r.stopped) return "not_run" as const
    if (item.previous === "running" && r.kind !== "setFolder") {
      // Started by an earlier run: the call may have reached the registrar before the crash.
      const info = yield* Effect.either(retrying(d.registrar.info(item.domain)))
      if (Either.isRight(info) && Option.isSome(alreadyApplied(r.kind, info.right, r.payload))) {
        return "succeeded" as const
      }
    }
    const outcome = yield* Effect.either(retrying(apply(d.registrar, r.kind, item.domain, r.payload)))
    if (Either.isRight(outcome)) return "succeeded" as const
    // Stop before recording the refusal: no call starts while its row is being written.
    if (!r.payload.skipOnError) r.stopped = true
    yield* d.repo.itemFinished(r.id, item.position, r.run, { status: "failed", error: describeError(outcome.left) })
    return "failed" as const
  })

/**
 * Items are claimed CLAIM per statement, each batch once (cached): the first item of a batch
 * starts claiming the next one, so a claim rarely stands between two calls.
 */
const claimsOf = (d: BulkDeps, r: BulkRun, pending: ReadonlyArray<{ readonly position: number }>) => {
  const batches = Array.from(
    { length: Math.ceil(pending.length / CLAIM) },
    (_, k) => pending.slice(k * CLAIM, (k + 1) * CLAIM).map((i) => i.position)
  )
  return Effect.forEach(batches, (positions) =>
    Effect.cached(Effect.suspend(() =>
      r.stopped
        ? Effect.succeed(new Map<number, ClaimedItem>())
        : Effect.map(
          d.repo.claimItems(r.id, positions, r.run),
          (rows) => new Map(rows.map((row) => [row.position, row]))
        )
    )))
}

/**
 * Outcomes wait here and are recorded every RECORD_WITHIN, behind the calls: successes in one
 * statement (with our copy of the domains), items not run after a failure in another.
 */
const outcomeBuffer = (d: BulkDeps, r: BulkRun) => {
  let outcomes: Array<{ readonly position: number; readonly outcome: "succeeded" | "not_run" }> = []
  const record = Effect.suspend(() => {
    const batch = outcomes
    outcomes = []
    const positions = (outcome: "succeeded" | "not_run") =>
      batch.filter((o) => o.outcome === outcome).map((o) => o.position)
    return Effect.zipRight(
      d.repo.itemsSucceeded(r.id, r.userId, positions("succeeded"), r.run, r.patch),
      d.repo.itemsFailed(r.id, positions("not_run"), r.run, NOT_RUN)
    )
  })
  return {
    add: (position: number, outcome: "succeeded" | "not_run") => outcomes.push({ position, outcome }),
    record
  }
}

/**
 * One sliding window over all the items: `concurrency` calls in flight from the first item to
 * the last. (Claimed chunks run one after another drained the window at each chunk's tail and
 * left it empty during its statements: 10 calls in flight on average instead of 16 in
 * bench/bulk.ts. A Stream pipeline kept 16 in flight but cost ~1 ms of CPU per item against
 * ~0.05 ms here.)
 */
const runItems = (d: BulkDeps, r: BulkRun, pending: ReadonlyArray<{ readonly position: number }>) =>
  Effect.gen(function*() {
    const claims = yield* claimsOf(d, r, pending)
    const outcomes = outcomeBuffer(d, r)
    yield* Effect.scoped(Effect.gen(function*() {
      const ran = yield* Deferred.make<void>()
      const recorder = yield* Effect.forkScoped(Effect.gen(function*() {
        while (!(yield* Deferred.isDone(ran))) {
          yield* Effect.raceFirst(Effect.sleep(RECORD_WITHIN), Deferred.await(ran))
          yield* outcomes.record
        }
        yield* outcomes.record
      }))
      yield* Effect.forEach(pending, (item, index) =>
        Effect.gen(function*() {
          const k = Math.floor(index / CLAIM)
          if (index % CLAIM === 0 && k + 1 < claims.length) yield* Effect.forkScoped(claims[k + 1])
          const claimed = (yield* claims[k]).get(item.position)
          if (claimed === undefined) return // its batch came after a failure, or a later run holds it
          const outcome = yield* runItem(d, r, claimed)
          if (outcome !== "failed") outcomes.add(claimed.position, outcome)
        }), { concurrency: d.concurrency, discard: true })
      yield* Deferred.succeed(ran, undefined)
      yield* Fiber.join(recorder)
    }))
  })

export const runBulk = (d: BulkDeps, job: RunningJob<{ readonly bulkOpId: string }>) =>
  Effect.gen(function*() {
    const id = job.input.bulkOpId
    const op = yield* d.repo.op(id)
    if (op === undefined) return yield* new JobFailure({ message: `bulk operation ${id} no longer exists` })
    if (!isJobOp(op.op)) return yield* new JobFailure({ message: `${op.op} is not a job operation` })
    const payload = op.payload as JobPayload
    const r: BulkRun = {
      id,
      userId: op.user_id,
      kind: op.op,
      payload,
      patch: patchFor(op.op, payload),
      run: job.attempt,
      stopped: false
    }
    yield* d.repo.markStarted(id)
    const pending = yield* d.repo.unfinishedItems(id)
    yield* runItems(d, r, pending)
    if (r.stopped) yield* d.repo.failQueued(id, NOT_RUN)
    yield* d.repo.markFinished(id)
    const counts = yield* d.repo.counts(id)
    return { bulkOpId: id, succeeded: counts.succeeded, failed: counts.failed }
  })
