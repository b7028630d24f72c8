/**
 * The orders slice's side of `ledger verify`'s port (src/partner/ledger/OrderChecks.ts): the SQL
 * over `partner_orders` and `partner_order_totals` that the ledger's checks read. The two checks
 * are the statements Reconcile.ts ran itself before the port, word for word, one round trip each
 * and no transaction of their own; `orders` is a plain projection of the table (no filter, no
 * aggregate: the planner pulls it up), so a check that places it reads what it read from the
 * table. Needs only the database; src/partner/Layer.ts provides it to the ledger.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Layer, Schema } from "effect"
import { type BooksOwner, OrderChecks } from "../ledger/OrderChecks.js"

/** The statuses of an order whose money is still open (not settled, refunded nor cancelled). */
const OPEN = ["EXTERNALLY_PAID", "PAID", "MANUAL_REVIEW", "TRANSFER_IN_PROGRESS", "TRANSFER_COMPLETED"]

const TotalsDrift = Schema.Struct({
  subject: Schema.String,
  stored: Schema.NullOr(Schema.String),
  actual: Schema.NullOr(Schema.String)
})

const Implied = Schema.Struct({
  receivable: Schema.Number,
  receivable_settled: Schema.Number,
  accrued: Schema.Number,
  earned: Schema.Number,
  brokerage_fees: Schema.Number
})

const make = Effect.map(SqlClient.SqlClient, (sql) => {
  // The maintained sales totals (GET /transactions) against the orders they sum.
  const totalsDrift = SqlSchema.findAll({
    Request: Schema.Void,
    Result: TotalsDrift,
    execute: () =>
      sql`
      select concat_ws('/', partner_id, environment, day, status, payment_model) as subject,
             concat_ws('/', a.count, a.gmv_cents, a.commission_cents) as stored, concat_ws('/', b.count, b.gmv_cents, b.commission_cents) as actual
      from (select * from partner_order_totals where count <> 0 or gmv_cents <> 0 or commission_cents <> 0) a
      full join (select partner_id, environment, (created_at at time zone 'UTC')::date as day, status, payment_model,
                        count(*) as count, sum(sale_price_cents) as gmv_cents, sum(commission_cents) as commission_cents
                 from partner_orders group by 1, 2, 3, 4, 5) b using (partner_id, environment, day, status, payment_model)
      where a.count is distinct from b.count or a.gmv_cents is distinct from b.gmv_cents or a.commission_cents is distinct from b.commission_cents
      limit 50`
  })

  const impliedBy = SqlSchema.single({
    Request: Schema.Struct({
      partner_id: Schema.String,
      environment: Schema.Literal("live", "sandbox"),
      currency: Schema.String
    }),
    Result: Implied,
    execute: (o) =>
      sql`
        select
          coalesce(sum(sale_price_cents - commission_cents) filter (where payment_model = 'partner_collected' and status in ${
        sql.in(OPEN)
      }), 0) as receivable,
          coalesce(sum(sale_price_cents - commission_cents) filter (where payment_model = 'partner_collected' and status = 'SETTLED'), 0) as receivable_settled,
          coalesce(sum(commission_cents) filter (where payment_model <> 'partner_collected' and status in ${
        sql.in(OPEN)
      }), 0) as accrued,
          coalesce(sum(commission_cents) filter (where payment_model <> 'partner_collected' and status = 'SETTLED'), 0) as earned,
          coalesce(sum(sale_price_cents) filter (where payment_model = 'brokerage' and status not in ('REFUNDED', 'CANCELLED')), 0) as brokerage_fees
        from partner_orders where partner_id = ${o.partner_id} and environment = ${o.environment} and currency = ${o.currency}`
  })

  return OrderChecks.of({
    orders:
      sql`(select id, partner_id, environment, currency, status, sale_price_cents, commission_cents, commission_bps
                 from partner_orders)`,
    totalsDrift: Effect.orDie(totalsDrift(undefined)),
    impliedBy: (owner: BooksOwner) => Effect.orDie(impliedBy(owner))
  })
})

export const OrderChecksLive = Layer.effect(OrderChecks, make)
