/**
 * Domain errors (platform/http/Errors.ts): a service fails with an error named after what went wrong;
 * the endpoint that declares it with `errorWire` answers its status and the typed envelope with
 * its code and the request id, and a client derived from the Api decodes it back to the class.
 */
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiClient,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpClient,
  OpenApi
} from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { CurrentRequestId, DomainError, errorWire, legacyErrorWire } from "../../../src/platform/http/Errors.js"

class QuoteExpired extends DomainError<QuoteExpired>()("QuoteExpired", {
  code: "quote_expired",
  status: 409,
  description: "The quote is past its validity"
}) {}

class PriceMismatch extends DomainError<PriceMismatch>()("PriceMismatch", {
  code: "price_mismatch",
  status: 409,
  description: "The expected price differs from the listing's"
}) {}

const Api = HttpApi.make("test").add(
  HttpApiGroup.make("quotes").add(
    HttpApiEndpoint.get("use", "/quotes/:which")
      .setPath(Schema.Struct({ which: Schema.Literal("expired", "mismatch", "ok") }))
      .addSuccess(Schema.Struct({ ok: Schema.Boolean }))
      .addError(errorWire(QuoteExpired))
      .addError(errorWire(PriceMismatch))
  )
)

// The "service": knows nothing of HTTP.
const useQuote = (which: "expired" | "mismatch" | "ok"): Effect.Effect<{ ok: boolean }, QuoteExpired | PriceMismatch> =>
  which === "expired"
    ? new QuoteExpired({ message: "quote q_1 expired at 10:00" })
    : which === "mismatch"
    ? new PriceMismatch({ message: "expected 1000, listing is 1200", details: { listing_price: 1200 } })
    : Effect.succeed({ ok: true })

const QuotesLive = HttpApiBuilder.group(
  Api,
  "quotes",
  (handlers) => handlers.handle("use", ({ path }) => useQuote(path.which))
)

// As the service's request-id middleware does, around the whole app (errors are encoded there).
const ServerLive = HttpApiBuilder.serve((app) => Effect.locally(app, CurrentRequestId, "req_test")).pipe(
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(QuotesLive))),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

describe("domain errors", () => {
  it.layer(ServerLive)((it) => {
    it.effect("answer their status and the typed envelope with their own code", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const expired = yield* client.get("/quotes/expired")
        expect(expired.status).toBe(409)
        expect(yield* expired.json).toEqual({
          error: { code: "quote_expired", message: "quote q_1 expired at 10:00", request_id: "req_test" }
        })
        const mismatch = yield* client.get("/quotes/mismatch")
        expect(mismatch.status).toBe(409)
        expect(yield* mismatch.json).toEqual({
          error: {
            code: "price_mismatch",
            message: "expected 1000, listing is 1200",
            request_id: "req_test",
            details: { listing_price: 1200 }
          }
        })
      }))

    it.effect("decode back to their class in a client derived from the Api", () =>
      Effect.gen(function*() {
        const api = yield* HttpApiClient.make(Api)
        const expired = yield* Effect.flip(api.quotes.use({ path: { which: "expired" } }))
        expect(expired).toBeInstanceOf(QuoteExpired)
        const mismatch = yield* Effect.flip(api.quotes.use({ path: { which: "mismatch" } }))
        expect(mismatch).toBeInstanceOf(PriceMismatch)
        expect(mismatch._tag).toBe("PriceMismatch")
        expect(yield* api.quotes.use({ path: { which: "ok" } })).toEqual({ ok: true })
      }))
  })

  it("appear in OpenAPI at their status, described with their code", () => {
    const spec = OpenApi.fromApi(Api) as any
    const conflict = spec.paths["/quotes/{which}"].get.responses["409"]
    expect(conflict.content["application/json"].schema.anyOf).toEqual([
      { $ref: "#/components/schemas/QuoteExpired" },
      { $ref: "#/components/schemas/PriceMismatch" }
    ])
    const codeOf = (name: string) => spec.components.schemas[name].properties.error.properties.code
    expect(codeOf("QuoteExpired")).toMatchObject({ enum: ["quote_expired"] })
    expect(codeOf("PriceMismatch")).toMatchObject({ enum: ["price_mismatch"] })
    expect(spec.components.schemas.PriceMismatch.description).toContain("price_mismatch")
  })

  it("carry their wire code and status on the class, for logs and legacy mapping", () => {
    expect(QuoteExpired.meta).toEqual({
      code: "quote_expired",
      status: 409,
      description: "The quote is past its validity"
    })
    expect(new QuoteExpired({ message: "m" })).toMatchObject({ _tag: "QuoteExpired", message: "m" })
  })

  it("have one wire each: a class declared typed and legacy is refused where it is declared", () => {
    class Both extends DomainError<Both>()("Both", { code: "both", status: 400, description: "d" }) {}
    class LegacyFirst extends DomainError<LegacyFirst>()("LegacyFirst", { code: "l", status: 400, description: "d" }) {}
    expect(errorWire(Both)).toBe(errorWire(Both))
    expect(() => legacyErrorWire(Both)).toThrow(/both errorWire and legacyErrorWire/)
    legacyErrorWire(LegacyFirst)
    expect(() => errorWire(LegacyFirst)).toThrow(/both errorWire and legacyErrorWire/)
  })
})
