/**
 * Domain search: which names to check for a query, and the ordered stream of their answers.
 *
 * Order (docs/search.md): `header` at once (before any lookup), then the queried domain's `row`
 * as soon as its answer is known, `primary_done` right after it, then the other rows in the
 * order they complete (those that finished before the primary come first, in their completion
 * order), then `done` with the duration and the row count.
 *
 * Every check runs in a fiber scoped to the stream: when the client goes away the response is
 * interrupted, the scope closes, and every upstream call still in flight is interrupted.
 *
 * `start` begins the local lookups (reserved list in process, listings and cache: one statement) at once,
 * so the handler can run them alongside the rate-limit check; the upstream calls only leave once
 * the stream is consumed, i.e. after the request was admitted.
 */
import { Chunk, Clock, Duration, Effect, Either, Fiber, identity, Option, Queue, Stream } from "effect"
import { type Availability, AvailabilityEngine } from "../availability/Availability.js"
import { AvailabilityConfig } from "../availability/Settings.js"
import { candidate, type DomainName, type InvalidDomainName } from "../domain/DomainName.js"
import type { Environment } from "../market/Market.js"
import { AppConfig } from "../platform/Config.js"
import { InvalidDomain, parseDomainInputWith } from "../platform/http/DomainInput.js"
import { line, type MarketPrices, type RowEvent, type SearchEvent, toRow } from "./Rows.js"

export interface SearchPlan {
  /** The queried name (its registrable part). */
  readonly primary: DomainName
  /** Primary first, then the alternates. */
  readonly names: ReadonlyArray<DomainName>
  /** Whether alternates were added (a plain `label.suffix` query). */
  readonly plain: boolean
}

/**
 * The names a query checks. A subdomain query checks its registrable name only; a plain
 * `label.suffix` query (`label.co.uk` included) also checks the label under each alternate TLD.
 */
export const planSearch = (
  q: string,
  alternateTlds: ReadonlyArray<string>
): Either.Either<SearchPlan, InvalidDomainName> =>
  Either.gen(function*() {
    const parsed = yield* parseDomainInputWith(q, identity)
    const plain = parsed.subdomain === ""
    const primary = plain ? parsed : yield* candidate(parsed.label, parsed.suffix)
    const names: Array<DomainName> = [primary]
    if (plain) {
      const seen = new Set([primary.registrable])
      for (const tld of alternateTlds) {
        const alt = candidate(primary.label, tld)
        if (Either.isRight(alt) && alt.right.subdomain === "" && !seen.has(alt.right.registrable)) {
          seen.add(alt.right.registrable)
          names.push(alt.right)
        }
      }
    }
    return { primary, names, plain }
  })

/** Resumes after the event loop's current poll phase (every I/O callback already due has run). */
const endOfPollPhase: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * The rows of a search's answers as `queue` receives them (`[name index, answer]`, the primary
 * being index 0), then `done`; one chunk per batch of answers, each chunk one write to the socket:
 * the primary's row (with `primary_done` and the rows that finished before it) as soon as it is
 * known; then every answer that arrived in the same turn of the event loop together (an RDAP answer
 * is one I/O callback: waiting for the end of the loop's poll phase lets the answers that arrived
 * with it join). `done` closes the last chunk. A write to a loopback socket cost ≈ 0.1–0.2 ms of
 * CPU on the benchmark machine, ~12 of them per 10-name search before.
 */
const answerBatches = (
  queue: Queue.Dequeue<readonly [number, Availability]>,
  total: number,
  row: (a: Availability) => SearchEvent,
  done: (now: number) => SearchEvent
): Stream.Stream<SearchEvent> => {
  let sent = 0
  let primarySent = false
  const batch = (
    ready: ReadonlyArray<readonly [number, Availability]>,
    now: number
  ): Chunk.Chunk<SearchEvent> => {
    const out: Array<SearchEvent> = []
    if (!primarySent) {
      const at = ready.findIndex(([i]) => i === 0)
      primarySent = true
      out.push(row(ready[at][1]), { kind: "primary_done" })
      ready.forEach(([i, a]) => i !== 0 && out.push(row(a)))
    } else {
      for (const [, a] of ready) out.push(row(a))
    }
    sent += ready.length
    if (sent === total) out.push(done(now))
    return Chunk.unsafeFromArray(out)
  }
  const waiting: Array<readonly [number, Availability]> = []
  const pull: Effect.Effect<Chunk.Chunk<SearchEvent>, Option.Option<never>> = Effect.suspend(() => {
    if (sent === total) return Effect.fail(Option.none())
    if (!primarySent) {
      // Until the primary answers, answers are held back (they follow its row).
      return Effect.flatMap(Queue.take(queue), (item) => {
        waiting.push(item)
        if (item[0] !== 0) return pull
        const ready = waiting.splice(0, waiting.length)
        return Effect.map(Clock.currentTimeMillis, (now) => batch(ready, now))
      })
    }
    return Effect.flatMap(Queue.take(queue), (first) =>
      Effect.zipWith(
        Effect.zipRight(endOfPollPhase, Queue.takeAll(queue)),
        Clock.currentTimeMillis,
        (more, now) => batch([first, ...more], now)
      ))
  })
  return Stream.repeatEffectChunkOption(pull)
}

export interface StreamOptions {
  readonly requestId: string
  readonly marketPrices: MarketPrices
  readonly environment?: Environment
  /** When the request arrived (ms), for `done.duration_ms`. */
  readonly startedAt: number
}

const make = Effect.gen(function*() {
  const engine = yield* AvailabilityEngine
  const config = yield* AppConfig
  const availabilitySettings = yield* AvailabilityConfig

  const plan = (q: string) => planSearch(q, availabilitySettings.alternateTlds)
  /** The plan of a query, or the domain error its `q` earns. */
  const parse = (q: string): Either.Either<SearchPlan, InvalidDomain> =>
    Either.mapLeft(plan(q), (e) => InvalidDomain.of("q", e, "field"))

  /** The events of one search, in stream order, given its local lookups (`engine.prepare`). */
  const events = (
    p: SearchPlan,
    options: StreamOptions,
    prepared: Effect.Effect<ReadonlyArray<Effect.Effect<Availability>>>
  ): Stream.Stream<SearchEvent> => {
    const header: SearchEvent = {
      kind: "header",
      request_id: options.requestId,
      primary: p.primary.registrable,
      domains: p.names.map((n) => n.registrable),
      primary_index: 0
    }
    const row = (a: Availability): SearchEvent => toRow(a, options.marketPrices, config.baseUrl)
    const total = p.names.length

    const done = (now: number): SearchEvent => ({
      kind: "done",
      duration_ms: Math.max(0, now - options.startedAt),
      count: total
    })

    const rows = Stream.unwrapScoped(
      Effect.gen(function*() {
        const checks = yield* prepared
        const queue = yield* Queue.unbounded<readonly [number, Availability]>()
        const offer = (check: Effect.Effect<Availability>, i: number) =>
          Effect.flatMap(check, (a) => Queue.offer(queue, [i, a] as const))
        // The queried name goes first: its upstream requests leave before the alternates' (which
        // start 2 ms later), so its answers come back — and are processed — first.
        // One fiber per name, each scoped to the stream (no `forEach` fiber above them).
        yield* Effect.forkScoped(offer(checks[0], 0))
        if (checks.length > 1) {
          yield* Effect.sleep(Duration.millis(2)).pipe(
            Effect.zipRight(Effect.forEach(checks.slice(1), (check, i) => Effect.forkScoped(offer(check, i + 1)), {
              discard: true
            })),
            Effect.forkScoped
          )
        }
        return answerBatches(queue, total, row, done)
      })
    )

    return Stream.make(header).pipe(Stream.concat(rows))
  }

  /**
   * Starts a search's local lookups now and returns its events and NDJSON body. The body waits
   * for the lookups already under way (the rate limit was counted before, by the request guard).
   */
  const start = (p: SearchPlan, options: StreamOptions) =>
    Effect.map(
      Effect.forkDaemon(engine.prepare(p.names, { environment: options.environment ?? "live" })),
      (lookups) => {
        const typed = events(p, options, Fiber.join(lookups)).pipe(Stream.ensuring(Fiber.interruptFork(lookups)))
        return {
          /** The same events as values (for the MCP tool, which reports rows as progress). */
          events: typed,
          ndjson: Stream.map(typed, line)
        }
      }
    )

  /**
   * The rows of one search, in stream order, as one value (batch's `search_domain`): the same
   * rows the stream writes, without its header, `primary_done` and `done`.
   */
  const rows = (p: SearchPlan, options: StreamOptions): Effect.Effect<ReadonlyArray<RowEvent>> =>
    events(p, options, engine.prepare(p.names, { environment: options.environment ?? "live" })).pipe(
      Stream.filter((e): e is RowEvent => e.kind === "row"),
      Stream.runCollect,
      Effect.map(Chunk.toReadonlyArray)
    )

  return { plan, parse, start, rows } as const
})

export class Search extends Effect.Service<Search>()("app/Search", { effect: make }) {
  /** Kept for the existing wiring (src/search/Layer.ts). */
  static readonly Live = Search.Default
}
