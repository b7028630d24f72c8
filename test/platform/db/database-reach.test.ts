/**
 * A database the process can never use ends start-up (issue 36 item 6): a refused port, an
 * unknown host, a string that is no PostgreSQL URL, a missing database, a refused password or
 * user. The service and the CLI stop within 3 s of their first connection attempt with exit code 5
 * and the cause in one plain sentence (the service's as its JSON log line, the CLI's as a plain
 * line); a transient error (a server that does not answer yet) is tried again until it answers.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { pgLayer } from "../../../src/platform/db/Database.js"
import {
  type DatabaseTarget,
  DatabaseUnreachable,
  isPostgresUrl,
  permanentCause,
  probeDatabase
} from "../../../src/platform/db/DatabaseReach.js"
import { cliEntry, mainEntry } from "../../support/BuiltApp.js"
import { runCliWith } from "../../support/cli.js"
import { clockedEntry, firstConnectAt } from "../../support/ConnectClock.js"
import { freePort, onlyErrorRecord, runServiceToExit } from "../../support/ServiceProcess.js"
import { startTcpProxy } from "../../support/TcpProxy.js"
import { sharedDatabaseUrl } from "../../support/TestServer.js"

const EX_DATABASE = 5
const PASSWORD = "pw-Very-Secret-42"

const target: DatabaseTarget = {
  host: "db.internal",
  port: 5432,
  database: "shop",
  user: "app",
  setting: "DATABASE_URL"
}

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code })

describe("which database errors are permanent", () => {
  it("a refused password, user, missing database, unknown host, refused port and bad URL: one sentence each", () => {
    const cases: Array<[unknown, RegExp]> = [
      [
        pgError("28P01", `password authentication failed for user "app"`),
        /refused the password of user "app".*password in DATABASE_URL/
      ],
      [pgError("28000", `role "app" does not exist`), /refused user "app" \(role "app" does not exist\).*DATABASE_URL/],
      [
        pgError("3D000", `database "shop" does not exist`),
        /database "shop" does not exist on PostgreSQL at db\.internal:5432/
      ],
      [pgError("ENOTFOUND", "getaddrinfo ENOTFOUND db.internal"), /host "db\.internal" is unknown/],
      [pgError("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.1:5432"), /db\.internal:5432 refused the connection/],
      // Both localhost addresses refused (Node tries ::1 and 127.0.0.1).
      [
        Object.assign(new AggregateError([pgError("ECONNREFUSED", "a"), pgError("ECONNREFUSED", "b")]), {
          code: "ECONNREFUSED"
        }),
        /refused the connection/
      ],
      [pgError("ERR_INVALID_URL", "Invalid URL"), /DATABASE_URL is not a PostgreSQL URL/]
    ]
    for (const [error, sentence] of cases) {
      const reason = permanentCause(error, target)
      expect(reason, String(error)).toMatch(sentence)
      expect(reason!.split(/\.\s/)).toHaveLength(1) // one sentence
      expect(reason).toMatch(/\.$/)
      expect(reason).not.toContain(PASSWORD)
    }
  })

  it("a server starting up, out of connection slots, slow, or a DNS server that did not answer: retried", () => {
    for (
      const error of [
        pgError("57P03", "the database system is starting up"),
        pgError("53300", "sorry, too many clients already"),
        pgError("ETIMEDOUT", "connect ETIMEDOUT"),
        pgError("ECONNRESET", "read ECONNRESET"),
        pgError("EAI_AGAIN", "getaddrinfo EAI_AGAIN db.internal"),
        new Error("Connection terminated due to connection timeout"),
        new Error("Connection terminated unexpectedly")
      ]
    ) expect(permanentCause(error, target), error.message).toBeUndefined()
  })

  it("a DATABASE_URL that is no PostgreSQL URL is refused before any connection, without repeating it", () => {
    expect(isPostgresUrl("postgres://u:p@h:5432/d")).toBe(true)
    expect(isPostgresUrl("postgresql:///d?host=/var/run/postgresql")).toBe(true)
    expect(isPostgresUrl("not a url")).toBe(false)
    expect(isPostgresUrl(`mysql://u:${PASSWORD}@h/d`)).toBe(false)
  })

  it.effect("the probe fails at once on a bad URL, with the sentence and not the URL", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        probeDatabase({ connectionString: `http//u:${PASSWORD}@127.0.0.1/d` }, {
          setting: "DATABASE_URL",
          connectTimeoutMs: 500,
          statementMs: 500
        })
      )
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        expect(error).toBeInstanceOf(DatabaseUnreachable)
        expect(error!.message).toBe(
          "DATABASE_URL is not a PostgreSQL URL; expected postgres://user:password@host:5432/database."
        )
        expect(error!.permanent).toBe(true)
      }
    }))
})

describe("a transient error is tried again", () => {
  it.scopedLive("a database that does not answer at first is used once it does", () =>
    Effect.gen(function*() {
      const url = new URL(yield* sharedDatabaseUrl)
      const proxy = yield* startTcpProxy(url.hostname, Number(url.port))
      yield* proxy.blackhole() // connections accepted, nothing answered: the connect time limit each time
      url.host = `127.0.0.1:${proxy.port}`
      const started = Date.now()
      yield* Effect.forkScoped(Effect.zipRight(Effect.sleep("1500 millis"), proxy.forward()))
      const rows = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ one: number }>`select 1 as one`).pipe(
        Effect.provide(pgLayer({ url: Redacted.make(url.toString()) }, 2, {
          connectTimeout: "300 millis",
          acquireTimeout: "2 seconds",
          statementTimeout: "2 seconds"
        }))
      )
      expect(rows).toEqual([{ one: 1 }])
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_400)
    }), 60_000)
})

const clockFile = () => Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "db-reach-")), "first-connect")

/** The non-empty lines of an output. */
const linesOf = (output: string) => output.split("\n").map((l) => l.trim()).filter((l) => l !== "")

/** A URL to the local PostgreSQL server naming a database that does not exist (PostgreSQL pass only: PGlite has one database, whatever the name). */
const missingDatabaseUrl = () => {
  const url = new URL(process.env.DATABASE_URL!)
  url.pathname = `/no_such_db_${randomBytes(4).toString("hex")}`
  return url.toString()
}

const runService = (databaseUrl: string) =>
  Effect.gen(function*() {
    const clock = clockFile()
    const result = yield* runServiceToExit(
      { DATABASE_URL: databaseUrl, CONNECT_CLOCK_FILE: clock },
      { entry: clockedEntry(mainEntry()), withinMs: 90_000 }
    )
    return { ...result, afterConnectMs: Date.now() - (firstConnectAt(clock) ?? Number.NaN) }
  })

const runCli = (databaseUrl: string, args: ReadonlyArray<string> = ["partner", "list"]) =>
  Effect.gen(function*() {
    const clock = clockFile()
    const result = yield* runCliWith(
      { DATABASE_URL: databaseUrl, CONNECT_CLOCK_FILE: clock },
      args,
      clockedEntry(cliEntry())
    )
    return { ...result, afterConnectMs: Date.now() - (firstConnectAt(clock) ?? Number.NaN) }
  })

/** The CLI's only output: one plain line on stderr. */
const cliSentence = (result: { readonly stdout: string; readonly stderr: string }) => {
  expect(linesOf(result.stdout)).toEqual([])
  const lines = linesOf(result.stderr)
  expect(lines, result.stderr).toHaveLength(1)
  expect(lines[0]!.startsWith("{"), result.stderr).toBe(false)
  return lines[0]!
}

describe("the service and the CLI stop on a database they can never use", () => {
  it.live("a refused port: the service exits 5 within 3 s, its log line says so", () =>
    Effect.gen(function*() {
      const port = yield* freePort()
      const result = yield* runService(`postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`)
      expect(result.code, result.output).toBe(EX_DATABASE)
      expect(result.afterConnectMs, result.output).toBeLessThan(3_000)
      expect(onlyErrorRecord(result.output)).toBe(
        `PostgreSQL at 127.0.0.1:${port} refused the connection (nothing listens on that port); check the host and port in DATABASE_URL.`
      )
      expect(result.output).not.toContain(PASSWORD)
    }), 120_000)

  it.live("a refused port: the CLI exits 5 within 3 s with the same sentence", () =>
    Effect.gen(function*() {
      const port = yield* freePort()
      const result = yield* runCli(`postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`)
      expect(result.code, result.stderr).toBe(EX_DATABASE)
      expect(result.afterConnectMs, result.stderr).toBeLessThan(3_000)
      expect(cliSentence(result)).toBe(
        `PostgreSQL at 127.0.0.1:${port} refused the connection (nothing listens on that port); check the host and port in DATABASE_URL.`
      )
    }), 120_000)

  it.live(
    "a DATABASE_URL that is no URL: the CLI exits 5 without connecting, the URL is not repeated",
    () =>
      Effect.gen(function*() {
        const result = yield* runCli(`postgres//postgres:${PASSWORD}@127.0.0.1`)
        expect(result.code, result.stderr).toBe(EX_DATABASE)
        expect(Number.isNaN(result.afterConnectMs)).toBe(true) // it never connected (nor asked DNS)
        expect(cliSentence(result)).toBe(
          "DATABASE_URL is not a PostgreSQL URL; expected postgres://user:password@host:5432/database."
        )
      }),
    120_000
  )

  it.live.skipIf(!process.env.DATABASE_URL)(
    "a database that does not exist (PostgreSQL): the service and the CLI exit 5 within 3 s, naming it",
    () =>
      Effect.gen(function*() {
        const url = missingDatabaseUrl()
        const name = new URL(url).pathname.slice(1)
        const [service, cli] = yield* Effect.all([runService(url), runCli(url)], { concurrency: 2 })
        const sentence = `The database "${name}" does not exist on PostgreSQL at ${
          new URL(url).host
        }; create it or fix the database name in DATABASE_URL.`
        expect(service.code, service.output).toBe(EX_DATABASE)
        expect(service.afterConnectMs, service.output).toBeLessThan(3_000)
        expect(onlyErrorRecord(service.output)).toBe(sentence)
        expect(cli.code, cli.stderr).toBe(EX_DATABASE)
        expect(cli.afterConnectMs, cli.stderr).toBeLessThan(3_000)
        expect(cliSentence(cli)).toBe(sentence)
      }),
    120_000
  )
})
