/** Operator commands of the catalogue: `tlds sync`, `prices import FILE`. */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { cliAction } from "../audit/Actor.js"
import { abort, json, print } from "../cli/Output.js"
import { Catalogue } from "./Catalogue.js"
import { parsePriceCsv } from "./PriceCsv.js"

const only = Options.text("tld").pipe(
  Options.repeated,
  Options.withDescription("Sync only this TLD (repeatable); default: every known TLD")
)

const tldsSync = Command.make("sync", { json, only }, ({ json, only }) =>
  Effect.gen(function*() {
    const catalogue = yield* Catalogue
    // Asks the registrar between its writes: recorded once it is done.
    const { prices, report } = yield* cliAction(
      {
        action: "tlds.sync",
        target: null,
        after: ({ prices, report }) => ({
          mode: report.mode,
          synced: report.synced.length,
          failed: report.failed.length,
          prices_updated: prices.updated
        }),
        transactional: false
      },
      Effect.gen(function*() {
        const report = yield* catalogue.syncTlds(only)
        const prices = report.mode === "live"
          ? yield* catalogue.syncPrices
          : { mode: report.mode, updated: 0, skipped: [] }
        return { report, prices }
      })
    )
    yield* print(
      json,
      { tlds: report, prices },
      report.mode === "sandbox"
        ? "No registrar configured (RTR_API_URL unset): the bundled snapshot is in use, nothing to sync."
        : `Synced ${report.synced.length} TLDs (${report.failed.length} failed), ${prices.updated} prices.` +
          report.failed.map((f) => `\n  ${f.tld}: ${f.reason}`).join("")
    )
    if (report.failed.length > 0 && report.synced.length === 0) return yield* abort("TLD sync failed")
  })).pipe(Command.withDescription("Re-sync TLD metadata and the price list from the registrar (Realtime Register)"))

export const tldsCommand = Command.make("tlds").pipe(
  Command.withDescription("TLD registry data"),
  Command.withSubcommands([tldsSync])
)

const file = Args.file({ name: "FILE", exists: "yes" }).pipe(Args.withDescription("CSV with header tld,op,price_cents"))

const pricesImport = Command.make("import", { json, file }, ({ file, json }) =>
  Effect.gen(function*() {
    const parsed = parsePriceCsv(Fs.readFileSync(file, "utf8"))
    if (parsed.errors.length > 0) {
      return yield* abort(`Nothing imported; fix these lines first:\n  ${parsed.errors.join("\n  ")}`)
    }
    const catalogue = yield* Catalogue
    const count = yield* cliAction(
      { action: "prices.import", target: Path.basename(file), after: (imported) => ({ imported }) },
      catalogue.importPrices(parsed.rows)
    )
    yield* print(json, { imported: count }, `Imported ${count} prices.`)
  })).pipe(Command.withDescription("Import a price list (CSV tld,op,price_cents; USD cents per year)"))

export const pricesCommand = Command.make("prices").pipe(
  Command.withDescription("Retail price list"),
  Command.withSubcommands([pricesImport])
)
