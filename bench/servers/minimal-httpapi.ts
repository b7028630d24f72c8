// Floor 2: the smallest Effect HttpApi server with one endpoint returning the pricing JSON
// (the framework's own cost, no middleware, no database).
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"

const TldPrice = Schema.Struct({ tld: Schema.String, op: Schema.String, priceCents: Schema.NullOr(Schema.Int) })

class Api extends HttpApi.make("bench").add(
  HttpApiGroup.make("pricing").add(
    HttpApiEndpoint.get("price", "/api/pricing/tld")
      .setUrlParams(Schema.Struct({ tld: Schema.String, op: Schema.optional(Schema.String) }))
      .addSuccess(TldPrice)
  )
) {}

const PricingLive = HttpApiBuilder.group(
  Api,
  "pricing",
  (h) => h.handle("price", () => Effect.succeed({ tld: "com", op: "transfer", priceCents: 1099 }))
)

HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(PricingLive))),
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.env.PORT), host: "127.0.0.1" })),
  Layer.tap(() => Effect.sync(() => console.log("ready"))),
  Layer.launch,
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
