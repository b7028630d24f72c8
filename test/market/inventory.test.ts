/** Seeded inventories: the demo catalogue (marked demo, switchable off) and the synthetic sandbox inventory. */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { apiClient } from "../support/ApiClient.js"
import * as TestServer from "../support/TestServer.js"

class Db extends Context.Tag("test/Db")<Db, string>() {}

/** Listings through the typed client (the endpoint's defaults filled in), of the server in scope. */
const listings = (query: { readonly limit?: number; readonly q?: string } = {}) =>
  Effect.flatMap(
    apiClient(),
    (client) => client.market.listListings({ urlParams: { limit: 24, offset: 0, sort: "newest", ...query } })
  ).pipe(Effect.orDie)

const server = Layer.unwrapScoped(
  Effect.map(
    TestServer.sharedDatabaseUrl,
    (databaseUrl) =>
      TestServer.layer({ DEMO_LISTINGS: "true", RDAP_MODE: "sandbox" }, { databaseUrl }).pipe(
        Layer.merge(Layer.succeed(Db, databaseUrl))
      )
  )
)

layer(server, { timeout: 180_000 })("seeded inventories", (it) => {
  it.effect(
    "the demo catalogue is listed live and marked demo; DEMO_LISTINGS=false removes it at start-up",
    () =>
      Effect.gen(function*() {
        const page = yield* listings({ limit: 200 })
        expect(page.page.total).toBe(48)
        expect(page.items.every((i) => i.demo === true)).toBe(true)
        expect(page.items.map((i) => i.domain)).toContain("brightharbor.com")

        // A second replica configured without the demo catalogue, on the same database.
        const databaseUrl = yield* Db
        yield* Effect.scoped(Effect.gen(function*() {
          const ctx = yield* Layer.build(
            TestServer.layer({ DEMO_LISTINGS: "false", RDAP_MODE: "sandbox" }, { databaseUrl })
          )
          const after = yield* listings().pipe(
            Effect.provideService(TestServer.TestServer, Context.get(ctx, TestServer.TestServer))
          )
          expect(after.page.total).toBe(0)
        }))
      }),
    120_000
  )

  it.effect("the sandbox inventory: 144 synthetic test domains with synthetic prices and 2 failing deliveries, never on the live surface", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<
        { domain: string; bin_price_cents: number | null; floor_price_cents: number; status: string }
      >`
        select domain, bin_price_cents, floor_price_cents, status from listings where environment = 'sandbox'`.pipe(
        Effect.orDie
      )
      expect(rows).toHaveLength(146)
      expect(rows.every((r) => /^[a-z-]+-sandbox\.(com|net|org|io|co|dev|app|xyz)$/.test(r.domain))).toBe(true)
      expect(rows.filter((r) => /-transferfail-|-transferflaky-/.test(r.domain)).map((r) => r.domain).sort()).toEqual([
        "locked-transferfail-sandbox.com",
        "wobbly-transferflaky-sandbox.com"
      ])
      const priced = rows.filter((r) => r.bin_price_cents !== null)
      expect(priced.length).toBeGreaterThan(100)
      expect(
        priced.every((r) =>
          r.bin_price_cents! >= 25_000 && r.bin_price_cents! <= 2_500_000 && r.bin_price_cents! % 500 === 0
        )
      ).toBe(true)
      expect(rows.some((r) => r.status === "pending")).toBe(true)
      const live = yield* listings({ q: "sandbox" })
      expect(live.page.total).toBe(0)
    }))
})
