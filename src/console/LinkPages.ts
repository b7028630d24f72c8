/**
 * The console's referral links (docs/consoles.md#links): the partner's newest links in one
 * environment, each with its URL in a read-only field (selectable without JavaScript; the copy
 * island adds a button), its counts as the API reports them, and its QR code (./QrCode.ts); the
 * form that creates one for the roles that may. Built with `html` (escapes by default).
 */
import { PRODUCTS } from "../domain/Referral.js"
import { moneyInWords, timeInWords } from "../domain/TimeWords.js"
import type { Membership } from "../partner/members/Members.js"
import { html, type SafeHtml } from "../platform/http/Html.js"
import type { LinkWithStats } from "../referrals/Api.js"
import type { StorePage } from "../storefront/Layout.js"
import { environmentChoice, sectionPath } from "./Lists.js"
import { consoleFrame, notice, problem } from "./Pages.js"
import { qrFigure } from "./QrCode.js"

export type ConsoleLink = typeof LinkWithStats.Type & { readonly qr: string | null }

export interface LinksView {
  readonly membership: Membership
  readonly others: ReadonlyArray<Membership>
  readonly environments: ReadonlyArray<string>
  readonly environment: string | null
  readonly affiliate: boolean
  readonly links: ReadonlyArray<ConsoleLink>
  readonly canManage: boolean
  readonly csrf: string
  readonly error?: string
  readonly notice?: string
}

/** What a link leads to, in words. */
const destination = (l: ConsoleLink) =>
  `${
    l.kind === "domain"
      ? `Domain ${l.domain ?? ""}`
      : l.kind === "product"
      ? `Product: ${l.product ?? ""}`
      : "Home page"
  }${l.campaign === null ? "" : ` · campaign ${l.campaign}`}`

const usd = (cents: number) => moneyInWords(cents, "USD")

const linkItem = (l: ConsoleLink) => {
  const field = `link-${l.id}`
  return html`<li data-link-id="${l.id}"><div class="about">
<label for="${field}">${destination(l)}</label>
<input id="${field}" readonly value="${l.url}" autocomplete="off" spellcheck="false">
<div class="actions"><button type="button" class="secondary" data-copy="${field}" aria-label="${`Copy the link: ${
    destination(l)
  }`}" hidden>Copy the link</button><span id="${field}-copied" role="status" aria-live="polite"></span></div>
<p class="muted"><span data-field="clicks">${l.clicks}</span> clicks · ${l.unique_clicks} unique · ${l.sales} sales · ${
    usd(l.gmv_cents)
  } GMV · ${usd(l.commission_cents)} commission · created ${timeInWords(new Date(l.created_at))}</p>
</div>${l.qr === null ? "" : qrFigure(l.url, l.qr)}</li>`
}

const createForm = (v: LinksView) =>
  html`<h2 id="new-link">Create a link</h2>
<form method="post" action="/console/links" aria-labelledby="new-link">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="partner" value="${v.membership.partnerId}">
<input type="hidden" name="environment" value="${v.environment ?? ""}">
<label for="kind">Leads to</label>
<select id="kind" name="kind">
<option value="generic">The home page</option>
<option value="domain">A domain's purchase page</option>
<option value="product">A product page</option>
</select>
<label for="domain">Domain (for a domain's page)</label>
<input id="domain" name="domain" autocomplete="off" spellcheck="false" placeholder="example.com">
<label for="product">Product (for a product page)</label>
<select id="product" name="product">
<option value="">Choose one</option>
${PRODUCTS.map((p) => html`<option value="${p}">${p}</option>`)}
</select>
<label for="campaign">Campaign (optional: your own label, up to 100 characters)</label>
<input id="campaign" name="campaign" maxlength="100" autocomplete="off">
<p class="muted">A field that does not fit the kind chosen is left out.</p>
<div class="actions"><button type="submit" class="primary">Create the link</button></div>
</form>`

const body = (v: LinksView): SafeHtml | string => {
  if (v.environment === null) {
    return html`<p>This partner has no referral links yet: the operators grant them (the <code>refer</code> scope) with the partner's keys.</p>`
  }
  if (!v.affiliate) {
    return html`<p>This partner is not an affiliate account: referral links need one (the operators make it one).</p>`
  }
  return html`${
    environmentChoice(v.environments, v.environment, (e) => sectionPath("/console/links", v.membership.partnerId, e))
  }
${v.canManage ? createForm(v) : ""}
<h2>Links (${v.environment})</h2>
${
    v.links.length === 0
      ? html`<p>No links yet.</p>`
      : html`<ol class="links" aria-label="Links">${v.links.map(linkItem)}</ol>`
  }`
}

/** `/console/links` */
export const linksPage = (v: LinksView): StorePage => ({
  title: `Links · ${v.membership.partnerName}`,
  body: consoleFrame(
    v.membership,
    "links",
    v.others,
    html`<h1>Referral links</h1>
${problem(v.error)}
${notice(v.notice)}
<p>A visitor who follows a link and buys within the referral window earns the partner its commission: see
<a href="/docs/referrals.md#links">referral links</a>. Counts as the API reports them; newest first.
${v.canManage ? "" : "Your role can look at the links; an owner or a developer creates them."}</p>
${body(v)}`
  )
})
