/**
 * A partner's business as its members read it in the console (docs/consoles.md#business): its
 * orders, brokerage cases, statements, sales history (and its CSV) and payouts, through the same
 * services and reads the signed API's `GET /orders`, `/brokerage`, `/settlements`, `/transactions`,
 * `/transactions.csv` and `/payouts` use. Every read asks `members.require(…, "view")` first, so a
 * person who is not a member of the partner gets `NotAMember` (the console's 404) and never a row.
 *
 * Reading widens nothing: both environments may be read (a partner with no live key simply has no
 * live rows); the default is live once the partner has a live key, else sandbox.
 */
import { Effect, Option } from "effect"
import type { PartnerEnvironment, PartnerOwner } from "../Auth.js"
import { Brokerage } from "../brokerage/Brokerage.js"
import type { CaseFilters } from "../brokerage/Repo.js"
import { SettlementNotFound } from "../ledger/Errors.js"
import { Exports } from "../ledger/Exports.js"
import { MoneyRepo, type TransactionFilters } from "../ledger/Repo.js"
import { Orders } from "../orders/Orders.js"
import type { OrderFilters } from "../orders/Repo.js"
import { PartnerKeys } from "./Keys.js"
import { Members } from "./Members.js"

/** How many statements and payouts the money page shows (newest first); the sales history pages. */
export const MONEY_LIST_SIZE = 20

/** A page of rows after `beforeId` (null: the first page). */
export interface PageAsk {
  readonly beforeId: string | null
  readonly limit: number
}

const make = Effect.gen(function*() {
  const members = yield* Members
  const keys = yield* PartnerKeys
  const orders = yield* Orders
  const brokerage = yield* Brokerage
  const money = yield* MoneyRepo
  const exports = yield* Exports

  /** The member's view right, then the owner the reads are about. */
  const reader = (userId: string, partnerId: string, environment: PartnerEnvironment) =>
    Effect.map(members.require(userId, partnerId, "view"), (membership) => ({
      membership,
      owner: { partnerId, environment } satisfies PartnerOwner
    }))

  return {
    /**
     * The environment shown when the URL names none: live once the partner has a live key. The
     * pages ask it first, so a person outside the partner meets the 404 before any filter's 400.
     */
    defaultEnvironment: (userId: string, partnerId: string) =>
      Effect.flatMap(
        members.require(userId, partnerId, "view"),
        () =>
          Effect.map(keys.grants(partnerId), (g): PartnerEnvironment => g.environments.has("live") ? "live" : "sandbox")
      ),

    /** The partner's orders, newest first, with the signed API's filters. */
    orders: (userId: string, partnerId: string, environment: PartnerEnvironment, f: OrderFilters, page: PageAsk) =>
      Effect.flatMap(
        reader(userId, partnerId, environment),
        ({ membership, owner }) =>
          Effect.map(orders.list(owner, f, page.beforeId, page.limit), (p) => ({ membership, ...p }))
      ),

    /** The partner's brokerage cases, newest first. */
    cases: (
      userId: string,
      partnerId: string,
      environment: PartnerEnvironment,
      f: Pick<CaseFilters, "status" | "from" | "to">,
      page: PageAsk
    ) =>
      Effect.flatMap(reader(userId, partnerId, environment), ({ membership, owner }) =>
        Effect.map(
          brokerage.list({ ...f, ...owner }, page.beforeId, page.limit),
          (p) => ({ membership, ...p })
        )),

    /** One case with its timeline (another partner's or environment's: BrokerageCaseNotFound). */
    caseDetail: (userId: string, partnerId: string, environment: PartnerEnvironment, caseId: string) =>
      Effect.flatMap(
        reader(userId, partnerId, environment),
        ({ membership, owner }) => Effect.map(brokerage.detail(caseId, owner), (detail) => ({ membership, detail }))
      ),

    /** The money page: latest statements and payouts, one page of the sales history with its totals. */
    money: (
      userId: string,
      partnerId: string,
      environment: PartnerEnvironment,
      f: TransactionFilters,
      page: PageAsk
    ) =>
      Effect.flatMap(reader(userId, partnerId, environment), ({ membership, owner }) =>
        Effect.gen(function*() {
          const [statements, rows, totals, payouts, totalPaid] = yield* Effect.all([
            money.statements(owner, {}, null, MONEY_LIST_SIZE),
            money.transactions(owner, f, page.beforeId, page.limit + 1),
            money.transactionTotals(owner, f),
            money.payouts(owner, null, null, MONEY_LIST_SIZE),
            money.totalPaid(owner, null)
          ], { concurrency: 2 })
          return {
            membership,
            statements,
            transactions: rows.slice(0, page.limit),
            hasMore: rows.length > page.limit,
            totals,
            payouts,
            totalPaid
          }
        })),

    /** The sales history as the signed API's `transactions.csv` writes it: every matching row. */
    transactionsCsv: (userId: string, partnerId: string, environment: PartnerEnvironment, f: TransactionFilters) =>
      Effect.flatMap(reader(userId, partnerId, environment), ({ owner }) => exports.transactions(owner, f)),

    /** One statement's lines as the signed API's `settlements/{id}.csv` writes them; another partner's is not found. */
    statementCsv: (userId: string, partnerId: string, environment: PartnerEnvironment, id: string) =>
      Effect.flatMap(reader(userId, partnerId, environment), ({ owner }) =>
        Effect.flatMap(
          exports.statement(id, owner),
          Option.match({ onNone: () => Effect.fail(SettlementNotFound.of(id)), onSome: Effect.succeed })
        ))
  }
})

export class MemberBusiness extends Effect.Service<MemberBusiness>()("app/PartnerMemberBusiness", { effect: make }) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = MemberBusiness.Default
}
