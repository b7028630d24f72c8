/** SQL for the catalogue: TLD rules and the price list. */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import type { PriceOp, PriceRow } from "./PriceCsv.js"
import type { RtrTldInfo } from "./RealtimeRegisterSchema.js"

export interface TldRow {
  readonly tld: string
  readonly provider: string
  readonly info: RtrTldInfo
  readonly last_synced_at: Date
}

export interface PriceRecord {
  readonly tld: string
  readonly op: PriceOp
  readonly price_cents: number
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const tldRows = (infos: ReadonlyArray<RtrTldInfo>, syncedAt: Date) =>
    infos.flatMap((info) =>
      info.applicableFor.map((tld) => ({
        tld: tld.toLowerCase(),
        provider: info.provider,
        info: JSON.stringify(info),
        source: "rtr",
        last_synced_at: syncedAt
      }))
    )

  return {
    allTlds: sql<TldRow>`select tld, provider, info, last_synced_at from tld_metadata`,

    tldNames: sql<{ tld: string }>`select tld from tld_metadata order by tld`.pipe(Effect.map((rs) => rs.map((r) => r.tld))),

    /** Insert TLDs that are not there yet (the bundled snapshot never overwrites a sync). */
    seedTlds: (infos: ReadonlyArray<RtrTldInfo>, syncedAt: Date) => {
      const rows = tldRows(infos, syncedAt)
      return rows.length === 0
        ? Effect.void
        : sql`insert into tld_metadata ${sql.insert(rows)} on conflict (tld) do nothing`.pipe(Effect.asVoid)
    },

    upsertTlds: (infos: ReadonlyArray<RtrTldInfo>, syncedAt: Date) => {
      const rows = tldRows(infos, syncedAt)
      return rows.length === 0 ? Effect.void : sql`
        insert into tld_metadata ${sql.insert(rows)}
        on conflict (tld) do update set
          provider = excluded.provider, info = excluded.info,
          source = excluded.source, last_synced_at = excluded.last_synced_at`.pipe(Effect.asVoid)
    },

    allPrices: sql<PriceRecord>`select tld, op, price_cents from tld_prices`,

    seedPrices: (rows: ReadonlyArray<PriceRow>) =>
      rows.length === 0 ? Effect.void : sql`
        insert into tld_prices ${sql.insert(rows.map((r) => ({ tld: r.tld, op: r.op, price_cents: r.priceCents, source: "default" })))}
        on conflict (tld, op) do nothing`.pipe(Effect.asVoid),

    upsertPrices: (rows: ReadonlyArray<PriceRow>, source: string) =>
      rows.length === 0 ? Effect.void : sql`
        insert into tld_prices ${sql.insert(rows.map((r) => ({ tld: r.tld, op: r.op, price_cents: r.priceCents, source })))}
        on conflict (tld, op) do update set
          price_cents = excluded.price_cents, source = excluded.source, updated_at = now()`.pipe(Effect.asVoid)
  }
})

export class CatalogueRepo extends Context.Tag("app/CatalogueRepo")<CatalogueRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(CatalogueRepo, make)
}
