/**
 * Seed inventories of the marketplace:
 * - `demo-listings.csv`: a small curated catalogue for the embedded default, marked `is_demo`
 *   (DEMO_LISTINGS: `auto` seeds it only on the embedded database; `false` removes it);
 * - the synthetic sandbox inventory: test domains with synthetic prices for sandbox credentials,
 *   generated deterministically so every installation has the same one.
 */
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import { type ListingCsvRow, parseListingCsv } from "../ListingCsv.js"

const here = new URL(".", import.meta.url)

/** Parsed on first use (a CLI command that never seeds does not pay for it). */
let demoRows: ReadonlyArray<ListingCsvRow> | undefined
export const demoListings = (): ReadonlyArray<ListingCsvRow> =>
  demoRows ??= (() => {
    const parsed = parseListingCsv(Fs.readFileSync(new URL("demo-listings.csv", here), "utf8"))
    if (parsed.errors.length > 0) throw new Error(`demo-listings.csv: ${parsed.errors.join("; ")}`)
    return parsed.rows
  })()

const ADJECTIVES = [
  "amber",
  "bold",
  "calm",
  "daring",
  "eager",
  "fuzzy",
  "gentle",
  "happy",
  "icy",
  "jolly",
  "keen",
  "lucky"
]
const NOUNS = [
  "anchor",
  "badger",
  "comet",
  "delta",
  "falcon",
  "garden",
  "harbor",
  "island",
  "jigsaw",
  "kettle",
  "lemon",
  "meadow"
]
const TLDS = ["com", "net", "org", "io", "co", "dev", "app", "xyz"]

/** First 4 bytes of SHA-256 as an integer: a stable pseudo-random number per name. */
const hash = (s: string) => createHash("sha256").update(s).digest().readUInt32BE(0)

/**
 * 144 sandbox domains (`<adjective><noun>-sandbox.<tld>`), priced $250–$25,000 in $5 steps with
 * a floor at 60 %; every 7th is offer-only (no buy-now price), every 11th is locked (sale pending).
 * Then the sandbox registrar's failing deliveries (docs/fulfilment.md#sandbox), so they can be
 * tried from the docs: `locked-transferfail-sandbox.com` (refused for good) and
 * `wobbly-transferflaky-sandbox.com` (unreachable twice, then delivered), $2,500 each.
 */
export const sandboxListings: ReadonlyArray<ListingCsvRow & { readonly listedAt: Date }> = (() => {
  const rows: Array<ListingCsvRow & { listedAt: Date }> = []
  const epoch = Date.parse("2026-01-01T00:00:00.000Z")
  let i = 0
  for (const adjective of ADJECTIVES) {
    for (const noun of NOUNS) {
      const label = `${adjective}${noun}-sandbox`
      const h = hash(label)
      const tld = TLDS[h % TLDS.length]
      const bin = (250 + (h % 4_950) * 5) * 100
      const offerOnly = i % 7 === 3
      rows.push({
        domain: `${label}.${tld}`,
        domainUnicode: `${label}.${tld}`,
        tld,
        label,
        binPriceCents: offerOnly ? null : bin,
        floorPriceCents: Math.round((bin * 0.6) / 100) * 100,
        currency: "USD",
        status: i % 11 === 5 ? "pending" : "active",
        locked: i % 11 === 5,
        listedAt: new Date(epoch + (h % (90 * 24 * 3600)) * 1000),
        description: `Sandbox test domain (synthetic price)`
      })
      i++
    }
  }
  for (const label of ["locked-transferfail-sandbox", "wobbly-transferflaky-sandbox"]) {
    rows.push({
      domain: `${label}.com`,
      domainUnicode: `${label}.com`,
      tld: "com",
      label,
      binPriceCents: 250_000,
      floorPriceCents: 150_000,
      currency: "USD",
      status: "active",
      locked: false,
      listedAt: new Date(epoch),
      description: "Sandbox test domain: a delivery that fails (docs/fulfilment.md#sandbox)"
    })
  }
  return rows
})()
