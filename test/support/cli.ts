/** Runs the operator CLI (the production build of this run, `dist/cli.js`) as a separate process against a database URL. */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { cliEntry } from "./BuiltApp.js"
import { withBaseEnv } from "./TestServer.js"

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export const runCli = (
  databaseUrl: string,
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  entry: ReadonlyArray<string> = cliEntry()
) => runCliWith({ DATABASE_URL: databaseUrl, ...env }, args, entry)

/** The CLI against a database URL with `input` on its stdin (e.g. `--password-stdin`). */
export const runCliWithStdin = (databaseUrl: string, args: ReadonlyArray<string>, input: string) =>
  runCliWith({ DATABASE_URL: databaseUrl }, args, cliEntry(), input)

/** The CLI with this environment; a variable set to undefined is removed (e.g. DATABASE_URL, for DATA_DIR). */
export const runCliWith = (
  env: Record<string, string | undefined>,
  args: ReadonlyArray<string>,
  entry: ReadonlyArray<string> = cliEntry(),
  /** Written to the CLI's stdin, then closed (stdin is closed at once without it). */
  input?: string
) =>
  Effect.async<CliResult>((resume) => {
    const full: Record<string, string | undefined> = { ...process.env, ...withBaseEnv({ LOG_LEVEL: "warn", ...env }) }
    for (const [k, v] of Object.entries(full)) if (v === undefined) delete full[k]
    const child = spawn(process.execPath, [...entry, ...args], {
      env: full,
      stdio: ["pipe", "pipe", "pipe"]
    })
    child.stdin.end(input ?? "")
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.once("exit", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })
