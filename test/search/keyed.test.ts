/** GET /api/v1/domains/available with an API key pair: the engine's answer in the keyed shape, legacy errors. */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { issueApiKey } from "../../src/identity/apikeys/ApiKeyStore.js"
import { apiClient } from "../support/ApiClient.js"
import * as DelayedRdap from "../support/DelayedRdap.js"
import { get } from "../support/http.js"
import * as TestServer from "../support/TestServer.js"

const server = Layer.unwrapScoped(
  Effect.map(
    DelayedRdap.start({ com: { registered: ["taken.com", "listed.com", "locked.com"] }, io: {} }),
    (rdap) => TestServer.layer({ RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl })
  )
)

layer(server, { timeout: 120_000 })("GET /api/v1/domains/available", (it) => {
  it.effect("answers {domain, available, locked, bin_price, floor_price} for each kind of domain", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents, status, locked) values
        ('lst_k1', 'live', 'listed.com', 'listed.com', 'com', 'listed', 1250050, 800000, 'active', false),
        ('lst_k2', 'live', 'locked.com', 'locked.com', 'com', 'locked', 99900, null, 'pending', true)`.pipe(
        Effect.orDie
      )
      const pair = yield* issueApiKey("keyed test").pipe(Effect.orDie)
      const client = yield* apiClient({ headers: { "x-api-key": pair.key, "x-api-secret": pair.secret } })
      const ask = (domain: string) =>
        Effect.gen(function*() {
          const [answer, response] = yield* client.developer.domainAvailable({
            urlParams: { domain },
            withResponse: true
          })
          expect(response.status).toBe(200)
          // No other keys on the wire (decoding would drop them): the same answer's JSON, as sent
          // (the response's bytes, which the client read and keeps).
          const wire = JSON.parse(new TextDecoder().decode(yield* response.arrayBuffer))
          expect(Object.keys(wire).sort()).toEqual(["available", "bin_price", "domain", "floor_price", "locked"])
          return answer
        })
      expect(yield* ask("listed.com")).toEqual({
        domain: "listed.com",
        available: true,
        locked: false,
        bin_price: 12500.5,
        floor_price: 8000
      })
      expect(yield* ask("LOCKED.com")).toEqual({
        domain: "locked.com",
        available: false,
        locked: true,
        bin_price: 999,
        floor_price: null
      })
      expect(yield* ask("free-name.io")).toEqual({
        domain: "free-name.io",
        available: true,
        locked: false,
        bin_price: null,
        floor_price: null
      })
      expect(yield* ask("taken.com")).toEqual({
        domain: "taken.com",
        available: false,
        locked: false,
        bin_price: null,
        floor_price: null
      })
      expect(yield* ask("example.com")).toEqual({
        domain: "example.com",
        available: false,
        locked: false,
        bin_price: null,
        floor_price: null
      })
      expect(yield* ask("bücher.io")).toMatchObject({ domain: "xn--bcher-kva.io", available: true })
    }))

  it.effect("400 in the legacy shape for a missing or invalid domain; 401 without the key pair", () =>
    Effect.gen(function*() {
      // Raw: the legacy error shape ({"error": "…"} and nothing else) is the wire form under test,
      // and the typed client cannot leave out the required domain parameter.
      const pair = yield* issueApiKey("keyed errors").pipe(Effect.orDie)
      const auth = { "x-api-key": pair.key, "x-api-secret": pair.secret }
      for (
        const path of [
          "/api/v1/domains/available",
          "/api/v1/domains/available?domain=",
          "/api/v1/domains/available?domain=exa%20mple.com"
        ]
      ) {
        const reply = yield* get(path, auth)
        expect(reply.status, path).toBe(400)
        expect(Object.keys(reply.json), path).toEqual(["error"])
        expect(reply.json.error, path).toBeTypeOf("string")
      }
      const anonymous = yield* get("/api/v1/domains/available?domain=listed.com")
      expect(anonymous.status).toBe(401)
      expect(Object.keys(anonymous.json)).toEqual(["error"])
    }))
})
