/**
 * What callers see of a listing (pure): USD amounts, and buy-now/floor prices masked (null)
 * unless the caller may see marketplace prices (a bearer token with `pricing:read`).
 */
import type { ListingRow } from "./Repo.js"

export const centsToUsd = (cents: number | null): number | null => (cents === null ? null : Math.round(cents) / 100)

export const listingUrl = (baseUrl: string, domain: string) =>
  `${baseUrl}/api/market/listings/${encodeURIComponent(domain)}`

export interface ListingItem {
  readonly id: string
  readonly domain: string
  readonly domain_unicode: string
  readonly tld: string
  readonly bin_price: number | null
  readonly floor_price: number | null
  readonly currency: string
  readonly listed_at: string
  readonly locked: boolean
  readonly demo: boolean
  readonly description: string | null
  readonly url: string
}

export const toListingItem = (row: ListingRow, canSeePrices: boolean, baseUrl: string): ListingItem => ({
  id: row.id,
  domain: row.domain,
  domain_unicode: row.domain_unicode,
  tld: row.tld,
  bin_price: canSeePrices ? centsToUsd(row.bin_price_cents) : null,
  floor_price: canSeePrices ? centsToUsd(row.floor_price_cents) : null,
  currency: row.currency,
  listed_at: row.listed_at.toISOString(),
  locked: row.locked || row.status === "pending",
  demo: row.is_demo,
  description: row.description,
  url: listingUrl(baseUrl, row.domain)
})
