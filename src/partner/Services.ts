/** Every Partner API service and handler layer, for the composition root (src/app/Server.ts). */
import { Layer } from "effect"
import { AdminAuthLive } from "../admin/Auth.js"
import { AdminOrdersHttpLive } from "../admin/Http.js"
import { OutboundLive } from "../platform/Outbound.js"
import { ServiceSecretLive } from "../platform/ServiceSecret.js"
import { SearchServicesLive } from "../search/Services.js"
import { PartnerAuthLive } from "./AuthLive.js"
import { Brokerage } from "./brokerage/Brokerage.js"
import { AdminBrokerageHttpLive, BrokeragePagesHttpLive, PartnerBrokerageHttpLive } from "./brokerage/Http.js"
import { Credentials } from "./Credentials.js"
import { PartnerEventsHttpLive } from "./events/Http.js"
import { Outbox } from "./events/Outbox.js"
import { PartnerInventoryHttpLive } from "./inventory/Http.js"
import { Inventory } from "./inventory/Inventory.js"
import { AdminMoneyHttpLive, PartnerMoneyHttpLive } from "./ledger/Http.js"
import { PayoutProviderLive } from "./ledger/PayoutProvider.js"
import { Payouts } from "./ledger/Payouts.js"
import { Reconcile } from "./ledger/Reconcile.js"
import { MoneyRepo } from "./ledger/Repo.js"
import { Settlement } from "./ledger/Settlement.js"
import { LedgerWorkersLive } from "./ledger/Worker.js"
import { PartnerOrdersHttpLive } from "./orders/Http.js"
import { Orders } from "./orders/Orders.js"
import { PartnerSandboxHttpLive } from "./sandbox/Http.js"
import { PartnerWebhooksHttpLive } from "./webhooks/Http.js"
import { Webhooks } from "./webhooks/Webhooks.js"
import { PartnerWorkersLive as WebhookWorkersLive } from "./webhooks/Worker.js"

export const PartnerServicesLive = Layer.mergeAll(
  Credentials.Live,
  Inventory.Live,
  Orders.Live,
  Settlement.Live,
  Payouts.Live.pipe(Layer.provide(PayoutProviderLive)),
  Reconcile.Live,
  MoneyRepo.Live,
  Outbox.Live,
  Webhooks.Live.pipe(Layer.provide(OutboundLive)),
  Brokerage.Live.pipe(Layer.provide(SearchServicesLive))
).pipe(Layer.provide(ServiceSecretLive))

export const PartnerHandlersLive = Layer.mergeAll(
  PartnerInventoryHttpLive,
  PartnerOrdersHttpLive,
  PartnerSandboxHttpLive,
  PartnerEventsHttpLive,
  PartnerWebhooksHttpLive,
  AdminOrdersHttpLive,
  PartnerMoneyHttpLive,
  AdminMoneyHttpLive,
  PartnerBrokerageHttpLive,
  AdminBrokerageHttpLive,
  BrokeragePagesHttpLive
)

/** HttpApi middleware of the partner and admin groups. */
export const PartnerMiddlewareLive = Layer.mergeAll(PartnerAuthLive, AdminAuthLive)

/** Background work of the Partner API: webhook delivery, nonce janitor, the settlement and payout schedules. */
export const PartnerWorkersLive = Layer.mergeAll(WebhookWorkersLive, LedgerWorkersLive)
