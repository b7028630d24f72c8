/**
 * Availability of one domain (pure): the states a check can end in, their labels, and the rule
 * that combines the evidence of each source into one answer.
 *
 * Sources, strongest first:
 * 1. the local reserved/blocked list            → `reserved`
 * 2. the marketplace (an active listing)        → `for_sale`
 * 3. the registrar check (Realtime Register)    → `available` | `premium` (with its price) | `registered`
 * 4. RDAP at the TLD's authoritative server     → `registered` (200), unregistered (404);
 *    for a TLD without RDAP service, its WHOIS port-43 server (registered / "no match"), and
 *    failing that DNS (NS records → registered; nothing → unknown, never available)
 *
 * Safety rules (the complaints every registrar API gets):
 * - never `available` without an authoritative "not registered": a failed, slow or redirected
 *   RDAP answer is `unknown`, not available;
 * - never a standard price for a premium name: when a registrar is configured but did not answer,
 *   an unregistered name is `available` with `price: null` (price not confirmed);
 * - a name the registrar refuses although RDAP has no record of it is `reserved` (registry
 *   reserved), not `available`;
 * - a TLD we sell (it has a retail price) is never `unsupported`: when no source can say, it is
 *   `unknown`.
 */

export const AVAILABILITY_STATES = [
  "available",
  "premium",
  "registered",
  "for_sale",
  "reserved",
  "unsupported",
  "invalid",
  "unknown"
] as const
export type AvailabilityState = (typeof AVAILABILITY_STATES)[number]

export const STATE_LABELS: Readonly<Record<AvailabilityState, string>> = {
  available: "Available",
  premium: "Premium",
  registered: "Taken",
  for_sale: "For sale",
  reserved: "Reserved",
  unsupported: "TLD not supported",
  invalid: "Invalid name",
  unknown: "Unknown: try again"
}

/** `true` registrable now, `false` not, `null` unknown. */
export const availableOf = (state: AvailabilityState): boolean | null =>
  state === "available" || state === "premium" ? true : state === "unknown" ? null : false

export interface WhoisSummary {
  readonly registrar: string | null
  /** RFC 3339. */
  readonly created: string | null
  readonly expires: string | null
  readonly status: ReadonlyArray<string>
}

/** What the registrar said, or why it did not. */
export type RegistrarEvidence =
  | { readonly _tag: "NotConfigured" }
  | {
    readonly _tag: "Answered"
    readonly available: boolean
    readonly premium: boolean
    /** First-year price in USD cents as quoted (already retail), when quoted in USD. */
    readonly priceCents: number | null
    readonly reason: string | null
  }
  | { readonly _tag: "Failed"; readonly reason: string }

/**
 * Which registry source answered: RDAP, or for a TLD without RDAP its WHOIS server or DNS.
 * (DNS can only prove a registration — NS records — never its absence.)
 */
export type RegistrySource = "rdap" | "whois" | "dns"

/** What the registry said (through RDAP, or WHOIS/DNS for a TLD without RDAP), or why it did not. */
export type RdapEvidence =
  | { readonly _tag: "Registered"; readonly whois: WhoisSummary | null; readonly via?: RegistrySource }
  | { readonly _tag: "Unregistered"; readonly via?: "rdap" | "whois" }
  /** No RDAP service for the TLD (not in the bootstrap). */
  | { readonly _tag: "NoService"; readonly reason: string }
  | { readonly _tag: "Failed"; readonly reason: string }

export type UpstreamSource =
  | "registrar"
  | "rdap"
  | "whois"
  | "dns"
  | "registrar+rdap"
  | "registrar+whois"
  | "registrar+dns"
  | "none"

export interface UpstreamOutcome {
  readonly state: Extract<
    AvailabilityState,
    "available" | "premium" | "registered" | "reserved" | "unsupported" | "unknown"
  >
  /** First-year registration price in USD cents (premium-aware), when registrable and known. */
  readonly priceCents: number | null
  readonly whois: WhoisSummary | null
  readonly source: UpstreamSource
  readonly reason: string | null
  /** False when a source failed: the answer is partial and must not be cached as long. */
  readonly complete: boolean
}

/**
 * Combines registrar and RDAP evidence. `standardPriceCents` is the catalogue's first-year
 * registration price for the TLD (null when the TLD is not sold).
 */
export const combineEvidence = (
  registrar: RegistrarEvidence,
  rdap: RdapEvidence,
  standardPriceCents: number | null
): UpstreamOutcome =>
  registrar._tag === "Answered"
    ? fromRegistrar(registrar, rdap, standardPriceCents)
    : fromRdap(registrar, rdap, standardPriceCents)

const whoisOf = (rdap: RdapEvidence) => rdap._tag === "Registered" ? rdap.whois : null
const viaOf = (rdap: RdapEvidence): RegistrySource =>
  rdap._tag === "Registered" || rdap._tag === "Unregistered" ? rdap.via ?? "rdap" : "rdap"
const noPrice = (standardPriceCents: number | null) =>
  standardPriceCents === null ? "no retail price for this TLD" : null

/** The registrar answered: it decides; RDAP adds the WHOIS summary and tells reserved from taken. */
const fromRegistrar = (
  registrar: Extract<RegistrarEvidence, { _tag: "Answered" }>,
  rdap: RdapEvidence,
  standardPriceCents: number | null
): UpstreamOutcome => {
  const rdapUsed = rdap._tag === "Registered" || rdap._tag === "Unregistered"
  const source: UpstreamSource = rdapUsed ? `registrar+${viaOf(rdap)}` : "registrar"
  if (registrar.available && registrar.premium) {
    return {
      state: "premium",
      priceCents: registrar.priceCents,
      whois: null,
      source,
      reason: registrar.priceCents === null ? "premium name: the registry did not quote a USD price" : null,
      complete: true
    }
  }
  if (registrar.available) {
    return {
      state: "available",
      priceCents: standardPriceCents,
      whois: null,
      source,
      reason: noPrice(standardPriceCents),
      complete: true
    }
  }
  if (rdap._tag === "Unregistered") {
    return {
      state: "reserved",
      priceCents: null,
      whois: null,
      source,
      reason: registrar.reason ?? "not registrable although unregistered: reserved by the registry",
      complete: true
    }
  }
  return {
    state: "registered",
    priceCents: null,
    whois: whoisOf(rdap),
    source,
    reason: registrar.reason,
    complete: true
  }
}

/** The registrar failed or is not configured: RDAP alone, and no premium price without it. */
const fromRdap = (
  registrar: Exclude<RegistrarEvidence, { _tag: "Answered" }>,
  rdap: RdapEvidence,
  standardPriceCents: number | null
): UpstreamOutcome => {
  const registrarNote = registrar._tag === "Failed" ? `registrar: ${registrar.reason}` : null
  const via = viaOf(rdap)
  switch (rdap._tag) {
    case "Registered":
      return {
        state: "registered",
        priceCents: null,
        whois: rdap.whois,
        source: via,
        reason: registrarNote,
        complete: true
      }
    case "Unregistered":
      if (registrar._tag === "Failed") {
        // Unregistered for sure, but premium or not is unconfirmed: no price rather than a wrong one.
        return {
          state: "available",
          priceCents: null,
          whois: null,
          source: via,
          reason: `${registrarNote}; price not confirmed`,
          complete: false
        }
      }
      return {
        state: "available",
        priceCents: standardPriceCents,
        whois: null,
        source: via,
        reason: noPrice(standardPriceCents),
        complete: true
      }
    case "NoService":
      return {
        // A TLD we sell is never unsupported: nothing could say, so it is unknown.
        state: registrar._tag === "NotConfigured" && standardPriceCents === null ? "unsupported" : "unknown",
        priceCents: null,
        whois: null,
        source: "none",
        reason: [registrarNote, `rdap: ${rdap.reason}`].filter((s) => s !== null).join("; "),
        complete: registrar._tag === "NotConfigured" && standardPriceCents === null
      }
    case "Failed":
      return {
        state: "unknown",
        priceCents: null,
        whois: null,
        source: "none",
        reason: [registrarNote, `rdap: ${rdap.reason}`].filter((s) => s !== null).join("; "),
        complete: false
      }
  }
}

/** Reserved-list patterns: `example.com` (that name), `nic.*` (label under any TLD), `*.test` (a whole TLD). */
export const reservedPatternsFor = (ascii: string, label: string, suffix: string): ReadonlyArray<string> => [
  ascii,
  `${label}.*`,
  `*.${suffix}`,
  ...(suffix.includes(".") ? [`*.${suffix.split(".").pop()}`] : [])
]
