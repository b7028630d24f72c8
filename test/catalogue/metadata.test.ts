import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { get, typedError } from "../support/http.js"
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
      const ai = (yield* get("/api/tlds/ai/metadata")).json
      expect(ai.minYears).toBe(2)
      expect(ai.minPeriodMonths).toBe(24)
      expect(ai.allowedYears[0]).toBe(2)

      const us = (yield* get("/api/tlds/us/metadata")).json
      expect(us.allowedCountries).toEqual(["US"])

      const eu = (yield* get("/api/tlds/eu/metadata")).json
      for (const c of ["DE", "FR", "NL", "IE", "IS", "LI", "NO"]) expect(eu.allowedCountries).toContain(c)
      expect(eu.allowedCountries).not.toContain("US")
      expect(eu.allowedCountries).not.toContain("GB")

      const ca = (yield* get("/api/tlds/ca/metadata")).json
      expect(ca.allowedCountries).toEqual(["CA"])

      const com = (yield* get("/api/tlds/com/metadata")).json
      expect(com.allowedCountries).toEqual([])
      expect(com.minYears).toBe(1)
      expect(com.maxYears).toBe(10)
    }))

  it.effect("resolves second-level registry suffixes such as co.uk, case-insensitively", () =>
    Effect.gen(function*() {
      const reply = yield* get("/api/tlds/CO.UK/metadata")
      expect(reply.status).toBe(200)
      expect(reply.json.tld).toBe("co.uk")
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
      for (const tld of tlds) expect((yield* get(`/api/tlds/${tld}/metadata`)).status, tld).toBe(200)
    }))

  it.effect("reports snapshot data older than the configured age as stale", () =>
    Effect.gen(function*() {
      // The snapshot was taken 2026-11-01; the default maximum age is 7 days.
      const reply = yield* get("/api/tlds/net/metadata")
      const age = Date.now() - Date.parse(reply.json.lastSyncedAt)
      expect(reply.json.stale).toBe(age > 7 * 86_400_000)
    }))

  it.effect("404 typed error for an unknown TLD, 400 for an invalid one", () =>
    Effect.gen(function*() {
      const missing = yield* get("/api/tlds/notatld/metadata")
      expect(missing.status).toBe(404)
      expect(typedError(missing).code).toBe("tld_not_found")

      const invalid = yield* get("/api/tlds/c_m/metadata")
      expect(invalid.status).toBe(400)
      expect(typedError(invalid).code).toBe("invalid_tld")
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
        expect((yield* get("/api/tlds/com/metadata")).json.stale).toBe(false)
      }))
  })
  layer(TestServer.layer({ TLD_STALE_AFTER: "1 millis" }))("with a 1 ms maximum age", (it) => {
    it.effect("the snapshot is stale", () =>
      Effect.gen(function*() {
        expect((yield* get("/api/tlds/com/metadata")).json.stale).toBe(true)
      }))
  })
})
