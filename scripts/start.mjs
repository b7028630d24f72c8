/**
 * `npm start`: the service from its production build (`dist/main.js`), built first when anything
 * it is built from changed since. Why: the build is ready in about 1.6 s, the sources through tsx
 * in about 3.6 s, most of it transpiling and loading ~1,900 modules one by one on every start
 * (embedded database, migrations applied, 2026-11-28, load 2–3; issue 35). The build itself takes
 * about 3 s, once after each change. The build's own lines go to stderr: stdout stays the
 * service's JSON log. `npm run cli` still runs the sources (tsx).
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const entry = Path.join(root, "dist", "main.js")
/** What the build reads: a change to any of them (a file added or removed too) rebuilds. */
const INPUTS = ["src", "migrations", "scripts/build.mjs", "package.json", "package-lock.json"]

/** The newest modification time under `path` (a directory's own time changes when an entry comes or goes). */
const newest = (path) => {
  const stat = Fs.statSync(path, { throwIfNoEntry: false })
  if (stat === undefined) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = stat.mtimeMs
  for (const name of Fs.readdirSync(path)) latest = Math.max(latest, newest(Path.join(path, name)))
  return latest
}

const builtAt = Fs.statSync(entry, { throwIfNoEntry: false })?.mtimeMs ?? 0
if (INPUTS.some((input) => newest(Path.join(root, input)) > builtAt)) {
  execFileSync(process.execPath, [Path.join(root, "scripts", "build.mjs")], { stdio: ["ignore", 2, 2] })
}
// Stack traces name the sources (the build writes source maps).
process.setSourceMapsEnabled(true)
await import(pathToFileURL(entry).href)
