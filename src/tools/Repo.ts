/** SQL of the tools: comparable marketplace listings for appraise. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return {
    /** Active live listings with a buy-now price, same TLD, label length within ±2 (at most 10). */
    comparables: (tld: string, labelLength: number, exclude: string) =>
      sql<{ domain: string; bin_price_cents: string | number }>`
        select domain, bin_price_cents from listings
        where environment = 'live' and status = 'active' and tld = ${tld} and domain <> ${exclude}
          and bin_price_cents is not null and length(label) between ${labelLength - 2} and ${labelLength + 2}
        order by abs(length(label) - ${labelLength}), listed_at desc
        limit 10`.pipe(Effect.map((rows) => rows.map((r) => ({ domain: r.domain, bin_price: Number(r.bin_price_cents) / 100 }))))
  }
})
