/**
 * The registry-data service: TLD registration rules and retail prices.
 *
 * Source of truth is PostgreSQL (`tld_metadata`, `tld_prices`), seeded from the bundled snapshot
 * and default price list, refreshed from Realtime Register by `syncTlds` / `syncPrices` (the
 * scheduled fiber and `npm run cli -- tlds sync`) or by a CSV import. Reads go through a short
 * in-process cache of the whole (small) tables; writes made here invalidate it at once, writes
 * made by another process are visible within `CATALOGUE_CACHE_TTL`.
 */
import { Clock, Deferred, Duration, Effect, FiberId, Option } from "effect"
import type { TldPrice } from "./Api.js"
import { defaultPriceList, snapshot, SNAPSHOT_TAKEN_AT } from "./data/index.js"
import { InvalidPriceTld, InvalidTld, TldNotFound } from "./Errors.js"
import { isTld, normalizeTld, PRICE_OPS, type PriceOp, type PriceRow } from "./PriceCsv.js"
import { RealtimeRegister, type RtrError, type RtrPrice, type RtrTldInfo } from "./RealtimeRegister.js"
import { CatalogueRepo } from "./Repo.js"
import { CatalogueConfig } from "./Settings.js"
import { type TldMetadata, toTldMetadata } from "./TldMetadata.js"

export interface SyncReport {
  readonly mode: "live" | "sandbox"
  readonly synced: ReadonlyArray<string>
  readonly failed: ReadonlyArray<{ readonly tld: string; readonly reason: string }>
}

export interface PriceSyncReport {
  readonly mode: "live" | "sandbox"
  readonly updated: number
  readonly skipped: ReadonlyArray<string>
}

/** RTR product/action → our TLD and operation (`domain_com` + `CREATE` → com/register). */
export const fromRtrPrice = (p: RtrPrice, markupPercent: number): Option.Option<PriceRow> => {
  const m = /^domain_([a-z0-9.-]+)$/i.exec(p.product)
  const op: PriceOp | undefined = (
    { CREATE: "register", RENEW: "renew", TRANSFER: "transfer", RESTORE: "restore" } as Record<string, PriceOp>
  )[p.action.toUpperCase()]
  if (!m || !op || p.currency.toUpperCase() !== "USD" || p.price < 0) return Option.none()
  return Option.some({ tld: m[1].toLowerCase(), op, priceCents: Math.round(p.price * (1 + markupPercent / 100)) })
}

interface Snapshot {
  readonly prices: ReadonlyMap<string, number>
  readonly tlds: ReadonlyMap<string, { readonly info: RtrTldInfo; readonly lastSyncedAt: Date }>
}

const make = Effect.gen(function*() {
  const repo = yield* CatalogueRepo
  const rtr = yield* RealtimeRegister
  const catalogueSettings = yield* CatalogueConfig
  const staleAfterMs = Duration.toMillis(catalogueSettings.tldStaleAfter)

  const load = Effect.gen(function*() {
    const [prices, tlds] = yield* Effect.all([repo.allPrices, repo.allTlds], { concurrency: 2 })
    return {
      prices: new Map(prices.map((p) => [`${p.tld}/${p.op}`, p.price_cents])),
      tlds: new Map(tlds.map((t) => [t.tld, { info: t.info, lastSyncedAt: t.last_synced_at }]))
    } satisfies Snapshot
  })
  // The whole (small) tables, kept for CATALOGUE_CACHE_TTL. Hand-rolled rather than
  // Effect.cachedInvalidateWithTTL: a hit is one clock read, on the hottest endpoint.
  const ttlMs = Duration.toMillis(catalogueSettings.catalogueCacheTtl)
  let current: { readonly snapshot: Snapshot; readonly loadedAt: number } | undefined
  let loading: Deferred.Deferred<Snapshot> | undefined
  /** Bumped by every write made here: a load that started before a write is not kept. */
  let generation = 0
  const cached: Effect.Effect<Snapshot> = Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (current !== undefined && now - current.loadedAt < ttlMs) return Effect.succeed(current.snapshot)
    if (loading === undefined) {
      const deferred = Deferred.unsafeMake<Snapshot>(FiberId.none)
      const startedIn = generation
      loading = deferred
      const refresh = Effect.onExit(load, (exit) =>
        Effect.sync(() => {
          if (exit._tag === "Success" && startedIn === generation) current = { snapshot: exit.value, loadedAt: now }
          if (loading === deferred) loading = undefined
        }).pipe(Effect.zipRight(Deferred.done(deferred, exit))))
      return Effect.zipRight(Effect.forkDaemon(refresh), Deferred.await(deferred))
    }
    return Deferred.await(loading)
  })
  const invalidate = Effect.sync(() => {
    generation++
    current = undefined
    loading = undefined
  })

  const getPrice = (tld: string, op: PriceOp) =>
    Effect.map(cached, (s) => Option.fromNullable(s.prices.get(`${normalizeTld(tld)}/${op}`)))

  const getMetadata = (tld: string) =>
    Effect.gen(function*() {
      const s = yield* cached
      const key = normalizeTld(tld)
      const row = s.tlds.get(key)
      if (!row) return Option.none<TldMetadata>()
      const now = yield* Clock.currentTimeMillis
      return Option.some(toTldMetadata(key, row.info, row.lastSyncedAt, new Date(now), staleAfterMs))
    })

  /**
   * The price of a TLD as asked (normalised here) for `op`, as GET /api/pricing/tld answers it
   * (`priceCents` null when the TLD/op combination is unsupported), or why the TLD cannot be priced.
   */
  const tldPrice = (input: string, op: PriceOp): Effect.Effect<TldPrice, InvalidPriceTld> => {
    const tld = normalizeTld(input)
    if (tld === "") return Effect.fail(InvalidPriceTld.missing())
    if (!isTld(tld)) return Effect.fail(InvalidPriceTld.of(input))
    return Effect.map(getPrice(tld, op), (price) => ({ tld, op, priceCents: Option.getOrNull(price) }))
  }

  /** The metadata of a TLD as asked (normalised here), or why there is none. */
  const metadataOf = (input: string): Effect.Effect<TldMetadata, InvalidTld | TldNotFound> =>
    Effect.gen(function*() {
      const tld = normalizeTld(input)
      if (!isTld(tld)) return yield* InvalidTld.of(input)
      const metadata = yield* getMetadata(tld)
      if (Option.isNone(metadata)) return yield* TldNotFound.of(tld)
      return metadata.value
    })

  const seedDefaults = Effect.gen(function*() {
    yield* repo.seedTlds(snapshot(), SNAPSHOT_TAKEN_AT)
    yield* repo.seedPrices(defaultPriceList())
    yield* invalidate
  })

  const syncTlds = (only?: ReadonlyArray<string>): Effect.Effect<SyncReport> =>
    Effect.gen(function*() {
      if (rtr.mode === "sandbox") return { mode: "sandbox", synced: [], failed: [] } as SyncReport
      const known = only && only.length > 0 ? only.map(normalizeTld) : yield* repo.tldNames
      // Many TLDs share one answer (applicableFor); ask once per family.
      const pending = new Set(known)
      const synced: Array<string> = []
      const failed: Array<{ tld: string; reason: string }> = []
      for (const tld of known) {
        if (!pending.has(tld)) continue
        const result = yield* Effect.either(rtr.tldInfo(tld))
        if (result._tag === "Left") {
          pending.delete(tld)
          failed.push({ tld, reason: describe(result.left) })
          continue
        }
        const info = result.right
        const family = info.applicableFor.length > 0 ? info.applicableFor : [tld]
        const fixed = { ...info, applicableFor: family.map((t) => t.toLowerCase()) }
        if (!fixed.applicableFor.includes(tld)) fixed.applicableFor.push(tld)
        yield* repo.upsertTlds([fixed], new Date(yield* Clock.currentTimeMillis))
        for (const t of fixed.applicableFor) {
          if (pending.delete(t) || t === tld) synced.push(t)
        }
      }
      yield* invalidate
      return { mode: "live", synced, failed } as SyncReport
    })

  const syncPrices: Effect.Effect<PriceSyncReport, RtrError> = Effect.gen(function*() {
    if (rtr.mode === "sandbox") return { mode: "sandbox", updated: 0, skipped: [] } as PriceSyncReport
    const list = yield* rtr.priceList
    const rows: Array<PriceRow> = []
    const skipped: Array<string> = []
    for (const p of list) {
      Option.match(fromRtrPrice(p, catalogueSettings.rtr.markupPercent), {
        onNone: () => skipped.push(`${p.product}/${p.action}/${p.currency}`),
        onSome: (row) => rows.push(row)
      })
    }
    yield* repo.upsertPrices(rows, "rtr")
    yield* invalidate
    return { mode: "live", updated: rows.length, skipped } as PriceSyncReport
  })

  const importPrices = (rows: ReadonlyArray<PriceRow>) =>
    Effect.gen(function*() {
      yield* repo.upsertPrices(rows, "import")
      yield* invalidate
      return rows.length
    })

  return {
    getPrice,
    tldPrice,
    getMetadata,
    metadataOf,
    seedDefaults,
    syncTlds,
    syncPrices,
    importPrices,
    ops: PRICE_OPS,
    mode: rtr.mode
  }
})

const describe = (e: RtrError) => `${e.reason}: ${e.message}`

export class Catalogue extends Effect.Service<Catalogue>()("app/Catalogue", {
  effect: make,
  dependencies: [CatalogueRepo.Default]
}) {
  /** Kept for the existing wiring (src/catalogue/Layer.ts). */
  static readonly Live = Catalogue.Default
}
