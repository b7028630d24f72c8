/**
 * The storefront's islands (client/<name>.ts: `search`, the as-you-type search; `bulk`, a bulk
 * job's live progress; `copy`, the copy buttons of the partner console) as static assets, served at `/assets/<name>.<hash>.js`. The name carries a
 * hash of the bytes, so a changed script is a new URL and every answer can be cached for a year
 * (`immutable`). Contract: the name changes whenever the bytes do.
 *
 * Where the bytes come from: the production build bundles each island (scripts/build.mjs writes
 * `client/<name>.bundle.js` beside this module's compiled file); from sources (`npm start`, the
 * tests, the benchmarks' compiled tree) esbuild bundles it in memory, once, for the first page
 * that asks. If neither works the pages go without it (they work without JavaScript), with a warning.
 */
import { Effect, Option } from "effect"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"

/** The islands there are (each is client/<name>.ts). */
export const ISLANDS = ["search", "bulk", "copy"] as const
export type IslandName = typeof ISLANDS[number]

export interface IslandAsset {
  /** `<name>.<hash>.js` */
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

const bundleNow = (name: IslandName) =>
  Effect.tryPromise(async () => {
    const entry = [beside(`./client/${name}.ts`), beside(`./client/${name}.js`)].find((f) => Fs.existsSync(f))
    if (entry === undefined) throw new Error(`client/${name}.ts is missing`)
    const esbuild = await import(ESBUILD) as typeof import("esbuild")
    const out = await esbuild.build({ ...ISLAND_BUILD, entryPoints: [entry], write: false, logLevel: "silent" })
    return out.outputFiles[0]!.contents
  })

const readBuilt = (name: IslandName) =>
  Effect.sync(() => {
    const built = beside(`./client/${name}.bundle.js`)
    return Fs.existsSync(built) ? Option.some(new Uint8Array(Fs.readFileSync(built))) : Option.none()
  })

const load = (name: IslandName): Effect.Effect<Option.Option<IslandAsset>> =>
  readBuilt(name).pipe(
    Effect.flatMap(Option.match({ onSome: Effect.succeed, onNone: () => bundleNow(name) })),
    Effect.map((code) => {
      const file = `${name}.${createHash("sha256").update(code).digest("hex").slice(0, 16)}.js`
      return Option.some({ file, src: `/assets/${file}`, code })
    }),
    Effect.catchAll((e) =>
      Effect.as(
        Effect.logWarning(`storefront: the ${name} island is unavailable; pages work without it`, e),
        Option.none()
      )
    )
  )

/** One island, bundled on first use, and the `src` of its script for a page (undefined without it). */
const island = (name: IslandName) =>
  Effect.map(Effect.cached(load(name)), (asset) => ({
    asset,
    src: Effect.map(asset, Option.match({ onNone: () => undefined, onSome: (a) => a.src }))
  }))

export class SearchIsland extends Effect.Service<SearchIsland>()("storefront/SearchIsland", {
  effect: island("search")
}) {}

export class BulkIsland extends Effect.Service<BulkIsland>()("storefront/BulkIsland", {
  effect: island("bulk")
}) {}

export class CopyIsland extends Effect.Service<CopyIsland>()("storefront/CopyIsland", {
  effect: island("copy")
}) {}
