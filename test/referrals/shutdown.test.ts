/**
 * Write-behind is not lossy: clicks answered just before SIGTERM are in the database after the
 * process exits, although the periodic flush (set to 1 minute here) never ran: the click
 * writer's finalizer wrote them after the HTTP server stopped and before the pool closed.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { fetchReply } from "../support/http.js"
import { startServiceProcess } from "../support/ServiceProcess.js"
import { sharedDatabaseUrl } from "../support/TestServer.js"
import { BROWSER_UA } from "./ReferralKit.js"

const query = async (url: string, text: string, values: Array<unknown> = []) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text, values)).rows
  } finally {
    await client.end()
  }
}

describe("click writer on SIGTERM", () => {
  it.scopedLive(
    "every click answered before SIGTERM is written before the process exits",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* sharedDatabaseUrl
        const service = yield* startServiceProcess({
          DATABASE_URL: databaseUrl,
          REFERRAL_FLUSH_INTERVAL: "1 minute",
          REFERRAL_FLUSH_BATCH: "5000",
          SHUTDOWN_DRAIN_DELAY: "0 millis"
        })
        yield* Effect.promise(async () => {
          await query(
            databaseUrl,
            "insert into partners (id, name, affiliate, commission_bps) values ('ptn_sigterm', 'Sigterm', true, 1000)"
          )
          await query(
            databaseUrl,
            `insert into referral_links (id, code, partner_id, environment, kind) values ('lnk_sigterm', 'SigTerm123', 'ptn_sigterm', 'sandbox', 'generic')`
          )
        })
        const N = 300
        const replies = yield* Effect.promise(() =>
          Promise.all(Array.from({ length: N }, (_, i) =>
            fetchReply(`${service.baseUrl}/r/SigTerm123`, {
              headers: { "user-agent": BROWSER_UA, "x-test-click": String(i) }
            })))
        )
        expect(replies.every((r) => r.status === 302)).toBe(true)
        // Nothing written yet: the periodic flush is a minute away.
        const before = yield* Effect.promise(() => query(databaseUrl, "select count(*)::int as n from referral_clicks"))
        expect(before[0].n).toBe(0)

        const exited = new Promise<number | null>((resolve) => service.child.once("exit", (code) => resolve(code)))
        service.child.kill("SIGTERM")
        expect(yield* Effect.promise(() => exited)).toBe(0)

        const after = yield* Effect.promise(() =>
          query(databaseUrl, "select count(*)::int as n from referral_clicks where link_id = 'lnk_sigterm'")
        )
        expect(after[0].n).toBe(N)
        const daily = yield* Effect.promise(() =>
          query(databaseUrl, "select clicks::int, unique_clicks::int from referral_daily where link_id = 'lnk_sigterm'")
        )
        expect(daily).toEqual([{ clicks: N, unique_clicks: 1 }])
      }),
    { timeout: 180_000 }
  )
})
