/** SQL of the offers on marketplace listings (`market_offers`, migration 0350). */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"

export const OFFER_STATUSES = ["pending", "accepted", "countered", "declined"] as const
export const OfferStatus = Schema.Literal(...OFFER_STATUSES)
export type OfferStatus = typeof OfferStatus.Type

export const OfferRow = Schema.Struct({
  id: Schema.String,
  listing_id: Schema.String,
  domain: Schema.String,
  amount_cents: Schema.Number,
  currency: Schema.String,
  email: Schema.String,
  status: OfferStatus,
  counter_cents: Schema.NullOr(Schema.Number),
  checkout_session_id: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  decided_at: Schema.NullOr(Schema.DateFromSelf)
})
export type OfferRow = typeof OfferRow.Type

const NewOffer = Schema.Struct({
  id: Schema.String,
  environment: Schema.Literal("live"),
  listing_id: Schema.String,
  domain: Schema.String,
  amount_cents: Schema.Number,
  currency: Schema.String,
  email: Schema.String
})

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = sql`id, listing_id, domain, amount_cents, currency, email, status, counter_cents,
    checkout_session_id, created_at, decided_at`
  const insert = SqlSchema.single({
    Request: NewOffer,
    Result: OfferRow,
    execute: (row) => sql`insert into market_offers ${sql.insert(row)} returning ${columns}`
  })
  const list = SqlSchema.findAll({
    Request: Schema.NullOr(OfferStatus),
    Result: OfferRow,
    execute: (status) =>
      status === null
        ? sql`select ${columns} from market_offers order by id desc limit 500`
        : sql`select ${columns} from market_offers where status = ${status} order by id desc limit 500`
  })
  const lock = SqlSchema.findOne({
    Request: Schema.String,
    Result: OfferRow,
    execute: (id) => sql`select ${columns} from market_offers where id = ${id} for update`
  })
  const decide = SqlSchema.single({
    Request: Schema.Struct({
      id: Schema.String,
      status: OfferStatus,
      counter_cents: Schema.NullOr(Schema.Number),
      checkout_session_id: Schema.NullOr(Schema.String)
    }),
    Result: OfferRow,
    execute: (d) =>
      sql`update market_offers set status = ${d.status}, counter_cents = ${d.counter_cents},
            checkout_session_id = ${d.checkout_session_id}, decided_at = now()
          where id = ${d.id} returning ${columns}`
  })
  return {
    insert: (row: typeof NewOffer.Type) => Effect.orDie(insert(row)),
    list: (status: OfferStatus | null) => Effect.orDie(list(status)),
    /** The offer's row, locked until the caller's transaction ends. */
    lock: (id: string) => Effect.orDie(lock(id)),
    decide: (d: Parameters<typeof decide>[0]) => Effect.orDie(decide(d))
  }
})

export class OffersRepo extends Effect.Service<OffersRepo>()("app/OffersRepo", { effect: make }) {}
