/**
 * SQL of the referral reports' sales: a partner's referral orders in a window (optionally of one
 * link), newest first, and their totals. The referrals slice reads them through `Orders`
 * (src/referrals/Referrals.ts), the postings' ids through the ledger. A database error is a
 * defect here (`Effect.orDie`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { ORDER_STATUSES } from "../../domain/OrderState.js"
import type { PartnerEnvironment } from "../Auth.js"

export const ReferralSaleRow = Schema.Struct({
  id: Schema.String,
  domain: Schema.String,
  referral_link_id: Schema.NullOr(Schema.String),
  sale_price_cents: Schema.Number,
  commission_cents: Schema.Number,
  status: Schema.Literal(...ORDER_STATUSES),
  created_at: Schema.DateFromSelf
})
export type ReferralSaleRow = typeof ReferralSaleRow.Type

const SalesTotals = Schema.Struct({ count: Schema.Number, gmv_cents: Schema.Number, commission_cents: Schema.Number })

export interface ReferralSalesFilter {
  readonly from: Date
  readonly to: Date
  readonly linkId?: string | undefined
}

const Owner = Schema.Struct({ partnerId: Schema.String, environment: Schema.Literal("live", "sandbox") })
const SalesQuery = Schema.Struct({
  owner: Owner,
  filter: Schema.Struct({ from: Schema.DateFromSelf, to: Schema.DateFromSelf, linkId: Schema.optional(Schema.String) })
})

/** The referral sales of the repository. */
export const referralQueries = (sql: SqlClient.SqlClient) => {
  const salesWhere = (o: typeof Owner.Type, f: ReferralSalesFilter) =>
    sql`partner_id = ${o.partnerId} and environment = ${o.environment} and payment_model = 'referral'
        and created_at >= ${f.from} and created_at < ${f.to}
        ${f.linkId ? sql`and referral_link_id = ${f.linkId}` : sql``}`
  const sales = SqlSchema.findAll({
    Request: Schema.Struct({ ...SalesQuery.fields, beforeId: Schema.NullOr(Schema.String), limit: Schema.Number }),
    Result: ReferralSaleRow,
    execute: ({ beforeId, filter, limit, owner }) =>
      sql`
        select id, domain, referral_link_id, sale_price_cents, commission_cents, status, created_at
        from partner_orders where ${salesWhere(owner, filter)} ${beforeId ? sql`and id < ${beforeId}` : sql``}
        order by id desc limit ${limit}`
  })
  const salesTotals = SqlSchema.single({
    Request: SalesQuery,
    Result: SalesTotals,
    execute: ({ filter, owner }) =>
      sql`
        select count(*) as count, coalesce(sum(sale_price_cents), 0) as gmv_cents, coalesce(sum(commission_cents), 0) as commission_cents
        from partner_orders where ${salesWhere(owner, filter)} and status not in ('REFUNDED', 'CANCELLED')`
  })
  const filterOf = (f: ReferralSalesFilter) => ({ from: f.from, to: f.to, ...(f.linkId ? { linkId: f.linkId } : {}) })
  type Owner = { readonly partnerId: string; readonly environment: PartnerEnvironment }
  return {
    /** The partner's referral sales in the window, newest first (by id, below `beforeId` when given). */
    referralSales: (o: Owner, f: ReferralSalesFilter, beforeId: string | null, limit: number) =>
      Effect.orDie(sales({ owner: o, filter: filterOf(f), beforeId, limit })),
    /** Over every matching referral sale that stands (refunded and cancelled ones earned nothing). */
    referralSalesTotals: (o: Owner, f: ReferralSalesFilter) =>
      Effect.orDie(salesTotals({ owner: o, filter: filterOf(f) }))
  }
}
