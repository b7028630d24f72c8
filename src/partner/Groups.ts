/** Every HMAC-signed partner endpoint group (the signing middleware reads their scope annotations). */
import { CheckoutSessionsApi } from "../checkout/Api.js"
import { PartnerReferralsApi } from "../referrals/Api.js"
import { PartnerBrokerageApi } from "./brokerage/Api.js"
import { PartnerEventsApi } from "./events/Api.js"
import { PartnerInventoryApi } from "./inventory/Api.js"
import { PartnerMoneyApi } from "./ledger/Api.js"
import { PartnerOrdersApi } from "./orders/Api.js"
import { PartnerSandboxApi } from "./sandbox/Api.js"
import { PartnerWebhooksApi } from "./webhooks/Api.js"

export const PartnerGroups = [
  PartnerInventoryApi,
  PartnerOrdersApi,
  PartnerSandboxApi,
  PartnerEventsApi,
  PartnerWebhooksApi,
  PartnerMoneyApi,
  PartnerBrokerageApi,
  PartnerReferralsApi,
  CheckoutSessionsApi
] as const
