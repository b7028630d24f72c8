/**
 * `npm start` (`node scripts/built.mjs main`) and `npm run cli` (`… cli`): the service or the
 * operator CLI from a production build, built first when anything it is built from changed.
 *
 * Why: from the build the service is ready in about 1.6 s and `cli --help` answers in 0.45 s; from
 * the sources through tsx, 3.6 s and 2.1 s, most of it transpiling and loading ~1,900 modules one
 * by one on every run (embedded database, migrations applied, 2026-11-28, load 2–3; issue 35). A
 * build takes about 3 s, once after each change.
 *
 * Each build has its own directory, `.build/<inputs' newest mtime>/dist`, written under a
 * temporary name and renamed into place: a process still running an older build keeps its files
 * (the bundles load chunks lazily), and two processes that both find the build stale (two
 * replicas, a CLI beside the service) each build, the first rename wins and the other uses it.
 * The newest few builds are kept. The build's own lines go to stderr: stdout stays the service's
 * JSON log or the CLI's answer.
 *
 * `node scripts/built.mjs dir` builds the same way when needed and prints the build's directory
 * (its `dist/` inside): the tests' processes run that build (test/support/globalSetup.ts), so a
 * test run after `npm start`, or CI's second pass, builds nothing.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const ENTRIES = { main: "main.js", cli: "cli.js" }
/** What the build reads: a change to any of them (a file added or removed too) is a new build. */
const INPUTS = ["src", "migrations", "docs", "scripts/build.mjs", "package.json", "package-lock.json"]
const KEEP = 3

const which = process.argv[2]
const file = which === "dir" ? ENTRIES.main : ENTRIES[which]
if (file === undefined) {
  process.stderr.write(`usage: node scripts/built.mjs ${Object.keys(ENTRIES).join("|")} [arguments] | dir\n`)
  process.exit(2)
}
// The entry sees its own arguments, as when run as `node dist/<file> …`.
process.argv.splice(2, 1)

/** The newest modification time under `path` (a directory's own time changes when an entry comes or goes). */
const newest = (path) => {
  const stat = Fs.statSync(path, { throwIfNoEntry: false })
  if (stat === undefined) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = stat.mtimeMs
  for (const name of Fs.readdirSync(path)) latest = Math.max(latest, newest(Path.join(path, name)))
  return latest
}

const builds = Path.join(root, ".build")
const version = String(Math.floor(Math.max(...INPUTS.map((input) => newest(Path.join(root, input))))))
const home = Path.join(builds, version)
if (!Fs.existsSync(Path.join(home, "dist", file))) {
  const next = Path.join(builds, `${version}.tmp-${process.pid}`)
  execFileSync(process.execPath, [Path.join(root, "scripts", "build.mjs"), "--out", Path.join(next, "dist")], {
    stdio: ["ignore", 2, 2]
  })
  try {
    Fs.renameSync(next, home)
  } catch {
    // Another process's build of the same inputs got there first: use it.
    Fs.rmSync(next, { recursive: true, force: true })
  }
  const old = Fs.readdirSync(builds).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a))
  for (const name of old.slice(KEEP)) Fs.rmSync(Path.join(builds, name), { recursive: true, force: true })
}
if (which === "dir") {
  process.stdout.write(`${home}\n`)
} else {
  // Stack traces name the sources (the build writes source maps).
  process.setSourceMapsEnabled(true)
  await import(pathToFileURL(Path.join(home, "dist", file)).href)
}
