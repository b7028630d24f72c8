/**
 * Unique clicks across replicas: two servers on one database (the real PostgreSQL, or the
 * embedded one served on a loopback port) share the repeat-click memory. The same visitor (IP +
 * user agent) clicking a link on replica A, then on replica B within REFERRAL_REPEAT_WINDOW, is
 * one unique click; after the window, two; a bot is recorded, never unique. Both replicas
 * flushing a click of the same visitors at the same moment count each visitor once. The click
 * rows, /me/clicks, the link stats and the analytics funnel agree.
 *
 * The periodic flush is off (1 hour): the test writes each replica's queue when it needs to, so
 * it controls which batches meet in the database, and the concurrent flush is a real race.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { Referrals } from "../../src/referrals/Referrals.js"
import { apiClient } from "../support/ApiClient.js"
import { realSleep } from "../support/http.js"
import { createPartner } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"
import { follow } from "./ReferralKit.js"

// Long enough for a click, a flush and a click on a loaded machine; the test sleeps through it once.
const REPEAT_MS = 10_000
const ENV = { REFERRAL_FLUSH_INTERVAL: "1 hour", REFERRAL_REPEAT_WINDOW: `${REPEAT_MS} millis`, TRUST_PROXY: "1" }
const BOT_UA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
const today = () => new Date().toISOString().slice(0, 10)

layer(Layer.empty)("unique clicks across replicas", (it) => {
  it.scoped(
    "a repeat is a repeat on either replica; after the window it counts again; bots never; concurrent flushes count a visitor once",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* TestServer.sharedDatabaseUrl
        const a = yield* Layer.build(TestServer.layer(ENV, { databaseUrl }))
        const b = yield* Layer.build(TestServer.layer(ENV, { databaseUrl }))
        expect(Context.get(a, TestServer.TestServer).baseUrl).not.toBe(Context.get(b, TestServer.TestServer).baseUrl)
        const onA = <X, E>(e: Effect.Effect<X, E, any>) => Effect.provide(e, a) as Effect.Effect<X, E>
        const onB = <X, E>(e: Effect.Effect<X, E, any>) => Effect.provide(e, b) as Effect.Effect<X, E>
        const flush = (replica: Context.Context<any>) =>
          Effect.provide(Effect.flatMap(Referrals, (r) => r.flushClicks), replica) as Effect.Effect<void>
        const sql = yield* onA(SqlClient.SqlClient)

        const aff = yield* onA(createPartner({ scopes: ["refer", "report"], affiliate: true }))
        // Each replica's typed client, signed as the affiliate.
        const clientA = yield* onA(apiClient({ partner: aff }))
        const clientB = yield* onB(apiClient({ partner: aff }))
        const link = yield* clientA.partnerReferrals.createLink({ payload: { kind: "generic" } })
        const visitor = { ip: "198.51.100.7" }
        const clicks = () =>
          sql<{ is_unique: boolean; bot: boolean }>`
        select bot, is_unique from referral_clicks where link_id = ${link.id} order by clicked_at, id`.pipe(
            Effect.orDie
          )
        const uniqueCount = Effect.map(clicks(), (rows) => [rows.length, rows.filter((r) => r.is_unique).length])

        // 1. A, written; then B within the window (B never saw the visitor: before, it counted again).
        const firstAt = Date.now()
        expect((yield* onA(follow(link.code, visitor))).reply.status).toBe(302)
        yield* flush(a)
        expect(yield* uniqueCount).toEqual([1, 1])
        expect((yield* onB(follow(link.code, visitor))).reply.status).toBe(302)
        const lastHumanAt = Date.now()
        expect(lastHumanAt - firstAt, "the second click must fall inside the repeat window").toBeLessThan(REPEAT_MS)
        yield* flush(b)
        expect(yield* uniqueCount).toEqual([2, 1])

        // 2. A bot, on both replicas: recorded, not unique (and not the visitor's "previous click").
        expect((yield* onA(follow(link.code, { ...visitor, ua: BOT_UA }))).reply.status).toBe(302)
        expect((yield* onB(follow(link.code, { ip: "198.51.100.8", ua: BOT_UA }))).reply.status).toBe(302)
        yield* Effect.all([flush(a), flush(b)], { concurrency: 2 })
        expect(yield* uniqueCount).toEqual([4, 1])

        // 3. Many visitors clicking on both replicas, both queues flushed at once: each visitor once,
        //    whichever transaction commits first.
        const N = 60
        const ips = Array.from({ length: N }, (_, i) => `203.0.113.${i + 1}`)
        yield* Effect.forEach(ips, (ip) =>
          Effect.all([onA(follow(link.code, { ip })), onB(follow(link.code, { ip }))], { concurrency: 2 }), {
          concurrency: 8
        })
        yield* Effect.all([flush(a), flush(b)], { concurrency: 2 })
        expect(yield* uniqueCount).toEqual([4 + 2 * N, 1 + N])
        const perVisitor = yield* sql<{ ip_hash: string; clicks: number; unique_clicks: number }>`
        select ip_hash, count(*)::int as clicks, count(*) filter (where is_unique)::int as unique_clicks
        from referral_clicks where link_id = ${link.id} and not bot group by ip_hash`.pipe(Effect.orDie)
        expect(perVisitor).toHaveLength(1 + N)
        expect(
          perVisitor.every((v) =>
            v.clicks === 2 && v.unique_clicks === 1
          ),
          JSON.stringify(perVisitor)
        ).toBe(true)

        // 4. After the window (since the visitor's last human click): unique again on B, then a
        //    repeat on A right after it.
        yield* realSleep(Math.max(0, lastHumanAt + REPEAT_MS + 1_000 - Date.now()))
        expect((yield* onB(follow(link.code, visitor))).reply.status).toBe(302)
        yield* flush(b)
        expect((yield* onA(follow(link.code, visitor))).reply.status).toBe(302)
        yield* flush(a)
        const total = 6 + 2 * N
        const unique = 2 + N
        expect(yield* uniqueCount).toEqual([total, unique])
        const rows = yield* clicks()
        expect(rows.filter((r) => r.bot).map((r) => r.is_unique)).toEqual([false, false])

        // The reports (roll-ups) agree with the click rows, read through either replica.
        const window = { from: today(), to: today() }
        const report = yield* clientB.partnerReferrals.myClicks({ urlParams: window })
        expect(report).toMatchObject({ clicks: total, unique_clicks: unique })
        const analytics = yield* clientA.partnerReferrals.analytics({ urlParams: window })
        expect(analytics).toMatchObject({ clicks: total, unique_clicks: unique, sales: 0 })
        expect(analytics.series).toEqual([
          expect.objectContaining({ date: today(), clicks: total, unique_clicks: unique })
        ])
        const links = yield* clientB.partnerReferrals.listLinks({ urlParams: {} })
        expect(links.links[0]).toMatchObject({ id: link.id, clicks: total, unique_clicks: unique })
        const [daily] = yield* sql<{ clicks: number; unique_clicks: number }>`
        select sum(clicks)::int as clicks, sum(unique_clicks)::int as unique_clicks from referral_daily where link_id = ${link.id}`
          .pipe(Effect.orDie)
        expect(daily).toEqual({ clicks: total, unique_clicks: unique })
        // One remembered visitor per human IP (with the same browser user agent).
        const [visitors] = yield* sql<
          { n: number }
        >`select count(*)::int as n from referral_visitors where link_id = ${link.id}`.pipe(Effect.orDie)
        expect(visitors!.n).toBe(1 + N)
      }),
    300_000
  )
})
