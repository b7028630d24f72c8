/**
 * The Partner API as one layer: its services, its handlers (admin order actions included), and the
 * signing middleware over `signedGroups` (every HMAC-signed group, whichever capability owns it;
 * src/app/Layers.ts passes the list). Market, availability, the outbound client and the service
 * secret come from src/app/Layers.ts.
 */
import { Layer } from "effect"
import { makePartnerAuthLive } from "./AuthLive.js"
import { Brokerage } from "./brokerage/Brokerage.js"
import { AdminBrokerageHttpLive, BrokeragePagesHttpLive, PartnerBrokerageHttpLive } from "./brokerage/Http.js"
import { Credentials } from "./Credentials.js"
import { PartnerEventsHttpLive } from "./events/Http.js"
import { Outbox } from "./events/Outbox.js"
import { PartnerInventoryHttpLive } from "./inventory/Http.js"
import { Inventory } from "./inventory/Inventory.js"
import { Books } from "./ledger/Books.js"
import { Exports } from "./ledger/Exports.js"
import { AdminMoneyHttpLive, PartnerMoneyHttpLive } from "./ledger/Http.js"
import { LedgerReads } from "./ledger/LedgerReads.js"
import { PayoutProviderLive } from "./ledger/PayoutProvider.js"
import { Payouts } from "./ledger/Payouts.js"
import { Receipts } from "./ledger/Receipts.js"
import { Reconcile } from "./ledger/Reconcile.js"
import { MoneyRepo } from "./ledger/Repo.js"
import { Settlement } from "./ledger/Settlement.js"
import { LedgerWorkersLive } from "./ledger/Worker.js"
import { PartnerKeys } from "./members/Keys.js"
import { MemberBusiness } from "./members/MemberBusiness.js"
import { Members } from "./members/Members.js"
import { MemberWebhooks } from "./members/MemberWebhooks.js"
import { AdminOrdersHttpLive } from "./orders/AdminHttp.js"
import { PartnerOrdersHttpLive } from "./orders/Http.js"
import { OrderChecksLive } from "./orders/OrderChecks.js"
import { OrderFiguresLive } from "./orders/OrderFigures.js"
import { Orders } from "./orders/Orders.js"
import { SettlementOrdersLive } from "./orders/SettlementOrders.js"
import { DeliveryQueueLive } from "./webhooks/DeliveryQueue.js"
import { WebhookGaugesLive } from "./webhooks/Gauges.js"
import { PartnerWebhooksHttpLive } from "./webhooks/Http.js"
import { Webhooks } from "./webhooks/Webhooks.js"
import { PartnerWorkersLive as WebhookWorkersLive } from "./webhooks/Worker.js"

/** The ledger settles orders through the orders slice's side of it (the ledger imports no orders code). */
const SettlementLive = Settlement.Live.pipe(Layer.provide(SettlementOrdersLive))

/** The console's people and keys, over the credentials. */
const MembersLive = PartnerKeys.Live.pipe(
  Layer.provideMerge(Members.Live),
  Layer.provide(Credentials.Live)
)

const BaseServicesLive = Layer.mergeAll(
  Credentials.Live,
  MembersLive,
  Inventory.Live,
  Orders.Live,
  SettlementLive,
  Payouts.Live.pipe(Layer.provide(PayoutProviderLive)),
  Reconcile.Live,
  Receipts.Live,
  Exports.Live,
  MoneyRepo.Live,
  Books.Live, // the cart seam (src/portfolio/Fulfilment.ts) posts cart payments
  LedgerReads.Live, // the referral reports read postings and commission movements
  Outbox.Live,
  Webhooks.Live,
  WebhookGaugesLive,
  Brokerage.Live.pipe(Layer.provide(SettlementLive))
).pipe(
  // The outbox queues new events' deliveries through the webhooks slice (events imports no webhooks code);
  // the ledger reads the orders' figures, and ledger verify checks them, through the orders slice (the
  // ledger imports no orders code).
  Layer.provide(Layer.mergeAll(DeliveryQueueLive, OrderFiguresLive, OrderChecksLive))
)

/**
 * The console's webhooks and business reads (orders, brokerage, money): its members' doors onto
 * those services, over the keys' grants.
 */
const ServicesLive = Layer.mergeAll(MemberWebhooks.Live, MemberBusiness.Live).pipe(
  Layer.provideMerge(BaseServicesLive)
)

const HandlersLive = Layer.mergeAll(
  PartnerInventoryHttpLive,
  PartnerOrdersHttpLive,
  PartnerEventsHttpLive,
  PartnerWebhooksHttpLive,
  AdminOrdersHttpLive,
  PartnerMoneyHttpLive,
  AdminMoneyHttpLive,
  PartnerBrokerageHttpLive,
  AdminBrokerageHttpLive,
  BrokeragePagesHttpLive
)

export const PartnerLive = (signedGroups: ReadonlyArray<unknown>) =>
  HandlersLive.pipe(
    Layer.provideMerge(makePartnerAuthLive(signedGroups)),
    Layer.provideMerge(ServicesLive)
  )

/** Background work of the Partner API: webhook delivery, nonce janitor, the settlement and payout schedules. */
export const PartnerWorkersLive = Layer.mergeAll(WebhookWorkersLive, LedgerWorkersLive)
