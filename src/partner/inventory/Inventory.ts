/**
 * The partner inventory: hybrid search and single-domain reads over the listings of one
 * environment.
 *
 * Search fuses two rankings with reciprocal rank fusion (k = 60):
 * - keyword: PostgreSQL trigram similarity of the label, prefix and substring match, and exact
 *   matches of the query's words among the label's word segments;
 * - semantic: the label's word segments against the query's words through WordNet concepts
 *   (synonyms, broader and narrower terms), so `automobile` finds `fastcars.com`.
 * See docs/partner.md#search for why this design.
 */
import { Clock, Effect, Option } from "effect"
import { claim, holdOf } from "../../domain/Reservation.js"
import { expandQuery, fuse, keywordScore, queryTokens, queryWords, semanticScore } from "../../domain/SearchRanking.js"
import { type InventoryListing as ListingRow, ListingReads } from "../../market/ListingReads.js"
import type { PartnerEnvironment } from "../Auth.js"
import { DomainNotListed } from "./Errors.js"
import { wordNet } from "./WordNet.js"

export type SearchMode = "hybrid" | "keyword" | "semantic"

export interface RankedListing {
  readonly listing: ListingRow
  readonly score: number
  readonly available: boolean
}

export const MAX_RESULTS = 5
const DEPTH = 30

const make = Effect.gen(function*() {
  const listings = yield* ListingReads

  /** Another partner's live hold on the listing (the reservation rule, src/domain/Reservation.ts). */
  const reservedFor = (l: ListingRow, partnerId: string, now: number) =>
    !claim(holdOf(l.held_by, l.held_until), partnerId, new Date(now)).ok

  const availableFor = (l: ListingRow, reserved: boolean) => l.status === "active" && !l.locked && !reserved

  const keywordRanking = (env: PartnerEnvironment, q: string) =>
    Effect.gen(function*() {
      const lex = wordNet()
      const compact = queryTokens(q).join("")
      const words = queryWords(q, lex)
      const rows = yield* listings.keywordCandidates(env, compact, words, 100)
      return rows
        .map((r): { row: ListingRow; score: number } => ({
          row: r,
          score: keywordScore({ similarity: r.sim, label: r.label }, q, lex)
        }))
        .filter((x) => x.score > 0.25)
        .sort((a, b) => b.score - a.score || a.row.domain.localeCompare(b.row.domain))
        .slice(0, DEPTH)
    })

  const semanticRanking = (env: PartnerEnvironment, q: string) =>
    Effect.gen(function*() {
      const lex = wordNet()
      const words = queryWords(q, lex)
      const concepts = [...expandQuery(words, lex)]
        .filter(([t]) => t.length >= 3)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 60)
        .map(([t]) => t)
      const rows = yield* listings.conceptCandidates(env, concepts, 400)
      return rows
        .map((row) => ({ row, score: semanticScore(words, row.label, lex) }))
        .filter((x) => x.score >= 0.4)
        .sort((a, b) => b.score - a.score || a.row.domain.localeCompare(b.row.domain))
        .slice(0, DEPTH)
    })

  const search = (env: PartnerEnvironment, q: string, partnerId: string, mode: SearchMode = "hybrid") =>
    Effect.gen(function*() {
      const rankings: Array<ReadonlyArray<{ row: ListingRow; score: number }>> = []
      if (mode !== "semantic") rankings.push(yield* keywordRanking(env, q))
      if (mode !== "keyword") rankings.push(yield* semanticRanking(env, q))
      const byId = new Map<string, ListingRow>()
      for (const r of rankings) for (const x of r) byId.set(x.row.id, x.row)
      const fused = fuse(rankings.map((r) => r.map((x) => x.row.id))).slice(0, MAX_RESULTS)
      const best = rankings.length / 61
      const rows = fused.map((f) => ({
        listing: byId.get(f.key)!,
        score: Math.round((f.score / best) * 10_000) / 10_000
      }))
      const now = yield* Clock.currentTimeMillis
      return rows.map((r): RankedListing => ({
        ...r,
        available: availableFor(r.listing, reservedFor(r.listing, partnerId, now))
      }))
    })

  const lookup = (env: PartnerEnvironment, domain: string, partnerId: string) =>
    Effect.gen(function*() {
      const found = yield* listings.byDomainWithReservation(env, domain)
      if (Option.isNone(found)) return Option.none<{ listing: ListingRow; available: boolean; reserved: boolean }>()
      const listing = found.value
      const reserved = reservedFor(listing, partnerId, yield* Clock.currentTimeMillis)
      return Option.some({ listing, available: availableFor(listing, reserved), reserved })
    })

  /** A listed domain (any status), or `DomainNotListed`. */
  const detail = (env: PartnerEnvironment, domain: string, partnerId: string) =>
    Effect.flatMap(
      lookup(env, domain, partnerId),
      Option.match({
        onNone: () => Effect.fail(DomainNotListed.of(domain)),
        onSome: Effect.succeed
      })
    )

  /** The prices of a domain still offered (not sold or withdrawn), or `DomainNotListed`. */
  const pricing = (env: PartnerEnvironment, domain: string, partnerId: string) =>
    Effect.flatMap(
      detail(env, domain, partnerId),
      (found) =>
        found.listing.status === "sold" || found.listing.status === "withdrawn"
          ? Effect.fail(DomainNotListed.of(domain))
          : Effect.succeed(found.listing)
    )

  return { search, lookup, detail, pricing }
})

/** Over market's `ListingReads` (market owns `listings`), provided by src/app/Layers.ts. */
export class Inventory extends Effect.Service<Inventory>()("app/PartnerInventory", { effect: make }) {
  /** Kept for the existing wiring (src/partner/Layer.ts and test/partner/inventory). */
  static readonly Live = Inventory.Default
}
