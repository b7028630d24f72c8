/**
 * The search stream's events and their wire form (pure). One JSON object per line, `kind`
 * discriminates: header, row, primary_done, done (docs/search.md "Domain search stream").
 */
import type { Availability } from "../availability/Availability.js"
import { STATE_LABELS } from "../domain/Availability.js"
import { centsToUsd, listingUrl } from "../market/View.js"

export interface HeaderEvent {
  readonly kind: "header"
  readonly request_id: string
  readonly primary: string
  readonly domains: ReadonlyArray<string>
  readonly primary_index: number
}

export interface MarketPrice {
  readonly bin: number | null
  readonly floor: number | null
  readonly currency: string
}

export interface RowEvent {
  readonly kind: "row"
  readonly domain: string
  readonly domain_unicode: string
  readonly state: Availability["state"]
  readonly state_label: string
  readonly available: boolean | null
  /** USD: first-year registration (number) when registrable; {bin, floor, currency} when for sale; else null. */
  readonly price: number | MarketPrice | null
  readonly listing: {
    readonly id: string
    readonly bin_price: number | null
    readonly floor_price: number | null
    readonly currency: string
    readonly url: string
  } | null
  readonly whois_summary: {
    readonly registrar: string | null
    readonly created: string | null
    readonly expires: string | null
    readonly status: ReadonlyArray<string>
  } | null
  readonly cached: boolean
  readonly meta: {
    readonly source: string
    readonly checked_at: string
    readonly latency_ms: number
    readonly reason?: string
  }
}

export interface PrimaryDoneEvent {
  readonly kind: "primary_done"
}

export interface DoneEvent {
  readonly kind: "done"
  readonly duration_ms: number
  readonly count: number
}

export type SearchEvent = HeaderEvent | RowEvent | PrimaryDoneEvent | DoneEvent

/**
 * A row as the caller may see it: marketplace prices (buy-now, floor) only with `pricing:read`;
 * new-registration prices always.
 */
export const toRow = (a: Availability, canSeeMarketPrices: boolean, baseUrl: string): RowEvent => {
  const listing = a.listing
  const bin = listing !== null && canSeeMarketPrices ? centsToUsd(listing.bin_price_cents) : null
  const floor = listing !== null && canSeeMarketPrices ? centsToUsd(listing.floor_price_cents) : null
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

/** One NDJSON line. */
export const line = (event: SearchEvent): Uint8Array => encoder.encode(JSON.stringify(event) + "\n")
