/**
 * `npm run bench [-- name ...]`: runs the named benchmarks (default: all), each writing its
 * figures to bench/results/<name>.md. Traffic stays on 127.0.0.1.
 */
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

const dir = import.meta.dirname
const all = Fs.readdirSync(dir).filter((f) => f.endsWith(".ts") && !["run.ts", "lib.ts"].includes(f)).map((f) => f.slice(0, -3))
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : all
for (const name of chosen) {
  if (!all.includes(name)) throw new Error(`unknown benchmark ${name}; have: ${all.join(", ")}`)
  console.log(`\n=== bench: ${name} ===`)
  const r = spawnSync(process.execPath, ["--import", "tsx", Path.join(dir, `${name}.ts`)], { stdio: "inherit" })
  if (r.status !== 0) process.exitCode = 1
}
