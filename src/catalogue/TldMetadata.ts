/**
 * The TLD metadata response and its mapping from Realtime Register's TLD info (pure).
 *
 * Realtime Register field              → ours
 *   metadata.createDomainPeriods (months) → periodsMonths, min/maxPeriodMonths, allowedYears, min/maxYears
 *   metadata.registrant.*              → organizationRequired, organizationAllowed, allowedCountries
 *   metadata.nameservers.{min,max,required} → minNameservers, maxNameservers, nameserversRequired
 *   metadata.domainSyntax.idnSupport   → idnSupport
 *   metadata.premiumSupport            → premiumSupport
 *   metadata.transferRequiresAuthcode  → transferRequiresAuthcode
 *   metadata.featuresAvailable         → featuresAvailable (only the documented values)
 *   provider                           → provider
 */
import { Schema } from "effect"
import type { RtrTldInfo } from "./RealtimeRegisterSchema.js"

export const FEATURES = ["CREATE", "RENEW", "TRANSFER", "UPDATE", "DELETE", "RESTORE", "PRIVACY_PROTECT"] as const
export const Feature = Schema.Literal(...FEATURES)
export type Feature = typeof Feature.Type

export class TldMetadata extends Schema.Class<TldMetadata>("TldMetadata")({
  tld: Schema.String.annotations({ description: "The TLD, without a leading dot", examples: ["com"] }),
  provider: Schema.String.annotations({ description: "Registry operator", examples: ["VeriSign"] }),
  periodsMonths: Schema.Array(Schema.Int).annotations({
    description: "Allowed registration lengths in months",
    examples: [[12, 24, 36, 48, 60, 72, 84, 96, 108, 120]]
  }),
  minPeriodMonths: Schema.Int.annotations({ examples: [12] }),
  maxPeriodMonths: Schema.Int.annotations({ examples: [120] }),
  allowedYears: Schema.Array(Schema.Int).annotations({
    description: "Allowed registration lengths in whole years",
    examples: [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]
  }),
  minYears: Schema.Int.annotations({ examples: [1] }),
  maxYears: Schema.Int.annotations({ examples: [10] }),
  organizationRequired: Schema.Boolean.annotations({ examples: [false] }),
  organizationAllowed: Schema.Boolean,
  allowedCountries: Schema.Array(Schema.String).annotations({
    description: "ISO 3166-1 alpha-2 codes the registrant must be in; empty means no country restriction",
    examples: [[]]
  }),
  minNameservers: Schema.Int.annotations({ examples: [0] }),
  maxNameservers: Schema.Int.annotations({ examples: [13] }),
  nameserversRequired: Schema.Boolean.annotations({ examples: [false] }),
  idnSupport: Schema.Boolean,
  premiumSupport: Schema.String.annotations({
    description: "Registry premium-name support as reported by the registrar, e.g. NO or REGULAR",
    examples: ["REGULAR"]
  }),
  transferRequiresAuthcode: Schema.Boolean,
  featuresAvailable: Schema.Array(Feature),
  source: Schema.Literal("rtr"),
  lastSyncedAt: Schema.String.annotations(
    {
      description: "RFC 3339 time of the last successful sync",
      format: "date-time",
      examples: ["2026-01-09T03:00:00.000Z"]
    }
  ),
  stale: Schema.Boolean.annotations({
    description: "True when lastSyncedAt is older than the configured maximum age",
    examples: [false]
  })
}) {}

const isFeature = (s: string): s is Feature => (FEATURES as ReadonlyArray<string>).includes(s)

export const toTldMetadata = (
  tld: string,
  info: RtrTldInfo,
  lastSyncedAt: Date,
  now: Date,
  staleAfterMs: number
): TldMetadata => {
  const m = info.metadata
  const periods = [...new Set(m.createDomainPeriods)].filter((p) => p > 0).sort((a, b) => a - b)
  const years = periods.filter((p) => p % 12 === 0).map((p) => p / 12)
  const minMonths = periods[0] ?? 0
  const maxMonths = periods[periods.length - 1] ?? 0
  return new TldMetadata({
    tld,
    provider: info.provider,
    periodsMonths: periods,
    minPeriodMonths: minMonths,
    maxPeriodMonths: maxMonths,
    allowedYears: years,
    minYears: years[0] ?? Math.ceil(minMonths / 12),
    maxYears: years[years.length - 1] ?? Math.floor(maxMonths / 12),
    organizationRequired: m.registrant?.organizationRequired ?? false,
    organizationAllowed: m.registrant?.organizationAllowed ?? true,
    allowedCountries: [...(m.registrant?.allowedCountries ?? [])].map((c) => c.toUpperCase()).sort(),
    minNameservers: m.nameservers?.min ?? 0,
    maxNameservers: m.nameservers?.max ?? 13,
    nameserversRequired: m.nameservers?.required ?? false,
    idnSupport: m.domainSyntax?.idnSupport ?? false,
    premiumSupport: m.premiumSupport ?? "NO",
    transferRequiresAuthcode: m.transferRequiresAuthcode ?? false,
    featuresAvailable: (m.featuresAvailable ?? []).filter(isFeature),
    source: "rtr",
    lastSyncedAt: lastSyncedAt.toISOString(),
    stale: now.getTime() - lastSyncedAt.getTime() > staleAfterMs
  })
}
