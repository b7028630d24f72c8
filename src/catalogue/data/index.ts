/**
 * Bundled catalogue data, so the embedded default answers without registrar credentials:
 * - `tld-snapshot.json`: Realtime Register `GET /v2/tlds/{tld}/info` answers for the most
 *   registered TLDs (registry rules as published by the registries);
 * - `default-prices.csv`: retail prices in USD cents per TLD and operation.
 */
import { Schema } from "effect"
import * as Fs from "node:fs"
import { parsePriceCsv, type PriceRow } from "../PriceCsv.js"
import { RtrTldInfo } from "../RealtimeRegisterSchema.js"

const here = new URL(".", import.meta.url)

/** When the snapshot was taken: its rows report this as lastSyncedAt until a live sync. */
export const SNAPSHOT_TAKEN_AT = new Date("2026-11-01T00:00:00.000Z")

/** Read and decoded on first use (a CLI command that never needs it does not pay for it). */
let snapshotRows: ReadonlyArray<RtrTldInfo> | undefined
export const snapshot = (): ReadonlyArray<RtrTldInfo> =>
  snapshotRows ??= Schema.decodeUnknownSync(Schema.Array(RtrTldInfo))(
    JSON.parse(Fs.readFileSync(new URL("tld-snapshot.json", here), "utf8"))
  )

/** Parsed on first use. */
let priceRows: ReadonlyArray<PriceRow> | undefined
export const defaultPriceList = (): ReadonlyArray<PriceRow> =>
  priceRows ??= (() => {
    const parsed = parsePriceCsv(Fs.readFileSync(new URL("default-prices.csv", here), "utf8"))
    if (parsed.errors.length > 0) throw new Error(`default-prices.csv: ${parsed.errors.join("; ")}`)
    return parsed.rows
  })()
