/**
 * Handlers of the partner money endpoints and the operator (admin) money endpoints. Rows are
 * answered as they are read: the success schemas (Api.ts) pick their fields and write the times.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option } from "effect"
import { Api } from "../../app/Api.js"
import { operatorAction } from "../../audit/Actor.js"
import { pageCursor, PAGED_LISTS, type PagedList } from "../../platform/http/PageCursor.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import { CurrentPartner } from "../Auth.js"
import { dateParam, dateWindow, iso } from "../Common.js"
import { NotAnAffiliate } from "../Errors.js"
import { SettlementNotFound } from "./Errors.js"
import { Exports } from "./Exports.js"
import { Payouts } from "./Payouts.js"
import { Receipts } from "./Receipts.js"
import { Reconcile } from "./Reconcile.js"
import { MoneyRepo, type PayoutSource } from "./Repo.js"
import { Settlement } from "./Settlement.js"

export const PartnerMoneyHttpLive = HttpApiBuilder.group(Api, "partnerMoney", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* MoneyRepo
    const exports = yield* Exports
    const secrets = yield* ServiceSecret
    const payouts = (
      sources: ReadonlyArray<typeof PayoutSource.Type> | null,
      paged: PagedList<string>,
      params: { readonly limit?: number | undefined; readonly cursor?: string | undefined }
    ) =>
      Effect.gen(function*() {
        const partner = yield* CurrentPartner
        const owner = { partnerId: partner.partnerId, environment: partner.environment }
        const cursor = pageCursor(secrets, paged, partner.credentialId, sources)
        const before = yield* cursor.read(params.cursor)
        const limit = params.limit ?? 25
        const rows = yield* repo.payouts(owner, sources, before, limit + 1)
        const page = rows.slice(0, limit)
        return {
          payouts: page,
          total_paid_cents: yield* repo.totalPaid(owner, sources),
          next_cursor: cursor.next(page[page.length - 1]?.id, rows.length > limit)
        }
      })

    return handlers
      .handle("listSettlements", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const r = yield* dateWindow(urlParams.from, urlParams.to)
          const filters = [iso(r.from ?? null), iso(r.to ?? null)]
          const cursor = pageCursor(secrets, PAGED_LISTS.settlements, partner.credentialId, filters)
          const before = yield* cursor.read(urlParams.cursor)
          const limit = urlParams.limit ?? 25
          const rows = yield* repo.statements(
            { partnerId: partner.partnerId, environment: partner.environment },
            r,
            before,
            limit + 1
          )
          const page = rows.slice(0, limit)
          return {
            settlements: page,
            next_cursor: cursor.next(page[page.length - 1]?.id, rows.length > limit)
          }
        }))
      .handle("getSettlement", ({ path }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const row = yield* repo.statement(path.id, { partnerId: partner.partnerId, environment: partner.environment })
          if (Option.isNone(row)) return yield* SettlementNotFound.of(path.id)
          return { ...row.value, lines: yield* repo.lines(path.id) }
        }))
      .handle("exportSettlement", ({ path }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const text = yield* exports.statement(path.id, {
            partnerId: partner.partnerId,
            environment: partner.environment
          })
          if (Option.isNone(text)) return yield* SettlementNotFound.of(path.id)
          return text.value
        }))
      .handle("exportTransactions", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const r = yield* dateWindow(urlParams.from, urlParams.to)
          return yield* exports.transactions(
            { partnerId: partner.partnerId, environment: partner.environment },
            { ...r, status: urlParams.status, paymentModel: urlParams.payment_model }
          )
        }))
      .handle("listTransactions", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const owner = { partnerId: partner.partnerId, environment: partner.environment }
          const r = yield* dateWindow(urlParams.from, urlParams.to)
          const filters = { ...r, status: urlParams.status, paymentModel: urlParams.payment_model }
          const key = [
            iso(r.from ?? null),
            iso(r.to ?? null),
            urlParams.status ?? null,
            urlParams.payment_model ?? null
          ]
          const cursor = pageCursor(secrets, PAGED_LISTS.transactions, partner.credentialId, key)
          const before = yield* cursor.read(urlParams.cursor)
          const limit = urlParams.limit ?? 25
          const [rows, totals] = yield* Effect.all([
            repo.transactions(owner, filters, before, limit + 1),
            repo.transactionTotals(owner, filters)
          ], {
            concurrency: 2
          })
          const page = rows.slice(0, limit)
          return {
            transactions: page,
            totals,
            next_cursor: cursor.next(page[page.length - 1]?.order_id, rows.length > limit)
          }
        }))
      .handle("listPayouts", ({ urlParams }) => payouts(null, PAGED_LISTS.payouts, urlParams))
      .handle("listMyPayouts", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          if (!partner.affiliate) {
            return yield* new NotAnAffiliate({ message: "This credential is not linked to an affiliate account" })
          }
          return yield* payouts(["referral"], PAGED_LISTS.myPayouts, urlParams)
        }))
  }))

export const AdminMoneyHttpLive = HttpApiBuilder.group(Api, "adminMoney", (handlers) =>
  Effect.gen(function*() {
    const settlement = yield* Settlement
    const reconcile = yield* Reconcile
    const payouts = yield* Payouts
    const receipts = yield* Receipts
    const repo = yield* MoneyRepo
    const secrets = yield* ServiceSecret
    return handlers
      .handle("runSettlement", ({ urlParams }) =>
        Effect.gen(function*() {
          const asOf = yield* dateParam("as_of", urlParams.as_of)
          // The run holds a session lock on its own connection and commits statement by statement.
          return yield* operatorAction(
            { action: "settlement.run", target: null, transactional: false },
            settlement.run({ asOf, trigger: "admin" })
          )
        }))
      .handle("listStatements", ({ urlParams }) =>
        Effect.gen(function*() {
          const cursor = pageCursor(secrets, PAGED_LISTS.adminStatements, "admin", null)
          const before = yield* cursor.read(urlParams.cursor)
          const limit = urlParams.limit ?? 25
          const rows = yield* repo.statements(null, {}, before, limit + 1)
          const page = rows.slice(0, limit)
          return {
            settlements: page,
            next_cursor: cursor.next(page[page.length - 1]?.id, rows.length > limit)
          }
        }))
      .handle("runPayouts", () =>
        operatorAction({ action: "payouts.run", target: null, transactional: false }, payouts.run))
      .handle("verifyLedger", () =>
        reconcile.verify)
      .handle("recordReceipt", ({ payload }) =>
        operatorAction(
          { action: "ledger.receipt", target: payload.partner_id },
          receipts.record({
            partnerId: payload.partner_id,
            environment: payload.environment ?? "live",
            amountCents: payload.amount_cents,
            reference: payload.reference
          })
        ))
      .handle("ledgerBalance", ({ urlParams }) => reconcile.balance(urlParams.partner, urlParams.env ?? "live"))
  }))
