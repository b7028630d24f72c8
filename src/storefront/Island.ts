/**
 * The search island's script (client/search.ts) as a static asset of the storefront, served at
 * `/assets/search.<hash>.js`. The name carries a hash of the bytes, so a changed script is a new
 * URL and every answer can be cached for a year (`immutable`). Contract: the name changes
 * whenever the bytes do.
 *
 * Where the bytes come from: the production build bundles the island (scripts/build.mjs writes
 * `client/search.bundle.js` beside this module's compiled file); from sources (`npm start`, the
 * tests, the benchmarks' compiled tree) esbuild bundles it in memory, once, for the first page
 * that asks. If neither works the pages go without it (they work without JavaScript), with a warning.
 */
import { Effect, Option } from "effect"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"

export interface IslandAsset {
  /** `search.<hash>.js` */
  readonly file: string
  /** Where a page loads it from. */
  readonly src: string
  readonly code: Uint8Array
}

/** The bundle's options; scripts/build.mjs uses the same ones. */
export const ISLAND_BUILD = {
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  platform: "browser",
  legalComments: "none"
} as const

const beside = (relative: string) => fileURLToPath(new URL(relative, import.meta.url))

/** esbuild is a dev dependency: named here only for running from sources (production reads the built file). */
const ESBUILD = "esbuild"

const bundleNow = Effect.tryPromise(async () => {
  const entry = [beside("./client/search.ts"), beside("./client/search.js")].find((f) => Fs.existsSync(f))
  if (entry === undefined) throw new Error("client/search.ts is missing")
  const esbuild = await import(ESBUILD) as typeof import("esbuild")
  const out = await esbuild.build({ ...ISLAND_BUILD, entryPoints: [entry], write: false, logLevel: "silent" })
  return out.outputFiles[0]!.contents
})

const readBuilt = Effect.sync(() => {
  const built = beside("./client/search.bundle.js")
  return Fs.existsSync(built) ? Option.some(new Uint8Array(Fs.readFileSync(built))) : Option.none()
})

const load: Effect.Effect<Option.Option<IslandAsset>> = readBuilt.pipe(
  Effect.flatMap(Option.match({ onSome: Effect.succeed, onNone: () => bundleNow })),
  Effect.map((code) => {
    const file = `search.${createHash("sha256").update(code).digest("hex").slice(0, 16)}.js`
    return Option.some({ file, src: `/assets/${file}`, code })
  }),
  Effect.catchAll((e) =>
    Effect.as(
      Effect.logWarning("storefront: the search island is unavailable; pages work without it", e),
      Option.none()
    )
  )
)

export class SearchIsland extends Effect.Service<SearchIsland>()("storefront/SearchIsland", {
  effect: Effect.map(Effect.cached(load), (asset) => ({
    /** The island, bundled on first use. */
    asset,
    /** The `src` of the page's script, when there is an island. */
    src: Effect.map(asset, Option.match({ onNone: () => undefined, onSome: (a) => a.src }))
  }))
}) {}
