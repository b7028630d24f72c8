/**
 * The production build (`scripts/build.mjs`) laid out as the image's /app (package.json,
 * node_modules, dist/). Tests that start the service or the CLI as a process run it
 * (test/support/BuiltApp.ts): loading the bundle costs about a quarter of the CPU of loading the
 * sources through tsx (1 s against 4 s for `--help`), and there are a hundred such processes in a
 * run. What they run is what the image runs.
 *
 * A build is kept under `<tmpdir>/marketplace-built-app/<fingerprint>/`, the fingerprint being
 * that of the checkout's path and of everything the build reads (src/, migrations/,
 * scripts/build.mjs, package.json, package-lock.json): a run whose sources did not change since
 * the last one (CI's second pass, a developer running one file again) uses it instead of building
 * again. A build is written under a temporary name and renamed, so a run never uses half of one;
 * builds of other fingerprints older than a day are removed.
 */
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** The root of the built app: `dist/main.js`, `dist/cli.js` under it. */
    readonly builtApp: string
  }
}

/** Every file under `path` (a file or a folder), sorted. */
const filesOf = (path: string): ReadonlyArray<string> =>
  Fs.statSync(path).isDirectory()
    ? Fs.readdirSync(path).sort().flatMap((name) => filesOf(Path.join(path, name)))
    : [path]

const fingerprintOf = (root: string) => {
  const hash = createHash("sha256").update(root)
  for (const input of ["src", "migrations", "scripts/build.mjs", "package.json", "package-lock.json"]) {
    const path = Path.join(root, input)
    if (!Fs.existsSync(path)) continue
    for (const file of filesOf(path)) hash.update(Path.relative(root, file)).update("\0").update(Fs.readFileSync(file))
  }
  return hash.digest("hex").slice(0, 20)
}

const build = (root: string, app: string) =>
  new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      [Path.join(root, "scripts/build.mjs"), "--out", Path.join(app, "dist")],
      { cwd: root },
      (error, stdout, stderr) => (error ? reject(new Error(`build failed:\n${stdout}${stderr}`)) : resolve())
    )
  )

export default async function setup(project: TestProject) {
  const root = Path.resolve(import.meta.dirname, "../..")
  const cache = Path.join(Os.tmpdir(), "marketplace-built-app")
  const fingerprint = fingerprintOf(root)
  const app = Path.join(cache, fingerprint)
  if (!Fs.existsSync(app)) {
    const partial = `${app}.${process.pid}.partial`
    Fs.rmSync(partial, { recursive: true, force: true })
    Fs.mkdirSync(partial, { recursive: true })
    try {
      await build(root, partial)
      Fs.copyFileSync(Path.join(root, "package.json"), Path.join(partial, "package.json"))
      Fs.symlinkSync(Path.join(root, "node_modules"), Path.join(partial, "node_modules"))
      try {
        Fs.renameSync(partial, app)
      } catch (error) {
        // Another run finished the same build meanwhile: its copy is used.
        if (!Fs.existsSync(app)) throw error
      }
    } finally {
      Fs.rmSync(partial, { recursive: true, force: true })
    }
  }
  const dayAgo = Date.now() - 86_400_000
  for (const name of Fs.readdirSync(cache)) {
    const other = Path.join(cache, name)
    if (name !== fingerprint && Fs.statSync(other).mtimeMs < dayAgo) Fs.rmSync(other, { recursive: true, force: true })
  }
  Fs.utimesSync(app, new Date(), new Date())
  project.provide("builtApp", app)
}
