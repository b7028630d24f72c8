/**
 * SQL of many orders at once: the partner's and the operator's lists (newest first, by id), and
 * settlement's due orders (marked settled in one statement, their timeline rows in one insert).
 * A database error is a defect here (`Effect.orDie`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { bulkInsert } from "../../platform/db/BulkInsert.js"
import type { PartnerEnvironment } from "../Auth.js"
import { DueGroup, DueOrders, OperatorPage, type OrderFilters, OrderRow, PartnerPage } from "./RepoRows.js"

const settleDueQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: DueOrders,
    Result: OrderRow,
    execute: (k) =>
      sql`
        update partner_orders set status = 'SETTLED', settled_at = now(), updated_at = now()
        where id in (
          select id from partner_orders
          where partner_id = ${k.partnerId} and environment = ${k.environment} and currency = ${k.currency}
            and status = 'TRANSFER_COMPLETED' and transfer_completed_at <= ${k.cutoff}
            ${k.onlyId ? sql`and id = ${k.onlyId}` : sql``}
          order by id
          for update skip locked)
        returning *`
  })

const dueGroupsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.DateFromSelf,
    Result: DueGroup,
    execute: (cutoff) =>
      sql`
        select distinct partner_id, environment, currency from partner_orders
        where status = 'TRANSFER_COMPLETED' and transfer_completed_at <= ${cutoff}
        order by partner_id, environment, currency`
  })

const listQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: PartnerPage,
    Result: OrderRow,
    execute: (f) =>
      sql`
        select * from partner_orders
        where partner_id = ${f.partnerId} and environment = ${f.environment}
          ${f.status ? sql`and status = ${f.status}` : sql``}
          ${f.paymentModel ? sql`and payment_model = ${f.paymentModel}` : sql``}
          ${f.domain ? sql`and domain = ${f.domain}` : sql``}
          ${f.from ? sql`and created_at >= ${f.from}` : sql``}
          ${f.to ? sql`and created_at < ${f.to}` : sql``}
          ${f.beforeId ? sql`and id < ${f.beforeId}` : sql``}
        order by id desc
        limit ${f.limit}`
  })

const listAllQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: OperatorPage,
    Result: OrderRow,
    execute: (f) =>
      sql`
        select * from partner_orders
        where true
          ${f.partnerId ? sql`and partner_id = ${f.partnerId}` : sql``}
          ${f.environment ? sql`and environment = ${f.environment}` : sql``}
          ${f.status ? sql`and status = ${f.status}` : sql``}
          ${f.paymentModel ? sql`and payment_model = ${f.paymentModel}` : sql``}
          ${f.domain ? sql`and domain = ${f.domain}` : sql``}
        order by id desc
        limit ${f.limit}`
  })

/** Lists and settlement batches, of the repository. */
export const batchQueries = (sql: SqlClient.SqlClient) => {
  const settleDue = settleDueQuery(sql)
  const dueGroups = dueGroupsQuery(sql)
  const list = listQuery(sql)
  const listAll = listAllQuery(sql)
  return {
    /**
     * Settlement: moves the due TRANSFER_COMPLETED orders of one partner, environment and currency
     * (or just `onlyId`) to SETTLED, skipping rows another transaction holds. Caller's transaction.
     */
    settleDue: (k: typeof DueOrders.Type) => Effect.orDie(settleDue(k)),
    /** Partner, environment and currency groups holding orders due for settlement. */
    dueGroups: (cutoff: Date) => Effect.orDie(dueGroups(cutoff)),
    /** Same status row for many orders at once (settlement). */
    addStatusTimelineMany: (
      rows: ReadonlyArray<
        { orderId: string; status: string; fromStatus: string; eventId: string | null; actor: string }
      >
    ) =>
      rows.length === 0 ? Effect.void : bulkInsert(
        sql,
        "partner_order_timeline",
        [
          ["order_id", "text"],
          ["kind", "text"],
          ["status", "text"],
          ["from_status", "text"],
          ["event_id", "text"],
          ["actor", "text"]
        ],
        rows.map((r) => ({
          order_id: r.orderId,
          kind: "status",
          status: r.status,
          from_status: r.fromStatus,
          event_id: r.eventId,
          actor: r.actor
        }))
      ).pipe(
        Effect.asVoid,
        Effect.orDie
      ),
    list: (partnerId: string, env: PartnerEnvironment, f: OrderFilters, beforeId: string | null, limit: number) =>
      Effect.orDie(list({ ...f, partnerId, environment: env, beforeId, limit })),
    /** Every partner's orders, newest first (operator view). */
    listAll: (
      f: OrderFilters & {
        readonly partnerId?: string | undefined
        readonly environment?: PartnerEnvironment | undefined
      },
      limit: number
    ) => Effect.orDie(listAll({ ...f, limit }))
  }
}
