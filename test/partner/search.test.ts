/**
 * Partner inventory: search (hybrid semantic + keyword, at most 5, validated q), domain detail,
 * availability and pricing; and the labelled evaluation set where hybrid must beat keyword-only
 * on mean nDCG@5.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { ndcgAt } from "../../src/domain/SearchRanking.js"
import { Inventory, type SearchMode } from "../../src/partner/inventory/Inventory.js"
import { createPartner, expectError, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const evalSet: {
  catalogue: Array<string>
  queries: Array<{ q: string; relevant: Record<string, number> }>
} = JSON.parse(Fs.readFileSync(Path.join(Path.dirname(fileURLToPath(import.meta.url)), "search-eval.json"), "utf8"))

const meanNdcg = (mode: SearchMode) =>
  Effect.gen(function*() {
    const inventory = yield* Inventory
    const scores: Array<{ q: string; ndcg: number; got: Array<string> }> = []
    for (const { q, relevant } of evalSet.queries) {
      const ranked = yield* inventory.search("sandbox", q, "ptn_eval", mode)
      const got = ranked.map((r) => r.listing.domain)
      scores.push({ q, ndcg: ndcgAt(got, relevant, 5), got })
    }
    return { mean: scores.reduce((s, x) => s + x.ndcg, 0) / scores.length, scores }
  }).pipe(Effect.provide(Inventory.Live))

layer(TestServer.layer({ SANDBOX_INVENTORY: "false", DEMO_LISTINGS: "false" }))("partner inventory", (it) => {
  it.effect("hybrid search beats keyword-only on nDCG@5 over the labelled evaluation set", () =>
    Effect.gen(function*() {
      yield* seedListings(evalSet.catalogue.map((domain) => ({ domain })))
      const keyword = yield* meanNdcg("keyword")
      const semantic = yield* meanNdcg("semantic")
      const hybrid = yield* meanNdcg("hybrid")
      console.log(
        `nDCG@5 keyword ${keyword.mean.toFixed(3)}, semantic ${semantic.mean.toFixed(3)}, hybrid ${
          hybrid.mean.toFixed(3)
        }\n` +
          hybrid.scores.map((s, i) =>
            `  ${s.q}: keyword ${keyword.scores[i].ndcg.toFixed(2)} hybrid ${s.ndcg.toFixed(2)} → ${s.got.join(", ")}`
          ).join("\n")
      )
      expect(hybrid.mean).toBeGreaterThan(keyword.mean + 0.1)
      expect(hybrid.mean).toBeGreaterThanOrEqual(semantic.mean - 0.02)
    }))

  it.effect("GET /domains/search: at most 5 results in the documented shape; q validated; no paging", () =>
    Effect.gen(function*() {
      yield* seedListings(evalSet.catalogue.map((domain) => ({ domain })))
      yield* seedListings([{ domain: "fastcars.com", environment: "live", bin: 1 }])
      const cred = yield* createPartner({ scopes: ["search"] })
      const r = yield* signed(cred, "GET", "/api/partner/v1/domains/search?q=automobile")
      expect(r.status, r.text).toBe(200)
      expect(Object.keys(r.json).sort()).toEqual(["count", "query", "results"])
      expect(r.json.query).toBe("automobile")
      expect(r.json.results.length).toBeLessThanOrEqual(5)
      expect(r.json.count).toBe(r.json.results.length)
      expect(r.json.results.map((x: any) => x.domain)).toContain("fastcars.com")
      for (const x of r.json.results) {
        expect(Object.keys(x).sort()).toEqual([
          "available",
          "bin_price_cents",
          "currency",
          "domain",
          "floor_price_cents",
          "score",
          "tld"
        ])
        expect(x.score).toBeGreaterThan(0)
        expect(x.score).toBeLessThanOrEqual(1)
      }
      const scores = r.json.results.map((x: any) => x.score)
      expect([...scores].sort((a, b) => b - a)).toEqual(scores)
      // A broad query still stops at 5; asking for more is not possible.
      const broad = yield* signed(cred, "GET", "/api/partner/v1/domains/search?q=com&limit=100&offset=5")
      expect(broad.json.results.length).toBeLessThanOrEqual(5)
      // Sandbox credential: the live copy of fastcars.com (price 1) is not visible.
      expect(r.json.results.find((x: any) => x.domain === "fastcars.com").bin_price_cents).toBe(150_000)
      expect((yield* signed(cred, "GET", "/api/partner/v1/domains/search?q=zzqxj")).json).toEqual({
        query: "zzqxj",
        count: 0,
        results: []
      })
      for (const q of ["", "%20%20", "a%3Cscript%3E", "x".repeat(101)]) {
        expectError(yield* signed(cred, "GET", `/api/partner/v1/domains/search?q=${q}`), 400, "validation_error")
      }
      expectError(yield* signed(cred, "GET", "/api/partner/v1/domains/search"), 400, "validation_error")
    }))

  it.effect("domain detail, availability (200 false when unlisted) and pricing (404 when unlisted)", () =>
    Effect.gen(function*() {
      yield* seedListings([
        { domain: "detail.com", bin: 5_000, floor: 3_000 },
        { domain: "locked.com", locked: true },
        { domain: "gone.com", status: "sold" },
        { domain: "xn--bcher-kva.de", bin: 800 }
      ])
      const sql = yield* SqlClient.SqlClient
      yield* sql`update listings set domain_unicode = 'bücher.de' where domain = 'xn--bcher-kva.de'`
      const cred = yield* createPartner({ scopes: ["search"] })
      const d = yield* signed(cred, "GET", "/api/partner/v1/domains/detail.com")
      expect(d.status, d.text).toBe(200)
      expect(d.json).toMatchObject({
        domain: "detail.com",
        tld: "com",
        available: true,
        status: "active",
        bin_price_cents: 5_000,
        floor_price_cents: 3_000,
        currency: "USD",
        reserved: false
      })
      const idn = yield* signed(cred, "GET", `/api/partner/v1/domains/${encodeURIComponent("bücher.de")}`)
      expect(idn.json).toMatchObject({ domain: "xn--bcher-kva.de", domain_unicode: "bücher.de" })
      expectError(yield* signed(cred, "GET", "/api/partner/v1/domains/unlisted.com"), 404, "not_found")
      expectError(yield* signed(cred, "GET", "/api/partner/v1/domains/not_a_domain"), 400, "validation_error")

      expect((yield* signed(cred, "GET", "/api/partner/v1/availability?domain=unlisted.com")).json).toEqual({
        domain: "unlisted.com",
        available: false,
        price_cents: null,
        currency: "USD"
      })
      expect((yield* signed(cred, "GET", "/api/partner/v1/availability?domain=locked.com")).json.available).toBe(false)
      expect((yield* signed(cred, "GET", "/api/partner/v1/availability?domain=gone.com")).json.available).toBe(false)
      expectError(yield* signed(cred, "GET", "/api/partner/v1/availability"), 400, "validation_error")

      expect((yield* signed(cred, "GET", "/api/partner/v1/pricing?domain=DETAIL.com")).json).toEqual({
        domain: "detail.com",
        bin_price_cents: 5_000,
        floor_price_cents: 3_000,
        currency: "USD"
      })
      expectError(yield* signed(cred, "GET", "/api/partner/v1/pricing?domain=unlisted.com"), 404, "not_found")
      expectError(yield* signed(cred, "GET", "/api/partner/v1/pricing?domain=gone.com"), 404, "not_found")
    }))
})
