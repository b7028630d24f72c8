/**
 * What other slices read of the books (`ledger_transactions`, `ledger_entries`, which the ledger
 * owns): the referral reports' sale postings and commission movements (src/referrals). Needs only
 * the database; src/partner/Layer.ts provides it with the Partner API's services. Rows are decoded
 * by their schemas; a database error is a defect here, once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import type { PartnerEnvironment } from "../Auth.js"
import { recordedQuery } from "./RepoViews.js"

const Owner = Schema.Struct({ partnerId: Schema.String, environment: Schema.Literal("live", "sandbox") })

const MovementRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.Number,
  kind: Schema.Literal("recorded", "reversed", "settled", "payout_started", "payout_paid", "payout_failed"),
  order_id: Schema.NullOr(Schema.String),
  payout_id: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  accrued_delta: Schema.Number,
  payable_delta: Schema.Number
})

const recordedKey = (orderId: string) => `order:${orderId}:recorded`

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const recorded = recordedQuery(sql)
  const commissionMovements = SqlSchema.findAll({
    Request: Owner,
    Result: MovementRow,
    execute: (o) =>
      sql`
        select t.id, min(e.seq) as seq, t.kind, t.order_id, t.payout_id, t.created_at,
               -sum(case when e.account = 'commission_accrued' then e.amount_cents else 0 end) as accrued_delta,
               -sum(case when e.account = 'commission_payable' then e.amount_cents else 0 end) as payable_delta
        from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
        where e.partner_id = ${o.partnerId} and e.environment = ${o.environment}
          and e.account in ('commission_accrued', 'commission_payable')
        group by t.id, t.kind, t.order_id, t.payout_id, t.created_at
        order by min(e.seq)`
  })

  return {
    /** The id of each order's recorded sale (its posting), by order id; an order not yet posted is absent. */
    recordedSales: (orderIds: ReadonlyArray<string>) =>
      orderIds.length === 0
        ? Effect.succeed(new Map<string, string>())
        : Effect.orDie(Effect.map(recorded(orderIds.map(recordedKey)), (rows) => {
          const byKey = new Map(rows.map((t) => [t.natural_key, t.id]))
          const out = new Map<string, string>()
          for (const id of orderIds) {
            const t = byKey.get(recordedKey(id))
            if (t !== undefined) out.set(id, t)
          }
          return out
        })),

    /** Every ledger transaction of the partner touching a commission account, oldest first. */
    commissionMovements: (o: { readonly partnerId: string; readonly environment: PartnerEnvironment }) =>
      Effect.orDie(Effect.map(commissionMovements(o), (rows) =>
        rows.map((r) => ({
          id: r.id,
          seq: r.seq,
          kind: r.kind,
          orderId: r.order_id,
          payoutId: r.payout_id,
          createdAt: r.created_at,
          accruedDelta: r.accrued_delta,
          payableDelta: r.payable_delta
        }))))
  }
})

export class LedgerReads extends Effect.Service<LedgerReads>()("app/LedgerReads", { effect: make }) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = LedgerReads.Default
}
