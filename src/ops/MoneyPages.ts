/**
 * The operator console's money (docs/consoles.md#operator-console): the settlement statements
 * (newest first: the history of the settlement runs), every partner's payouts (newest first, paged:
 * the history of the payout runs), the buttons that run settlement and payouts now and the pages
 * with their results, `ledger verify`'s report, and the form that records a partner's payment (a
 * ledger receipt) with its result. The ledger's services do the work; these pages only show what
 * they answer.
 */
import { moneyInWords, timeInWords } from "../domain/TimeWords.js"
import type { PayoutHistoryRow } from "../partner/ledger/Payouts.js"
import type { ReceiptResult } from "../partner/ledger/Receipts.js"
import type { Problem } from "../partner/ledger/Reconcile.js"
import type { StatementRow } from "../partner/ledger/Repo.js"
import type { RunResult } from "../partner/ledger/Settlement.js"
import { html } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { olderLink, opsPage, problem, rowInput, rows } from "./Pages.js"

const runButton = (csrf: string, action: string, label: string) =>
  html`<form method="post" action="${action}" class="actions">
<input type="hidden" name="csrf" value="${csrf}">
<button type="submit" class="primary">${label}</button>
</form>`

const receiptForm = (csrf: string, error?: string) =>
  html`<h2 id="receipt-title">Record a partner's payment</h2>
${problem(error)}
<form method="post" action="/ops/money/receipts" aria-labelledby="receipt-title">
<input type="hidden" name="csrf" value="${csrf}">
${rowInput("receipt-partner", "partner_id", "Partner (ptn_…)")}
<label for="receipt-environment">Environment</label>
<select id="receipt-environment" name="environment"><option value="live">live</option><option value="sandbox">sandbox</option></select>
${rowInput("receipt-amount", "amount_cents", "Amount in cents (USD)", { inputmode: "numeric" })}
${rowInput("receipt-reference", "reference", "Reference (the bank transfer's, used once)")}
<div class="actions"><button type="submit" class="primary">Record the payment</button></div>
</form>`

const payoutLine = (p: PayoutHistoryRow) =>
  html`<li data-payout="${p.id}"><span class="name">${
    p.partner_name ?? "unknown partner"
  } <code>${p.partner_id}</code></span><span class="status">${p.status}</span>
<span class="next"><code>${p.id}</code> · ${
    moneyInWords(p.amount_cents, p.currency)
  } · ${p.environment} · ${p.source} · provider reference ${
    p.provider_ref === null ? "none yet" : html`<code>${p.provider_ref}</code>`
  }${p.failure === null ? "" : html` · ${p.failure}`}</span>
<span class="next">created ${timeInWords(p.created_at)}${
    p.paid_at === null ? "" : html` · paid ${timeInWords(p.paid_at)}`
  }</span></li>`

/** Every partner's payouts: one page of them, and the cursor of the older ones (null: none). */
export interface PayoutHistory {
  readonly payouts: ReadonlyArray<PayoutHistoryRow>
  readonly older: string | null
}

/** `/ops/money` */
export const moneyPage = (
  email: string,
  csrf: string,
  statements: ReadonlyArray<StatementRow>,
  history: PayoutHistory
): StorePage =>
  opsPage(
    "money",
    "Money",
    email,
    html`<h1>Money</h1>
<h2>Runs</h2>
<p>Settlement and payouts also run on their own schedule; running one now is safe (a run already going is skipped).
<a href="/ops/money/verify">Verify the ledger</a>.</p>
<div class="actions">${runButton(csrf, "/ops/money/settle", "Run settlement now")}${
      runButton(csrf, "/ops/money/payouts", "Run payouts now")
    }</div>
<h2>Statements, newest first</h2>
${
      rows("Statements", statements, (s) =>
        html`<li data-statement="${s.id}"><span class="name"><code>${s.id}</code></span><span class="status">${s.status}</span>
<span class="next">${s.partner_id} · ${s.environment} · ${s.orders_count} orders · gross ${
          moneyInWords(s.gross_sold_cents, s.currency)
        } · owed ${moneyInWords(s.amount_owed_cents, s.currency)} · payable ${
          moneyInWords(s.commission_payable_cents, s.currency)
        } · run <code>${s.run_id}</code> · ${timeInWords(s.created_at)}</span></li>`, "No statements yet.")
    }
<h2 id="payouts">Payouts, newest first</h2>
${rows("Payouts", history.payouts, payoutLine, "No payouts yet.")}
${olderLink("/ops/money", {}, history.older, "#payouts")}
${receiptForm(csrf)}`
  )

/** After `Run settlement now`. */
export const settlementResultPage = (email: string, r: RunResult): StorePage =>
  opsPage(
    "money",
    "Settlement run",
    email,
    html`<h1>Settlement run</h1>
<p class="${r.status === "completed" ? "success" : "note"}" role="status">${
      r.status === "completed"
        ? `Run ${r.run_id ?? ""} completed: ${r.orders_settled} orders settled in ${r.statements.length} statements.`
        : "Skipped: another settlement run was under way."
    }</p>
<dl class="facts"><dt>As of</dt><dd>${timeInWords(r.as_of)}</dd><dt>Orders transferred before</dt><dd>${
      timeInWords(r.cutoff)
    }</dd></dl>
${
      rows("New statements", r.statements, (s) =>
        html`<li><span class="name"><code>${s.id}</code></span><span class="status">${s.orders_count} orders</span>
<span class="next">${s.partner_id} · ${s.environment} · gross ${moneyInWords(s.gross_sold_cents, s.currency)} · owed ${
          moneyInWords(s.amount_owed_cents, s.currency)
        } · payable ${moneyInWords(s.commission_payable_cents, s.currency)}</span></li>`, "No new statements.")
    }
<p><a href="/ops/money">Back to money</a></p>`
  )

export interface PayoutsResult {
  readonly status: "completed" | "skipped"
  readonly payouts: ReadonlyArray<
    { readonly id: string; readonly partner_id: string; readonly amount_cents: number; readonly status: string }
  >
}

/** After `Run payouts now`. */
export const payoutsResultPage = (email: string, r: PayoutsResult): StorePage =>
  opsPage(
    "money",
    "Payout run",
    email,
    html`<h1>Payout run</h1>
<p class="${r.status === "completed" ? "success" : "note"}" role="status">${
      r.status === "completed"
        ? `Completed: ${r.payouts.length} payouts.`
        : "Skipped: another payout run was under way."
    }</p>
${
      rows("Payouts", r.payouts, (p) =>
        html`<li><span class="name"><code>${p.id}</code></span><span class="status">${p.status}</span>
<span class="next">${p.partner_id} · ${moneyInWords(p.amount_cents, "USD")}</span></li>`, "No partner was owed enough.")
    }
<p><a href="/ops/money">Back to money</a></p>`
  )

export interface VerifyReport {
  readonly ok: boolean
  readonly checked: Readonly<Record<string, number>>
  readonly problems: ReadonlyArray<Problem>
}

/** `/ops/money/verify` */
export const verifyPage = (email: string, v: VerifyReport): StorePage =>
  opsPage(
    "money",
    "Ledger verify",
    email,
    html`<h1>Ledger verify</h1>
<p class="${v.ok ? "success" : "error"}" role="status" data-verify="${v.ok ? "ok" : "problems"}">${
      v.ok ? "The ledger is consistent." : `${v.problems.length} problems found.`
    }</p>
<dl class="facts">${Object.entries(v.checked).map(([k, n]) => html`<dt>${k}</dt><dd>${n}</dd>`)}</dl>
${
      rows("Problems", v.problems, (p) =>
        html`<li><span class="name">${p.check}</span><span class="status"><code>${p.subject}</code></span>
<span class="next">${p.message}</span></li>`, "No problems.")
    }
<p><a href="/ops/money">Back to money</a></p>`
  )

/** After recording a receipt. */
export const receiptPage = (email: string, r: ReceiptResult): StorePage =>
  opsPage(
    "money",
    "Payment recorded",
    email,
    html`<h1>Payment recorded</h1>
<p class="success" role="status">${
      r.replayed ? `Already recorded as ${r.id}: nothing changed.` : `Recorded ${r.id}.`
    }</p>
<dl class="facts">
<dt>Partner</dt><dd>${r.partner_id} (${r.environment})</dd>
<dt>Amount</dt><dd>${moneyInWords(r.amount_cents, r.currency)}</dd>
<dt>Reference</dt><dd>${r.reference}</dd>
<dt>Statements now paid</dt><dd>${r.statements_paid.length === 0 ? "none" : r.statements_paid.join(", ")}</dd>
<dt>Still owed</dt><dd data-owed="${r.owed_cents}">${moneyInWords(r.owed_cents, r.currency)}</dd>
</dl>
<p><a href="/ops/money">Back to money</a></p>`
  )
