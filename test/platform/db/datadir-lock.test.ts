/**
 * One embedded DATA_DIR, one process: the service locks it; the CLI run beside a running service
 * joins that service's database (a write it reports is a write the service sees and that survives
 * a restart); a second service on the same DATA_DIR refuses to start; a dead process's lock is
 * taken over. Embedded database only (skipped when DATABASE_URL is set).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { socketPathOf } from "../../../src/platform/db/DataDirLock.js"
import { mainEntry } from "../../support/BuiltApp.js"
import { runCliWith } from "../../support/cli.js"
import { signed } from "../../support/PartnerKit.js"
import { freePort, startServiceProcess } from "../../support/ServiceProcess.js"
import * as TestServer from "../../support/TestServer.js"

const embeddedOnly = process.env.DATABASE_URL ? describe.skip : describe

const on = (baseUrl: string) =>
  Layer.succeed(TestServer.TestServer, { baseUrl, port: Number(new URL(baseUrl).port), databaseUrl: undefined })

/** Starts a second service on the DATA_DIR and waits for it to exit. */
const secondService = (dataDir: string) =>
  Effect.flatMap(freePort(), (port) =>
    Effect.async<{ code: number | null; output: string }>((resume) => {
      const child = spawn(process.execPath, [...mainEntry()], {
        env: { ...process.env, ...TestServer.baseEnv, PORT: String(port), DATA_DIR: dataDir },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout!.on("data", (d) => (output += d))
      child.stderr!.on("data", (d) => (output += d))
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
      child.once("exit", (code) => {
        clearTimeout(timer)
        resume(Effect.succeed({ code, output }))
      })
      return Effect.sync(() => child.kill("SIGKILL"))
    }))

/** A process that took the lock's socket and was killed with SIGKILL: the socket file stays behind. */
const deadHolder = (dataDir: string) =>
  Effect.async<void>((resume) => {
    const child = spawn(process.execPath, [
      "-e",
      `require("net").createServer().listen(${JSON.stringify(socketPathOf(dataDir))}, () => process.stdout.write("up"))`
    ], { stdio: ["ignore", "pipe", "inherit"] })
    child.stdout!.once("data", () => child.kill("SIGKILL"))
    child.once("exit", () => resume(Effect.void))
  })

/** `node dist/main.js` as pid 1 of a new pid namespace (as under tini in the image); resolves once ready. */
const serviceInPidNamespace = (dataDir: string) =>
  Effect.flatMap(
    freePort(),
    (port) =>
      Effect.async<{ readonly kill9: () => Promise<void>; readonly output: () => string }>((resume) => {
        const child = spawn("unshare", [
          "-pf",
          "--mount-proc",
          "--kill-child",
          process.execPath,
          ...mainEntry()
        ], {
          env: { ...process.env, ...TestServer.baseEnv, PORT: String(port), DATA_DIR: dataDir },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let output = ""
        child.stdout!.on("data", (d) => (output += d))
        child.stderr!.on("data", (d) => (output += d))
        const exited = new Promise<void>((ok) => child.once("exit", () => ok()))
        // kill -9 of the node process: pid 1 of its namespace, whose death ends the namespace.
        const kill9 = async () => {
          const inner = spawnSync("pgrep", ["-P", String(child.pid)]).stdout.toString().trim()
          if (inner) process.kill(Number(inner), "SIGKILL")
          await exited
        }
        const deadline = Date.now() + 150_000
        const poll = async () => {
          while (Date.now() < deadline) {
            if (child.exitCode !== null) return resume(Effect.dieMessage(`service exited early:\n${output}`))
            if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)) {
              return resume(Effect.succeed({ kill9, output: () => output }))
            }
            await new Promise((ok) => setTimeout(ok, 100))
          }
          child.kill("SIGKILL")
          resume(Effect.dieMessage(`service did not become ready:\n${output}`))
        }
        void poll()
        return Effect.promise(() => {
          child.kill("SIGKILL")
          return exited
        })
      })
  )

const canUnshare = spawnSync("unshare", ["-pf", "--mount-proc", "true"]).status === 0

embeddedOnly("an embedded DATA_DIR", () => {
  it.live(
    "the CLI beside a running service writes into its database; a second service refuses; stale locks are taken over",
    () =>
      Effect.gen(function*() {
        const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "datadir-lock-"))
        const env = { DATA_DIR: dataDir, DATABASE_URL: undefined }
        const create = (name: string) =>
          runCliWith(env, ["partner", "create", "--name", name, "--env", "sandbox", "--scopes", "search,buy", "--json"])
        const works = (cred: any, baseUrl: string) =>
          Effect.map(
            Effect.provide(
              signed({ ...cred, environment: "sandbox", scopes: ["search", "buy"] }, "GET", "/api/partner/v1/orders"),
              on(baseUrl)
            ),
            (r) => r.status
          )

        const cred = yield* Effect.scoped(Effect.gen(function*() {
          const service = yield* startServiceProcess({ DATA_DIR: dataDir }, undefined, { readyWithinMs: 150_000 })
          const lock = JSON.parse(Fs.readFileSync(Path.join(dataDir, "embedded.lock"), "utf8"))
          expect(lock).toMatchObject({ pid: service.child.pid, host: "127.0.0.1", port: expect.any(Number) })

          const created = yield* create("Beside the service")
          expect(created.code, created.stderr).toBe(0)
          const cred = JSON.parse(created.stdout)
          // The running service sees the key at once: same database.
          expect(yield* works(cred, service.baseUrl)).toBe(200)

          const second = yield* secondService(dataDir)
          expect(second.code).not.toBe(0)
          expect(second.output).toContain(`is in use by process ${service.child.pid}`)
          // The refused second service left the lock to its owner.
          expect(JSON.parse(Fs.readFileSync(Path.join(dataDir, "embedded.lock"), "utf8")).pid).toBe(service.child.pid)
          return cred
        }))
        // Stopped cleanly: the lock is released.
        expect(Fs.existsSync(Path.join(dataDir, "embedded.lock"))).toBe(false)

        // A lock left by a dead process (kill -9): its socket file stays, nobody listens on it; the
        // record names a pid that is alive (ours: a reused pid, or the same pid in a container), which
        // proves nothing. The next process takes the lock over.
        yield* deadHolder(dataDir)
        Fs.writeFileSync(
          Path.join(dataDir, "embedded.lock"),
          JSON.stringify({ pid: process.pid, host: "127.0.0.1", port: 1, since: "" })
        )
        expect(Fs.existsSync(socketPathOf(dataDir))).toBe(true)
        const alone = yield* create("Without a service")
        expect(alone.code, alone.stderr).toBe(0)
        const cred2 = JSON.parse(alone.stdout)

        // After a restart, both writes are there.
        yield* Effect.scoped(Effect.gen(function*() {
          const service = yield* startServiceProcess({ DATA_DIR: dataDir }, undefined, { readyWithinMs: 150_000 })
          expect(yield* works(cred, service.baseUrl)).toBe(200)
          expect(yield* works(cred2, service.baseUrl)).toBe(200)
        }))
        Fs.rmSync(dataDir, { recursive: true, force: true })
      }),
    600_000
  )

  it.live.skipIf(!canUnshare)(
    "after kill -9 of the service as pid 1 of a pid namespace, the next start on the same DATA_DIR comes up",
    () =>
      Effect.gen(function*() {
        const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "datadir-pidns-"))
        const first = yield* serviceInPidNamespace(dataDir)
        expect(JSON.parse(Fs.readFileSync(Path.join(dataDir, "embedded.lock"), "utf8")).pid).toBe(1)
        yield* Effect.promise(first.kill9)
        // Same pid (1) on the next start, the old record and socket file still there.
        expect(Fs.existsSync(Path.join(dataDir, "embedded.lock"))).toBe(true)
        for (let start = 0; start < 2; start++) {
          const again = yield* serviceInPidNamespace(dataDir)
          expect(again.output()).not.toContain("DataDirBusy")
          yield* Effect.promise(again.kill9)
        }
        Fs.rmSync(dataDir, { recursive: true, force: true })
      }),
    600_000
  )
})
