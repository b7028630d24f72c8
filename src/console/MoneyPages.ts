/**
 * The console's money (docs/consoles.md#money): in one environment, the partner's settlement
 * statements and payouts (latest 20 each), and its sales history with the totals over the whole
 * filter, a `Next page` link and a "Download CSV" link (the same filters, served by the console).
 * Built with `html` (escapes by default) in the console's frame.
 */
import { PAYMENT_MODELS } from "../domain/Ledger.js"
import { ORDER_STATUSES } from "../domain/OrderState.js"
import { dayInWords, moneyInWords, timeInWords } from "../domain/TimeWords.js"
import type { PartnerEnvironment } from "../partner/Auth.js"
import type { PayoutRow, StatementRow, Totals, TransactionRow } from "../partner/ledger/Repo.js"
import type { Membership } from "../partner/members/Members.js"
import { html } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { environmentPicker, filterForm, nextPage, pathWith, rowsOr, selectField, textField } from "./Lists.js"
import { consoleFrame } from "./Pages.js"

/** The sales history's filters as the URL spells them. */
export interface SalesQuery {
  readonly status?: string | undefined
  readonly payment_model?: string | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly limit?: string | undefined
}

export interface MoneyView {
  readonly membership: Membership
  readonly others: ReadonlyArray<Membership>
  readonly environment: PartnerEnvironment
  readonly query: SalesQuery
  readonly statements: ReadonlyArray<StatementRow>
  readonly transactions: ReadonlyArray<TransactionRow>
  readonly totals: Totals
  readonly payouts: ReadonlyArray<PayoutRow>
  readonly totalPaid: number
  readonly nextCursor: string | null
}

/** The CSV download of the sales history with the page's filters (not its paging). */
export const csvPath = (partnerId: string, environment: PartnerEnvironment, q: SalesQuery) =>
  pathWith("/console/money/transactions.csv", {
    partner: partnerId,
    environment,
    status: q.status,
    payment_model: q.payment_model,
    from: q.from,
    to: q.to
  })

/** One statement's lines as a CSV download. */
const statementCsvPath = (partnerId: string, environment: PartnerEnvironment, id: string) =>
  pathWith(`/console/money/statements/${encodeURIComponent(id)}.csv`, { partner: partnerId, environment })

const statementItem = (partnerId: string, environment: PartnerEnvironment) => (s: StatementRow) =>
  html`<li data-statement="${s.id}"><span class="name">${dayInWords(s.period_start)} – ${
    dayInWords(s.period_end)
  }</span><span class="status">${s.status}</span>
<span class="next">${s.orders_count} order${s.orders_count === 1 ? "" : "s"} · gross ${
    moneyInWords(s.gross_sold_cents, s.currency)
  } · owed ${moneyInWords(s.amount_owed_cents, s.currency)} · commission payable ${
    moneyInWords(s.commission_payable_cents, s.currency)
  }${
    s.refunds_cents === 0 ? "" : html` · refunds ${moneyInWords(s.refunds_cents, s.currency)}`
  } · <code>${s.id}</code> · <a href="${
    statementCsvPath(partnerId, environment, s.id)
  }" download aria-label="${`Download CSV of statement ${s.id}`}">Download CSV</a></span></li>`

const transactionItem = (t: TransactionRow) =>
  html`<li data-transaction="${t.order_id}"><span class="name">${t.domain}</span>
<span class="status" data-field="order-status">${t.status}</span>
<span class="next">${moneyInWords(t.sale_price_cents, t.currency)} · commission ${
    moneyInWords(t.commission_cents, t.currency)
  } · ${t.payment_model} · ${timeInWords(t.created_at)}${
    t.settled_at === null ? "" : html` · settled ${timeInWords(t.settled_at)}`
  } · <code>${t.order_id}</code></span></li>`

const payoutItem = (p: PayoutRow) =>
  html`<li data-payout="${p.id}"><span class="name">${moneyInWords(p.amount_cents, p.currency)}</span>
<span class="status">${p.status}</span>
<span class="next">${p.source} · ${p.method} · ${timeInWords(p.created_at)}${
    p.paid_at === null ? "" : html` · paid ${timeInWords(p.paid_at)}`
  }${p.failure === null ? "" : html` · ${p.failure}`} · <code>${p.id}</code></span></li>`

const sales = (v: MoneyView) => {
  const q = v.query
  const path = "/console/money"
  const filtered = [q.status, q.payment_model, q.from, q.to].some((f) => f)
  return html`<h2 id="sales">Sales history</h2>
${
    filterForm(path, "Filter the sales history", { partnerId: v.membership.partnerId, environment: v.environment }, [
      selectField("sale-status", "status", "Status", ORDER_STATUSES, q.status),
      selectField("sale-model", "payment_model", "Payment model", PAYMENT_MODELS, q.payment_model),
      textField("sale-from", "from", "Created from", q.from, "2026-01-01"),
      textField("sale-to", "to", "Created before", q.to, "2026-12-31")
    ])
  }
<p data-field="sales-totals">${v.totals.count} sale${v.totals.count === 1 ? "" : "s"} · ${
    moneyInWords(v.totals.gmv_cents, "USD")
  } sold · ${moneyInWords(v.totals.commission_cents, "USD")} commission${filtered ? " (these filters)" : ""} ·
<a href="${csvPath(v.membership.partnerId, v.environment, q)}" download>Download CSV</a></p>
${
    rowsOr(
      "Sales",
      v.transactions,
      transactionItem,
      filtered
        ? html`No sales match these filters.`
        : html`No sales yet — each ${v.environment} order is listed here with its commission once it is recorded.`
    )
  }
${nextPage(path, { partner: v.membership.partnerId, environment: v.environment, ...q }, v.nextCursor)}`
}

/** `/console/money` */
export const moneyPage = (v: MoneyView): StorePage => ({
  title: `Money · ${v.membership.partnerName}`,
  body: consoleFrame(
    v.membership,
    "money",
    v.others,
    html`<h1>Money</h1>
${environmentPicker("/console/money", v.membership.partnerId, v.environment)}
<p>Statements close delivered orders once a settlement runs; payouts pay what is owed to you
(<a href="/docs/money.md">money</a>).</p>
<h2>Statements</h2>
${
      rowsOr(
        "Statements",
        v.statements,
        statementItem(v.membership.partnerId, v.environment),
        html`No statements yet — the first one is written by the settlement run after an order is delivered.`
      )
    }
<h2>Payouts</h2>
<p>Paid so far: <strong>${moneyInWords(v.totalPaid, "USD")}</strong></p>
${rowsOr("Payouts", v.payouts, payoutItem, html`No payouts yet.`)}
${sales(v)}`
  )
})
