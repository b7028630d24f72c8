/**
 * Once per test run: the production build (`scripts/build.mjs`) laid out as the image's /app
 * (package.json, node_modules, dist/), in a temporary folder removed afterwards. Tests that start
 * the service or the CLI as a process run it (test/support/BuiltApp.ts): loading the bundle costs
 * about a quarter of the CPU of loading the sources through tsx (1 s against 4 s for `--help`),
 * and there are a hundred such processes in a run. What they run is what the image runs.
 */
import { execFile } from "node:child_process"
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

export default async function setup(project: TestProject) {
  const root = Path.resolve(import.meta.dirname, "../..")
  const app = Fs.mkdtempSync(Path.join(Os.tmpdir(), "app-build-"))
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      [Path.join(root, "scripts/build.mjs"), "--out", Path.join(app, "dist")],
      { cwd: root },
      (error, stdout, stderr) => (error ? reject(new Error(`build failed:\n${stdout}${stderr}`)) : resolve())
    )
  )
  Fs.copyFileSync(Path.join(root, "package.json"), Path.join(app, "package.json"))
  Fs.symlinkSync(Path.join(root, "node_modules"), Path.join(app, "node_modules"))
  project.provide("builtApp", app)
  return () => Fs.rmSync(app, { recursive: true, force: true })
}
