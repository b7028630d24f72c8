/**
 * API key pairs: issued by `npm run cli -- apikey create`, checked by the ApiKeyAuth middleware on
 * GET /api/v1/domains/available. Missing or wrong → 401 in the legacy shape `{"error":"…"}`.
 * A pair that opens the endpoint is shown through the typed client (the answer decoded by
 * KeyedAvailability); the 401s stay raw, being about the legacy wire shape.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { ApiKeyStore, issueApiKey } from "../../src/identity/apikeys/ApiKeyStore.js"
import { apiClient } from "../support/ApiClient.js"
import { runCli } from "../support/cli.js"
import { get, type Reply } from "../support/http.js"
import * as TestServer from "../support/TestServer.js"

const server = Layer.unwrapScoped(
  Effect.map(TestServer.sharedDatabaseUrl, (url) => TestServer.layer({}, { databaseUrl: url }))
)

const PATH = "/api/v1/domains/available?domain=example.com"

/** GET /api/v1/domains/available?domain=example.com through the typed client with this pair. */
const available = (pair: { readonly key: string; readonly secret: string }) =>
  Effect.flatMap(
    apiClient({ headers: { "x-api-key": pair.key, "x-api-secret": pair.secret } }),
    (client) => client.developer.domainAvailable({ urlParams: { domain: "example.com" }, withResponse: true })
  )

const expectLegacy401 = (reply: Reply, label: string) => {
  expect(reply.status, label).toBe(401)
  expect(Object.keys(reply.json), label).toEqual(["error"])
  expect(reply.json.error, label).toBeTypeOf("string")
  expect(reply.headers.get("x-request-id"), label).toMatch(/^req_/)
}

const cli = (args: ReadonlyArray<string>) => Effect.flatMap(TestServer.TestServer, (s) => runCli(s.databaseUrl!, args))

layer(server, { timeout: 120_000 })("API key pairs", (it) => {
  it.effect("apikey create prints {key, secret} once; the pair opens /api/v1/domains/available", () =>
    Effect.gen(function*() {
      const created = yield* cli(["apikey", "create", "--name", "partner dashboard", "--json"])
      expect(created.code, created.stderr).toBe(0)
      const pair = JSON.parse(created.stdout)
      expect(Object.keys(pair).sort()).toEqual(["key", "secret"])
      expect(pair.key).toMatch(/^ak_[A-Za-z0-9_-]{24}$/)
      expect(pair.secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/)

      const [ok, response] = yield* available(pair)
      expect(response.status).toBe(200)
      expect(ok.domain).toBe("example.com")

      // The secret is never shown again.
      const listed = yield* cli(["apikey", "list", "--json"])
      expect(listed.code).toBe(0)
      expect(listed.stdout).not.toContain(pair.secret)
      expect(JSON.parse(listed.stdout).keys.map((k: any) => k.name)).toContain("partner dashboard")
    }))

  it.effect("missing headers, a wrong secret, an unknown key, a swapped pair: 401 in the legacy shape", () =>
    Effect.gen(function*() {
      const pair = yield* issueApiKey("probe")
      const other = yield* issueApiKey("other")
      const cases: Array<[string, Record<string, string>]> = [
        ["no headers", {}],
        ["key only", { "x-api-key": pair.key }],
        ["secret only", { "x-api-secret": pair.secret }],
        ["empty secret", { "x-api-key": pair.key, "x-api-secret": "" }],
        ["wrong secret", {
          "x-api-key": pair.key,
          "x-api-secret": pair.secret.slice(0, -1) + (pair.secret.endsWith("A") ? "B" : "A")
        }],
        ["unknown key", { "x-api-key": "ak_doesnotexist000000000000", "x-api-secret": pair.secret }],
        ["secret of another key", { "x-api-key": pair.key, "x-api-secret": other.secret }]
      ]
      for (const [label, headers] of cases) expectLegacy401(yield* get(PATH, headers), label)
      const missing = yield* get(PATH)
      expect(missing.json.error).toContain("x-api-key")
      // A wrong secret does not say which half was wrong.
      const wrong = yield* get(PATH, { "x-api-key": pair.key, "x-api-secret": other.secret })
      const unknown = yield* get(PATH, { "x-api-key": "ak_doesnotexist000000000000", "x-api-secret": pair.secret })
      expect(wrong.json).toEqual(unknown.json)
    }))

  it.effect("only a SHA-256 of the secret is stored", () =>
    Effect.gen(function*() {
      const pair = yield* issueApiKey("storage")
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ secret_hash: string }>`select secret_hash from api_keys where key = ${pair.key}`
      expect(rows).toHaveLength(1)
      expect(rows[0].secret_hash).toBe(createHash("sha256").update(pair.secret).digest("hex"))
      const dump = JSON.stringify(yield* sql`select * from api_keys`)
      expect(dump).not.toContain(pair.secret)
    }))

  it.effect("apikey revoke takes effect at once", () =>
    Effect.gen(function*() {
      const pair = yield* issueApiKey("to revoke")
      const [, before] = yield* available(pair)
      expect(before.status).toBe(200)
      const revoked = yield* cli(["apikey", "revoke", pair.key, "--json"])
      expect(revoked.code, revoked.stderr).toBe(0)
      expectLegacy401(yield* get(PATH, { "x-api-key": pair.key, "x-api-secret": pair.secret }), "revoked")
      const again = yield* cli(["apikey", "revoke", pair.key])
      expect(again.code).toBe(1)
    }))

  it.effect("the store verifies pairs (service level)", () =>
    Effect.gen(function*() {
      const store = yield* Effect.provide(ApiKeyStore, ApiKeyStore.Default)
      const pair = yield* store.create("service")
      expect(yield* store.verify(pair.key, pair.secret)).toEqual({ keyId: pair.id, name: "service" })
      expect(yield* store.verify(pair.key, "sk_wrong")).toBeUndefined()
      expect(yield* store.verify("", pair.secret)).toBeUndefined()
      expect(yield* store.verify("x".repeat(500), pair.secret)).toBeUndefined()
    }))
})
