/**
 * Partner inventory: search (hybrid semantic + keyword, at most 5, validated q), domain detail,
 * availability and pricing; and the labelled evaluation set where hybrid must beat keyword-only
 * on mean nDCG@5.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { ndcgAt } from "../../../src/domain/SearchRanking.js"
import { ListingReads } from "../../../src/market/ListingReads.js"
import { Inventory, type SearchMode } from "../../../src/partner/inventory/Inventory.js"
import { apiClient, expectFailure } from "../../support/ApiClient.js"
import { createPartner, expectError, seedListings, signed } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

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
  }).pipe(Effect.provide(Inventory.Live.pipe(Layer.provide(ListingReads.Live))))

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
      const client = yield* apiClient({ partner: cred })
      const [r, response] = yield* client.partnerInventory.search({
        urlParams: { q: "automobile" },
        withResponse: true
      })
      expect(response.status).toBe(200)
      expect(r.query).toBe("automobile")
      expect(r.results.length).toBeLessThanOrEqual(5)
      expect(r.count).toBe(r.results.length)
      expect(r.results.map((x) => x.domain)).toContain("fastcars.com")
      for (const x of r.results) {
        expect(x.score).toBeGreaterThan(0)
        expect(x.score).toBeLessThanOrEqual(1)
      }
      const scores = r.results.map((x) => x.score)
      expect([...scores].sort((a, b) => b - a)).toEqual(scores)
      // Raw: the exact key sets are the wire form (the typed client drops keys its schema lacks).
      const wire = yield* signed(cred, "GET", "/api/partner/v1/domains/search?q=automobile")
      expect(wire.status, wire.text).toBe(200)
      expect(Object.keys(wire.json).sort()).toEqual(["count", "query", "results"])
      expect(wire.json.results.map((x: any) => x.domain)).toEqual(r.results.map((x) => x.domain))
      for (const x of wire.json.results) {
        expect(Object.keys(x).sort()).toEqual([
          "available",
          "bin_price_cents",
          "currency",
          "domain",
          "floor_price_cents",
          "score",
          "tld"
        ])
      }
      // A broad query still stops at 5; asking for more is not possible. Raw: limit and offset are
      // not in the urlParams schema (the typed client cannot send them).
      const broad = yield* signed(cred, "GET", "/api/partner/v1/domains/search?q=com&limit=100&offset=5")
      expect(broad.json.results.length).toBeLessThanOrEqual(5)
      // Sandbox credential: the live copy of fastcars.com (price 1) is not visible.
      expect(r.results.find((x) => x.domain === "fastcars.com")?.bin_price_cents).toBe(150_000)
      expect(yield* client.partnerInventory.search({ urlParams: { q: "zzqxj" } })).toEqual({
        query: "zzqxj",
        count: 0,
        results: []
      })
      for (const q of ["", "  ", "a<script>", "x".repeat(101)]) {
        yield* expectFailure(client.partnerInventory.search({ urlParams: { q } }), 400, "validation_error")
      }
      // Raw: no q at all, which the urlParams schema refuses (the typed client would not send it).
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
      const client = yield* apiClient({ partner: cred })
      const [d, response] = yield* client.partnerInventory.domain({ path: { name: "detail.com" }, withResponse: true })
      expect(response.status).toBe(200)
      expect(d).toMatchObject({
        domain: "detail.com",
        tld: "com",
        available: true,
        status: "active",
        bin_price_cents: 5_000,
        floor_price_cents: 3_000,
        currency: "USD",
        reserved: false
      })
      const idn = yield* client.partnerInventory.domain({ path: { name: "bücher.de" } })
      expect(idn).toMatchObject({ domain: "xn--bcher-kva.de", domain_unicode: "bücher.de" })
      yield* expectFailure(client.partnerInventory.domain({ path: { name: "unlisted.com" } }), 404, "not_found")
      yield* expectFailure(
        client.partnerInventory.domain({ path: { name: "not_a_domain" } }),
        400,
        "validation_error"
      )

      const availability = (domain: string) => client.partnerInventory.availability({ urlParams: { domain } })
      expect(yield* availability("unlisted.com")).toEqual({
        domain: "unlisted.com",
        available: false,
        price_cents: null,
        currency: "USD"
      })
      expect((yield* availability("locked.com")).available).toBe(false)
      expect((yield* availability("gone.com")).available).toBe(false)
      // Raw: no domain at all, which the urlParams schema refuses (the typed client would not send it).
      expectError(yield* signed(cred, "GET", "/api/partner/v1/availability"), 400, "validation_error")

      const pricing = (domain: string) => client.partnerInventory.pricing({ urlParams: { domain } })
      expect(yield* pricing("DETAIL.com")).toEqual({
        domain: "detail.com",
        bin_price_cents: 5_000,
        floor_price_cents: 3_000,
        currency: "USD"
      })
      yield* expectFailure(pricing("unlisted.com"), 404, "not_found")
      yield* expectFailure(pricing("gone.com"), 404, "not_found")
    }))
})
