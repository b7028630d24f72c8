/**
 * The listing CSV of `npm run cli -- listings import FILE` (pure parsing; RFC 4180 quoting):
 *
 *     domain,bin_price_cents,floor_price_cents,currency,status,locked,listed_at,description
 *     example.com,250000,180000,USD,active,false,2026-01-05T10:00:00Z,"Short, brandable"
 *
 * Only `domain` is required. Prices are USD cents (empty = no buy-now / no floor); `status`
 * defaults to active, `locked` to false, `listed_at` to the import time. Domains are normalised
 * (UTS-46, A-label) and must be registrable names under a known public suffix. Every bad line is
 * reported with its number; nothing is half-imported.
 */
import { parse } from "csv-parse/sync"
import { Either } from "effect"
import { parseDomainInputWith } from "../platform/http/DomainInput.js"

export const LISTING_CSV_COLUMNS = [
  "domain",
  "bin_price_cents",
  "floor_price_cents",
  "currency",
  "status",
  "locked",
  "listed_at",
  "description"
] as const

export const LISTING_STATUSES = ["active", "pending", "sold", "withdrawn"] as const
export type ListingStatus = (typeof LISTING_STATUSES)[number]

export interface ListingCsvRow {
  readonly domain: string
  readonly domainUnicode: string
  readonly tld: string
  readonly label: string
  readonly binPriceCents: number | null
  readonly floorPriceCents: number | null
  readonly currency: "USD"
  readonly status: ListingStatus
  readonly locked: boolean
  readonly listedAt: Date | null
  readonly description: string | null
}

const cents = (value: string | undefined, column: string): Either.Either<number | null, string> => {
  const v = (value ?? "").trim()
  if (v === "") return Either.right(null)
  if (!/^\d{1,13}$/.test(v)) return Either.left(`${column} must be a non-negative integer (USD cents), got "${v}"`)
  return Either.right(Number(v))
}

export const parseListingCsv = (text: string): { rows: Array<ListingCsvRow>; errors: Array<string> } => {
  let records: Array<Array<string>>
  try {
    records = parse(text, { relax_column_count: true, skip_empty_lines: true, comment: "#", trim: true, bom: true })
  } catch (e) {
    return { rows: [], errors: [`not a readable CSV: ${(e as Error).message}`] }
  }
  if (records.length === 0) return { rows: [], errors: ["the file is empty"] }
  const header = records[0].map((h) => h.toLowerCase())
  const unknown = header.filter((h) => !(LISTING_CSV_COLUMNS as ReadonlyArray<string>).includes(h))
  if (!header.includes("domain") || unknown.length > 0) {
    return {
      rows: [],
      errors: [
        `line 1: the header needs "domain" and may use ${LISTING_CSV_COLUMNS.join(", ")}${
          unknown.length > 0 ? `; unknown: ${unknown.join(", ")}` : ""
        }`
      ]
    }
  }
  const rows: Array<ListingCsvRow> = []
  const errors: Array<string> = []
  const seen = new Map<string, number>()
  records.slice(1).forEach((cells, i) => {
    const n = i + 2
    if (cells.length > header.length) {
      return void errors.push(`line ${n}: ${cells.length} cells for ${header.length} columns`)
    }
    const get = (column: string) => {
      const at = header.indexOf(column)
      return at === -1 ? undefined : cells[at]
    }
    const problems: Array<string> = []
    const domain = get("domain") ?? ""
    const parsed = parseDomainInputWith(domain, (e) => `invalid domain "${domain}": ${e.message}`)
    let name: { ascii: string; unicode: string; suffix: string; label: string } | undefined
    if (Either.isLeft(parsed)) {
      problems.push(parsed.left)
    } else if (parsed.right.subdomain !== "" || !parsed.right.knownSuffix) {
      problems.push(`"${parsed.right.ascii}" is not a registrable name under a known public suffix`)
    } else {
      name = parsed.right
      const first = seen.get(name.ascii)
      if (first !== undefined) problems.push(`duplicate of line ${first} (${name.ascii})`)
      else seen.set(name.ascii, n)
    }
    const bin = cents(get("bin_price_cents"), "bin_price_cents")
    const floor = cents(get("floor_price_cents"), "floor_price_cents")
    if (Either.isLeft(bin)) problems.push(bin.left)
    if (Either.isLeft(floor)) problems.push(floor.left)
    const currency = (get("currency") ?? "").trim().toUpperCase() || "USD"
    if (currency !== "USD") problems.push(`currency must be USD, got "${currency}"`)
    const status = ((get("status") ?? "").trim().toLowerCase() || "active") as ListingStatus
    if (!LISTING_STATUSES.includes(status)) {
      problems.push(`status must be one of ${LISTING_STATUSES.join("|")}, got "${status}"`)
    }
    const lockedText = (get("locked") ?? "").trim().toLowerCase()
    if (!["", "true", "false", "1", "0", "yes", "no"].includes(lockedText)) {
      problems.push(`locked must be true or false, got "${lockedText}"`)
    }
    const listedText = (get("listed_at") ?? "").trim()
    const listedAt = listedText === "" ? null : new Date(listedText)
    if (listedAt !== null && (Number.isNaN(listedAt.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(listedText))) {
      problems.push(`listed_at must be an RFC 3339 time, got "${listedText}"`)
    }
    if (problems.length > 0 || name === undefined || Either.isLeft(bin) || Either.isLeft(floor)) {
      return void errors.push(`line ${n}: ${problems.join("; ")}`)
    }
    const description = (get("description") ?? "").trim()
    rows.push({
      domain: name.ascii,
      domainUnicode: name.unicode,
      tld: name.suffix,
      label: name.label,
      binPriceCents: bin.right,
      floorPriceCents: floor.right,
      currency: "USD",
      status,
      locked: ["true", "1", "yes"].includes(lockedText),
      listedAt,
      description: description === "" ? null : description
    })
  })
  return { rows, errors }
}
