/**
 * Start-up refusals, as separate processes (issue 29 item 9, issue 30 item 5): production refuses
 * the sandbox payment and payout providers and the embedded database unless TEST_MODE=true, and a
 * bad duration stops start-up — each as one plain line naming the setting, exit code 78
 * (EX_CONFIG), for the service and the CLI. `0` disables the documented schedules.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { runCliWith } from "../support/cli.js"
import { fetchReply } from "../support/http.js"
import { onlyErrorRecord, onlyPlainLine, runServiceToExit, startServiceProcess } from "../support/ServiceProcess.js"
import { sharedDatabaseUrl } from "../support/TestServer.js"

const EX_CONFIG = 78

/** Production settings that pass every other check (strong secrets). */
const productionSecrets = {
  NODE_ENV: "production",
  SERVICE_SECRET: "Zq3v9XbLr2Kp8WmT4yNc6HdJ1sFg5QaE",
  ADMIN_TOKEN: "Hn7Rt2Wq9Lm4Xc8Vb1Kp6Zs3Df5Gj0Ya",
  STRIPE_API_KEY: "sk_test_startup_refusals",
  STRIPE_WEBHOOK_SECRET: "whsec_startup_refusals",
  METRICS_TOKEN: "Mt4Kq8Zr2Vx6Bn1Lp9Wd3Hs7Fj5Gc0Ya"
}

/** …on a database that is never reached: the refusal comes before any connection. */
const production = { ...productionSecrets, DATABASE_URL: "postgres://postgres@127.0.0.1:9/refused" }

const tempDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "startup-refusal-"))

describe("start-up refusals", () => {
  it.live(
    "production with the default (sandbox) payment provider: one log record naming PAYMENT_PROVIDER, exit 78",
    () =>
      Effect.gen(function*() {
        const result = yield* runServiceToExit({ ...production, PAYOUT_PROVIDER: "stripe" })
        expect(result.code, result.output).toBe(EX_CONFIG)
        const line = onlyErrorRecord(result.output)
        expect(line).toContain("PAYMENT_PROVIDER")
        expect(line).toContain("TEST_MODE")
        expect(line).not.toContain(production.SERVICE_SECRET)
      }),
    90_000
  )

  it.live(
    "production with passwords hashed below the production cost: one log record naming PASSWORD_HASH_COST, exit 78",
    () =>
      Effect.gen(function*() {
        const result = yield* runServiceToExit({ ...production, PASSWORD_HASH_COST: "12" })
        expect(result.code, result.output).toBe(EX_CONFIG)
        const line = onlyErrorRecord(result.output)
        expect(line).toContain("PASSWORD_HASH_COST")
        expect(line).toContain("at least 15")
        expect(line).not.toContain(production.SERVICE_SECRET)
      }),
    90_000
  )

  it.live(
    "production without METRICS_TOKEN or METRICS_PORT (GET /metrics would be public): one log record, exit 78",
    () =>
      Effect.gen(function*() {
        const { METRICS_TOKEN: _, ...withoutToken } = production
        const result = yield* runServiceToExit({ ...withoutToken, METRICS_TOKEN: undefined })
        expect(result.code, result.output).toBe(EX_CONFIG)
        const line = onlyErrorRecord(result.output)
        expect(line).toContain("METRICS_TOKEN")
        expect(line).toContain("METRICS_PORT")
        expect(line).not.toContain(production.SERVICE_SECRET)
      }),
    90_000
  )

  it.live(
    "production with the default (sandbox) payout provider: one log record naming PAYOUT_PROVIDER, exit 78",
    () =>
      Effect.gen(function*() {
        const result = yield* runServiceToExit({ ...production, PAYMENT_PROVIDER: "stripe" })
        expect(result.code, result.output).toBe(EX_CONFIG)
        expect(onlyErrorRecord(result.output)).toContain("PAYOUT_PROVIDER")
      }),
    90_000
  )

  it.live(
    "production on the embedded database (no DATABASE_URL): one log record naming DATABASE_URL, exit 78",
    () =>
      Effect.gen(function*() {
        const result = yield* runServiceToExit({
          ...production,
          PAYMENT_PROVIDER: "stripe",
          PAYOUT_PROVIDER: "stripe",
          DATABASE_URL: undefined,
          DATA_DIR: tempDir()
        })
        expect(result.code, result.output).toBe(EX_CONFIG)
        expect(onlyErrorRecord(result.output)).toContain("DATABASE_URL")
      }),
    90_000
  )

  it.live("the CLI refuses the same production settings, one line, exit 78", () =>
    Effect.gen(function*() {
      const sandbox = yield* runCliWith({ ...production, PAYOUT_PROVIDER: "stripe" }, ["partner", "list"])
      expect(sandbox.code, sandbox.stdout + sandbox.stderr).toBe(EX_CONFIG)
      expect(onlyPlainLine(sandbox.stdout + sandbox.stderr)).toContain("PAYMENT_PROVIDER")
      const embedded = yield* runCliWith({
        ...production,
        PAYMENT_PROVIDER: "stripe",
        PAYOUT_PROVIDER: "stripe",
        DATABASE_URL: undefined,
        DATA_DIR: tempDir()
      }, ["partner", "list"])
      expect(embedded.code, embedded.stdout + embedded.stderr).toBe(EX_CONFIG)
      expect(onlyPlainLine(embedded.stdout + embedded.stderr)).toContain("DATABASE_URL")
    }), 90_000)

  it.live(
    "a bad duration stops start-up: one log record naming the variable and the accepted forms, exit 78",
    () =>
      Effect.gen(function*() {
        const result = yield* runServiceToExit({ SETTLEMENT_INTERVAL: "soon", DATABASE_URL: production.DATABASE_URL })
        expect(result.code, result.output).toBe(EX_CONFIG)
        const line = onlyErrorRecord(result.output)
        expect(line).toContain("SETTLEMENT_INTERVAL")
        expect(line).toContain("5 minutes")
        expect(line).toContain("0")
      }),
    90_000
  )

  it.scopedLive(
    "TEST_MODE=true: production starts on the sandbox providers (and the embedded database); 0 disables the schedules; pages say Test mode",
    () =>
      Effect.gen(function*() {
        // PostgreSQL runs: a fresh database; embedded runs: the embedded database in a fresh DATA_DIR.
        const database = process.env.DATABASE_URL ? { DATABASE_URL: yield* sharedDatabaseUrl } : { DATA_DIR: tempDir() }
        const service = yield* startServiceProcess({
          ...productionSecrets,
          ...database,
          TEST_MODE: "true",
          PAYMENT_PROVIDER: "sandbox",
          PAYOUT_PROVIDER: "sandbox",
          SETTLEMENT_INTERVAL: "0",
          PAYOUT_INTERVAL: "0",
          CHECKOUT_RECONCILE_INTERVAL: "0"
        })
        const errorPage = yield* Effect.promise(() => fetchReply(`${service.baseUrl}/checkout?pt=not-a-token`))
        expect(errorPage.headers.get("content-type")).toContain("text/html")
        expect(errorPage.text).toContain("Test mode")
      }),
    150_000
  )
})
