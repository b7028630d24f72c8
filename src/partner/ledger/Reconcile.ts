/**
 * The reconciliation check (`ledger verify`, GET /api/admin/ledger/verify): proves from the
 * tables that every transaction balances and that statements, each partner's balances, the
 * payouts and the receipts agree with the orders to the cent; and, the other way, that the cash
 * the payment provider layer holds (its captured payments less its refunds, read through the
 * `PaymentRecords` port) equals the ledger's cash (`buyer_payments`), payment by payment and per
 * environment and currency. Read-only; a non-empty `problems` list is a bug.
 *
 * Its queries are the checks themselves, so they live here rather than in Repo.ts; rows are
 * decoded by their schemas and a database error is a defect (`verify` is one `orDie`). The orders'
 * side comes through the `OrderChecks` port (OrderChecks.ts): the orders as a from-item placed in
 * these checks, and the orders-only checks (the maintained totals, what the orders imply for a
 * partner's balances) as the orders slice writes them; the ledger names no orders table.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { sqlArray } from "../../platform/db/SqlArray.js"
import { Credentials } from "../Credentials.js"
import { Books } from "./Books.js"
import { PartnerNotFound } from "./Errors.js"
import { OrderChecks } from "./OrderChecks.js"
import { type PaymentRecord, PaymentRecords } from "./PaymentRecords.js"

export interface Problem {
  readonly check: string
  readonly subject: string
  readonly message: string
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const books = yield* Books
  const credentials = yield* Credentials
  const paymentRecords = yield* PaymentRecords
  const orderChecks = yield* OrderChecks
  const orders = orderChecks.orders

  /** A check's rows, decoded by `Row`: ``rows(Row)`select …` `` (the statement takes no request). */
  const rows = <A, I>(Row: Schema.Schema<A, I>) => (strings: TemplateStringsArray, ...args: Array<any>) =>
    SqlSchema.findAll({ Request: Schema.Void, Result: Row, execute: () => sql(strings, ...args) })(undefined)
  /** The one row of an aggregate. */
  const one = <A, I>(Row: Schema.Schema<A, I>) => (strings: TemplateStringsArray, ...args: Array<any>) =>
    SqlSchema.single({ Request: Schema.Void, Result: Row, execute: () => sql(strings, ...args) })(undefined)
  const IdMessage = Schema.Struct({ id: Schema.String, message: Schema.String })

  /**
   * The other way round: the payment provider layer's captured payments against the ledger's
   * cash. Each payment: what the provider still holds for it (captured − refunded − refund
   * pending, since the books reverse a sale when the order is refunded and the provider refund
   * follows) equals the `buyer_payments` entries posted for it (by its order, or by its
   * `payment_id`, e.g. a cart); then, per environment and currency, the provider's total equals
   * the whole `buyer_payments` balance, so cash booked without any payment shows up too.
   * Returns how many payments were checked.
   */
  const reconcilePayments = (add: (check: string, subject: string, message: string) => void) =>
    Effect.gen(function*() {
      const records = yield* paymentRecords.captured
      const held = (r: PaymentRecord) => r.capturedCents - r.refundedCents - r.refundPendingCents
      const posted = new Map<string, number>()
      for (let i = 0; i < records.length; i += 5000) {
        const chunk = records.slice(i, i + 5000)
        for (
          const r of yield* rows(Schema.Struct({ id: Schema.String, cash: Schema.Number }))`
          select p.id, (select coalesce(sum(e.amount_cents), 0) from ledger_transactions t
                        join ledger_entries e on e.transaction_id = t.id and e.account = 'buyer_payments'
                        where t.payment_id = p.id or t.order_id = p.order_id) as cash
          from unnest(${sqlArray(chunk.map((c) => c.paymentId))}::text[], ${
            sqlArray(chunk.map((c) => c.orderId))
          }::text[]) as p (id, order_id)`
        ) posted.set(r.id, r.cash)
      }
      const totals = new Map<
        string,
        { held: number; captured: number; refunded: number; pending: number; cash: number }
      >()
      const total = (key: string) => {
        const t = totals.get(key) ?? { held: 0, captured: 0, refunded: 0, pending: 0, cash: 0 }
        totals.set(key, t)
        return t
      }
      for (const r of records) {
        const cash = posted.get(r.paymentId) ?? 0
        if (cash !== held(r)) {
          add(
            "payment",
            r.paymentId,
            cash === 0
              ? `${r.kind} payment of ${r.capturedCents} ${r.currency} captured by the payment provider is not in the ledger`
              : `the payment provider holds ${
                held(r)
              } (captured ${r.capturedCents}, refunded ${r.refundedCents}, refund pending ${r.refundPendingCents}); the ledger's cash for it is ${cash}`
          )
        }
        const t = total(`${r.environment}/${r.currency}`)
        t.held += held(r)
        t.captured += r.capturedCents
        t.refunded += r.refundedCents
        t.pending += r.refundPendingCents
      }
      for (
        const r of yield* rows(
          Schema.Struct({ environment: Schema.String, currency: Schema.String, cash: Schema.Number })
        )`
        select environment, currency, coalesce(sum(amount_cents), 0) as cash from ledger_entries
        where account = 'buyer_payments' group by environment, currency`
      ) total(`${r.environment}/${r.currency}`).cash = r.cash
      for (const [key, t] of totals) {
        if (t.cash !== t.held) {
          add(
            "cash",
            key,
            `the payment provider holds ${t.held} (captured ${t.captured}, refunded ${t.refunded}, refunds pending ${t.pending}); the ledger's cash (buyer_payments) is ${t.cash}`
          )
        }
      }
      return records.length
    })

  const verify = Effect.gen(function*() {
    const problems: Array<Problem> = []
    const add = (check: string, subject: string, message: string) => problems.push({ check, subject, message })

    for (
      const r of yield* rows(Schema.Struct({ id: Schema.String, total: Schema.Number, currencies: Schema.Number }))`
      select t.id, coalesce(sum(e.amount_cents), 0) as total, count(distinct e.currency) as currencies,
             count(distinct (e.partner_id, e.environment)) filter (where e.partner_id <> t.partner_id or e.environment <> t.environment) as owners
      from ledger_transactions t left join ledger_entries e on e.transaction_id = t.id
      group by t.id having coalesce(sum(e.amount_cents), 0) <> 0 or count(distinct e.currency) > 1
        or count(*) filter (where e.partner_id <> t.partner_id or e.environment <> t.environment) > 0`
    ) {
      add("balanced", r.id, `entries sum to ${r.total} across ${r.currencies} currencies`)
    }

    for (
      const r of yield* rows(IdMessage)`
      select s.id, format('statement %s: orders_count %s/%s gross %s/%s retained %s/%s owed %s/%s payable %s/%s (stored/lines)',
        s.id, s.orders_count, count(l.*), s.gross_sold_cents, coalesce(sum(l.sale_price_cents), 0),
        s.commission_retained_cents, coalesce(sum(l.commission_cents) filter (where l.payment_model = 'partner_collected'), 0),
        s.amount_owed_cents, coalesce(sum(l.owed_cents), 0),
        s.commission_payable_cents, coalesce(sum(l.commission_cents) filter (where l.payment_model <> 'partner_collected'), 0)) as message
      from settlement_statements s left join settlement_lines l on l.statement_id = s.id
      group by s.id
      having s.orders_count <> count(l.*) or s.gross_sold_cents <> coalesce(sum(l.sale_price_cents), 0)
        or s.commission_retained_cents <> coalesce(sum(l.commission_cents) filter (where l.payment_model = 'partner_collected'), 0)
        or s.amount_owed_cents <> coalesce(sum(l.owed_cents), 0)
        or s.amount_owed_cents <> coalesce(sum(l.sale_price_cents - l.commission_cents) filter (where l.payment_model = 'partner_collected'), 0)
        or s.commission_payable_cents <> coalesce(sum(l.commission_cents) filter (where l.payment_model <> 'partner_collected'), 0)`
    ) {
      add("statement", r.id, r.message)
    }

    // Statement status: `paid` exactly when paid payouts cover its payable commission and receipts
    // its amount owed, oldest statement first (src/domain/Ledger.ts paidStatements, docs/money.md).
    for (
      const r of yield* rows(Schema.Struct({ id: Schema.String, status: Schema.String, expected: Schema.String }))`
      select s.id, s.status, s.expected from (
        select s.id, s.status,
          case when (s.commission_payable_cents > 0 or s.amount_owed_cents > 0)
                and (s.commission_payable_cents <= 0 or s.cum_payable <= coalesce(p.paid, 0))
                and (s.amount_owed_cents <= 0 or s.cum_owed <= coalesce(rc.received, 0)) then 'paid' else 'closed' end as expected
        from (select *, sum(commission_payable_cents) over (partition by partner_id, environment, currency order by id) as cum_payable,
                        sum(amount_owed_cents) over (partition by partner_id, environment, currency order by id) as cum_owed
              from settlement_statements) s
        left join (select partner_id, environment, currency, sum(amount_cents) as paid from partner_payouts where status = 'paid'
                   group by partner_id, environment, currency) p
          on p.partner_id = s.partner_id and p.environment = s.environment and p.currency = s.currency
        left join (select partner_id, environment, currency, sum(amount_cents) as received from partner_receipts
                   group by partner_id, environment, currency) rc
          on rc.partner_id = s.partner_id and rc.environment = s.environment and rc.currency = s.currency) s
      where s.status <> s.expected`
    ) {
      add("statement_status", r.id, `status is ${r.status}; the paid payouts and the receipts make it ${r.expected}`)
    }

    for (
      const r of yield* rows(IdMessage)`
      select o.id, case
        when o.commission_cents <> o.sale_price_cents * o.commission_bps / 10000 then 'commission differs from the frozen rate'
        when not exists (select 1 from ledger_transactions t where t.natural_key = 'order:' || o.id || ':recorded') then 'sale not posted'
        when o.status in ('REFUNDED', 'CANCELLED') and not exists (select 1 from ledger_transactions t where t.natural_key = 'order:' || o.id || ':reversed') then 'refund not posted'
        when o.status = 'SETTLED' and not exists (select 1 from ledger_transactions t where t.natural_key = 'order:' || o.id || ':settled') then 'settlement not posted'
        when o.status <> 'SETTLED' and exists (select 1 from settlement_lines l where l.order_id = o.id) then 'on a statement but not SETTLED'
        when l.order_id is not null and (l.sale_price_cents <> o.sale_price_cents or l.commission_cents <> o.commission_cents) then 'statement line differs from the order'
      end as message
      from ${orders} o left join settlement_lines l on l.order_id = o.id
      where o.commission_cents <> o.sale_price_cents * o.commission_bps / 10000
        or not exists (select 1 from ledger_transactions t where t.natural_key = 'order:' || o.id || ':recorded')
        or (o.status in ('REFUNDED', 'CANCELLED') and not exists (select 1 from ledger_transactions t where t.natural_key = 'order:' || o.id || ':reversed'))
        or (o.status = 'SETTLED' and not exists (select 1 from ledger_transactions t where t.natural_key = 'order:' || o.id || ':settled'))
        or (o.status <> 'SETTLED' and l.order_id is not null)
        or (l.order_id is not null and (l.sale_price_cents <> o.sale_price_cents or l.commission_cents <> o.commission_cents))`
    ) {
      add("order", r.id, r.message)
    }

    // The maintained sales totals (GET /transactions) against the orders they sum.
    for (const r of yield* orderChecks.totalsDrift) {
      add(
        "totals",
        r.subject,
        `count/gmv/commission is ${r.stored || "absent"}, the orders sum to ${r.actual || "nothing"}`
      )
    }

    // Each partner's balances against what its orders and payouts imply.
    const owners = yield* rows(
      Schema.Struct({
        partner_id: Schema.String,
        environment: Schema.Literal("live", "sandbox"),
        currency: Schema.String
      })
    )`
      select distinct partner_id, environment, currency from ledger_transactions
      union select distinct partner_id, environment, currency from ${orders} o
      union select distinct partner_id, environment, currency from partner_receipts`
    for (const o of owners) {
      const b = yield* books.balances(o.partner_id, o.environment, o.currency)
      const x = yield* orderChecks.impliedBy(o)
      const p = yield* one(Schema.Struct({ paid: Schema.Number, pending: Schema.Number, received: Schema.Number }))`
        select coalesce(sum(amount_cents) filter (where status = 'paid'), 0) as paid,
               coalesce(sum(amount_cents) filter (where status = 'pending'), 0) as pending,
               (select coalesce(sum(amount_cents), 0) from partner_receipts
                where partner_id = ${o.partner_id} and environment = ${o.environment} and currency = ${o.currency}) as received
        from partner_payouts where partner_id = ${o.partner_id} and environment = ${o.environment} and currency = ${o.currency}`
      const subject = `${o.partner_id}/${o.environment}/${o.currency}`
      const expect = (name: string, actual: number, expected: number) => {
        if (actual !== expected) {
          add("balance", subject, `${name} is ${actual}, the orders and payouts imply ${expected}`)
        }
      }
      expect("partner_receivable", b.partner_receivable, x.receivable)
      expect("partner_receivable_settled", b.partner_receivable_settled, x.receivable_settled - p.received)
      expect("partner_receipts", b.partner_receipts, p.received)
      expect("brokerage_fee_receivable", b.brokerage_fee_receivable, x.brokerage_fees)
      expect("commission_accrued", b.commission_accrued, -x.accrued)
      expect("commission_payable + payouts", b.commission_payable + b.payouts_in_flight + b.payouts_paid, -x.earned)
      expect("payouts_paid", b.payouts_paid, -p.paid)
      expect("payouts_in_flight", b.payouts_in_flight, -p.pending)
      if (b.commission_payable > 0) {
        add("balance", subject, `commission_payable is overdrawn by ${b.commission_payable}`)
      }
    }

    const payments = yield* reconcilePayments(add)

    const counts = yield* one(
      Schema.Struct({
        transactions: Schema.Number,
        statements: Schema.Number,
        orders: Schema.Number,
        payouts: Schema.Number,
        receipts: Schema.Number
      })
    )`
      select (select count(*) from ledger_transactions)::int as transactions, (select count(*) from settlement_statements)::int as statements,
             (select count(*) from ${orders} o)::int as orders, (select count(*) from partner_payouts)::int as payouts,
             (select count(*) from partner_receipts)::int as receipts`
    return { ok: problems.length === 0, checked: { ...counts, payments }, problems }
  }).pipe(Effect.orDie)

  /** A partner's balances; an id that no partner has is `PartnerNotFound` (not a page of zeros). */
  const balance = (partnerId: string, environment: "live" | "sandbox", currency = "USD") =>
    Effect.gen(function*() {
      if (Option.isNone(yield* credentials.showPartner(partnerId))) return yield* PartnerNotFound.of(partnerId)
      const b = yield* books.balances(partnerId, environment, currency)
      return {
        partner_id: partnerId,
        environment,
        currency,
        accounts: b,
        owed_by_partner_cents: b.partner_receivable + b.partner_receivable_settled,
        commission_accrued_cents: -b.commission_accrued,
        commission_payable_cents: -b.commission_payable,
        paid_out_cents: -b.payouts_paid
      }
    })

  return { verify, balance }
})

/** Needs the `OrderChecks` port, provided by src/partner/Layer.ts. */
export class Reconcile extends Effect.Service<Reconcile>()("app/LedgerReconcile", {
  effect: make,
  dependencies: [Books.Default, Credentials.Live]
}) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = Reconcile.Default
}
