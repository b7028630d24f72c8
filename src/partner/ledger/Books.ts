/**
 * The books: the one writer of `ledger_transactions` and `ledger_entries`.
 *
 * Contract: `post` runs inside the caller's transaction (the state change that causes the money
 * movement), writes nothing when the posting's natural key exists already (idempotent), and
 * refuses an unbalanced posting as a defect. Rows are never updated or deleted (a trigger refuses
 * it); corrections are new, reversing postings. A database error is a defect here.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import {
  type Account,
  ACCOUNTS,
  type Balances,
  cartItemRefunded,
  cartPaid,
  emptyBalances,
  isBalanced,
  type PaymentModel,
  paymentReturned,
  paymentTaken,
  type Posting,
  recorded,
  refunded,
  type SaleFacts
} from "../../domain/Ledger.js"
import { bulkInsert } from "../../platform/db/BulkInsert.js"
import { sqlArray } from "../../platform/db/SqlArray.js"
import { makeId } from "../../platform/Ids.js"
import type { PartnerEnvironment } from "../Auth.js"

export interface PostingScope {
  readonly partnerId: string
  readonly environment: PartnerEnvironment
  readonly currency: string
  readonly orderId?: string | null
  readonly statementId?: string | null
  readonly payoutId?: string | null
  /**
   * The payment (checkout session `cs_…`) whose cash the posting moves, when it has no order
   * (a cart); `ledger verify` matches the provider's records to postings by it or by the order.
   */
  readonly paymentId?: string | null
}

/** The order fields the posting rules read. */
export interface OrderMoney {
  readonly id: string
  readonly partner_id: string
  readonly environment: PartnerEnvironment
  readonly currency: string
  readonly payment_model: PaymentModel
  readonly sale_price_cents: number
  readonly commission_bps: number
}

export const saleFacts = (o: OrderMoney): SaleFacts => ({
  orderId: o.id,
  paymentModel: o.payment_model,
  saleCents: o.sale_price_cents,
  commissionBps: o.commission_bps
})

export const orderScope = (o: OrderMoney): PostingScope => ({
  partnerId: o.partner_id,
  environment: o.environment,
  currency: o.currency,
  orderId: o.id
})

/** Requests whose shape the callers already typed (postings built by domain/Ledger.ts): passed as they are. */
const Passed = <A>() => Schema.Any as Schema.Schema<A, A>

const TRANSACTION_COLUMNS = [
  ["id", "text"],
  ["natural_key", "text"],
  ["partner_id", "text"],
  ["environment", "text"],
  ["currency", "text"],
  ["kind", "text"],
  ["order_id", "text"],
  ["statement_id", "text"],
  ["payout_id", "text"],
  ["payment_id", "text"]
] as const
const ENTRY_COLUMNS = [
  ["transaction_id", "text"],
  ["partner_id", "text"],
  ["environment", "text"],
  ["account", "text"],
  ["amount_cents", "bigint"],
  ["currency", "text"]
] as const

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  /**
   * The transactions of a batch that were new. Decoded like every row: two strings per posting,
   * ~1-2 µs each, about 1 % of a settlement run (bench/settlement.ts, 100,000 orders).
   */
  const insertTransactions = SqlSchema.findAll({
    Request: Passed<ReadonlyArray<Record<string, unknown>>>(),
    Result: Schema.Struct({ id: Schema.String, natural_key: Schema.String }),
    execute: (rows) =>
      bulkInsert(
        sql,
        "ledger_transactions",
        TRANSACTION_COLUMNS,
        rows,
        "on conflict (natural_key) do nothing returning id, natural_key"
      )
  })
  /** One posting's transaction and entries in one statement; how many transactions were new (0 or 1). */
  const insertPosting = SqlSchema.single({
    Request: Passed<{ readonly scope: PostingScope; readonly posting: Posting }>(),
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ posting, scope }) =>
      sql`
        with t as (
          insert into ledger_transactions (id, natural_key, partner_id, environment, currency, kind, order_id, statement_id, payout_id, payment_id)
          values (${
        makeId("ltx")
      }, ${posting.key}, ${scope.partnerId}, ${scope.environment}, ${scope.currency}, ${posting.kind},
                  ${scope.orderId ?? null}, ${scope.statementId ?? null}, ${scope.payoutId ?? null}, ${
        scope.paymentId ?? null
      })
          on conflict (natural_key) do nothing returning id
        ), e as (
          insert into ledger_entries (transaction_id, partner_id, environment, account, amount_cents, currency)
          select t.id, ${scope.partnerId}, ${scope.environment}, x.account, x.amount, ${scope.currency}
          from t cross join unnest(${sqlArray(posting.entries.map((e) => e.account))}::text[], ${
        sqlArray(posting.entries.map((e) => String(e.amount)))
      }::bigint[])
            with ordinality as x (account, amount, ord)
          order by x.ord
        )
        select count(*)::int as n from t`
  })
  const BalanceRow = Schema.Struct({ account: Schema.String, balance: Schema.Number })
  const balanceRows = SqlSchema.findAll({
    Request: Schema.Struct({
      partnerId: Schema.String,
      environment: Schema.Literal("live", "sandbox"),
      currency: Schema.String
    }),
    Result: BalanceRow,
    execute: (r) =>
      sql`
        select account, coalesce(sum(amount_cents), 0) as balance from ledger_entries
        where partner_id = ${r.partnerId} and environment = ${r.environment} and currency = ${r.currency}
        group by account`
  })

  /** Many postings at once (settlement): two set-based inserts, whatever the number. Returns how many were new. */
  const postMany = (items: ReadonlyArray<{ readonly scope: PostingScope; readonly posting: Posting }>) =>
    Effect.gen(function*() {
      for (const { posting } of items) {
        if (!isBalanced(posting.entries)) return yield* Effect.dieMessage(`unbalanced posting ${posting.key}`)
      }
      if (items.length === 0) return 0
      const rows = items.map(({ posting, scope }) => ({
        id: makeId("ltx"),
        natural_key: posting.key,
        partner_id: scope.partnerId,
        environment: scope.environment,
        currency: scope.currency,
        kind: posting.kind,
        order_id: scope.orderId ?? null,
        statement_id: scope.statementId ?? null,
        payout_id: scope.payoutId ?? null,
        payment_id: scope.paymentId ?? null
      }))
      const inserted = yield* insertTransactions(rows)
      if (inserted.length === 0) return 0
      const idOf = new Map(inserted.map((r) => [r.natural_key, r.id]))
      const entries = items.flatMap(({ posting, scope }) => {
        const id = idOf.get(posting.key)
        return id === undefined ? [] : posting.entries.map((e) => ({
          transaction_id: id,
          partner_id: scope.partnerId,
          environment: scope.environment,
          account: e.account,
          amount_cents: e.amount,
          currency: scope.currency
        }))
      })
      if (entries.length > 0) yield* bulkInsert(sql, "ledger_entries", ENTRY_COLUMNS, entries)
      return inserted.length
    }).pipe(Effect.orDie)

  /** One posting: the transaction and its entries in one statement (one round trip). */
  const post = (scope: PostingScope, posting: Posting) =>
    Effect.gen(function*() {
      if (!isBalanced(posting.entries)) return yield* Effect.dieMessage(`unbalanced posting ${posting.key}`)
      const r = yield* insertPosting({ scope, posting })
      return r.n === 1
    }).pipe(Effect.orDie)

  /** Every account's balance of one partner, environment and currency (debit-positive). */
  const balances = (partnerId: string, environment: PartnerEnvironment, currency = "USD") =>
    Effect.map(
      balanceRows({ partnerId, environment, currency }),
      (rows): Balances => {
        const b = emptyBalances()
        for (const r of rows) {
          if ((ACCOUNTS as ReadonlyArray<string>).includes(r.account)) b[r.account as Account] = r.balance
        }
        return b
      }
    ).pipe(Effect.orDie)

  return {
    post,
    postMany,
    balances,
    /** The sale, when it is recorded (caller's transaction). */
    recordSale: (o: OrderMoney) => post(orderScope(o), recorded(saleFacts(o))),
    /** A refund or cancellation before TRANSFER_COMPLETED: the reversal of the sale. */
    reverseSale: (o: OrderMoney) => post(orderScope(o), refunded(saleFacts(o)))
  }
})

export class Books extends Effect.Service<Books>()("app/LedgerBooks", { effect: make }) {
  /** Kept for the existing wiring (src/partner/Layer.ts, the checkout's, orders' and brokerage's layers). */
  static readonly Live = Books.Default
}

/**
 * Carts are sold by the house partner (migration 0110) in the live books; their cash is the
 * checkout session's payment (`paymentId`), which the reconciliation matches with the provider's.
 */
const CART_PARTNER_ID = "ptn_marketplace"
const cartScope = (currency: string, sessionId: string | null): PostingScope => ({
  partnerId: CART_PARTNER_ID,
  environment: "live",
  currency,
  paymentId: sessionId
})

/** A paid cart (caller's transaction: the cart's move to `paid`). */
export const postCartPaid = (
  books: Books,
  cart: { readonly id: string; readonly sessionId: string; readonly currency: string; readonly totalCents: number }
) => books.post(cartScope(cart.currency, cart.sessionId), cartPaid(cart.id, cart.totalCents))

/** One cart item refunded (caller's transaction: the item's move to `refunded`). */
export const postCartItemRefunded = (
  books: Books,
  item: {
    readonly cartId: string
    readonly sessionId: string | null
    readonly itemId: string
    readonly currency: string
    readonly amountCents: number
  }
) => books.post(cartScope(item.currency, item.sessionId), cartItemRefunded(item.cartId, item.itemId, item.amountCents))

/**
 * A hosted-checkout payment that bought nothing, under its session (`paymentId`) and seller:
 * taken (caller's transaction: the session's move to `refunded`), then returned (caller's
 * transaction: the provider refund recorded as sent).
 */
export interface UnsoldPayment {
  readonly sessionId: string
  readonly partnerId: string
  readonly environment: PartnerEnvironment
  readonly currency: string
  readonly amountCents: number
}
const unsoldScope = (p: UnsoldPayment): PostingScope => ({
  partnerId: p.partnerId,
  environment: p.environment,
  currency: p.currency,
  paymentId: p.sessionId
})
export const postPaymentTaken = (books: Books, p: UnsoldPayment) =>
  books.post(unsoldScope(p), paymentTaken(p.sessionId, p.amountCents))
export const postPaymentReturned = (books: Books, p: UnsoldPayment) =>
  books.post(unsoldScope(p), paymentReturned(p.sessionId, p.amountCents))
