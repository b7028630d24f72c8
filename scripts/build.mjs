/**
 * `npm run build`: compile `src/` and `migrations/` to `dist/` with tsc, copy the data files the
 * code reads at run time (`src/**\/data/*` that are not TypeScript) beside the compiled modules,
 * and write the two entry points `dist/main.js` (the service) and `dist/cli.js` (the operator CLI).
 * The result runs with plain `node`, no TypeScript loader: `node dist/main.js`.
 * `node scripts/build.mjs --out <dir>` builds elsewhere (the build test does).
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const outAt = process.argv.indexOf("--out")
const dist = outAt > 0 ? Path.resolve(process.argv[outAt + 1]) : Path.join(root, "dist")

Fs.rmSync(dist, { recursive: true, force: true })
execFileSync(process.execPath, [
  Path.join(root, "node_modules/typescript/bin/tsc"),
  "-p",
  "tsconfig.build.json",
  "--outDir",
  dist
], {
  cwd: root,
  stdio: "inherit"
})

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

Fs.writeFileSync(Path.join(dist, "main.js"), `import "./src/main.js"\n`)
Fs.writeFileSync(Path.join(dist, "cli.js"), `#!/usr/bin/env node\nimport "./src/cli.js"\n`, { mode: 0o755 })
console.log(`dist/ built: ${copied} data files copied; run \`node dist/main.js\` or \`node dist/cli.js --help\``)
