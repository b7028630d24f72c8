/**
 * Every HMAC-signed partner endpoint group, whichever capability owns it (the signing middleware,
 * src/partner/AuthLive.ts, reads their scope annotations; src/app/Layers.ts hands it this list).
 */
import { CheckoutSessionsApi } from "../checkout/Api.js"
import { PartnerDeliveryApi } from "../fulfilment/Api.js"
import { PartnerBrokerageApi } from "../partner/brokerage/Api.js"
import { PartnerEventsApi } from "../partner/events/Api.js"
import { PartnerInventoryApi } from "../partner/inventory/Api.js"
import { PartnerMoneyApi } from "../partner/ledger/Api.js"
import { PartnerOrdersApi } from "../partner/orders/Api.js"
import { PartnerSandboxApi } from "../partner/sandbox/Api.js"
import { PartnerWebhooksApi } from "../partner/webhooks/Api.js"
import { PartnerReferralsApi } from "../referrals/Api.js"

export const PartnerGroups = [
  PartnerInventoryApi,
  PartnerOrdersApi,
  PartnerDeliveryApi,
  PartnerSandboxApi,
  PartnerEventsApi,
  PartnerWebhooksApi,
  PartnerMoneyApi,
  PartnerBrokerageApi,
  PartnerReferralsApi,
  CheckoutSessionsApi
] as const
