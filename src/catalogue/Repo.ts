/**
 * SQL for the catalogue: TLD rules and the price list. Rows are decoded by their schema; a
 * database failure is a defect here, once, so the service sees only data.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { PRICE_OPS, type PriceRow } from "./PriceCsv.js"
import { RtrTldInfo } from "./RealtimeRegisterSchema.js"

export const TldRow = Schema.Struct({
  tld: Schema.String,
  provider: Schema.String,
  info: RtrTldInfo,
  last_synced_at: Schema.DateFromSelf
})
export type TldRow = typeof TldRow.Type

export const PriceRecord = Schema.Struct({
  tld: Schema.String,
  op: Schema.Literal(...PRICE_OPS),
  price_cents: Schema.Number
})
export type PriceRecord = typeof PriceRecord.Type

const TldName = Schema.Struct({ tld: Schema.String })

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
  const priceRows = (rows: ReadonlyArray<PriceRow>, source: string) =>
    rows.map((r) => ({ tld: r.tld, op: r.op, price_cents: r.priceCents, source }))

  const allTlds = SqlSchema.findAll({
    Request: Schema.Void,
    Result: TldRow,
    execute: () => sql`select tld, provider, info, last_synced_at from tld_metadata`
  })
  const tldNames = SqlSchema.findAll({
    Request: Schema.Void,
    Result: TldName,
    execute: () => sql`select tld from tld_metadata order by tld`
  })
  const allPrices = SqlSchema.findAll({
    Request: Schema.Void,
    Result: PriceRecord,
    execute: () => sql`select tld, op, price_cents from tld_prices`
  })

  /** Runs a write of `rows` (none: nothing to do); a database failure is a defect. */
  const write = <A>(rows: ReadonlyArray<A>, statement: (rows: ReadonlyArray<A>) => Effect.Effect<unknown, unknown>) =>
    rows.length === 0 ? Effect.void : Effect.orDie(Effect.asVoid(statement(rows)))

  return {
    allTlds: Effect.orDie(allTlds(undefined)),

    tldNames: Effect.orDie(Effect.map(tldNames(undefined), (rs) => rs.map((r) => r.tld))),

    /** Insert TLDs that are not there yet (the bundled snapshot never overwrites a sync). */
    seedTlds: (infos: ReadonlyArray<RtrTldInfo>, syncedAt: Date) =>
      write(
        tldRows(infos, syncedAt),
        (rows) => sql`insert into tld_metadata ${sql.insert(rows)} on conflict (tld) do nothing`
      ),

    upsertTlds: (infos: ReadonlyArray<RtrTldInfo>, syncedAt: Date) =>
      write(tldRows(infos, syncedAt), (rows) =>
        sql`
          insert into tld_metadata ${sql.insert(rows)}
          on conflict (tld) do update set
            provider = excluded.provider, info = excluded.info,
            source = excluded.source, last_synced_at = excluded.last_synced_at`),

    allPrices: Effect.orDie(allPrices(undefined)),

    seedPrices: (rows: ReadonlyArray<PriceRow>) =>
      write(
        priceRows(rows, "default"),
        (rows) => sql`insert into tld_prices ${sql.insert(rows)} on conflict (tld, op) do nothing`
      ),

    upsertPrices: (rows: ReadonlyArray<PriceRow>, source: string) =>
      write(priceRows(rows, source), (rows) =>
        sql`
          insert into tld_prices ${sql.insert(rows)}
          on conflict (tld, op) do update set
            price_cents = excluded.price_cents, source = excluded.source, updated_at = now()`)
  }
})

export class CatalogueRepo extends Effect.Service<CatalogueRepo>()("app/CatalogueRepo", { effect: make }) {}
