/**
 * GET /api/market/listings: shapes, filters, sorts, limit bounds, offset and cursor walks over a
 * catalogue that changes mid-walk, cursor binding, price masking; GET /api/market/listings/{domain};
 * the `listings import` CLI.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import { promisify } from "node:util"
import { LISTING_SORTS } from "../../src/domain/ListingOrder.js"
import { ListingsParams, type MarketListing } from "../../src/market/Api.js"
import { ListingNotFound } from "../../src/market/Errors.js"
import { DEFAULT_PAGE_LIMIT } from "../../src/market/Market.js"
import { apiClient } from "../support/ApiClient.js"
import { cliEntry } from "../support/BuiltApp.js"
import { get } from "../support/http.js"
import { accessToken } from "../support/identity.js"
import * as TestServer from "../support/TestServer.js"

const exec = promisify(execFile)

interface Seed {
  readonly id: string
  readonly domain: string
  readonly bin: number | null
  readonly floor: number | null
  readonly listedAt: string
  readonly status?: string
  readonly environment?: string
}

const TLDS = ["com", "net", "io", "co.uk"]

/** 90 listings: prices with duplicates and gaps (offer-only), listing times with ties. */
const catalogue: ReadonlyArray<Seed> = Array.from({ length: 90 }, (_, i) => {
  const n = String(i).padStart(3, "0")
  const tld = TLDS[i % TLDS.length]
  return {
    id: `lst_seed_${n}`,
    domain: `${i % 5 === 0 ? "shop" : "brand"}${n}.${tld}`,
    bin: i % 9 === 4 ? null : 10_000 + (i % 13) * 2_500,
    floor: i % 9 === 4 ? 5_000 : 6_000,
    // Three listings per second: ties that only the id tie-breaker orders.
    listedAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 1000).toISOString()
  }
})

const insert = (rows: ReadonlyArray<Seed>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`insert into listings ${
      sql.insert(rows.map((r) => ({
        id: r.id,
        environment: r.environment ?? "live",
        domain: r.domain,
        domain_unicode: r.domain,
        tld: r.domain.slice(r.domain.indexOf(".") + 1),
        label: r.domain.slice(0, r.domain.indexOf(".")),
        bin_price_cents: r.bin,
        floor_price_cents: r.floor,
        status: r.status ?? "active",
        listed_at: new Date(r.listedAt)
      })))
    }`).pipe(Effect.orDie)

const sqlRun = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => f(sql)).pipe(Effect.orDie)

type ListingsQuery = Partial<typeof ListingsParams.Type>

/** A page through the typed client (the endpoint's defaults filled in: limit 24, offset 0, newest). */
const page = (query: ListingsQuery = {}, bearer?: string) =>
  Effect.flatMap(
    apiClient(bearer === undefined ? {} : { bearer }),
    (client) =>
      client.market.listListings({ urlParams: { limit: DEFAULT_PAGE_LIMIT, offset: 0, sort: "newest", ...query } })
  ).pipe(Effect.orDie)

const ordered = (items: ReadonlyArray<MarketListing>, sort: string) => {
  const key = (it: MarketListing) => sort === "newest" ? it.listed_at : it.bin_price
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]
    const b = items[i]
    if (sort === "newest") {
      expect(a.listed_at >= b.listed_at, `${a.id} before ${b.id}`).toBe(true)
      if (a.listed_at === b.listed_at) expect(a.id > b.id).toBe(true)
    } else {
      const asc = sort === "price_asc"
      // Offer-only listings (null buy-now price) come last in both directions.
      if (key(a) === null) expect(key(b), `${a.id} before ${b.id}`).toBe(null)
      else if (key(b) !== null) {
        expect(asc ? key(a)! <= key(b)! : key(a)! >= key(b)!, `${a.id} before ${b.id}`).toBe(true)
        if (key(a) === key(b)) expect(asc ? a.id < b.id : a.id > b.id).toBe(true)
      }
      if (key(a) === null && key(b) === null) expect(asc ? a.id < b.id : a.id > b.id).toBe(true)
    }
  }
}

const env = {
  LISTINGS_COUNT_CACHE_TTL: "0 millis",
  RDAP_MODE: "sandbox",
  RATE_LIMITS: JSON.stringify({ market_listings: 100_000 })
}

layer(TestServer.layer(env), { timeout: 120_000 })("GET /api/market/listings", (it) => {
  it.effect("a page is {items, page} with the documented fields, newest first, prices masked without pricing:read", () =>
    Effect.gen(function*() {
      yield* insert(catalogue)
      // Not shown: sandbox inventory, withdrawn and sold listings.
      yield* insert([
        {
          id: "lst_other_1",
          domain: "hidden-sold.com",
          bin: 1,
          floor: 1,
          listedAt: "2027-01-01T00:00:00.000Z",
          status: "sold"
        },
        {
          id: "lst_other_2",
          domain: "hidden-withdrawn.com",
          bin: 1,
          floor: 1,
          listedAt: "2027-01-01T00:00:00.000Z",
          status: "withdrawn"
        },
        {
          id: "lst_other_3",
          domain: "sandbox-only.com",
          bin: 1,
          floor: 1,
          listedAt: "2027-01-01T00:00:00.000Z",
          environment: "sandbox"
        }
      ])
      const reply = yield* get("/api/market/listings")
      expect(reply.status).toBe(200)
      expect(Object.keys(reply.json).sort()).toEqual(["items", "page"])
      const { items, page: p } = reply.json
      expect(Object.keys(p).sort()).toEqual(["has_more", "limit", "next_cursor", "offset", "total"])
      expect(p).toMatchObject({ limit: 24, offset: 0, total: 90, has_more: true })
      expect(typeof p.next_cursor).toBe("string")
      expect(items).toHaveLength(24)
      const newest = catalogue[89]
      expect(items[0]).toEqual({
        id: newest.id,
        domain: newest.domain,
        domain_unicode: newest.domain,
        tld: newest.domain.slice(newest.domain.indexOf(".") + 1),
        bin_price: null,
        floor_price: null,
        currency: "USD",
        listed_at: newest.listedAt,
        locked: false,
        demo: false,
        description: null,
        url: expect.stringMatching(new RegExp(`/api/market/listings/${newest.domain.replace(/\./g, "\\.")}$`))
      })
      ordered(items, "newest")
      expect(items.some((i: any) => i.domain.startsWith("hidden") || i.domain === "sandbox-only.com")).toBe(false)
    }))

  it.effect("buy-now and floor prices in USD for a bearer token with pricing:read only", () =>
    Effect.gen(function*() {
      const withScope = yield* accessToken(["pricing:read"])
      const withoutScope = yield* accessToken([])
      const unmasked = yield* page({ sort: "price_desc", limit: 200 }, withScope)
      const top = unmasked.items[0]
      expect(top.bin_price).toBe(400)
      expect(top.floor_price).toBe(60)
      const offerOnly = unmasked.items.find((i) => i.id === "lst_seed_004")
      expect(offerOnly).toMatchObject({ bin_price: null, floor_price: 50 })
      const noScope = yield* page({ sort: "price_desc", limit: 200 }, withoutScope)
      expect(noScope.items.every((i) => i.bin_price === null && i.floor_price === null)).toBe(true)
      // Masking never changes which rows or which order.
      expect(noScope.items.map((i) => i.id)).toEqual(unmasked.items.map((i) => i.id))
      const bad = yield* get("/api/market/listings", { authorization: "Bearer nope" })
      expect(bad.status).toBe(401)
      expect(bad.json.error.code).toBe("invalid_token")
    }))

  it.effect("each sort orders every row with the id as tie-breaker; offer-only listings last", () =>
    Effect.gen(function*() {
      const token = yield* accessToken(["pricing:read"])
      for (const sort of LISTING_SORTS) {
        const all = yield* page({ sort, limit: 200 }, token)
        expect(all.items).toHaveLength(90)
        expect(all.page).toMatchObject({ total: 90, has_more: false, next_cursor: null })
        ordered(all.items, sort)
      }
      const asc = yield* page({ sort: "price_asc", limit: 3 }, token)
      expect(asc.items.map((i) => i.bin_price)).toEqual([100, 100, 100])
    }))

  it.effect("walking by cursor visits every row once, at any page size, while the catalogue changes", () =>
    Effect.gen(function*() {
      const token = yield* accessToken(["pricing:read"])
      let extra = 0
      const everRemoved = new Set<string>()
      for (const sort of LISTING_SORTS) {
        for (const limit of [7, 24]) {
          const removed = new Set<string>()
          const seen: Array<MarketListing> = []
          let p = yield* page({ sort, limit }, token)
          for (let n = 1;; n++) {
            seen.push(...p.items)
            if (n === 2) {
              // Mid-walk: new listings at both ends of every order, and two existing ones go away.
              extra++
              yield* insert([
                {
                  id: `lst_new_${extra}_a`,
                  domain: `fresh${extra}a.com`,
                  bin: 100,
                  floor: 50,
                  listedAt: "2030-01-01T00:00:00.000Z"
                },
                {
                  id: `lst_new_${extra}_b`,
                  domain: `fresh${extra}b.com`,
                  bin: 90_000_000,
                  floor: 50,
                  listedAt: "2020-01-01T00:00:00.000Z"
                }
              ])
              const gone = [
                `lst_seed_0${String(40 + extra).padStart(2, "0")}`,
                `lst_seed_0${String(70 + extra).padStart(2, "0")}`
              ]
              for (const id of gone) {
                removed.add(id)
                everRemoved.add(id)
              }
              yield* sqlRun((sql) => sql`update listings set status = 'sold' where id in ${sql.in(gone)}`)
            }
            if (p.page.next_cursor === null) break
            p = yield* page({ sort, limit, cursor: p.page.next_cursor }, token)
          }
          const ids = seen.map((i) => i.id)
          expect(new Set(ids).size, `${sort}/${limit}: no duplicates`).toBe(ids.length)
          // Rows that existed throughout this walk: the seed catalogue minus every row sold so far.
          const throughout = catalogue.map((c) => c.id).filter((id) => !everRemoved.has(id))
          for (const id of throughout) expect(ids, `${sort}/${limit}: ${id} not skipped`).toContain(id)
          ordered(seen, sort)
        }
      }
    }))

  it.effect("walking by offset reaches offset >= total; an offset page's next_cursor continues right after it", () =>
    Effect.gen(function*() {
      const first = yield* page({ limit: 10 })
      const total = first.page.total
      const seen: Array<string> = []
      for (let offset = 0; offset < total; offset += 10) {
        const p = yield* page({ limit: 10, offset })
        expect(p.page).toMatchObject({ limit: 10, offset, total })
        expect(p.page.has_more).toBe(offset + 10 < total)
        expect(p.page.next_cursor === null).toBe(offset + 10 >= total)
        seen.push(...p.items.map((i) => i.id))
      }
      expect(new Set(seen).size).toBe(total)

      // Switch from offset to cursor mid-walk: the cursor page starts right after the offset page.
      const byOffset = yield* page({ limit: 10, offset: 20, sort: "price_asc" })
      const viaCursor = yield* page({ limit: 10, sort: "price_asc", cursor: byOffset.page.next_cursor! })
      const reference = yield* page({ limit: 10, offset: 30, sort: "price_asc" })
      expect(viaCursor.items.map((i) => i.id)).toEqual(reference.items.map((i) => i.id))
      expect(viaCursor.page.offset).toBe(0)

      // A cursor wins over offset.
      const both = yield* page({ limit: 10, offset: 70, sort: "price_asc", cursor: byOffset.page.next_cursor! })
      expect(both.items.map((i) => i.id)).toEqual(viaCursor.items.map((i) => i.id))

      // An offset walk while rows are added: it ends, and total follows the catalogue.
      let offset = 0
      let pages = 0
      let last = total
      while (offset < last) {
        const p = yield* page({ limit: 25, offset })
        if (pages === 1) {
          yield* insert([{
            id: "lst_offset_walk",
            domain: "offsetwalk.com",
            bin: 1_000,
            floor: 1,
            listedAt: "2031-01-01T00:00:00.000Z"
          }])
        }
        last = p.page.total
        offset += 25
        pages++
        expect(pages).toBeLessThan(20)
      }
      expect(last).toBe(total + 1)
    }))

  it.effect("a cursor used with other filters, another sort, or altered is 400 invalid_cursor", () =>
    Effect.gen(function*() {
      const p = yield* page({ limit: 5, q: "shop", sort: "price_asc" })
      const cursor = encodeURIComponent(p.page.next_cursor!)
      expect((yield* get(`/api/market/listings?limit=5&q=shop&sort=price_asc&cursor=${cursor}`)).status).toBe(200)
      // The page size may change along a walk.
      expect((yield* get(`/api/market/listings?limit=9&q=shop&sort=price_asc&cursor=${cursor}`)).status).toBe(200)
      const misuse = [
        `?limit=5&q=brand&sort=price_asc&cursor=${cursor}`,
        `?limit=5&sort=price_asc&cursor=${cursor}`,
        `?limit=5&q=shop&sort=price_desc&cursor=${cursor}`,
        `?limit=5&q=shop&cursor=${cursor}`,
        `?limit=5&q=shop&sort=price_asc&tld=com&cursor=${cursor}`,
        `?limit=5&q=shop&sort=price_asc&max=200&cursor=${cursor}`,
        `?limit=5&q=shop&sort=price_asc&cursor=${cursor.slice(0, -2)}`,
        `?limit=5&q=shop&sort=price_asc&cursor=garbage`,
        `?limit=5&q=shop&sort=price_asc&cursor=`
      ]
      // With pricing:read, so that the max filter is allowed (cursors are not bound to the caller).
      const auth = { authorization: `Bearer ${yield* accessToken(["pricing:read"])}` }
      for (const query of misuse) {
        const reply = yield* get(`/api/market/listings${query}`, auth)
        expect(reply.status, query).toBe(400)
        expect(reply.json.error.code, query).toBe("invalid_cursor")
        expect(reply.json.error.request_id).toBe(reply.headers.get("x-request-id"))
      }
      // A forged payload with a valid shape but no valid signature.
      const forged = Buffer.from(JSON.stringify({ v: 1, b: "x", k: 0, i: "lst_seed_000" })).toString("base64url") +
        ".AAAA"
      const reply = yield* get(`/api/market/listings?cursor=${forged}`)
      expect(reply.json.error.code).toBe("invalid_cursor")
    }))

  it.effect("the max filter needs pricing:read (it would bisect masked prices); price sorts stay open and their cursors hide the price", () =>
    Effect.gen(function*() {
      const withoutScope = yield* accessToken([])
      for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${withoutScope}` }]) {
        for (const query of ["?max=1299", "?q=shop&max=1298.99", "?max=0&sort=price_asc"]) {
          const reply = yield* get(`/api/market/listings${query}`, headers)
          expect(reply.status, query).toBe(403)
          expect(reply.json.error.code).toBe("insufficient_scope")
          expect(reply.json.error.request_id).toBe(reply.headers.get("x-request-id"))
          expect(JSON.stringify(reply.json)).not.toMatch(/lst_|items/)
          expect(reply.headers.get("www-authenticate")).toMatch(
            /^Bearer error="insufficient_scope", scope="pricing:read"/
          )
        }
      }
      const withScope = yield* accessToken(["pricing:read"])
      expect((yield* get("/api/market/listings?max=150", { authorization: `Bearer ${withScope}` })).status).toBe(200)
      // Price sorts: allowed anonymously, amounts masked, and the cursor does not carry the price in clear.
      const asc = yield* page({ sort: "price_asc", limit: 1 })
      expect(asc.items[0].bin_price).toBe(null)
      const cursor = String(asc.page.next_cursor)
      const decoded = cursor.split(".").map((part) => Buffer.from(part, "base64url").toString("latin1")).join(" ")
      expect(decoded).not.toMatch(/"k"|10000|lst_/)
      expect((yield* get(`/api/market/listings?sort=price_asc&limit=1&cursor=${encodeURIComponent(cursor)}`)).status)
        .toBe(200)
      // The OpenAPI document lists the 403 on the operation.
      const doc = (yield* get("/api/openapi.json")).json
      expect(Object.keys(doc.paths["/api/market/listings"].get.responses)).toContain("403")
    }))

  it.effect("limit is 1 to 200 (default 24); offset is >= 0; bad parameters are a typed 400", () =>
    Effect.gen(function*() {
      expect((yield* page({ limit: 1 })).items).toHaveLength(1)
      expect((yield* page({ limit: 200 })).page.limit).toBe(200)
      for (
        const query of [
          "?limit=0",
          "?limit=201",
          "?limit=-1",
          "?limit=2.5",
          "?limit=ten",
          "?offset=-1",
          "?offset=1.5",
          "?sort=cheapest",
          "?max=-5",
          "?max=abc"
        ]
      ) {
        const reply = yield* get(`/api/market/listings${query}`)
        expect(reply.status, query).toBe(400)
        expect(reply.json.error.code, query).toBe("validation_error")
      }
      const beyond = yield* page({ offset: 100000 })
      expect(beyond).toMatchObject({ items: [], page: { has_more: false, next_cursor: null, offset: 100000 } })
    }))

  it.effect("filters: q is a literal substring, tld an exact suffix, max a buy-now ceiling in USD", () =>
    Effect.gen(function*() {
      const token = yield* accessToken(["pricing:read"])
      const shop = yield* page({ q: "SHOP", limit: 200 })
      expect(shop.items.length).toBeGreaterThan(0)
      expect(shop.items.every((i) => i.domain.includes("shop"))).toBe(true)
      expect(shop.page.total).toBe(shop.items.length)
      // LIKE wildcards are literal.
      expect((yield* page({ q: "%" })).page.total).toBe(0)
      expect((yield* page({ q: "_" })).page.total).toBe(0)

      const uk = yield* page({ tld: ".CO.UK", limit: 200 })
      expect(uk.items.length).toBeGreaterThan(0)
      expect(uk.items.every((i) => i.tld === "co.uk")).toBe(true)
      const badTld = yield* get("/api/market/listings?tld=c%20m")
      expect(badTld.status).toBe(400)
      expect(badTld.json.error.code).toBe("invalid_tld")

      const cheap = yield* page({ max: 150, limit: 200 }, token)
      expect(cheap.items.length).toBeGreaterThan(0)
      expect(cheap.items.every((i) => i.bin_price !== null && i.bin_price <= 150)).toBe(true)
      const combined = yield* page({ q: "brand", tld: "com", max: 150.5, sort: "price_asc", limit: 200 }, token)
      expect(
        combined.items.every((i) =>
          i.domain.includes("brand") && i.tld === "com" && i.bin_price !== null && i.bin_price <= 150.5
        )
      )
        .toBe(true)
      ordered(combined.items, "price_asc")
    }))

  it.effect("GET /api/market/listings/{domain} answers one listing, 404 when not for sale", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const one = yield* client.market.getListing({ path: { domain: "SHOP000.com" } })
      expect(one).toMatchObject({ id: "lst_seed_000", domain: "shop000.com", bin_price: null })
      const sold = yield* Effect.flip(client.market.getListing({ path: { domain: "hidden-sold.com" } }))
      expect(sold).toBeInstanceOf(ListingNotFound)
      expect(sold).toMatchObject({ message: "hidden-sold.com is not listed for sale" })
      // The wire: 404 and the typed envelope with its code.
      const soldReply = yield* get("/api/market/listings/hidden-sold.com")
      expect(soldReply.status).toBe(404)
      expect(soldReply.json.error.code).toBe("listing_not_found")
      const invalid = yield* get("/api/market/listings/-x-.com")
      expect(invalid.status).toBe(400)
      expect(invalid.json.error.code).toBe("invalid_domain")
    }))
})

describe("listings import (CLI)", () => {
  layer(
    Layer.unwrapScoped(
      Effect.map(TestServer.sharedDatabaseUrl, (databaseUrl) => TestServer.layer(env, { databaseUrl }))
    ),
    { timeout: 180_000 }
  )("an operator importing a CSV", (it) => {
    it.effect("imports valid rows (insert or update by domain), refuses a file with bad lines, and the listings appear", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.TestServer
        const dir = yield* Effect.promise(() => fs.mkdtemp(`${os.tmpdir()}/listings-`))
        const good = [
          "domain,bin_price_cents,floor_price_cents,currency,status,locked,listed_at,description",
          `Bücher.com,150000,90000,USD,active,false,2026-03-01T00:00:00Z,"Books, in German"`,
          "alpha.io,,20000,,,,,",
          "pending-sale.net,99900,50000,USD,pending,true,,"
        ].join("\n")
        yield* Effect.promise(() => fs.writeFile(`${dir}/good.csv`, good))
        yield* Effect.promise(() =>
          fs.writeFile(`${dir}/bad.csv`, "domain,bin_price_cents\nok.com,100\n-bad-.com,100\nok2.com,12.5\nok.com,3\n")
        )
        const cliEnv = { ...process.env, ...TestServer.baseEnv, DATABASE_URL: server.databaseUrl!, WORKERS: "false" }
        const ok = yield* Effect.promise(() =>
          exec(process.execPath, [...cliEntry(), "listings", "import", `${dir}/good.csv`, "--json"], { env: cliEnv })
        )
        expect(JSON.parse(ok.stdout)).toEqual({ imported: 3, environment: "live" })

        const one = yield* get("/api/market/listings/xn--bcher-kva.com")
        expect(one.status).toBe(200)
        expect(one.json).toMatchObject({
          domain: "xn--bcher-kva.com",
          domain_unicode: "bücher.com",
          tld: "com",
          listed_at: "2026-03-01T00:00:00.000Z",
          description: "Books, in German",
          locked: false
        })
        expect((yield* get("/api/market/listings/pending-sale.net")).json.locked).toBe(true)
        const unicodeQuery = yield* page({ q: "bücher" })
        expect(unicodeQuery.items.map((i) => i.domain)).toEqual(["xn--bcher-kva.com"])

        // Re-import updates in place: same id, new price.
        yield* Effect.promise(() => fs.writeFile(`${dir}/update.csv`, "domain,bin_price_cents\nbücher.com,175000\n"))
        yield* Effect.promise(() =>
          exec(process.execPath, [...cliEntry(), "listings", "import", `${dir}/update.csv`], { env: cliEnv })
        )
        const after = yield* sqlRun((sql) =>
          sql<
            { id: string; bin_price_cents: number }
          >`select id, bin_price_cents from listings where domain = 'xn--bcher-kva.com'`
        )
        expect(after).toEqual([{ id: one.json.id, bin_price_cents: 175000 }])

        const bad = yield* Effect.promise(() =>
          exec(process.execPath, [...cliEntry(), "listings", "import", `${dir}/bad.csv`], { env: cliEnv }).then(
            () => ({ code: 0, stderr: "" }),
            (e: any) => ({ code: e.code as number, stderr: String(e.stderr) })
          )
        )
        expect(bad.code).toBe(1)
        expect(bad.stderr).toContain("line 3")
        expect(bad.stderr).toContain("line 4")
        expect(bad.stderr).toContain("line 5: duplicate of line 2")
        const okCount = yield* sqlRun((sql) =>
          sql<{ n: number }>`select count(*)::int as n from listings where domain = 'ok.com'`
        )
        expect(okCount[0].n).toBe(0)
      }))
  })
})
