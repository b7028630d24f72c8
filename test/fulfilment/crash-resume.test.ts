/**
 * kill -9 in the middle of a delivery (issue 32): the service process is killed while its push is
 * at the registrar (the loopback fake of Realtime Register has taken the push and not answered
 * yet). A new process on the same database resumes the delivery once the dead one's lease has
 * passed, asks the registrar where the transfer stands instead of pushing again, and follows it to
 * TRANSFER_COMPLETED: one push, each transfer event once.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
import { pgLayer } from "../../src/platform/db/Database.js"
import { fetchReply } from "../support/http.js"
import { buy, createPartner, seedListings, signed, waitUntil } from "../support/PartnerKit.js"
import { rtrSettings, startRtrServer, TEST_RTR_ACCOUNT } from "../support/RtrServer.js"
import { startServiceProcess } from "../support/ServiceProcess.js"
import * as TestServer from "../support/TestServer.js"

/** The service process at `baseUrl`, as the TestServer the partner helpers sign requests for. */
const at = (baseUrl: string, databaseUrl: string) =>
  Layer.succeed(TestServer.TestServer, { baseUrl, port: Number(new URL(baseUrl).port), databaseUrl })
const DOMAIN = "crash-push.com"

it.scopedLive(
  "kill -9 while the push is at the registrar: the next process resumes the delivery, never pushes twice",
  () =>
    Effect.gen(function*() {
      // Each registrar write answers after 4 s: the window in which the service is killed.
      const rtr = yield* startRtrServer({
        ...TEST_RTR_ACCOUNT,
        tlds: {},
        anyDomain: true,
        asyncProcesses: true,
        writeDelayMs: 4_000
      })
      const databaseUrl = yield* TestServer.sharedDatabaseUrl
      const env = {
        DATABASE_URL: databaseUrl,
        ...rtrSettings(rtr),
        DELIVERY_AUTOSTART: "true",
        DELIVERY_STATUS_POLL: "200 millis",
        DELIVERY_LEASE: "3 seconds",
        REVIEW_THRESHOLD_CENTS: "500000"
      }
      const first = yield* startServiceProcess(env)
      // The test's own connection, for the fixtures (the service applied the migrations).
      const db = pgLayer({ url: Redacted.make(databaseUrl) }, 2)
      const onFirst = at(first.baseUrl, databaseUrl)
      const cred: IssuedCredential = yield* createPartner({ environment: "live" }).pipe(Effect.provide(db))
      yield* seedListings([{ domain: DOMAIN, bin: 600_000, environment: "live" }]).pipe(Effect.provide(db))

      // Held for review (over REVIEW_THRESHOLD_CENTS), so the push target is chosen before the
      // delivery can start; then cleared.
      const id = yield* buy(cred, DOMAIN, 600_000).pipe(Effect.provide(onFirst))
      const choice = yield* signed(cred, "PUT", `/api/partner/v1/orders/${id}/delivery`, {
        body: { method: "push", target_account: "acme-registrar" }
      }).pipe(Effect.provide(onFirst))
      expect(choice.status, choice.text).toBe(200)
      const cleared = yield* Effect.promise(() =>
        fetchReply(`${first.baseUrl}/api/admin/orders/${id}/clear-review`, {
          method: "POST",
          headers: { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
        })
      )
      expect(cleared.status, cleared.text).toBe(200)

      // The registrar has the push; its answer is still 4 s away: kill -9.
      yield* waitUntil(Effect.sync(() => rtr.pushes(DOMAIN)), (n) => n === 1, 60_000)
      first.child.kill("SIGKILL")
      yield* Effect.async<void>((resume) => {
        if (first.child.exitCode !== null || first.child.signalCode !== null) return resume(Effect.void)
        first.child.once("exit", () => resume(Effect.void))
      })

      const second = yield* startServiceProcess(env)
      const onSecond = at(second.baseUrl, databaseUrl)
      const detail = signed(cred, "GET", `/api/partner/v1/orders/${id}`).pipe(
        Effect.map((r) => r.json),
        Effect.provide(onSecond)
      )
      const done = yield* waitUntil(detail, (d) => d.status === "TRANSFER_COMPLETED", 90_000)
      expect(done.transfer).toMatchObject({ state: "completed", method: "push", target: "acme-registrar" })
      expect(rtr.pushes(DOMAIN)).toBe(1)
      expect(rtr.domains.get(DOMAIN)!.transferOut?.recipient).toBe("acme-registrar")

      const events = yield* signed(cred, "GET", "/api/partner/v1/events?limit=100").pipe(Effect.provide(onSecond))
      const types = (events.json.events as Array<any>)
        .filter((e) => e.data?.order?.public_id === id)
        .map((e) => e.type as string)
        .filter((t) => t.startsWith("transfer."))
      expect(types).toEqual(["transfer.requested", "transfer.pending", "transfer.completed"])
    }),
  { timeout: 240_000 }
)
