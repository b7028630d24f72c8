import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { InvalidTld, TldNotFound } from "../../src/catalogue/Errors.js"
import { apiClient } from "../support/ApiClient.js"
import { get } from "../support/http.js"
import * as TestServer from "../support/TestServer.js"

const FIELDS: Record<string, string> = {
  tld: "string",
  provider: "string",
  periodsMonths: "integer[]",
  minPeriodMonths: "integer",
  maxPeriodMonths: "integer",
  allowedYears: "integer[]",
  minYears: "integer",
  maxYears: "integer",
  organizationRequired: "boolean",
  organizationAllowed: "boolean",
  allowedCountries: "string[]",
  minNameservers: "integer",
  maxNameservers: "integer",
  nameserversRequired: "boolean",
  idnSupport: "boolean",
  premiumSupport: "string",
  transferRequiresAuthcode: "boolean",
  featuresAvailable: "string[]",
  source: "string",
  lastSyncedAt: "string",
  stale: "boolean"
}

const typeOf = (v: unknown): string =>
  Array.isArray(v)
    ? `${v.length === 0 ? "string" : typeOf(v[0])}[]`
    : Number.isInteger(v)
    ? "integer"
    : typeof v

layer(TestServer.layer())("GET /api/tlds/{tld}/metadata (bundled snapshot)", (it) => {
  it.effect("returns every field of the description with its exact type", () =>
    Effect.gen(function*() {
      // Raw: this asserts the wire form, its exact keys and their JSON types.
      const reply = yield* get("/api/tlds/com/metadata")
      expect(reply.status).toBe(200)
      expect(Object.keys(reply.json).sort()).toEqual(Object.keys(FIELDS).sort())
      for (const [field, type] of Object.entries(FIELDS)) {
        if (field === "allowedCountries") expect(Array.isArray(reply.json[field])).toBe(true)
        else expect(typeOf(reply.json[field]), field).toBe(type)
      }
      expect(reply.json.tld).toBe("com")
      expect(reply.json.source).toBe("rtr")
      expect(new Date(reply.json.lastSyncedAt).toISOString()).toBe(reply.json.lastSyncedAt)
      for (const f of reply.json.featuresAvailable) {
        expect(["CREATE", "RENEW", "TRANSFER", "UPDATE", "DELETE", "RESTORE", "PRIVACY_PROTECT"]).toContain(f)
      }
    }))

  it.effect("carries the real registry rules: .ai 2 years minimum, .us nexus, .eu EU/EEA, .ca Canada", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const metadata = (tld: string) => client.catalogue.getTldMetadata({ path: { tld } })
      const ai = yield* metadata("ai")
      expect(ai.minYears).toBe(2)
      expect(ai.minPeriodMonths).toBe(24)
      expect(ai.allowedYears[0]).toBe(2)

      const us = yield* metadata("us")
      expect(us.allowedCountries).toEqual(["US"])

      const eu = yield* metadata("eu")
      for (const c of ["DE", "FR", "NL", "IE", "IS", "LI", "NO"]) expect(eu.allowedCountries).toContain(c)
      expect(eu.allowedCountries).not.toContain("US")
      expect(eu.allowedCountries).not.toContain("GB")

      const ca = yield* metadata("ca")
      expect(ca.allowedCountries).toEqual(["CA"])

      const com = yield* metadata("com")
      expect(com.allowedCountries).toEqual([])
      expect(com.minYears).toBe(1)
      expect(com.maxYears).toBe(10)
    }))

  it.effect("resolves second-level registry suffixes such as co.uk, case-insensitively", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      const reply = yield* client.catalogue.getTldMetadata({ path: { tld: "CO.UK" } })
      expect(reply.tld).toBe("co.uk")
    }))

  it.effect("ships at least the 60 most registered TLDs", () =>
    Effect.gen(function*() {
      const tlds = [
        "com",
        "net",
        "org",
        "io",
        "ai",
        "co",
        "app",
        "dev",
        "de",
        "uk",
        "us",
        "eu",
        "ca",
        "fr",
        "nl",
        "info",
        "biz",
        "xyz",
        "online",
        "site",
        "store",
        "shop",
        "tech",
        "me",
        "tv",
        "cc",
        "au",
        "jp",
        "in",
        "br",
        "it",
        "es",
        "ch",
        "se",
        "pl",
        "be",
        "at",
        "dk",
        "no",
        "fi",
        "cz",
        "pt",
        "ie",
        "nz",
        "mx",
        "cn",
        "ru",
        "top",
        "club",
        "live",
        "cloud",
        "blog",
        "page",
        "email",
        "agency",
        "digital",
        "design",
        "network",
        "games",
        "life"
      ]
      expect(tlds.length).toBe(60)
      const client = yield* apiClient()
      // Only a 200 decodes as TldMetadata; anything else fails the call.
      for (const tld of tlds) {
        const answer = yield* Effect.either(client.catalogue.getTldMetadata({ path: { tld } }))
        expect(answer._tag, tld).toBe("Right")
      }
    }))

  it.effect("reports snapshot data older than the configured age as stale", () =>
    Effect.gen(function*() {
      // The snapshot was taken 2026-11-01; the default maximum age is 7 days.
      const reply = yield* (yield* apiClient()).catalogue.getTldMetadata({ path: { tld: "net" } })
      const age = Date.now() - Date.parse(reply.lastSyncedAt)
      expect(reply.stale).toBe(age > 7 * 86_400_000)
    }))

  it.effect("404 typed error for an unknown TLD, 400 for an invalid one", () =>
    Effect.gen(function*() {
      // Each class is its status (404, 400) and its wire code (tld_not_found, invalid_tld).
      const client = yield* apiClient()
      const missing = yield* Effect.flip(client.catalogue.getTldMetadata({ path: { tld: "notatld" } }))
      expect(missing).toBeInstanceOf(TldNotFound)

      const invalid = yield* Effect.flip(client.catalogue.getTldMetadata({ path: { tld: "c_m" } }))
      expect(invalid).toBeInstanceOf(InvalidTld)
    }))

  it.effect("is rate limited at 120/min per IP with RateLimit headers", () =>
    Effect.gen(function*() {
      const reply = yield* get("/api/tlds/org/metadata")
      expect(reply.headers.get("ratelimit-limit")).toBe("120")
      expect(reply.headers.get("ratelimit-policy")).toBe("120;w=60")
      expect(reply.headers.get("ratelimit-remaining")).toMatch(/^\d+$/)
    }))
})

describe("staleness is configurable", () => {
  layer(TestServer.layer({ TLD_STALE_AFTER: "36500 days" }))("with a 100-year maximum age", (it) => {
    it.effect("the snapshot is not stale", () =>
      Effect.gen(function*() {
        expect((yield* (yield* apiClient()).catalogue.getTldMetadata({ path: { tld: "com" } })).stale).toBe(false)
      }))
  })
  layer(TestServer.layer({ TLD_STALE_AFTER: "1 millis" }))("with a 1 ms maximum age", (it) => {
    it.effect("the snapshot is stale", () =>
      Effect.gen(function*() {
        expect((yield* (yield* apiClient()).catalogue.getTldMetadata({ path: { tld: "com" } })).stale).toBe(true)
      }))
  })
})
