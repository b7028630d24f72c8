/**
 * SQL of the money tables other than the books (Books.ts writes `ledger_transactions` and
 * `ledger_entries`): settlement runs, statements and their lines, payouts, and the sales history
 * (partner_orders, read-only here) with totals over the whole filter. Every partner read is keyed
 * by partner AND environment.
 *
 * Rows are decoded by the schemas below (money columns are `bigint`, numbers through the driver's
 * int8 parser on both databases: platform/db/Database.ts); a database error is a defect here, once.
 * The callers keep their transactions (`transaction` runs one; the statements below join it).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { PAYMENT_MODELS } from "../../domain/Ledger.js"
import { ORDER_STATUSES } from "../../domain/OrderState.js"
import { bulkInsert } from "../../platform/db/BulkInsert.js"
import { transactionOf } from "../../platform/db/SqlTransaction.js"

const Environment = Schema.Literal("live", "sandbox")
const PaymentModel = Schema.Literal(...PAYMENT_MODELS)
const OrderStatus = Schema.Literal(...ORDER_STATUSES)

export const StatementRow = Schema.Struct({
  id: Schema.String,
  run_id: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  currency: Schema.String,
  period_start: Schema.DateFromSelf,
  period_end: Schema.DateFromSelf,
  orders_count: Schema.Number,
  gross_sold_cents: Schema.Number,
  commission_retained_cents: Schema.Number,
  amount_owed_cents: Schema.Number,
  commission_payable_cents: Schema.Number,
  refunds_cents: Schema.Number,
  status: Schema.Literal("closed", "paid"),
  created_at: Schema.DateFromSelf
})
export type StatementRow = typeof StatementRow.Type

export const LineRow = Schema.Struct({
  order_id: Schema.String,
  statement_id: Schema.String,
  domain: Schema.String,
  payment_model: PaymentModel,
  sale_price_cents: Schema.Number,
  commission_cents: Schema.Number,
  owed_cents: Schema.Number
})
export type LineRow = typeof LineRow.Type

export const TransactionRow = Schema.Struct({
  id: Schema.String,
  order_id: Schema.String,
  domain: Schema.String,
  payment_model: PaymentModel,
  status: OrderStatus,
  sale_price_cents: Schema.Number,
  commission_cents: Schema.Number,
  currency: Schema.String,
  created_at: Schema.DateFromSelf,
  settled_at: Schema.NullOr(Schema.DateFromSelf)
})
export type TransactionRow = typeof TransactionRow.Type

export const PayoutSource = Schema.Literal("checkout", "referral", "brokerage", "mixed")

export const PayoutRow = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  amount_cents: Schema.Number,
  currency: Schema.String,
  status: Schema.Literal("pending", "paid", "failed"),
  method: Schema.String,
  source: PayoutSource,
  provider_ref: Schema.NullOr(Schema.String),
  failure: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  paid_at: Schema.NullOr(Schema.DateFromSelf)
})
export type PayoutRow = typeof PayoutRow.Type

export const ReceiptRow = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  currency: Schema.String,
  amount_cents: Schema.Number,
  reference: Schema.String,
  created_at: Schema.DateFromSelf
})
export type ReceiptRow = typeof ReceiptRow.Type

export const Totals = Schema.Struct({ count: Schema.Number, gmv_cents: Schema.Number, commission_cents: Schema.Number })
export type Totals = typeof Totals.Type

const Owner = Schema.Struct({ partnerId: Schema.String, environment: Environment })
export type Owner = typeof Owner.Type

/** Which money a statement, a payout or a settlement group is about. */
const Group = Schema.Struct({ partner_id: Schema.String, environment: Environment, currency: Schema.String })
export type Group = typeof Group.Type

const TransactionFilters = Schema.Struct({
  from: Schema.optional(Schema.DateFromSelf),
  to: Schema.optional(Schema.DateFromSelf),
  status: Schema.optional(OrderStatus),
  paymentModel: Schema.optional(PaymentModel)
})
export type TransactionFilters = typeof TransactionFilters.Type

const Page = { beforeId: Schema.NullOr(Schema.String), limit: Schema.Number }

const NewStatement = Schema.Struct({
  ...StatementRow.pick(
    "id",
    "run_id",
    "partner_id",
    "environment",
    "currency",
    "period_start",
    "period_end",
    "orders_count",
    "gross_sold_cents",
    "commission_retained_cents",
    "amount_owed_cents",
    "commission_payable_cents",
    "refunds_cents"
  ).fields
})

const LINE_COLUMNS = [
  ["order_id", "text"],
  ["statement_id", "text"],
  ["domain", "text"],
  ["payment_model", "text"],
  ["sale_price_cents", "bigint"],
  ["commission_cents", "bigint"],
  ["owed_cents", "bigint"]
] as const

const NewRun = Schema.Struct({
  id: Schema.String,
  trigger: Schema.String,
  as_of: Schema.DateFromSelf,
  cutoff: Schema.DateFromSelf
})

const NewPayout = Schema.Struct({
  ...PayoutRow.pick("id", "partner_id", "environment", "amount_cents", "currency", "method", "source").fields
})

const DAY_MS = 86_400_000
const floorDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS)
const ceilDay = (d: Date) => new Date(Math.ceil(d.getTime() / DAY_MS) * DAY_MS)
const isoDay = (d: Date) => d.toISOString().slice(0, 10)

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const owned = (
    o: Owner | null
  ) => (o ? sql`and partner_id = ${o.partnerId} and environment = ${o.environment}` : sql``)

  const statements = SqlSchema.findAll({
    Request: Schema.Struct({
      owner: Schema.NullOr(Owner),
      from: Schema.optional(Schema.DateFromSelf),
      to: Schema.optional(Schema.DateFromSelf),
      ...Page
    }),
    Result: StatementRow,
    execute: (r) =>
      sql`
        select * from settlement_statements
        where true
          ${owned(r.owner)}
          ${r.from ? sql`and period_end >= ${r.from}` : sql``}
          ${r.to ? sql`and period_end < ${r.to}` : sql``}
          ${r.beforeId ? sql`and id < ${r.beforeId}` : sql``}
        order by id desc limit ${r.limit}`
  })

  const statement = SqlSchema.findOne({
    Request: Schema.Struct({ id: Schema.String, owner: Schema.NullOr(Owner) }),
    Result: StatementRow,
    execute: (r) => sql`select * from settlement_statements where id = ${r.id} ${owned(r.owner)}`
  })

  const lines = SqlSchema.findAll({
    Request: Schema.String,
    Result: LineRow,
    execute: (statementId) => sql`select * from settlement_lines where statement_id = ${statementId} order by order_id`
  })

  const transactions = SqlSchema.findAll({
    Request: Schema.Struct({ owner: Owner, filters: TransactionFilters, ...Page }),
    Result: TransactionRow,
    execute: ({ beforeId, filters: f, limit, owner: o }) =>
      sql`
        select coalesce(t.id, p.id) as id, p.id as order_id, p.domain, p.payment_model, p.status, p.sale_price_cents,
               p.commission_cents, p.currency, p.created_at, p.settled_at
        from (select * from partner_orders
              where partner_id = ${o.partnerId} and environment = ${o.environment}
                ${f.from ? sql`and created_at >= ${f.from}` : sql``}
                ${f.to ? sql`and created_at < ${f.to}` : sql``}
                ${f.status ? sql`and status = ${f.status}` : sql``}
                ${f.paymentModel ? sql`and payment_model = ${f.paymentModel}` : sql``}
                ${beforeId ? sql`and id < ${beforeId}` : sql``}
              order by id desc limit ${limit}) p
        left join ledger_transactions t on t.natural_key = 'order:' || p.id || ':recorded'
        order by p.id desc`
  })

  /**
   * Totals over every row of the filter: whole UTC days from the maintained `partner_order_totals`
   * (migration 0105), the partial first and last day of a `from`/`to` range from the orders.
   */
  const transactionTotals = SqlSchema.single({
    Request: Schema.Struct({ owner: Owner, filters: TransactionFilters }),
    Result: Totals,
    execute: ({ filters: f, owner: o }) => {
      const fromDay = f.from ? ceilDay(f.from) : null
      const toDay = f.to ? floorDay(f.to) : null
      const rest = sql`${f.status ? sql`and status = ${f.status}` : sql``}
        ${f.paymentModel ? sql`and payment_model = ${f.paymentModel}` : sql``}`
      const orders = (from: Date | null, to: Date | null) =>
        sql`select count(*) as count, coalesce(sum(sale_price_cents), 0) as gmv_cents, coalesce(sum(commission_cents), 0) as commission_cents
            from partner_orders where partner_id = ${o.partnerId} and environment = ${o.environment}
            ${from ? sql`and created_at >= ${from}` : sql``} ${to ? sql`and created_at < ${to}` : sql``} ${rest}`
      // A range within less than a day or two: the orders alone.
      if (fromDay && toDay && fromDay.getTime() >= toDay.getTime()) return orders(f.from!, f.to!)
      const parts = [
        sql`select coalesce(sum(count), 0) as count, coalesce(sum(gmv_cents), 0) as gmv_cents, coalesce(sum(commission_cents), 0) as commission_cents
            from partner_order_totals where partner_id = ${o.partnerId} and environment = ${o.environment}
            ${fromDay ? sql`and day >= ${isoDay(fromDay)}::date` : sql``} ${
          toDay ? sql`and day < ${isoDay(toDay)}::date` : sql``
        } ${rest}`,
        ...(f.from && fromDay && fromDay.getTime() > f.from.getTime() ? [orders(f.from, fromDay)] : []),
        ...(f.to && toDay && toDay.getTime() < f.to.getTime() ? [orders(toDay, f.to)] : [])
      ]
      return sql`
        select coalesce(sum(count), 0)::bigint as count, coalesce(sum(gmv_cents), 0)::bigint as gmv_cents,
               coalesce(sum(commission_cents), 0)::bigint as commission_cents
        from (${sql.join(" union all ", false)(parts)}) t`
    }
  })

  const payouts = SqlSchema.findAll({
    Request: Schema.Struct({ owner: Owner, sources: Schema.NullOr(Schema.Array(PayoutSource)), ...Page }),
    Result: PayoutRow,
    execute: ({ beforeId, limit, owner: o, sources }) =>
      sql`
        select * from partner_payouts
        where partner_id = ${o.partnerId} and environment = ${o.environment}
          ${sources ? sql`and source in ${sql.in(sources)}` : sql``}
          ${beforeId ? sql`and id < ${beforeId}` : sql``}
        order by id desc limit ${limit}`
  })

  const Total = Schema.Struct({ total: Schema.Number })
  const totalPaid = SqlSchema.single({
    Request: Schema.Struct({ owner: Owner, sources: Schema.NullOr(Schema.Array(PayoutSource)) }),
    Result: Total,
    execute: ({ owner: o, sources }) =>
      sql`
        select coalesce(sum(amount_cents), 0)::bigint as total from partner_payouts
        where partner_id = ${o.partnerId} and environment = ${o.environment} and status = 'paid'
          ${sources ? sql`and source in ${sql.in(sources)}` : sql``}`
  })

  // ---- the settlement run's writes (Settlement.ts), inside its per-statement transaction

  const insertRun = SqlSchema.void({
    Request: NewRun,
    execute: (r) => sql`insert into settlement_runs ${sql.insert(r)}`
  })
  const finishRun = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, ordersSettled: Schema.Number, statements: Schema.Number }),
    execute: (r) =>
      sql`update settlement_runs set finished_at = now(), orders_settled = ${r.ordersSettled}, statements = ${r.statements}
          where id = ${r.id}`
  })
  const PreviousStatement = Schema.Struct({
    end: Schema.NullOr(Schema.DateFromSelf),
    created: Schema.NullOr(Schema.DateFromSelf)
  })
  const previousStatement = SqlSchema.single({
    Request: Group,
    Result: PreviousStatement,
    execute: (g) =>
      sql`select max(period_end) as end, max(created_at) as created from settlement_statements
          where partner_id = ${g.partner_id} and environment = ${g.environment} and currency = ${g.currency}`
  })
  const refundsBetween = SqlSchema.single({
    Request: Schema.Struct({ group: Group, after: Schema.NullOr(Schema.DateFromSelf), until: Schema.DateFromSelf }),
    Result: Total,
    execute: ({ after, group: g, until }) =>
      sql`select coalesce(sum(r.amount_cents), 0) as total from partner_refunds r join partner_orders o on o.id = r.order_id
          where o.partner_id = ${g.partner_id} and o.environment = ${g.environment} and o.currency = ${g.currency}
            and r.created_at <= ${until} ${after ? sql`and r.created_at > ${after}` : sql``}`
  })
  const insertStatement = SqlSchema.void({
    Request: NewStatement,
    execute: (s) => sql`insert into settlement_statements ${sql.insert(s)}`
  })

  // ---- the payout run's reads and writes (Payouts.ts)

  const PayoutAccount = Schema.Struct({ payout_account: Schema.NullOr(Schema.String) })
  const payoutAccount = SqlSchema.findOne({
    Request: Schema.String,
    Result: PayoutAccount,
    execute: (partnerId) => sql`select payout_account from partners where id = ${partnerId}`
  })
  const setPayoutAccount = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, account: Schema.String }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: (r) => sql`update partners set payout_account = ${r.account} where id = ${r.partnerId} returning id`
  })
  const pendingPayouts = SqlSchema.findAll({
    Request: Schema.Void,
    Result: PayoutRow,
    execute: () => sql`select * from partner_payouts where status = 'pending' order by id`
  })
  const payoutStatusForUpdate = SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ status: PayoutRow.fields.status }),
    execute: (id) => sql`select status from partner_payouts where id = ${id} for update`
  })
  const markPayoutPaid = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, ref: Schema.String }),
    execute: (r) =>
      sql`update partner_payouts set status = 'paid', paid_at = now(), provider_ref = ${r.ref} where id = ${r.id}`
  })
  const markPayoutFailed = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, reason: Schema.String }),
    execute: (r) => sql`update partner_payouts set status = 'failed', failure = ${r.reason} where id = ${r.id}`
  })

  const notePayoutWaiting = SqlSchema.void({
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
  const markPaidStatements = SqlSchema.findAll({
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

  // ---- receipts (Receipts.ts), inside the receipt's transaction

  const receiptByReference = SqlSchema.findOne({
    Request: Schema.Struct({ partner_id: Schema.String, environment: Environment, reference: Schema.String }),
    Result: ReceiptRow,
    execute: (r) =>
      sql`select * from partner_receipts where partner_id = ${r.partner_id} and environment = ${r.environment}
          and reference = ${r.reference}`
  })
  const insertReceipt = SqlSchema.single({
    Request: ReceiptRow.pick("id", "partner_id", "environment", "currency", "amount_cents", "reference"),
    Result: ReceiptRow,
    execute: (r) => sql`insert into partner_receipts ${sql.insert(r)} returning *`
  })
  const lockPartnerPayouts = SqlSchema.void({
    Request: Schema.Struct({ lockClass: Schema.Number, key: Schema.Number }),
    execute: (r) => sql`select pg_advisory_xact_lock(${r.lockClass}, ${r.key})`
  })
  const payableGroups = SqlSchema.findAll({
    Request: Schema.Number,
    Result: Group,
    execute: (minimumCents) =>
      sql`
        select partner_id, environment, currency from ledger_entries where account = 'commission_payable'
        group by partner_id, environment, currency having -sum(amount_cents) >= ${minimumCents}
        order by partner_id, environment, currency`
  })
  const lastPayoutAt = SqlSchema.single({
    Request: Group,
    Result: Schema.Struct({ created_at: Schema.NullOr(Schema.DateFromSelf) }),
    execute: (g) =>
      sql`
        select max(created_at) as created_at from partner_payouts
        where partner_id = ${g.partner_id} and environment = ${g.environment} and status <> 'failed'`
  })
  const paymentModelsSettledAfter = SqlSchema.findAll({
    Request: Schema.Struct({ group: Group, after: Schema.NullOr(Schema.DateFromSelf) }),
    Result: Schema.Struct({ payment_model: PaymentModel }),
    execute: ({ after, group: g }) =>
      sql`
        select distinct payment_model from partner_orders
        where partner_id = ${g.partner_id} and environment = ${g.environment} and status = 'SETTLED' and payment_model <> 'partner_collected'
          ${after ? sql`and settled_at > ${after}` : sql``}`
  })
  const insertPayout = SqlSchema.single({
    Request: NewPayout,
    Result: PayoutRow,
    execute: (p) => sql`insert into partner_payouts ${sql.insert({ ...p, status: "pending" })} returning *`
  })

  return {
    /** Runs `effect` in one transaction; a failed BEGIN/COMMIT is a defect, `effect`'s own errors stay. */
    transaction: transactionOf(sql),

    /** Newest first, of one partner and environment (null: every partner); `beforeId` continues a page. */
    statements: (
      owner: Owner | null,
      window: { readonly from?: Date | undefined; readonly to?: Date | undefined },
      beforeId: string | null,
      limit: number
    ) => Effect.orDie(statements({ owner, from: window.from, to: window.to, beforeId, limit })),
    statement: (id: string, owner: Owner | null) => Effect.orDie(statement({ id, owner })),
    lines: (statementId: string) => Effect.orDie(lines(statementId)),
    transactions: (owner: Owner, filters: TransactionFilters, beforeId: string | null, limit: number) =>
      Effect.orDie(transactions({ owner, filters, beforeId, limit })),
    transactionTotals: (owner: Owner, filters: TransactionFilters) =>
      Effect.orDie(transactionTotals({ owner, filters })),
    payouts: (
      owner: Owner,
      sources: ReadonlyArray<typeof PayoutSource.Type> | null,
      beforeId: string | null,
      limit: number
    ) => Effect.orDie(payouts({ owner, sources, beforeId, limit })),
    totalPaid: (owner: Owner, sources: ReadonlyArray<typeof PayoutSource.Type> | null) =>
      Effect.orDie(Effect.map(totalPaid({ owner, sources }), (r) => r.total)),

    insertRun: (run: typeof NewRun.Type) => Effect.orDie(insertRun(run)),
    finishRun: (id: string, ordersSettled: number, statements: number) =>
      Effect.orDie(finishRun({ id, ordersSettled, statements })),
    /** The end and the writing time of the group's latest statement (null before the first). */
    previousStatement: (g: Group) => Effect.orDie(previousStatement(g)),
    /** Refunds of the group's orders recorded in (after, until]. */
    refundsBetween: (group: Group, after: Date | null, until: Date) =>
      Effect.orDie(Effect.map(refundsBetween({ group, after, until }), (r) => r.total)),
    insertStatement: (s: typeof NewStatement.Type) => Effect.orDie(insertStatement(s)),
    /** A statement's lines, one set-based insert whatever their number (typed by the caller, not re-encoded per row). */
    insertLines: (lines: ReadonlyArray<LineRow>) =>
      Effect.orDie(Effect.asVoid(bulkInsert(sql, "settlement_lines", LINE_COLUMNS, lines))),

    payoutAccount: (partnerId: string) => Effect.orDie(payoutAccount(partnerId)),
    /** False when there is no such partner. */
    setPayoutAccount: (partnerId: string, account: string) =>
      Effect.orDie(Effect.map(setPayoutAccount({ partnerId, account }), Option.isSome)),
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
    /** The service-collected payment models of the group's orders settled after `after`. */
    paymentModelsSettledAfter: (group: Group, after: Date | null) =>
      Effect.orDie(Effect.map(paymentModelsSettledAfter({ group, after }), (rows) => rows.map((r) => r.payment_model))),
    /** A pending payout. */
    insertPayout: (p: typeof NewPayout.Type) => Effect.orDie(insertPayout(p))
  }
})

export class MoneyRepo extends Context.Tag("app/MoneyRepo")<MoneyRepo, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(MoneyRepo, make)
}
