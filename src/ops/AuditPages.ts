/**
 * The audit log in the operator console (docs/audit.md, docs/consoles.md#operator-console): the
 * entries `audit list` shows, newest first, filtered by actor, action and since, with the filters
 * in the URL (a GET form) so a filtered view can be linked, and `Older →` keeping them.
 */
import type { AuditRecord } from "../audit/AuditLog.js"
import { html } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { olderLink, opsPage, problem, rows } from "./Pages.js"

export interface AuditFilters {
  readonly actor?: string | undefined
  readonly action?: string | undefined
  readonly since?: string | undefined
}

/** A state as JSON, cut at 300 characters (the whole entry is in `audit list --json`). */
const json = (v: unknown) => {
  if (v === null) return "—"
  const text = JSON.stringify(v)
  return text.length > 300 ? `${text.slice(0, 300)}…` : text
}

const filterInput = (name: keyof AuditFilters, label: string, value: string | undefined, hint: string) =>
  html`<div><label for="${`audit-${name}`}">${label}</label>
<input id="${`audit-${name}`}" name="${name}" value="${value ?? ""}" placeholder="${hint}" autocomplete="off"></div>`

/** `/ops/audit` */
export const auditPage = (
  email: string,
  filters: AuditFilters,
  entries: ReadonlyArray<AuditRecord>,
  older: string | null,
  error?: string
): StorePage =>
  opsPage(
    "audit",
    "Audit log",
    email,
    html`<h1>Audit log</h1>
<form method="get" action="/ops/audit" class="filters" aria-label="Filter the audit log">
${filterInput("actor", "Actor", filters.actor, "you@example.com")}
${filterInput("action", "Action", filters.action, "order.clear-review")}
${filterInput("since", "Since", filters.since, "2026-11-28T00:00:00Z")}
<div class="actions"><button type="submit" class="secondary">Filter</button></div>
</form>
${problem(error)}
${
      rows(
        "Audit entries",
        entries,
        (e) =>
          html`<li data-audit="${e.id}"><span class="name">${e.action}</span><span class="status">${e.actor}</span>
<span class="next">${e.at} · ${e.target ?? "no target"} · from ${e.ip ?? "no address"}</span>
<span class="next">before <code>${json(e.before)}</code> → after <code>${json(e.after)}</code></span></li>`,
        "No entries."
      )
    }
${olderLink("/ops/audit", filters, older)}`
  )
