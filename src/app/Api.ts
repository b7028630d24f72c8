/**
 * The root HttpApi: every endpoint group of the service, in one OpenAPI 3.1 document
 * (`info.version` 1.3.0) served at /api/openapi.json and browsable at /docs.
 *
 * To add a capability: define its group in `src/<capability>/Api.ts`, add it here, and add its
 * capability layer (`src/<capability>/Layer.ts`) in `src/app/Layers.ts`.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { AdminAuditApi } from "../audit/Api.js"
import { BatchApi } from "../batch/Api.js"
import { CatalogueApi } from "../catalogue/Api.js"
import { CheckoutPagesApi, CheckoutSessionsApi } from "../checkout/Api.js"
import { ConsolePagesApi } from "../console/Api.js"
import { ConsoleLinkPagesApi } from "../console/LinkApi.js"
import { ConsoleMoneyPagesApi } from "../console/MoneyApi.js"
import { ConsoleOrderPagesApi } from "../console/OrderApi.js"
import { ConsoleWebhookPagesApi } from "../console/WebhookApi.js"
import { AdminDeliveriesApi, PartnerDeliveryApi } from "../fulfilment/Api.js"
import { AuthApi } from "../identity/accounts/Api.js"
import { OAuthApi } from "../identity/oauth/Api.js"
import { LookupApi } from "../lookup/Api.js"
import { MarketApi } from "../market/Api.js"
import { NotificationsApi } from "../notifications/Api.js"
import { OffersApi } from "../offers/Api.js"
import { OpsPagesApi } from "../ops/Api.js"
import { OpsPartnerPagesApi } from "../ops/PartnerApi.js"
import { AdminBrokerageApi, BrokeragePagesApi, PartnerBrokerageApi } from "../partner/brokerage/Api.js"
import { PartnerEventsApi } from "../partner/events/Api.js"
import { PartnerInventoryApi } from "../partner/inventory/Api.js"
import { AdminMoneyApi } from "../partner/ledger/AdminApi.js"
import { PartnerMoneyApi } from "../partner/ledger/Api.js"
import { AdminOrdersApi } from "../partner/orders/AdminApi.js"
import { PartnerOrdersApi } from "../partner/orders/Api.js"
import { PartnerSandboxApi } from "../partner/sandbox/Api.js"
import { PartnerWebhooksApi } from "../partner/webhooks/Api.js"
import { finishOpenApi } from "../platform/openapi/OpenApiDoc.js"
import { PortfolioApi } from "../portfolio/Api.js"
import { PartnerReferralsApi, ReferralRedirectApi } from "../referrals/Api.js"
import { KeyedAvailabilityApi, SearchApi, searchStreamSchemas } from "../search/Api.js"
import { AccountPagesApi } from "../storefront/AccountApi.js"
import { StorefrontPagesApi } from "../storefront/Api.js"
import { SystemApi } from "../system/Api.js"
import { ToolsApi } from "../tools/Api.js"

export const API_VERSION = "1.3.0"

/** Every group; the documented `Api` below is this plus the document's annotations. */
const Groups = HttpApi.make("marketplace")
  .add(SystemApi)
  .add(CatalogueApi)
  .add(LookupApi)
  .add(ToolsApi)
  .add(SearchApi)
  .add(MarketApi)
  .add(OffersApi)
  .add(BatchApi)
  .add(KeyedAvailabilityApi)
  .add(AuthApi)
  .add(OAuthApi)
  .add(PartnerInventoryApi)
  .add(PartnerOrdersApi)
  .add(PartnerSandboxApi)
  .add(PartnerEventsApi)
  .add(PartnerWebhooksApi)
  .add(AdminOrdersApi)
  .add(PartnerDeliveryApi)
  .add(AdminDeliveriesApi)
  .add(PartnerMoneyApi)
  .add(AdminMoneyApi)
  .add(PartnerBrokerageApi)
  .add(AdminBrokerageApi)
  .add(AdminAuditApi)
  .add(BrokeragePagesApi)
  .add(PartnerReferralsApi)
  .add(ReferralRedirectApi)
  .add(CheckoutSessionsApi)
  .add(CheckoutPagesApi)
  .add(PortfolioApi)
  .add(NotificationsApi)
  .add(StorefrontPagesApi)
  .add(AccountPagesApi)
  .add(ConsolePagesApi)
  .add(ConsoleWebhookPagesApi)
  .add(ConsoleOrderPagesApi)
  .add(ConsoleMoneyPagesApi)
  .add(ConsoleLinkPagesApi)
  .add(OpsPagesApi)
  .add(OpsPartnerPagesApi)

export class Api extends Groups
  .annotate(OpenApi.Title, "Domain Marketplace API")
  .annotate(OpenApi.Version, API_VERSION)
  .annotate(
    OpenApi.Description,
    "Public REST surface (domain search, WHOIS/RDAP, TLD pricing and requirements, marketplace listings, batch, free tools) and the HMAC-signed Partner API.\n\n" +
      "Agents: an MCP server (Streamable HTTP) at `/mcp` with the tools search_domain, whois_lookup, tld_registration_price and tld_requirements " +
      "(server card at `/.well-known/mcp/server-card.json`; guide at `/docs/agents.md`), and `/llms.txt`, `/llms-full.txt`, `/docs/{page}.md` for reading."
  )
  .annotate(OpenApi.Transform, (spec) => {
    const finished = finishOpenApi(spec, Groups)
    // package.json is `private` with no licence: the API is offered under the operator's own terms
    // (an SPDX `LicenseRef-`; the License annotation has no `identifier`).
    finished.info = { ...finished.info, license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" } }
    Object.assign(finished.components.schemas, searchStreamSchemas())
    return finished as typeof spec
  })
{}
