/**
 * The site's information pages (docs/storefront.md): `/terms`, `/privacy` and `/contact`, linked
 * from every page's footer. Plain words about what the service does and keeps; each names the
 * operator's address (CONTACT_EMAIL, src/storefront/Settings.ts). The contract to keep: what these
 * pages promise must stay true of the code (card numbers never reach the servers on a real
 * deployment; the raw IP of a referral click is never stored; nothing is sold to anyone).
 */
import { html } from "../platform/http/Html.js"
import type { StorePage } from "./Layout.js"

const mailto = (address: string) => html`<a href="mailto:${address}">${address}</a>`

/** `/terms`: what the marketplace sells, how paying, transfers, offers and refunds work. */
export const termsPage = (contact: string): StorePage => ({
  title: "Terms of sale",
  body: html`<article class="info">
<h1>Terms of sale</h1>
<p>Domain Marketplace lets you search domain names, buy names listed for sale at their buy-now
price, make offers to sellers, and ask our brokers to approach the owner of a registered name.</p>
<h2>Prices</h2>
<p>Every price is shown with its currency. The buy-now price on a name's page and on its checkout
is the price you pay for that name. Registration prices shown are for the first year.</p>
<h2>Paying</h2>
<p>Payments go through our payment provider. On a real deployment you enter your card on the
provider's own secure page: card numbers never reach our servers, and we only learn the card's
brand and last four digits for your receipt. A test deployment says so on every page; it
simulates payments and accepts only published test cards.</p>
<h2>After you pay</h2>
<p>The name is reserved for you while you pay and then transferred to you; the receipt link shows
your receipt again at any time. If the name cannot be delivered (for example, it was sold
meanwhile), your payment is refunded in full. Operators may also refund an order before its
transfer completes.</p>
<h2>Offers</h2>
<p>An offer is a proposal to the seller, not a purchase: it stays pending until the seller
accepts it (you receive a checkout link at that price), counters it or declines it. The
seller's lowest acceptable price is never shown.</p>
<h2>Questions</h2>
<p>Write to ${mailto(contact)}. How payments, transfers and refunds work in detail is described in
the <a href="/docs/checkout.md">checkout documentation</a>.</p>
</article>`
})

/** `/privacy`: what is kept, why, for how long in words, and whom it is shared with. */
export const privacyPage = (contact: string): StorePage => ({
  title: "Privacy",
  body: html`<article class="info">
<h1>Privacy</h1>
<p>We keep only what we need to sell and deliver domain names, and we sell nobody's data.</p>
<h2>What we keep and why</h2>
<ul>
<li><strong>When you buy:</strong> your e-mail address, name and country, to deliver the name,
send your receipt and keep our accounting records; from the payment provider, the card's
brand and last four digits. Never the card number.</li>
<li><strong>When you make an offer:</strong> the amount and your e-mail address, to send you the
seller's answer.</li>
<li><strong>When you ask our brokers:</strong> the name you want, your e-mail address and what
you tell us about your request, to negotiate for you and report progress.</li>
<li><strong>With an account:</strong> your e-mail address and a salted hash of your password
(never the password itself), and a sign-in cookie while you are signed in.</li>
<li><strong>When you follow a partner's link:</strong> a cookie naming the link, so the partner
is credited for a purchase, and the click with your IP address hashed; the raw address is not
stored.</li>
<li><strong>Every request:</strong> its IP address counts towards rate limits and appears in our
server logs, which we keep to run and protect the service.</li>
</ul>
<h2>Who else sees it</h2>
<p>The payment provider handles your payment, and the registrar receives the details a transfer
needs. These pages load nothing from other sites and carry no advertising or tracking.</p>
<h2>Your data</h2>
<p>To see, correct or delete what we keep about you, write to ${mailto(contact)}.</p>
</article>`
})

/** `/contact`: how to reach the people who run this marketplace. */
export const contactPage = (contact: string): StorePage => ({
  title: "Contact",
  body: html`<article class="info">
<h1>Contact</h1>
<p>This marketplace is run by its operators. For a question about a purchase, an offer, a
transfer or your data, write to:</p>
<p class="price">${mailto(contact)}</p>
<p>Please include the domain name and, for a purchase, the receipt number (it starts with
<code>cs_</code>), so we can find it quickly.</p>
<p class="muted">Developers: the API is described in the <a href="/docs">API reference</a> and the
<a href="/docs/storefront.md">documentation</a>.</p>
</article>`
})
