/** Handlers of the partner money endpoints and the operator (admin) money endpoints. */
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { Api } from "../../app/Api.js"
import { BadRequestError, ForbiddenError, NotFoundError } from "../../platform/Errors.js"
import { ServiceSecret } from "../../platform/ServiceSecret.js"
import { CurrentPartner } from "../Auth.js"
import { dateParam, dateWindow, iso, validationError } from "../Common.js"
import { Reconcile } from "./Reconcile.js"
import { MoneyRepo, type PayoutRow, type StatementRow } from "./Repo.js"
import { Payouts } from "./Payouts.js"
import { Settlement } from "./Settlement.js"

const invalidCursor = (message: string) => new BadRequestError({ code: "invalid_cursor", message })

export const statementJson = (s: StatementRow) => ({
  id: s.id,
  period_start: iso(s.period_start)!,
  period_end: iso(s.period_end)!,
  currency: s.currency,
  orders_count: s.orders_count,
  gross_sold_cents: Number(s.gross_sold_cents),
  commission_retained_cents: Number(s.commission_retained_cents),
  amount_owed_cents: Number(s.amount_owed_cents),
  commission_payable_cents: Number(s.commission_payable_cents),
  refunds_cents: Number(s.refunds_cents),
  status: s.status,
  created_at: iso(s.created_at)!
})

export const payoutJson = (p: PayoutRow) => ({
  id: p.id,
  amount_cents: Number(p.amount_cents),
  currency: p.currency,
  status: p.status,
  method: p.method,
  created_at: iso(p.created_at)!,
  paid_at: iso(p.paid_at),
  source: p.source
})

const make = Effect.gen(function*() {
  const secrets = yield* ServiceSecret
  /** Cursors are signed and bound to the endpoint, the caller and the filters. */
  const cursor = {
    issue: (purpose: string, owner: string, filters: unknown, lastId: string | undefined, more: boolean) =>
      more && lastId ? secrets.sign(`money-cursor:${purpose}`, { b: lastId, o: owner, f: JSON.stringify(filters) }) : null,
    read: (purpose: string, owner: string, filters: unknown, token: string | undefined) =>
      Effect.gen(function*() {
        if (token === undefined) return null
        const c = secrets.verify<{ b: string; o: string; f: string }>(`money-cursor:${purpose}`, token)
        if (Option.isNone(c) || c.value.o !== owner) return yield* invalidCursor("cursor: not a cursor this endpoint issued to you")
        if (c.value.f !== JSON.stringify(filters)) return yield* invalidCursor("cursor: was issued for other filters; send the same filters as the first page")
        return c.value.b
      })
  }
  return cursor
})

export const PartnerMoneyHttpLive = HttpApiBuilder.group(Api, "partnerMoney", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* MoneyRepo
    const cursor = yield* make
    const payouts = (sources: ReadonlyArray<string> | null, purpose: string, params: { limit?: number | undefined; cursor?: string | undefined }) =>
      Effect.gen(function*() {
        const partner = yield* CurrentPartner
        const owner = { partnerId: partner.partnerId, environment: partner.environment }
        const before = yield* cursor.read(purpose, partner.credentialId, sources, params.cursor)
        const limit = params.limit ?? 25
        const rows = yield* repo.payouts(owner, sources, before, limit + 1)
        const page = rows.slice(0, limit)
        return {
          payouts: page.map(payoutJson),
          total_paid_cents: yield* repo.totalPaid(owner, sources),
          next_cursor: cursor.issue(purpose, partner.credentialId, sources, page[page.length - 1]?.id, rows.length > limit)
        }
      }).pipe(Effect.orDie)

    return handlers
      .handle("listSettlements", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const r = yield* dateWindow(urlParams.from, urlParams.to)
          const filters = [iso(r.from ?? null), iso(r.to ?? null)]
          const before = yield* cursor.read("settlements", partner.credentialId, filters, urlParams.cursor)
          const limit = urlParams.limit ?? 25
          const rows = yield* repo.statements({ partnerId: partner.partnerId, environment: partner.environment }, r, before, limit + 1).pipe(Effect.orDie)
          const page = rows.slice(0, limit)
          return {
            settlements: page.map(statementJson),
            next_cursor: cursor.issue("settlements", partner.credentialId, filters, page[page.length - 1]?.id, rows.length > limit)
          }
        }))
      .handle("getSettlement", ({ path }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const row = yield* repo.statement(path.id, { partnerId: partner.partnerId, environment: partner.environment }).pipe(Effect.orDie)
          if (Option.isNone(row)) return yield* new NotFoundError({ code: "not_found", message: `Settlement ${path.id} not found` })
          const lines = yield* repo.lines(path.id).pipe(Effect.orDie)
          return {
            ...statementJson(row.value),
            lines: lines.map((l) => ({
              order_id: l.order_id,
              domain: l.domain,
              payment_model: l.payment_model,
              sale_price_cents: Number(l.sale_price_cents),
              commission_cents: Number(l.commission_cents),
              owed_cents: Number(l.owed_cents)
            }))
          }
        }))
      .handle("listTransactions", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const owner = { partnerId: partner.partnerId, environment: partner.environment }
          const r = yield* dateWindow(urlParams.from, urlParams.to)
          const filters = { ...r, status: urlParams.status, paymentModel: urlParams.payment_model }
          const key = [iso(r.from ?? null), iso(r.to ?? null), urlParams.status ?? null, urlParams.payment_model ?? null]
          const before = yield* cursor.read("transactions", partner.credentialId, key, urlParams.cursor)
          const limit = urlParams.limit ?? 25
          const [rows, totals] = yield* Effect.all([repo.transactions(owner, filters, before, limit + 1), repo.transactionTotals(owner, filters)], {
            concurrency: 2
          }).pipe(Effect.orDie)
          const page = rows.slice(0, limit)
          return {
            transactions: page.map((t) => ({
              id: t.id,
              order_id: t.order_id,
              domain: t.domain,
              payment_model: t.payment_model,
              status: t.status,
              sale_price_cents: Number(t.sale_price_cents),
              commission_cents: Number(t.commission_cents),
              currency: t.currency,
              created_at: iso(t.created_at)!,
              settled_at: iso(t.settled_at)
            })),
            totals: { count: Number(totals.count), gmv_cents: Number(totals.gmv_cents), commission_cents: Number(totals.commission_cents) },
            next_cursor: cursor.issue("transactions", partner.credentialId, key, page[page.length - 1]?.order_id, rows.length > limit)
          }
        }))
      .handle("listPayouts", ({ urlParams }) => payouts(null, "payouts", urlParams))
      .handle("listMyPayouts", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          if (!partner.affiliate) {
            return yield* new ForbiddenError({ code: "forbidden", message: "This credential is not linked to an affiliate account" })
          }
          return yield* payouts(["referral"], "me-payouts", urlParams)
        }))
  }))

export const AdminMoneyHttpLive = HttpApiBuilder.group(Api, "adminMoney", (handlers) =>
  Effect.gen(function*() {
    const settlement = yield* Settlement
    const reconcile = yield* Reconcile
    const payouts = yield* Payouts
    const repo = yield* MoneyRepo
    const cursor = yield* make
    return handlers
      .handle("runSettlement", ({ urlParams }) =>
        Effect.gen(function*() {
          const asOf = yield* dateParam("as_of", urlParams.as_of)
          return yield* settlement.run({ asOf, trigger: "admin" })
        }))
      .handle("listStatements", ({ urlParams }) =>
        Effect.gen(function*() {
          const before = yield* cursor.read("admin-statements", "admin", null, urlParams.cursor)
          const limit = urlParams.limit ?? 25
          const rows = yield* repo.statements(null, {}, before, limit + 1).pipe(Effect.orDie)
          const page = rows.slice(0, limit)
          return {
            settlements: page.map(statementJson),
            next_cursor: cursor.issue("admin-statements", "admin", null, page[page.length - 1]?.id, rows.length > limit)
          }
        }))
      .handle("runPayouts", () =>
        Effect.map(payouts.run, (r) => ({ ...r, payouts: r.payouts.map((p) => ({ ...p, status: p.status as "pending" | "paid" | "failed" })) })))
      .handle("verifyLedger", () => reconcile.verify)
      .handle("ledgerBalance", ({ urlParams }) => reconcile.balance(urlParams.partner, urlParams.env ?? "live"))
  }))
