/**
 * SQL of money out and money in: the payout run's reads and writes (Payouts.ts:
 * pending payouts, payable groups, statements marked paid) and received payments (Receipts.ts),
 * each inside its caller's transaction.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { Environment, Group, NewPayout, Owner, PayoutRow, ReceiptRow } from "./RepoRows.js"

const pendingPayoutsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Void,
    Result: PayoutRow,
    execute: () => sql`select * from partner_payouts where status = 'pending' order by id`
  })

const payoutStatusForUpdateQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ status: PayoutRow.fields.status }),
    execute: (id) => sql`select status from partner_payouts where id = ${id} for update`
  })

const markPayoutPaidQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, ref: Schema.String }),
    execute: (r) =>
      sql`update partner_payouts set status = 'paid', paid_at = now(), provider_ref = ${r.ref} where id = ${r.id}`
  })

const markPayoutFailedQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, reason: Schema.String }),
    execute: (r) => sql`update partner_payouts set status = 'failed', failure = ${r.reason} where id = ${r.id}`
  })

const notePayoutWaitingQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, reason: Schema.String }),
    execute: (r) =>
      sql`update partner_payouts set failure = ${r.reason} where id = ${r.id} and status = 'pending'
          and failure is distinct from ${r.reason}`
  })

/**
 * Statements become `paid` (src/domain/Ledger.ts `paidStatements`), oldest first: the paid
 * payouts of the partner, environment and currency cover the payable commission of the
 * statement and of every earlier one, and its receipts cover their amount owed (each side only
 * when the statement has it). Returns the statements it marked.
 */
const markPaidStatementsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Group,
    Result: Schema.Struct({ id: Schema.String }),
    execute: (g) =>
      sql`
        update settlement_statements s set status = 'paid'
        from (select id, sum(commission_payable_cents) over (order by id) as cum_payable,
                     sum(amount_owed_cents) over (order by id) as cum_owed
              from settlement_statements
              where partner_id = ${g.partner_id} and environment = ${g.environment} and currency = ${g.currency}) c
        where s.id = c.id and s.status = 'closed' and (s.commission_payable_cents > 0 or s.amount_owed_cents > 0)
          and (s.commission_payable_cents <= 0 or c.cum_payable <= (select coalesce(sum(amount_cents), 0) from partner_payouts
                               where partner_id = ${g.partner_id} and environment = ${g.environment} and currency = ${g.currency} and status = 'paid'))
          and (s.amount_owed_cents <= 0 or c.cum_owed <= (select coalesce(sum(amount_cents), 0) from partner_receipts
                               where partner_id = ${g.partner_id} and environment = ${g.environment} and currency = ${g.currency}))
        returning s.id`
  })

const receiptByReferenceQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.Struct({ partner_id: Schema.String, environment: Environment, reference: Schema.String }),
    Result: ReceiptRow,
    execute: (r) =>
      sql`select * from partner_receipts where partner_id = ${r.partner_id} and environment = ${r.environment}
          and reference = ${r.reference}`
  })

const insertReceiptQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.single({
    Request: ReceiptRow.pick("id", "partner_id", "environment", "currency", "amount_cents", "reference"),
    Result: ReceiptRow,
    execute: (r) => sql`insert into partner_receipts ${sql.insert(r)} returning *`
  })

const lockPartnerPayoutsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: Schema.Struct({ lockClass: Schema.Number, key: Schema.Number }),
    execute: (r) => sql`select pg_advisory_xact_lock(${r.lockClass}, ${r.key})`
  })

const payableGroupsQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Number,
    Result: Group,
    execute: (minimumCents) =>
      sql`
        select partner_id, environment, currency from ledger_entries where account = 'commission_payable'
        group by partner_id, environment, currency having -sum(amount_cents) >= ${minimumCents}
        order by partner_id, environment, currency`
  })

const lastPayoutAtQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.single({
    Request: Group,
    Result: Schema.Struct({ created_at: Schema.NullOr(Schema.DateFromSelf) }),
    execute: (g) =>
      sql`
        select max(created_at) as created_at from partner_payouts
        where partner_id = ${g.partner_id} and environment = ${g.environment} and status <> 'failed'`
  })

const insertPayoutQuery = (sql: SqlClient.SqlClient) =>
  SqlSchema.single({
    Request: NewPayout,
    Result: PayoutRow,
    execute: (p) => sql`insert into partner_payouts ${sql.insert({ ...p, status: "pending" })} returning *`
  })

/** Payouts and receipts, of the repository. */
export const payoutQueries = (sql: SqlClient.SqlClient) => {
  const pendingPayouts = pendingPayoutsQuery(sql)
  const payoutStatusForUpdate = payoutStatusForUpdateQuery(sql)
  const markPayoutPaid = markPayoutPaidQuery(sql)
  const markPayoutFailed = markPayoutFailedQuery(sql)
  const notePayoutWaiting = notePayoutWaitingQuery(sql)
  const markPaidStatements = markPaidStatementsQuery(sql)
  const receiptByReference = receiptByReferenceQuery(sql)
  const insertReceipt = insertReceiptQuery(sql)
  const lockPartnerPayouts = lockPartnerPayoutsQuery(sql)
  const payableGroups = payableGroupsQuery(sql)
  const lastPayoutAt = lastPayoutAtQuery(sql)
  const insertPayout = insertPayoutQuery(sql)
  return {
    pendingPayouts: Effect.orDie(pendingPayouts(undefined)),
    /** The payout's status, its row locked to the end of the caller's transaction. */
    payoutStatusForUpdate: (id: string) => Effect.orDie(payoutStatusForUpdate(id)),
    markPayoutPaid: (id: string, ref: string) => Effect.orDie(markPayoutPaid({ id, ref })),
    markPayoutFailed: (id: string, reason: string) => Effect.orDie(markPayoutFailed({ id, reason })),
    /** Why a pending payout waits (e.g. no payout account yet); it stays pending, its amount in flight. */
    notePayoutWaiting: (id: string, reason: string) => Effect.orDie(notePayoutWaiting({ id, reason })),
    /** Marks the statements that payouts and receipts now cover `paid`; their ids. */
    markPaidStatements: (g: Group) => Effect.orDie(Effect.map(markPaidStatements(g), (rows) => rows.map((r) => r.id))),
    /** The partner's receipt with this operator reference, if any. */
    receiptByReference: (partnerId: string, environment: Owner["environment"], reference: string) =>
      Effect.orDie(receiptByReference({ partner_id: partnerId, environment, reference })),
    insertReceipt: (r: Omit<ReceiptRow, "created_at">) => Effect.orDie(insertReceipt(r)),
    /** A transaction-scoped advisory lock (class, key): held until the caller's transaction ends. */
    lockPartnerPayouts: (lockClass: number, key: number) => Effect.orDie(lockPartnerPayouts({ lockClass, key })),
    /** Partner, environment and currency whose payable commission reaches `minimumCents`. */
    payableGroups: (minimumCents: number) => Effect.orDie(payableGroups(minimumCents)),
    /** When the group's last payout that did not fail was written (null: never). */
    lastPayoutAt: (g: Group) => Effect.orDie(Effect.map(lastPayoutAt(g), (r) => r.created_at)),
    /** A pending payout. */
    insertPayout: (p: typeof NewPayout.Type) => Effect.orDie(insertPayout(p))
  }
}
