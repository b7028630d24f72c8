/**
 * CSV exports of the partner money reads (docs/partner.md#csv-exports): the sales history with
 * the filters and scope of `GET /transactions` (every matching row, not one page), and one
 * statement's lines. The same text for `GET …/transactions.csv`, `GET …/settlements/{id}.csv` and
 * `npm run -s cli -- ledger export …`. Cells are written by src/domain/Csv.ts (formula-guarded).
 */
import { Effect, Option } from "effect"
import { csv } from "../../domain/Csv.js"
import { MoneyRepo, type Owner, type TransactionFilters, type TransactionRow } from "./Repo.js"

export const TRANSACTION_COLUMNS = [
  "id",
  "order_id",
  "domain",
  "payment_model",
  "status",
  "sale_price_cents",
  "commission_cents",
  "currency",
  "created_at",
  "settled_at"
] as const

export const STATEMENT_COLUMNS = [
  "statement_id",
  "period_start",
  "period_end",
  "statement_status",
  "order_id",
  "domain",
  "payment_model",
  "sale_price_cents",
  "commission_cents",
  "owed_cents",
  "currency"
] as const

/** Rows read per query while exporting (newest first, like the JSON pages). */
const CHUNK = 1000

const iso = (d: Date | null) => (d === null ? null : d.toISOString())

const make = Effect.gen(function*() {
  const repo = yield* MoneyRepo

  const transactions = (owner: Owner, filters: TransactionFilters) =>
    Effect.gen(function*() {
      const rows: Array<ReadonlyArray<string | number | null>> = []
      let before: string | null = null
      for (;;) {
        const page: ReadonlyArray<TransactionRow> = yield* repo.transactions(owner, filters, before, CHUNK)
        for (const t of page) {
          rows.push([
            t.id,
            t.order_id,
            t.domain,
            t.payment_model,
            t.status,
            t.sale_price_cents,
            t.commission_cents,
            t.currency,
            iso(t.created_at),
            iso(t.settled_at)
          ])
        }
        if (page.length < CHUNK) break
        before = page[page.length - 1]!.order_id
      }
      return csv(TRANSACTION_COLUMNS, rows)
    })

  /** None: no such statement (or, with an owner, another partner's). */
  const statement = (id: string, owner: Owner | null) =>
    Effect.gen(function*() {
      const s = yield* repo.statement(id, owner)
      if (Option.isNone(s)) return Option.none<string>()
      const st = s.value
      const lines = yield* repo.lines(id)
      return Option.some(csv(
        STATEMENT_COLUMNS,
        lines.map((l) => [
          st.id,
          iso(st.period_start),
          iso(st.period_end),
          st.status,
          l.order_id,
          l.domain,
          l.payment_model,
          l.sale_price_cents,
          l.commission_cents,
          l.owed_cents,
          st.currency
        ])
      ))
    })

  return { transactions, statement }
})

export class Exports extends Effect.Service<Exports>()("app/LedgerExports", {
  effect: make,
  dependencies: [MoneyRepo.Default]
}) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = Exports.Default
}
