/**
 * The service as a separate OS process (the production build of this run, `dist/main.js`), for
 * multi-replica, shutdown and crash tests.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as Path from "node:path"
import { builtApp, mainEntry } from "./BuiltApp.js"
import { freePort } from "./FreePort.js"
import { withBaseEnv } from "./TestServer.js"

export { freePort }

export interface ServiceProcess {
  readonly baseUrl: string
  readonly child: ChildProcess
  /** Everything the process printed so far. */
  readonly output: () => string
}

/** Starts the service and waits until /readyz answers; stops it (SIGTERM) when the scope closes. */
export const startServiceProcess = (
  /** Overrides the test environment; a variable set to undefined is removed (DATABASE_URL, for DATA_DIR). */
  env: Record<string, string | undefined>,
  entry: ReadonlyArray<string> = mainEntry(),
  options?: {
    readonly readyWithinMs?: number
    /** The `node` binary (default: the one running the tests). */
    readonly node?: string
  }
) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const port = yield* freePort()
      let output = ""
      const child = spawn(options?.node ?? process.execPath, [...entry], {
        // BASE_URL: vitest puts its own (`/`) into process.env; the service's is its real address.
        env: {
          ...process.env,
          ...withBaseEnv({ LOG_LEVEL: "info", BASE_URL: `http://127.0.0.1:${port}`, ...env }),
          PORT: String(port)
        },
        stdio: ["ignore", "pipe", "pipe"]
      })
      child.stdout!.on("data", (d) => (output += d))
      child.stderr!.on("data", (d) => (output += d))
      const baseUrl = `http://127.0.0.1:${port}`
      // Up to ~90 s by default: two processes compiling and migrating at once on a loaded 2-core
      // machine need it; a fresh embedded DATA_DIR (initdb plus migrations) may ask for more.
      const deadline = Date.now() + (options?.readyWithinMs ?? 90_000)
      for (let i = 0; i < 900 || Date.now() < deadline; i++) {
        if (child.exitCode !== null) return yield* Effect.dieMessage(`service exited early:\n${output}`)
        const ok = yield* Effect.promise(() => fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false))
        if (ok) return { baseUrl, child, output: () => output } satisfies ServiceProcess
        yield* Effect.sleep("100 millis")
      }
      child.kill("SIGKILL")
      return yield* Effect.dieMessage(`service did not become ready:\n${output}`)
    }),
    ({ child }) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
        setTimeout(() => child.kill("SIGKILL"), 10_000).unref()
      })
  )

/**
 * Runs the service until it exits by itself (a start-up refusal) or `withinMs` passes (then it is
 * killed and `code` is null). A variable set to undefined is removed (e.g. DATABASE_URL).
 */
export const runServiceToExit = (
  env: Record<string, string | undefined>,
  options?: { readonly withinMs?: number; readonly entry?: ReadonlyArray<string> }
) =>
  Effect.async<{ readonly code: number | null; readonly output: string }>((resume) => {
    const full: Record<string, string | undefined> = { ...process.env, ...withBaseEnv({ PORT: "0", ...env }) }
    for (const [k, v] of Object.entries(full)) if (v === undefined) delete full[k]
    const child = spawn(process.execPath, [...(options?.entry ?? mainEntry())], {
      env: full as Record<string, string>,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout!.on("data", (d) => (output += d))
    child.stderr!.on("data", (d) => (output += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), options?.withinMs ?? 60_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resume(Effect.succeed({ code, output }))
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      child.kill("SIGKILL")
    })
  })

/** The production build of this run, laid out as the image's /app (test/support/globalSetup.ts). */
export const buildApp = (): Promise<string> => Promise.resolve(builtApp())

/** The built entry `file` of the production build (`main.js`, `cli.js`), as node arguments. */
export const builtEntry = (file: string) =>
  Effect.sync(() => [Path.join(builtApp(), "dist", file)] as ReadonlyArray<string>)

/** The non-empty lines of an output. */
const linesOf = (output: string) => output.split("\n").map((l) => l.trim()).filter((l) => l !== "")

/** A service that stopped at start-up printed exactly one JSON log record at ERROR: its message. */
export const onlyErrorRecord = (output: string): string => {
  const lines = linesOf(output)
  expect(lines, output).toHaveLength(1)
  const record = JSON.parse(lines[0]!)
  expect(record.logLevel, output).toBe("ERROR")
  expect(typeof record.message, output).toBe("string")
  return record.message as string
}

/** The CLI stopped with exactly one plain line (not a JSON record) on stdout and stderr together. */
export const onlyPlainLine = (output: string): string => {
  const lines = linesOf(output)
  expect(lines, output).toHaveLength(1)
  expect(lines[0]!.startsWith("{"), output).toBe(false)
  return lines[0]!
}
