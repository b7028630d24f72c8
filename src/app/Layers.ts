/**
 * The one place capabilities are wired: every capability exports one layer (its services, its
 * handlers, the middleware it owns) and this file merges them, tier over tier, over the shared
 * infrastructure, which is provided here once (settings, service secret, outbound client, HTTP
 * client, rate limiter, idempotency, lifecycle, job queue). The server (./Server.ts) and the
 * operator CLI (src/cli.ts) build the same `CapabilitiesLive`.
 *
 * A tier may use everything below it; capabilities in one tier do not use each other.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer } from "effect"
import { AdminLive } from "../admin/Layer.js"
import { AuditLive } from "../audit/Layer.js"
import { AvailabilityLive } from "../availability/Layer.js"
import { AvailabilityConfig } from "../availability/Settings.js"
import { BatchLive } from "../batch/Layer.js"
import { CatalogueLive } from "../catalogue/Layer.js"
import { CatalogueConfig } from "../catalogue/Settings.js"
import { CheckoutLive } from "../checkout/Layer.js"
import { PaymentRecordsLive } from "../checkout/PaymentRecords.js"
import { CheckoutConfig } from "../checkout/Settings.js"
import { ConsoleHttpLive } from "../console/Http.js"
import { ConsoleLinkHttpLive } from "../console/LinkHttp.js"
import { ConsoleMoneyHttpLive } from "../console/MoneyHttp.js"
import { ConsoleOrderHttpLive } from "../console/OrderHttp.js"
import { ConsoleWebhookHttpLive } from "../console/WebhookHttp.js"
import { FulfilmentLive, OrderDeliveriesLive } from "../fulfilment/Layer.js"
import { FulfilmentConfig } from "../fulfilment/Settings.js"
import { IdentityLive } from "../identity/Layer.js"
import { IdentityConfig } from "../identity/Settings.js"
import { LookupLive } from "../lookup/Layer.js"
import { LookupConfig } from "../lookup/Settings.js"
import { MarketLive } from "../market/Layer.js"
import { MarketConfig } from "../market/Settings.js"
import { NotificationsLive } from "../notifications/Layer.js"
import { OffersLive } from "../offers/Layer.js"
import { OpsHttpLive } from "../ops/Http.js"
import { OpsPartnerHttpLive } from "../ops/PartnerHttp.js"
import { BrokerageConfig } from "../partner/brokerage/Settings.js"
import { PartnerLive } from "../partner/Layer.js"
import { LedgerConfig } from "../partner/ledger/Settings.js"
import { PartnerSandboxHttpLive } from "../partner/sandbox/Http.js"
import { PartnerConfig } from "../partner/Settings.js"
import { Idempotency } from "../platform/http/Idempotency.js"
import { RateLimiterLive } from "../platform/http/RateLimit.js"
import { JobsLive } from "../platform/jobs/Jobs.js"
import { Lifecycle } from "../platform/Lifecycle.js"
import { OutboundLive } from "../platform/outbound/Outbound.js"
import { ServiceSecretLive } from "../platform/ServiceSecret.js"
import { CartFulfilmentLive, PortfolioLive } from "../portfolio/Layer.js"
import { OwnedDomainsLive } from "../portfolio/OwnedDomains.js"
import { ReferralsLive } from "../referrals/Layer.js"
import { ReferralConfig } from "../referrals/Settings.js"
import { SearchLive } from "../search/Layer.js"
import { AccountHttpLive } from "../storefront/AccountHttp.js"
import { StorefrontHttpLive } from "../storefront/Http.js"
import { StorefrontConfig } from "../storefront/Settings.js"
import { SystemHttpLive } from "../system/Http.js"
import { ToolsLive } from "../tools/Layer.js"
import { PartnerGroups } from "./PartnerGroups.js"

/**
 * Every capability's settings, each read with `Config` from the current ConfigProvider. The server
 * and the CLI also build it before the database, so a bad setting stops start-up before any
 * connection (the layer is memoised: it is read once).
 */
export const SettingsLive = Layer.mergeAll(
  IdentityConfig.Live,
  CatalogueConfig.Live,
  LookupConfig.Live,
  AvailabilityConfig.Live,
  MarketConfig.Live,
  PartnerConfig.Live,
  LedgerConfig.Live,
  BrokerageConfig.Live,
  ReferralConfig.Live,
  CheckoutConfig.Live,
  FulfilmentConfig.Live,
  StorefrontConfig.Live
)

/** The durable job queue (tool jobs, bulk and cart jobs) with the configured lease and retention. */
const JobQueueLive = Layer.unwrapEffect(
  Effect.map(LookupConfig, (settings) => JobsLive({ lease: settings.jobLease, retention: settings.jobRetention }))
)

/** Shared infrastructure, provided once. Needs AppConfig and the SqlClient. */
const PlatformLive = Layer.mergeAll(
  Lifecycle.Live,
  RateLimiterLive,
  ServiceSecretLive,
  Idempotency.Live,
  OutboundLive,
  JobQueueLive
).pipe(
  Layer.provideMerge(NodeHttpClient.layerUndici),
  Layer.provideMerge(SettingsLive)
)

/** Every capability, over the shared infrastructure. Needs AppConfig and the SqlClient. */
export const CapabilitiesLive = Layer.mergeAll(
  BatchLive,
  SystemHttpLive,
  StorefrontHttpLive,
  AccountHttpLive,
  ConsoleHttpLive,
  ConsoleWebhookHttpLive,
  ConsoleOrderHttpLive,
  ConsoleMoneyHttpLive,
  ConsoleLinkHttpLive,
  OpsHttpLive,
  OpsPartnerHttpLive,
  // The sandbox's advance drives orders, their deliveries and settlement: it sits above all three.
  PartnerSandboxHttpLive
).pipe(
  Layer.provideMerge(Layer.mergeAll(PortfolioLive, OffersLive)),
  Layer.provideMerge(CheckoutLive),
  Layer.provideMerge(Layer.mergeAll(ReferralsLive, CartFulfilmentLive, FulfilmentLive)),
  Layer.provideMerge(Layer.mergeAll(SearchLive, ToolsLive, PartnerLive(PartnerGroups))),
  Layer.provideMerge(AvailabilityLive),
  // The checkout's payment records, read by the ledger's reconciliation (a port the ledger owns).
  Layer.provideMerge(PaymentRecordsLive),
  // Fulfilment's side of the orders' delivery port (the orders slice imports no fulfilment code).
  Layer.provideMerge(OrderDeliveriesLive),
  Layer.provideMerge(Layer.mergeAll(CatalogueLive, LookupLive, MarketLive, NotificationsLive)),
  Layer.provideMerge(IdentityLive),
  // Portfolio's side of the accounts' owned-domains port (identity imports no portfolio code).
  Layer.provideMerge(OwnedDomainsLive),
  // The audit log every operator action writes (and its admin endpoint), over operators'
  // identities (named tokens, the /api/admin middleware).
  Layer.provideMerge(AuditLive),
  Layer.provideMerge(AdminLive),
  Layer.provideMerge(PlatformLive)
)
