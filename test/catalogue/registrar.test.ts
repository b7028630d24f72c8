import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import type { TldPrice } from "../../src/catalogue/Api.js"
import { fromRtrPrice } from "../../src/catalogue/Catalogue.js"
import { makeLive, RtrTldInfo } from "../../src/catalogue/RealtimeRegister.js"
import { type TldMetadata, toTldMetadata } from "../../src/catalogue/TldMetadata.js"
import { apiClient } from "../support/ApiClient.js"
import { cliEntry } from "../support/BuiltApp.js"
import { realSleep } from "../support/http.js"
import { rtrTldInfo, startRtrServer } from "../support/RtrServer.js"
import * as TestServer from "../support/TestServer.js"

const KEY = "rtr-test-key"

const fixture = {
  apiKey: KEY,
  customer: "acme",
  tlds: {
    com: rtrTldInfo({ provider: "Verisign (live)", applicableFor: ["com"], metadata: { premiumSupport: "NO" } }),
    uk: rtrTldInfo({
      provider: "Nominet (live)",
      applicableFor: ["uk", "co.uk", "org.uk"],
      metadata: {
        createDomainPeriods: [12, 24, 36, 48, 60, 72, 84, 96, 108, 120],
        transferRequiresAuthcode: false,
        featuresAvailable: ["CREATE", "RENEW", "TRANSFER", "UPDATE", "DELETE", "SOMETHING_NEW"],
        nameservers: { min: 0, max: 10, required: false },
        registrant: { organizationRequired: false, organizationAllowed: true, allowedCountries: [] }
      }
    }),
    ai: rtrTldInfo({ applicableFor: ["ai"], metadata: { createDomainPeriods: [24, 36, 48, 60, 72, 84, 96, 108, 120] } })
  },
  prices: [
    { product: "domain_com", action: "CREATE", currency: "USD", price: 1000 },
    { product: "domain_com", action: "RENEW", currency: "USD", price: 1100 },
    { product: "domain_com", action: "TRANSFER", currency: "USD", price: 900 },
    { product: "domain_com", action: "RESTORE", currency: "USD", price: 5000 },
    { product: "domain_nl", action: "CREATE", currency: "EUR", price: 500 },
    { product: "ssl_basic", action: "CREATE", currency: "USD", price: 1200 }
  ],
  checks: {
    "premium.ai": { available: true, premium: true, currency: "USD", price: 250000 },
    "taken.com": { available: false, reason: "Domain exists" }
  },
  rateLimited: { "/v2/tlds/io/info": 42 },
  broken: ["/v2/tlds/de/info"]
}

const clientFor = (url: string, apiKey = KEY) =>
  makeLive({ baseUrl: url, apiKey: Redacted.make(apiKey), customer: Option.some("acme"), timeout: "5 seconds" }).pipe(
    Effect.provide(FetchHttpClient.layer)
  )

describe("Realtime Register live client against a loopback server", () => {
  it.scoped("reads TLD info with Authorization: ApiKey and decodes the documented shape", () =>
    Effect.gen(function*() {
      const rtr = yield* startRtrServer(fixture)
      const client = yield* clientFor(rtr.url)
      const info = yield* client.tldInfo("uk")
      expect(info.provider).toBe("Nominet (live)")
      expect(info.applicableFor).toEqual(["uk", "co.uk", "org.uk"])
      expect(rtr.requests[0]).toEqual({ method: "GET", path: "/v2/tlds/uk/info", authorization: `ApiKey ${KEY}` })
    }))

  it.scoped("maps errors: 404 not_found, 401 unauthorized, 429 rate_limited with Retry-After, 500 upstream", () =>
    Effect.gen(function*() {
      const rtr = yield* startRtrServer(fixture)
      const client = yield* clientFor(rtr.url)
      const notFound = yield* Effect.flip(client.tldInfo("zz"))
      expect(notFound.reason).toBe("not_found")
      expect(notFound.status).toBe(404)
      expect(notFound.message).toContain("Entity not found")

      const limited = yield* Effect.flip(client.tldInfo("io"))
      expect(limited.reason).toBe("rate_limited")
      expect(limited.retryAfter).toBe(42)

      const broken = yield* Effect.flip(client.tldInfo("de"))
      expect(broken.reason).toBe("upstream")
      expect(broken.status).toBe(500)

      const wrongKey = yield* clientFor(rtr.url, "wrong")
      const unauthorized = yield* Effect.flip(wrongKey.tldInfo("com"))
      expect(unauthorized.reason).toBe("unauthorized")
      expect(unauthorized.message).not.toContain("wrong") // the key is never echoed
    }))

  it.scoped("reads the price list and the domain check", () =>
    Effect.gen(function*() {
      const rtr = yield* startRtrServer(fixture)
      const client = yield* clientFor(rtr.url)
      const prices = yield* client.priceList
      expect(prices).toHaveLength(6)
      expect(rtr.requests.at(-1)?.path).toBe("/v2/customers/acme/pricelist")
      const premium = yield* client.checkDomain("premium.ai")
      expect(premium).toEqual({ available: true, premium: true, currency: "USD", price: 250000 })
      const taken = yield* client.checkDomain("taken.com")
      expect(taken.available).toBe(false)
      expect(taken.reason).toBe("Domain exists")
    }))

  it.scoped("an unreachable server is an RtrError, not a defect", () =>
    Effect.gen(function*() {
      const client = yield* clientFor("http://127.0.0.1:1")
      const error = yield* Effect.flip(client.tldInfo("com"))
      expect(error.reason).toBe("unreachable")
    }))
})

describe("mapping Realtime Register TLD info onto our metadata, field by field", () => {
  it("maps every field", () => {
    const info = Schema.decodeUnknownSync(RtrTldInfo)(fixture.tlds.uk)
    const synced = new Date("2026-11-20T10:00:00.000Z")
    const m = toTldMetadata("co.uk", info, synced, new Date("2026-11-21T10:00:00.000Z"), 7 * 86_400_000)
    expect({ ...m }).toEqual({
      tld: "co.uk",
      provider: "Nominet (live)",
      periodsMonths: [12, 24, 36, 48, 60, 72, 84, 96, 108, 120],
      minPeriodMonths: 12,
      maxPeriodMonths: 120,
      allowedYears: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      minYears: 1,
      maxYears: 10,
      organizationRequired: false,
      organizationAllowed: true,
      allowedCountries: [],
      minNameservers: 0,
      maxNameservers: 10,
      nameserversRequired: false,
      idnSupport: true,
      premiumSupport: "REGULAR",
      transferRequiresAuthcode: false,
      // Values outside the documented enum are dropped rather than breaking clients.
      featuresAvailable: ["CREATE", "RENEW", "TRANSFER", "UPDATE", "DELETE"],
      source: "rtr",
      lastSyncedAt: "2026-11-20T10:00:00.000Z",
      stale: false
    })
  })

  it("derives years from month periods and upper-cases country codes", () => {
    const info = Schema.decodeUnknownSync(RtrTldInfo)(
      rtrTldInfo({
        applicableFor: ["x"],
        metadata: {
          createDomainPeriods: [3, 12, 6, 24],
          registrant: { organizationRequired: true, organizationAllowed: true, allowedCountries: ["us", "ca"] }
        }
      })
    )
    const m = toTldMetadata("x", info, new Date(0), new Date(10 * 86_400_000), 7 * 86_400_000)
    expect(m.periodsMonths).toEqual([3, 6, 12, 24])
    expect(m.allowedYears).toEqual([1, 2])
    expect([m.minPeriodMonths, m.maxPeriodMonths, m.minYears, m.maxYears]).toEqual([3, 24, 1, 2])
    expect(m.allowedCountries).toEqual(["CA", "US"])
    expect(m.organizationRequired).toBe(true)
    expect(m.stale).toBe(true)
  })

  it("maps registrar cost prices to retail with the markup, skipping non-domain and non-USD products", () => {
    expect(fromRtrPrice({ product: "domain_com", action: "CREATE", currency: "USD", price: 1000 }, 20)).toEqual(
      Option.some({ tld: "com", op: "register", priceCents: 1200 })
    )
    expect(fromRtrPrice({ product: "domain_co.uk", action: "RESTORE", currency: "USD", price: 333 }, 0)).toEqual(
      Option.some({ tld: "co.uk", op: "restore", priceCents: 333 })
    )
    expect(fromRtrPrice({ product: "domain_nl", action: "CREATE", currency: "EUR", price: 500 }, 20)).toEqual(
      Option.none()
    )
    expect(fromRtrPrice({ product: "ssl_basic", action: "CREATE", currency: "USD", price: 1 }, 20)).toEqual(
      Option.none()
    )
    expect(fromRtrPrice({ product: "domain_com", action: "UPDATE", currency: "USD", price: 1 }, 20)).toEqual(
      Option.none()
    )
  })
})

describe("registry sync", () => {
  layer(
    Layer.unwrapScoped(
      Effect.gen(function*() {
        const rtr = yield* startRtrServer(fixture)
        return TestServer.layer({
          RTR_API_URL: rtr.url,
          RTR_API_KEY: KEY,
          RTR_CUSTOMER: "acme",
          PRICE_MARKUP_PERCENT: "10",
          TLD_SYNC_INTERVAL: "1 hour"
        })
      })
    )
  )("the scheduled fiber on a service with a registrar configured", (it) => {
    it.effect("syncs TLD metadata and prices from the registrar at start-up", () =>
      Effect.gen(function*() {
        // The sync runs in the background right after start; poll the public endpoint.
        const client = yield* apiClient()
        let meta: TldMetadata | undefined
        for (let i = 0; i < 100; i++) {
          meta = yield* client.catalogue.getTldMetadata({ path: { tld: "co.uk" } })
          if (meta.provider === "Nominet (live)") break
          yield* realSleep(100)
        }
        expect(meta?.provider).toBe("Nominet (live)")
        expect(meta?.stale).toBe(false)
        expect(Date.now() - Date.parse(meta!.lastSyncedAt)).toBeLessThan(60_000)
        expect(meta?.transferRequiresAuthcode).toBe(false)

        // TLDs the registrar does not know keep their snapshot data.
        const de = yield* client.catalogue.getTldMetadata({ path: { tld: "de" } })
        expect(de.provider).not.toContain("(live)")

        let price: typeof TldPrice.Type | undefined
        for (let i = 0; i < 100; i++) {
          price = yield* client.catalogue.getTldPrice({ urlParams: { tld: "com", op: "register" } })
          if (price.priceCents === 1100) break
          yield* realSleep(100)
        }
        expect(price).toEqual({ tld: "com", op: "register", priceCents: 1100 })
      }))
  })
})

const exec = promisify(execFile)
let cliRtrUrl = ""

describe("npm run cli -- tlds sync / prices import", () => {
  layer(
    Layer.unwrapScoped(
      Effect.gen(function*() {
        const rtr = yield* startRtrServer(fixture)
        const databaseUrl = yield* TestServer.sharedDatabaseUrl
        cliRtrUrl = rtr.url
        return TestServer.layer({ TLD_SYNC_INTERVAL: "0 millis" }, { databaseUrl })
      })
    ),
    { timeout: 120_000 }
  )("an operator syncing on demand", (it) => {
    it.effect("tlds sync updates the metadata the service serves", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.TestServer
        const client = yield* apiClient()
        const before = yield* client.catalogue.getTldMetadata({ path: { tld: "ai" } })
        expect(before.provider).not.toBe("TestRegistry")
        const { stdout } = yield* Effect.promise(() =>
          exec(process.execPath, [...cliEntry(), "tlds", "sync", "--json", "--tld", "ai", "--tld", "io"], {
            env: {
              ...process.env,
              ...TestServer.baseEnv,
              DATABASE_URL: server.databaseUrl!,
              RTR_API_URL: cliRtrUrl,
              RTR_API_KEY: KEY,
              RTR_CUSTOMER: "acme",
              WORKERS: "false"
            }
          })
        )
        const report = JSON.parse(stdout)
        expect(report.tlds.synced).toEqual(["ai"])
        expect(report.tlds.failed).toEqual([{ tld: "io", reason: expect.stringContaining("rate_limited") }])
        const after = yield* client.catalogue.getTldMetadata({ path: { tld: "ai" } })
        expect(after.provider).toBe("TestRegistry")
        expect(after.stale).toBe(false)
      }), 60_000)

    it.effect("prices import replaces prices; a bad file imports nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.TestServer
        const client = yield* apiClient()
        const priceCents = (tld: string, op: "register" | "renew") =>
          Effect.map(client.catalogue.getTldPrice({ urlParams: { tld, op } }), (p) => p.priceCents)
        const fs = yield* Effect.promise(() => import("node:fs/promises"))
        const dir = yield* Effect.promise(() => fs.mkdtemp("/tmp/prices-"))
        yield* Effect.promise(() =>
          fs.writeFile(`${dir}/good.csv`, "tld,op,price_cents\ncom,register,777\nnet,renew,1555\n")
        )
        yield* Effect.promise(() => fs.writeFile(`${dir}/bad.csv`, "tld,op,price_cents\ncom,register,1\nnet,buy,2\n"))
        const env = { ...process.env, ...TestServer.baseEnv, DATABASE_URL: server.databaseUrl!, WORKERS: "false" }
        const ok = yield* Effect.promise(() =>
          exec(process.execPath, [...cliEntry(), "prices", "import", `${dir}/good.csv`, "--json"], { env })
        )
        expect(JSON.parse(ok.stdout)).toEqual({ imported: 2 })
        expect(yield* priceCents("com", "register")).toBe(777)
        expect(yield* priceCents("net", "renew")).toBe(1555)

        const bad = yield* Effect.promise(() =>
          exec(process.execPath, [...cliEntry(), "prices", "import", `${dir}/bad.csv`], { env }).then(
            () => ({ code: 0, stderr: "" }),
            (e) => ({ code: e.code as number, stderr: String(e.stderr) })
          )
        )
        expect(bad.code).not.toBe(0)
        expect(bad.stderr).toContain("line 3")
        expect(yield* priceCents("com", "register")).toBe(777)
      }), 60_000)
  })
})
