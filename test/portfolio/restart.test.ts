/**
 * A 1,000-item bulk lock survives kill -9 of the process running it: replica A (a real OS
 * process) is SIGKILLed mid-job; replica B, on the same database, claims the job once its lease
 * lapses and finishes it. The loopback registrar counts its calls: each domain was updated
 * exactly once, and the final counts are exact.
 */
import { it } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { expect } from "vitest"
import { hashPassword } from "../../src/platform/security/Crypto.js"
import { fetchReply } from "../support/http.js"
import { sessionCookieOf } from "../support/identity.js"
import { rtrSettings, startRtrServer, TEST_RTR_ACCOUNT } from "../support/RtrServer.js"
import { startServiceProcess } from "../support/ServiceProcess.js"
import * as TestServer from "../support/TestServer.js"

it.scopedLive(
  "kill -9 mid 1,000-item lock job: the restarted service finishes it, each item applied once",
  () =>
    Effect.gen(function*() {
      const rtr = yield* startRtrServer({
        ...TEST_RTR_ACCOUNT,
        tlds: {},
        anyDomain: true,
        writeDelayMs: 25
      })
      const databaseUrl = yield* TestServer.sharedDatabaseUrl
      const env = {
        DATABASE_URL: databaseUrl,
        ...rtrSettings(rtr),
        JOB_LEASE: "6 seconds",
        RDAP_MODE: "sandbox",
        LOG_LEVEL: "warn"
      }
      const a = yield* startServiceProcess(env)

      // A user owning 1,000 domains (the service has migrated the database by now).
      const domains = Array.from({ length: 1000 }, (_, i) => `restart-${i}.com`)
      const password = "correct horse battery"
      const hash = yield* hashPassword(password)
      yield* Effect.promise(async () => {
        const client = new pg.Client({ connectionString: databaseUrl })
        await client.connect()
        await client.query(
          `insert into users (id, email, password_hash) values ('usr_restart', 'restart@example.test', $1)`,
          [hash]
        )
        await client.query(`insert into user_domains (domain, user_id) select unnest($1::text[]), 'usr_restart'`, [
          domains
        ])
        await client.end()
      })
      const login = yield* Effect.promise(() =>
        fetchReply(`${a.baseUrl}/api/auth/login`, { method: "POST", body: { email: "restart@example.test", password } })
      )
      const cookie = sessionCookieOf(login)!
      expect(login.status).toBe(200)

      const accepted = yield* Effect.promise(() =>
        fetchReply(`${a.baseUrl}/api/domains/bulk/lock`, { method: "POST", body: { domains }, headers: { cookie } })
      )
      expect(accepted.status, accepted.text).toBe(200)
      expect(accepted.json.total).toBe(1000)
      const id = accepted.json.bulkOpId as string

      const writes = () => domains.reduce((n, d) => n + rtr.writes(d), 0)
      for (let i = 0; i < 600 && writes() < 250; i++) yield* Effect.sleep("20 millis")
      expect(writes()).toBeGreaterThanOrEqual(250)
      expect(writes()).toBeLessThan(1000)
      a.child.kill("SIGKILL")
      yield* Effect.async<void>((resume) => {
        if (a.child.exitCode !== null || a.child.signalCode !== null) return resume(Effect.void)
        a.child.once("exit", () => resume(Effect.void))
      })
      ;(a.child as { exitCode: number | null }).exitCode = 137
      const atKill = writes()
      // Items the killed run had claimed and not finished (its calls in flight, and those claimed
      // ahead of them): the restarted run asks the registrar about each before calling again.
      const [{ n: runningAtKill }] = yield* Effect.promise(async () => {
        const client = new pg.Client({ connectionString: databaseUrl })
        await client.connect()
        const r = await client.query(
          `select count(*)::int as n from bulk_items where bulk_op_id = $1 and status = 'running'`,
          [id]
        )
        await client.end()
        return r.rows as Array<{ n: number }>
      })
      expect(runningAtKill).toBeGreaterThan(0)

      const b = yield* startServiceProcess(env)
      let final: any
      for (let i = 0; i < 900; i++) {
        final = (yield* Effect.promise(() =>
          fetchReply(`${b.baseUrl}/api/domains/bulk/${id}`, { headers: { cookie } })
        )).json
        if (final?.status === "done") break
        yield* Effect.sleep("100 millis")
      }
      expect(final).toMatchObject({ bulkOpId: id, status: "done", total: 1000, succeeded: 1000, failed: 0 })
      expect(final.items.every((i: any) => i.status === "succeeded")).toBe(true)
      // Each item applied once: one update per domain at the registrar, across both processes.
      const counts = domains.map((d) => rtr.writes(d))
      expect(counts.filter((n) => n !== 1).length, `domains not written exactly once (writes at kill: ${atKill})`).toBe(
        0
      )
      expect(atKill).toBeLessThan(1000)
      expect(domains.every((d) => rtr.domains.get(d)?.status.includes("clientTransferProhibited"))).toBe(true)
      const list = (yield* Effect.promise(() => fetchReply(`${b.baseUrl}/api/domains`, { headers: { cookie } }))).json
      expect(list.domains.filter((d: any) => d.locked).length).toBe(1000)
    }),
  600_000
)
