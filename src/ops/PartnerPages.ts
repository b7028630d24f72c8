/**
 * The operator console's partners (docs/consoles.md#operator-console): every partner with its
 * keys (never secrets) and commission, and the form that changes the commission for orders
 * recorded from now on (Credentials.setCommission, as `partner set-commission`). Creating a
 * partner and changing a key's scopes stay with the CLI (`partner create`, `partner rotate`);
 * there is no suspension of a partner yet (revoking its keys stops it).
 */
import { timeInWords } from "../domain/TimeWords.js"
import type { PartnerSummaryRow } from "../partner/Repo.js"
import { html } from "../platform/http/Html.js"
import type { StorePage } from "../storefront/Layout.js"
import { opsPage, rowForm, rowInput, rows } from "./Pages.js"

const keys = (p: PartnerSummaryRow) =>
  p.credentials.length === 0
    ? "no keys"
    : html`${
      p.credentials.map((c, i) =>
        html`${i > 0 ? ", " : ""}<code>${c.key_id}</code> (${c.environment}: ${c.scopes.join(" ")}${
          c.active ? "" : "; revoked"
        })`
      )
    }`

/** `/ops/partners` */
export const partnersPage = (email: string, csrf: string, partners: ReadonlyArray<PartnerSummaryRow>): StorePage =>
  opsPage(
    "partners",
    "Partners",
    email,
    html`<h1>Partners</h1>
${
      rows("Partners", partners, (p) =>
        html`<li data-partner="${p.id}"><span class="name">${p.name}</span><span class="status" data-field="commission">${
          p.commission_bps / 100
        } %</span>
<span class="next"><code>${p.id}</code>${p.affiliate ? " · affiliate" : ""} · created ${timeInWords(p.created_at)} · ${
          keys(p)
        }</span>
${
          rowForm(
            "/ops/partners/commission",
            csrf,
            { partner_id: p.id },
            "Set commission",
            `Set commission: ${p.name}`,
            rowInput(`bps-${p.id}`, "bps", "Commission in basis points (1000 = 10 %)", {
              inputmode: "numeric",
              value: String(p.commission_bps)
            })
          )
        }</li>`, "No partners yet.")
    }
<p class="muted">New partners and their keys: <code>npm run -s cli -- partner create</code>; their people: <code>partner invite</code>.</p>`
  )
