/**
 * Completes package-lock.json with the platform-specific optional packages (esbuild, rollup,
 * msgpackr-extract, …) that npm leaves out when the lock is written on one platform, so that
 * `npm ci` works on Linux, macOS and Windows alike. Run it after any `npm install` that rewrites
 * the lock: `node scripts/lock-platforms.mjs`. It only adds entries; it never changes a version.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const lockPath = Path.join(root, "package-lock.json")
const lock = JSON.parse(Fs.readFileSync(lockPath, "utf8"))
const packages = lock.packages

const view = (spec) => {
  try {
    return JSON.parse(
      execFileSync("npm", ["view", spec, "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
    )
  } catch {
    return undefined // not on this registry (a mirror may carry only some platforms)
  }
}

// The platform a package is for, from its name (`…-darwin-arm64`, `…-linux-x64-gnu`, `…-win32-x64-msvc`).
const OS = ["aix", "android", "darwin", "freebsd", "linux", "netbsd", "openbsd", "openharmony", "sunos", "win32"]
const CPU = ["arm64", "arm", "ia32", "loong64", "mips64el", "ppc64", "riscv64", "s390x", "x64", "wasm32"]
const platformOf = (name) => {
  const parts = name.split("/").pop().split("-")
  const os = parts.find((p) => OS.includes(p))
  const cpu = parts.find((p) => CPU.includes(p)) ??
    (parts.includes("eabi") || parts.includes("gnueabihf") ? "arm" : undefined)
  const libc = parts.includes("musl")
    ? "musl"
    : parts.includes("gnu") || parts.includes("gnueabihf")
    ? "glibc"
    : undefined
  return os && cpu ? { os: [os], cpu: [cpu], ...(libc ? { libc: [libc] } : {}) } : undefined
}

// Where npm would look for `name` from the package at `from`: its own node_modules, then upwards.
const locate = (from, name) => {
  let dir = from
  for (;;) {
    const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`
    if (packages[candidate]) return candidate
    if (dir === "") return undefined
    const cut = dir.lastIndexOf("/node_modules/")
    dir = cut < 0 ? "" : dir.slice(0, cut)
  }
}

let added = 0
for (const [path, pkg] of Object.entries(packages)) {
  if (path === "" || !pkg.optionalDependencies) continue
  for (const [name, range] of Object.entries(pkg.optionalDependencies)) {
    if (locate(path, name)) continue
    const found = view(`${name}@${range}`)
    let meta = Array.isArray(found) ? found[found.length - 1] : found
    if (!meta) {
      const platform = platformOf(name)
      if (!/^\d+\.\d+\.\d+$/.test(range) || !platform) {
        console.warn(`skipped ${name}@${range}: not on this registry and not a pinned platform package`)
        continue
      }
      meta = { version: range, ...platform }
    }
    const entry = { version: meta.version }
    if (meta.dist?.integrity) entry.integrity = meta.dist.integrity
    if (pkg.dev) entry.dev = true
    entry.optional = true
    for (const key of ["cpu", "os", "libc", "engines", "license"]) if (meta[key]) entry[key] = meta[key]
    // Beside the package that wants it when that one is nested, else at the top.
    const at = path.includes("/node_modules/") || packages[`node_modules/${name}`]
      ? `${path}/node_modules/${name}`
      : `node_modules/${name}`
    packages[at] = entry
    added++
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b)))
)
lock.packages = sorted
Fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + "\n")
console.log(`package-lock.json: ${added} platform packages added`)
