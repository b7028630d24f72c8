/**
 * `npm run build`: the service and the operator CLI as two bundles, `dist/main.js` and
 * `dist/cli.js` (with the chunks they import on first use, `dist/<name>-<hash>.js`), beside
 * `dist/src/` and `dist/migrations/` (every module compiled on its own: the migrations, loaded by
 * file at run time, and what they import) and the data files the code
 * reads at run time (`src/**\/data/*` that are not TypeScript). The result runs with plain `node`,
 * no TypeScript loader: `node dist/main.js`. `node scripts/build.mjs --out <dir>` builds elsewhere
 * (the build and chaos tests do).
 *
 * Why bundles: start-up. Loading ~1,900 modules one file at a time cost more CPU than everything
 * else a start does (4.2–4.6 s of CPU to /readyz compiled file by file, 2.5–2.9 s bundled, on
 * PostgreSQL, measured in one run). A module that finds its files through `import.meta.url` is
 * given its own compiled path (`module-urls` below), so it finds them under `dist/src/` as before.
 * Packages that load files of their own at run time stay outside the bundle (EXTERNAL), as do the
 * migrations. Only production dependencies may be bundled (checked below).
 *
 * The storefront's islands (src/storefront/client/search.ts, bulk.ts and copy.ts) are bundled for the browser
 * into `dist/src/storefront/client/<name>.bundle.js`, where src/storefront/Island.ts reads them (from
 * sources it bundles each island itself, with the same options: ISLAND_BUILD there).
 *
 * Each file is transpiled on its own by esbuild (the project is `isolatedModules`, so a file
 * needs nothing of the others); type-checking is `npx tsc --noEmit` (CI runs it), not the build's job.
 */
import { build, transform } from "esbuild"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const outAt = process.argv.indexOf("--out")
const dist = outAt > 0 ? Path.resolve(process.argv[outAt + 1]) : Path.join(root, "dist")

Fs.rmSync(dist, { recursive: true, force: true })

const sources = (dir) =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = Path.join(dir, e.name)
    return e.isDirectory() ? sources(path) : /\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name) ? [path] : []
  })

let compiled = 0
await Promise.all([...sources(Path.join(root, "src")), ...sources(Path.join(root, "migrations"))].map(async (from) => {
  const relative = Path.relative(root, from)
  const to = Path.join(dist, relative.replace(/\.ts$/, ".js"))
  const out = await transform(Fs.readFileSync(from, "utf8"), {
    loader: "ts",
    format: "esm",
    target: "es2022",
    platform: "node",
    sourcemap: "external",
    sourcefile: Path.relative(Path.dirname(to), from),
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: false, useDefineForClassFields: true } }
  })
  Fs.mkdirSync(Path.dirname(to), { recursive: true })
  Fs.writeFileSync(to, `${out.code}//# sourceMappingURL=${Path.basename(to)}.map\n`)
  Fs.writeFileSync(`${to}.map`, out.map)
  compiled++
}))

let copied = 0
const copyData = (dir) => {
  for (const entry of Fs.readdirSync(dir, { withFileTypes: true })) {
    const from = Path.join(dir, entry.name)
    if (entry.isDirectory()) copyData(from)
    else if (Path.basename(dir) === "data" && !/\.ts$/.test(entry.name)) {
      const to = Path.join(dist, Path.relative(root, from))
      Fs.mkdirSync(Path.dirname(to), { recursive: true })
      Fs.copyFileSync(from, to)
      copied++
    }
  }
}
copyData(Path.join(root, "src"))

/**
 * The user-facing Markdown pages of docs/, served at /docs/<page>.md, as MCP resources and in
 * /llms.txt (src/mcp/Docs.ts reads them beside the build, so the build carries them wherever it
 * runs: dist/, `npm start`'s .build/<version>/dist, the image). The internal pages stay out.
 */
// The same pages as src/mcp/Docs.ts INTERNAL_PAGES (test/app/build.test.ts holds them equal).
const INTERNAL_DOCS = new Set(["architecture.md", "operations.md"])
Fs.mkdirSync(Path.join(dist, "docs"), { recursive: true })
for (const name of Fs.readdirSync(Path.join(root, "docs"))) {
  if (name.endsWith(".md") && !INTERNAL_DOCS.has(name)) {
    Fs.copyFileSync(Path.join(root, "docs", name), Path.join(dist, "docs", name))
    copied++
  }
}

/** PGlite reads its WebAssembly and data files beside its modules; pg-native is optional. */
const EXTERNAL = ["@electric-sql/*", "pg-native"]
const moduleUrls = {
  name: "module-urls",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      let text = await Fs.promises.readFile(args.path, "utf8")
      if (text.includes("import.meta.url")) {
        const compiled = "./" + Path.relative(root, args.path).replace(/\.ts$/, ".js").split(Path.sep).join("/")
        text = text.replaceAll("import.meta.url", `new URL(${JSON.stringify(compiled)}, import.meta.url).href`)
      }
      return { contents: text, loader: "ts" }
    })
  }
}
const pkg = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
const bundle = async (entry, out, banner = "") => {
  const result = await build({
    entryPoints: { [out.replace(/\.js$/, "")]: Path.join(root, entry) },
    // Split: what a module imports dynamically (`await import(...)`: the MCP SDK, OpenTelemetry,
    // a CLI command's services) becomes a chunk loaded on first use, not at start-up (issue 35
    // item 6, issue 36 item 8). Chunks sit beside the entry in dist/, so the compiled paths that
    // `module-urls` gives `import.meta.url` resolve the same from a chunk as from the entry.
    outdir: dist,
    splitting: true,
    chunkNames: "[name]-[hash]",
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: EXTERNAL,
    // CommonJS dependencies call `require`, which an ES module does not have.
    banner: {
      js:
        `${banner}import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);`
    },
    plugins: [moduleUrls],
    sourcemap: "linked",
    metafile: true,
    logLevel: "warning"
  })
  // What our own modules import must be a production dependency (what those packages import
  // in turn is theirs to declare).
  const packageOf = (path) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1]
  const direct = [
    ...new Set(
      Object.entries(result.metafile.inputs).flatMap(([input, { imports }]) =>
        packageOf(input) === undefined ? imports.flatMap((i) => packageOf(i.path) ?? []) : []
      )
    )
  ].filter((p) => !(p in pkg.dependencies))
  if (direct.length > 0) {
    throw new Error(`${out}: src/ imports packages that are not production dependencies: ${direct.join(", ")}`)
  }
}
await Promise.all([
  bundle("src/main.ts", "main.js"),
  bundle("src/cli.ts", "cli.js", "#!/usr/bin/env node\n"),
  ...["search", "bulk", "copy"].map((island) =>
    build({
      // ISLAND_BUILD of src/storefront/Island.ts
      bundle: true,
      minify: true,
      format: "iife",
      target: "es2020",
      platform: "browser",
      legalComments: "none",
      entryPoints: [Path.join(root, `src/storefront/client/${island}.ts`)],
      outfile: Path.join(dist, `src/storefront/client/${island}.bundle.js`),
      logLevel: "warning"
    })
  )
])
Fs.chmodSync(Path.join(dist, "cli.js"), 0o755)
console.log(
  `dist/ built: ${compiled} modules, ${copied} data files copied; run \`node dist/main.js\` or \`node dist/cli.js --help\``
)
