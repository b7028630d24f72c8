/** Runs the operator CLI (`tsx src/cli.ts …`) as a separate process against a database URL. */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { baseEnv } from "./TestServer.js"

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** How to start the CLI: from source through tsx (default), or the compiled `dist/cli.js`. */
export const sourceCli: ReadonlyArray<string> = ["--import", "tsx", "src/cli.ts"]

export const runCli = (
  databaseUrl: string,
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  entry: ReadonlyArray<string> = sourceCli
) =>
  Effect.async<CliResult>((resume) => {
    const child = spawn(process.execPath, [...entry, ...args], {
      env: { ...process.env, ...baseEnv, LOG_LEVEL: "warn", DATABASE_URL: databaseUrl, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.once("exit", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })
