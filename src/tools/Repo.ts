/**
 * SQL of the tools: comparable marketplace listings for appraise (read-only). Rows are decoded by
 * their schema; a database failure is a defect here, once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Context, Effect, Layer, Schema } from "effect"

const Comparable = Schema.Struct({ domain: Schema.String, bin_price_cents: Schema.Number })
const ComparablesOf = Schema.Struct({ tld: Schema.String, labelLength: Schema.Number, exclude: Schema.String })

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const comparables = SqlSchema.findAll({
    Request: ComparablesOf,
    Result: Comparable,
    execute: ({ exclude, labelLength, tld }) =>
      sql`
        select domain, bin_price_cents from listings
        where environment = 'live' and status = 'active' and tld = ${tld} and domain <> ${exclude}
          and bin_price_cents is not null and length(label) between ${labelLength - 2} and ${labelLength + 2}
        order by abs(length(label) - ${labelLength}), listed_at desc
        limit 10`
  })
  return {
    /** Active live listings with a buy-now price, same TLD, label length within ±2 (at most 10), in USD. */
    comparables: (tld: string, labelLength: number, exclude: string) =>
      Effect.orDie(
        Effect.map(comparables({ tld, labelLength, exclude }), (rows) =>
          rows.map((r) => ({ domain: r.domain, bin_price: r.bin_price_cents / 100 })))
      )
  }
})

export class ToolsRepo extends Context.Tag("app/ToolsRepo")<ToolsRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(ToolsRepo, make)
}
