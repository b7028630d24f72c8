/** Operator commands of the marketplace: `listings import FILE [--env live|sandbox]`. */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { cliAction } from "../audit/Actor.js"
import { abort, json, print } from "../cli/Output.js"
import { LISTING_CSV_COLUMNS, parseListingCsv } from "./ListingCsv.js"
import { Market } from "./Market.js"

const file = Args.file({ name: "FILE", exists: "yes" }).pipe(
  Args.withDescription(
    `CSV with a header; columns ${LISTING_CSV_COLUMNS.join(", ")} (only domain required; prices in USD cents)`
  )
)

const env = Options.choice("env", ["live", "sandbox"]).pipe(
  Options.withDefault("live" as const),
  Options.withDescription("Inventory to import into (default live)")
)

const listingsImport = Command.make("import", { json, file, env }, ({ env, file, json }) =>
  Effect.gen(function*() {
    const parsed = parseListingCsv(Fs.readFileSync(file, "utf8"))
    if (parsed.errors.length > 0) {
      return yield* abort(`Nothing imported; fix these lines first:\n  ${parsed.errors.join("\n  ")}`)
    }
    const market = yield* Market
    const imported = yield* cliAction(
      { action: "listings.import", target: Path.basename(file), after: (n) => ({ imported: n, environment: env }) },
      market.importListings(parsed.rows, env)
    )
    yield* print(json, { imported, environment: env }, `Imported ${imported} listings into the ${env} inventory.`)
  })).pipe(
    Command.withDescription(
      "Import marketplace listings from a CSV file (insert or update by domain; an existing listing keeps its id and listing time)"
    )
  )

export const listingsCommand = Command.make("listings").pipe(
  Command.withDescription("Marketplace inventory"),
  Command.withSubcommands([listingsImport])
)
