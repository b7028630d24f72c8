/**
 * The search stream's events and their wire form (pure). One JSON object per line, `kind`
 * discriminates: header, row, primary_done, done (docs/search.md "Domain search stream").
 */
import { Schema } from "effect"
import type { Availability } from "../availability/Availability.js"
import { AVAILABILITY_STATES, STATE_LABELS } from "../domain/Availability.js"
import { centsToUsd, listingUrl } from "../market/View.js"

export const HeaderEvent = Schema.Struct({
  kind: Schema.Literal("header"),
  request_id: Schema.String,
  /** The queried name (A-label). */
  primary: Schema.String,
  /** Every name the stream will answer, the primary among them. */
  domains: Schema.Array(Schema.String),
  primary_index: Schema.Int
}).annotations({ identifier: "SearchStreamHeader", description: "First line: what the stream will answer" })
export type HeaderEvent = typeof HeaderEvent.Type

export const MarketPrice = Schema.Struct({
  bin: Schema.NullOr(Schema.Number),
  floor: Schema.NullOr(Schema.Number),
  currency: Schema.String
})
export type MarketPrice = typeof MarketPrice.Type

export const RowEvent = Schema.Struct({
  kind: Schema.Literal("row"),
  domain: Schema.String.annotations({ description: "A-label form" }),
  domain_unicode: Schema.String,
  state: Schema.Literal(...AVAILABILITY_STATES),
  state_label: Schema.String,
  available: Schema.NullOr(Schema.Boolean).annotations({ description: "null when unknown" }),
  price: Schema.Union(Schema.Number, MarketPrice, Schema.Null).annotations({
    description:
      "USD first-year registration when registrable; {bin, floor, currency} when for sale (null amounts without pricing:read); else null"
  }),
  listing: Schema.NullOr(Schema.Struct({
    id: Schema.String,
    bin_price: Schema.NullOr(Schema.Number),
    floor_price: Schema.NullOr(Schema.Number),
    currency: Schema.String,
    url: Schema.String
  })),
  whois_summary: Schema.NullOr(Schema.Struct({
    registrar: Schema.NullOr(Schema.String),
    created: Schema.NullOr(Schema.String),
    expires: Schema.NullOr(Schema.String),
    status: Schema.Array(Schema.String)
  })),
  cached: Schema.Boolean,
  meta: Schema.Struct({
    source: Schema.String,
    checked_at: Schema.String,
    latency_ms: Schema.Number,
    reason: Schema.optional(Schema.String)
  })
}).annotations({ identifier: "SearchStreamRow", description: "One name's availability" })
export type RowEvent = typeof RowEvent.Type

export const PrimaryDoneEvent = Schema.Struct({ kind: Schema.Literal("primary_done") }).annotations({
  identifier: "SearchStreamPrimaryDone",
  description: "The queried name's row has been sent"
})
export type PrimaryDoneEvent = typeof PrimaryDoneEvent.Type

export const DoneEvent = Schema.Struct({
  kind: Schema.Literal("done"),
  duration_ms: Schema.Number,
  count: Schema.Int
}).annotations({ identifier: "SearchStreamDone", description: "Last line" })
export type DoneEvent = typeof DoneEvent.Type

/** One line of the NDJSON search stream; `kind` discriminates. */
export const SearchEvent = Schema.Union(HeaderEvent, RowEvent, PrimaryDoneEvent, DoneEvent).annotations({
  identifier: "SearchStreamEvent",
  description: "One line of the NDJSON search stream; `kind` discriminates"
})
export type SearchEvent = typeof SearchEvent.Type

/**
 * Which marketplace prices a row shows: `all` (buy-now and floor: a caller with `pricing:read`),
 * `buy-now` (the storefront's own pages and stream: the buy-now price is public on /buy, the floor
 * never), `none` (an anonymous API caller).
 */
export type MarketPrices = "all" | "buy-now" | "none"

/** A row as the caller may see it (`MarketPrices`); new-registration prices always. */
export const toRow = (a: Availability, prices: MarketPrices, baseUrl: string): RowEvent => {
  // A name sold through the marketplace (`registered`) is no longer offered: no listing on its row.
  const listing = a.state === "for_sale" ? a.listing : null
  const bin = listing !== null && prices !== "none" ? centsToUsd(listing.bin_price_cents) : null
  const floor = listing !== null && prices === "all" ? centsToUsd(listing.floor_price_cents) : null
  const price: RowEvent["price"] = a.state === "for_sale" && listing !== null
    ? { bin, floor, currency: listing.currency }
    : a.state === "available" || a.state === "premium"
    ? centsToUsd(a.priceCents)
    : null
  const label = a.state === "reserved" && a.reason?.startsWith("blocked") ? "Blocked" : STATE_LABELS[a.state]
  return {
    kind: "row",
    domain: a.domain,
    domain_unicode: a.domainUnicode,
    state: a.state,
    state_label: label,
    available: a.available,
    price,
    listing: listing === null
      ? null
      : {
        id: listing.id,
        bin_price: bin,
        floor_price: floor,
        currency: listing.currency,
        url: listingUrl(baseUrl, listing.domain)
      },
    whois_summary: a.whois === null
      ? null
      : {
        registrar: a.whois.registrar,
        created: a.whois.created,
        expires: a.whois.expires,
        status: [...a.whois.status]
      },
    cached: a.cached,
    meta: {
      source: a.source,
      checked_at: a.checkedAt.toISOString(),
      latency_ms: Math.round(a.latencyMs),
      ...(a.reason !== null ? { reason: a.reason } : {})
    }
  }
}

const encoder = new TextEncoder()

/**
 * One NDJSON line: the event encoded by `SearchEvent`. Its schemas transform nothing (the
 * encoded form is the value, checked below at compile time), so the encoding is `JSON.stringify`
 * itself: a hot-path shortcut paid for by the search benchmark (`npm run bench -- search`, service
 * CPU per search), which running `Schema.encodeSync` on every row would cost.
 */
export const line = (event: SearchEvent): Uint8Array =>
  encoder.encode(JSON.stringify(event satisfies SearchEventWire) + "\n")

type SearchEventWire = typeof SearchEvent.Encoded
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never
/** The shortcut above holds only while encoding is the identity: this stops type-checking otherwise. */
export const searchEventEncodingIsIdentity: Same<SearchEvent, SearchEventWire> = true
