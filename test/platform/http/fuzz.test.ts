/**
 * A bounded, deterministic fuzz over every operation of the service's own OpenAPI document,
 * through HTTP against a real server: for each operation, requests built from its schemas (valid,
 * missing fields, wrong types, hostile strings, wrong or missing content types, broken and deeply
 * nested JSON, oversized values). No answer may be a 5xx, and every error must be in the shape the
 * path documents (typed envelope with the X-Request-Id, legacy `{error}`, or OAuth's) with a
 * status the operation (or the request guard) documents.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { signRequest } from "../../../src/partner-client/index.js"
import { fetchReply, type Reply } from "../../support/http.js"
import { createPartner } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

type Json = Record<string, any>

/** mulberry32: the same requests on every run. */
const rng = (seed: number) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const HOSTILE = [
  "",
  " ",
  "a\u0000b",
  "x".repeat(5_000),
  "ümlaut-ß.例え.テスト",
  "'; drop table listings; --",
  "../../etc/passwd",
  "%00%ff%",
  "😀".repeat(50),
  "-1",
  "1e309",
  "NaN",
  "null",
  "<script>alert(1)</script>",
  "example.com",
  "a".repeat(64) + ".com"
]

const WRONG = [null, 0, -1, 1.5, true, [], {}, "string", 1e308, [1, 2, 3], { nested: { deep: [1] } }]

interface Generator {
  readonly next: () => number
  readonly pick: <A>(xs: ReadonlyArray<A>) => A
}

const makeGen = (seed: number): Generator => {
  const next = rng(seed)
  return { next, pick: (xs) => xs[Math.floor(next() * xs.length)]! }
}

const resolve = (spec: Json, schema: Json | undefined): Json => {
  let s = schema ?? {}
  for (let i = 0; i < 10 && typeof s.$ref === "string"; i++) {
    s = {
      ...spec.components.schemas[s.$ref.split("/").pop()!],
      ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== "$ref"))
    }
  }
  return s
}

/** A value that tries to satisfy the schema. */
const valid = (spec: Json, schema: Json | undefined, g: Generator, depth = 0): unknown => {
  const s = resolve(spec, schema)
  if (depth > 6) return null
  if (s.const !== undefined) return s.const
  if (Array.isArray(s.enum)) return g.pick(s.enum)
  const alternatives = s.anyOf ?? s.oneOf
  if (Array.isArray(alternatives)) return valid(spec, g.pick(alternatives), g, depth + 1)
  switch (Array.isArray(s.type) ? s.type[0] : s.type) {
    case "object": {
      const out: Json = {}
      for (const [k, v] of Object.entries<Json>(s.properties ?? {})) {
        if ((s.required ?? []).includes(k) || g.next() < 0.5) out[k] = valid(spec, v, g, depth + 1)
      }
      return out
    }
    case "array": {
      const n = Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 3, 1 + Math.floor(g.next() * 3)))
      return Array.from({ length: n }, () => valid(spec, s.items, g, depth + 1))
    }
    case "integer":
      return Math.max(s.minimum ?? 0, Math.min(s.maximum ?? 1_000, Math.floor(g.next() * 1_000)))
    case "number":
      return Math.max(s.minimum ?? 0, Math.min(s.maximum ?? 1_000, g.next() * 1_000))
    case "boolean":
      return g.next() < 0.5
    case "string":
      if (s.pattern === "^[A-Z]{3}$") return "USD"
      if (s.pattern === "^[A-Z]{2}$") return "GB"
      if (typeof s.pattern === "string" && s.pattern.includes("@")) return "fuzz@example.org"
      return g.pick(["example.com", "fuzz", "com", "https://example.org/cb", "ord_fuzz", "a-b.dev"])
    default:
      return g.pick(["example.com", 1, true])
  }
}

/** The same structure with some values swapped for wrong types or hostile strings. */
const mutate = (value: unknown, g: Generator, rate: number): unknown => {
  if (g.next() < rate) return g.next() < 0.5 ? g.pick(WRONG) : g.pick(HOSTILE)
  if (Array.isArray(value)) return value.map((v) => mutate(v, g, rate))
  if (value && typeof value === "object") {
    const out: Json = {}
    for (const [k, v] of Object.entries(value)) if (g.next() > rate / 2) out[k] = mutate(v, g, rate)
    return out
  }
  return value
}

interface FuzzRequest {
  readonly method: string
  readonly url: string
  readonly contentType?: string | undefined
  readonly body?: string | undefined
}

const VARIANTS = 7

const fuzzRequests = (spec: Json, path: string, method: string, op: Json, seed: number): Array<FuzzRequest> => {
  const out: Array<FuzzRequest> = []
  const params: Array<Json> = op.parameters ?? []
  const contentTypes = Object.keys(op.requestBody?.content ?? {})
  for (let variant = 0; variant < VARIANTS; variant++) {
    const g = makeGen(seed * 31 + variant)
    const hostile = variant >= 2
    let url = path.replace(
      /\{([^}]+)\}/g,
      () =>
        encodeURIComponent(
          String(hostile && g.next() < 0.6 ? g.pick(HOSTILE) || "x" : valid(spec, { type: "string" }, g))
        )
    )
    const query = new URLSearchParams()
    for (const p of params.filter((p) => p.in === "query")) {
      if (!p.required && g.next() < 0.4) continue
      const v = hostile && g.next() < 0.5 ? g.pick([...HOSTILE, ...WRONG.map(String)]) : valid(spec, p.schema, g)
      query.set(p.name, typeof v === "string" ? v : JSON.stringify(v))
    }
    if ([...query].length > 0) url += `?${query}`
    if (contentTypes.length === 0) {
      out.push({ method: method.toUpperCase(), url })
      continue
    }
    const type = g.pick(contentTypes)
    const schema = op.requestBody.content[type].schema
    let value = valid(spec, schema, g)
    if (variant >= 2) value = mutate(value, g, 0.3 + g.next() * 0.5)
    const json = (v: unknown) => JSON.stringify(v)
    const form = (v: unknown) =>
      new URLSearchParams(
        Object.entries(v && typeof v === "object" ? v : { value: v }).map((
          [k, x]
        ) => [k, typeof x === "string" ? x : JSON.stringify(x)])
      ).toString()
    const encode = type.includes("x-www-form-urlencoded") ? form : json
    switch (variant) {
      case 5: {
        // Broken JSON, deep nesting, wrong top-level types.
        const broken = g.pick([
          "{",
          "{\"a\":",
          "[".repeat(2_000),
          "{\"a\":".repeat(100) + "1" + "}".repeat(100),
          "null",
          "[]",
          "\"str\"",
          "1",
          "\u0000"
        ])
        out.push({ method: method.toUpperCase(), url, contentType: type, body: broken })
        break
      }
      case 6: {
        // The right body with a wrong, bogus or missing content type.
        const bogus = g.pick([
          "application/xml",
          "multipart/form-data",
          "multipart/form-data; boundary=x",
          "*/*",
          "text/plain",
          "application/merge-patch+json",
          "garbage",
          undefined
        ])
        out.push({ method: method.toUpperCase(), url, contentType: bogus, body: encode(value) })
        break
      }
      default:
        out.push({ method: method.toUpperCase(), url, contentType: type, body: encode(value) })
    }
  }
  return out
}

const isOAuthPath = (path: string) => path.startsWith("/api/oauth/")
const LEGACY = new Set(["/api/pricing/tld", "/api/v1/domains/available"])
/** Statuses the request guard may add to any operation (405 only for an unserved method). */
const GUARD_STATUSES = new Set(["413", "415", "503"])

const shapeProblem = (path: string, op: Json, reply: Reply): string | undefined => {
  if (reply.status >= 500) return "5xx"
  if (reply.status < 400) return undefined
  const documented = Object.keys(op.responses ?? {})
  if (!documented.includes(String(reply.status)) && !GUARD_STATUSES.has(String(reply.status))) {
    return `undocumented status ${reply.status}`
  }
  const body = reply.json
  // Browser pages (the OAuth consent flow) document HTML error pages.
  const content = op.responses?.[String(reply.status)]?.content ?? {}
  if ("text/html" in content && (reply.headers.get("content-type") ?? "").startsWith("text/html")) return undefined
  if (isOAuthPath(path) && typeof body?.error === "string") {
    return typeof body.error_description === "string" || body.error_description === undefined
      ? undefined
      : "bad OAuth error"
  }
  if (LEGACY.has(path) && typeof body?.error === "string") return undefined
  const e = body?.error
  if (!e || typeof e !== "object" || typeof e.code !== "string" || typeof e.message !== "string") {
    return "not the typed error shape"
  }
  if (e.request_id !== reply.headers.get("x-request-id")) return "request_id differs from X-Request-Id"
  if (reply.text.length > 4_000) return `error body of ${reply.text.length} characters`
  return undefined
}

layer(
  TestServer.layer({
    // Nothing outside the machine: upstreams are closed loopback ports, answered at once.
    RDAP_BOOTSTRAP_URL: "http://127.0.0.1:9/dns.json",
    WHOIS_REFERRAL_SERVER: "127.0.0.1",
    WHOIS_PORT: "9",
    DNS_RESOLVER: "127.0.0.1:9",
    RDAP_TIMEOUT: "2 seconds",
    WHOIS_TIMEOUT: "2 seconds",
    AVAILABILITY_UPSTREAM_TIMEOUT: "2 seconds",
    // Room for a few hundred requests from one address.
    RATE_LIMITS: JSON.stringify({ whois: 1000 })
  }),
  { timeout: 180_000 }
)("fuzz", (it) => {
  it.effect(
    "every operation of the OpenAPI document: no 5xx, only documented error shapes",
    () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer.TestServer
        const spec = (yield* Effect.promise(() => fetchReply(`${baseUrl}/api/openapi.json`))).json as Json
        const partner = yield* createPartner({ scopes: ["search", "buy", "webhook"] })
        const cases: Array<{ path: string; op: Json; request: FuzzRequest }> = []
        let seed = 1
        for (const [path, item] of Object.entries<Json>(spec.paths)) {
          for (const [method, op] of Object.entries<Json>(item)) {
            for (const request of fuzzRequests(spec, path, method, op, seed++)) cases.push({ path, op, request })
          }
        }
        expect(cases.length).toBeGreaterThan(250)

        const send = async ({ path, request }: { path: string; request: FuzzRequest }) => {
          const headers: Record<string, string> = {}
          if (request.contentType !== undefined) headers["content-type"] = request.contentType
          if (path.startsWith("/api/partner/")) {
            Object.assign(
              headers,
              signRequest({ keyId: partner.key_id, secret: partner.secret }, {
                method: request.method,
                url: request.url,
                body: request.body
              })
            )
            headers["idempotency-key"] = crypto.randomUUID()
          }
          if (path.startsWith("/api/admin/")) headers.authorization = `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}`
          return fetchReply(`${baseUrl}${request.url}`, { method: request.method, headers, body: request.body })
        }

        const failures: Array<string> = []
        const concurrency = 6
        for (let i = 0; i < cases.length; i += concurrency) {
          const batch = cases.slice(i, i + concurrency)
          const replies = yield* Effect.promise(() => Promise.all(batch.map(send)))
          batch.forEach((c, j) => {
            const problem = shapeProblem(c.path, c.op, replies[j]!)
            if (problem !== undefined) {
              failures.push(
                `${problem}: ${c.request.method} ${c.request.url.slice(0, 120)} [${c.request.contentType}] ${
                  (c.request.body ?? "").slice(0, 120)
                } → ${replies[j]!.status} ${replies[j]!.text.slice(0, 200)}`
              )
            }
          })
        }
        if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, failures.join("\n"))
        expect(failures, failures.join("\n")).toEqual([])
      }),
    300_000
  ) // several hundred requests, each operation's cases in turn; grows with the API
})
