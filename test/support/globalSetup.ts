/**
 * Once per test run: the production build, as `npm start` builds it (`node scripts/built.mjs dir`:
 * `.build/<version>/dist`, built only when a source changed since the last build, so a run after
 * `npm start`, CI's second pass or a developer running one file again builds nothing). Tests that
 * start the service or the CLI as a process run it (test/support/BuiltApp.ts): loading the bundle
 * costs about a quarter of the CPU of loading the sources through tsx (1 s against 4 s for
 * `--help`), and there are a hundred such processes in a run. What they run is what the image runs.
 */
import { execFile } from "node:child_process"
import * as Path from "node:path"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** The build's directory: `dist/main.js`, `dist/cli.js` under it. */
    readonly builtApp: string
  }
}

export default async function setup(project: TestProject) {
  const root = Path.resolve(import.meta.dirname, "../..")
  const home = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [Path.join(root, "scripts/built.mjs"), "dir"],
      { cwd: root },
      (error, stdout, stderr) => (error ? reject(new Error(`build failed:\n${stderr}`)) : resolve(stdout.trim()))
    )
  )
  project.provide("builtApp", home)
}
