/**
 * The registration record both lookup sources (RDAP and WHOIS port 43) are mapped to: the
 * `lookup.result` object of POST /api/tools/whois. Pure: no I/O.
 *
 * - Every text field is a string; an unknown value is `""` (the description types them "string").
 * - Dates are RFC 3339 UTC with milliseconds (`2024-08-14T07:01:34.000Z`).
 * - Statuses use the RDAP vocabulary (RFC 8056: `client transfer prohibited`); EPP codes found in
 *   WHOIS text (`clientTransferProhibited`) are translated, so both sources read the same.
 *   `status` is the statuses joined with `", "`.
 * - A registrant withheld by the registry (RFC 9537 redaction, or "REDACTED FOR PRIVACY" text)
 *   is `"REDACTED FOR PRIVACY"`.
 */
import { Schema } from "effect"

export const REDACTED = "REDACTED FOR PRIVACY"

export type RawSource = "RDAP" | "WHOIS"

export interface LookupRecord {
  readonly domain: string
  readonly status: string
  readonly registrar: string
  readonly registrant: string
  readonly creation_date: string
  readonly expiration_date: string
  readonly update_date: string
  readonly nameservers: ReadonlyArray<string>
  readonly emails: ReadonlyArray<string>
  readonly raw_source: RawSource
}

export const LookupRecordSchema = Schema.Struct({
  domain: Schema.String.annotations({ description: "The domain, A-label form", examples: ["example.com"] }),
  status: Schema.String.annotations({
    description: "Registry statuses (RDAP vocabulary, RFC 8056) joined with \", \"; empty when unknown",
    examples: ["client delete prohibited, client transfer prohibited"]
  }),
  registrar: Schema.String.annotations({
    description: "Sponsoring registrar's name; empty when unknown",
    examples: ["RESERVED-Internet Assigned Numbers Authority"]
  }),
  registrant: Schema.String.annotations({
    description:
      "Registrant name or organisation; \"REDACTED FOR PRIVACY\" when withheld (RFC 9537); empty when unknown",
    examples: ["REDACTED FOR PRIVACY"]
  }),
  creation_date: Schema.String.annotations({
    description: "Registration date, RFC 3339 UTC; empty when unknown",
    examples: ["1995-08-14T04:00:00Z"]
  }),
  expiration_date: Schema.String.annotations({
    description: "Expiration date, RFC 3339 UTC; empty when unknown",
    examples: ["2026-08-13T04:00:00Z"]
  }),
  update_date: Schema.String.annotations({
    description: "Last changed, RFC 3339 UTC; empty when unknown",
    examples: ["2025-08-14T07:01:39Z"]
  }),
  nameservers: Schema.Array(Schema.String).annotations({
    description: "Delegated nameservers, lowercase",
    examples: [["a.iana-servers.net", "b.iana-servers.net"]]
  }),
  emails: Schema.Array(Schema.String).annotations({
    description: "Contact e-mail addresses published in the record",
    examples: [[]]
  }),
  raw_source: Schema.Literal("RDAP", "WHOIS").annotations({
    description: "RDAP, or WHOIS when the port-43 fallback answered"
  })
}).annotations({ identifier: "WhoisRecord", description: "Registration data of a domain" })

/** RFC 8056 §2: EPP status → RDAP status. */
const EPP_TO_RDAP: Readonly<Record<string, string>> = {
  ok: "active",
  active: "active",
  inactive: "inactive",
  addperiod: "add period",
  autorenewperiod: "auto renew period",
  clientdeleteprohibited: "client delete prohibited",
  clienthold: "client hold",
  clientrenewprohibited: "client renew prohibited",
  clienttransferprohibited: "client transfer prohibited",
  clientupdateprohibited: "client update prohibited",
  pendingcreate: "pending create",
  pendingdelete: "pending delete",
  pendingrenew: "pending renew",
  pendingrestore: "pending restore",
  pendingtransfer: "pending transfer",
  pendingupdate: "pending update",
  redemptionperiod: "redemption period",
  renewperiod: "renew period",
  serverdeleteprohibited: "server delete prohibited",
  serverrenewprohibited: "server renew prohibited",
  servertransferprohibited: "server transfer prohibited",
  serverupdateprohibited: "server update prohibited",
  serverhold: "server hold",
  transferperiod: "transfer period"
}

/** One status in the RDAP vocabulary: EPP codes translated, URLs and comments dropped. */
export const normalizeStatus = (raw: string): string => {
  const first = raw.trim().split(/\s+(?:https?:\/\/|\()/)[0].trim()
  const compact = first.replace(/[\s_-]+/g, "").toLowerCase()
  return EPP_TO_RDAP[compact] ?? first.toLowerCase().replace(/\s+/g, " ")
}

export const normalizeStatuses = (raw: ReadonlyArray<string>): ReadonlyArray<string> =>
  dedupe(raw.map(normalizeStatus).filter((s) => s !== ""))

/** Any parseable date → RFC 3339 UTC with milliseconds; `""` when it is not a date. */
export const normalizeDate = (raw: string | undefined | null): string => {
  if (raw === undefined || raw === null) return ""
  const s = raw.trim()
  if (s === "") return ""
  // `2024-08-14 07:01:34` (no zone) is UTC in WHOIS output; Date.parse would read it as local time.
  const isoNoZone = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/.exec(s)
  const candidate = isoNoZone
    ? `${isoNoZone[1]}T${isoNoZone[2]}Z`
    : /^\d{4}-\d{2}-\d{2}$/.test(s)
    ? `${s}T00:00:00Z`
    : s
  // `2024.08.14` and `14-Aug-2024` forms.
  const dotted = /^(\d{4})\.(\d{2})\.(\d{2})/.exec(candidate)
  // Without a zone, read the text as UTC (never the server's local time).
  const hasZone = /\dZ$/i.test(candidate) || /\d:\d{2}(:\d{2}(\.\d+)?)?\s*[+-]\d{2}:?\d{2}$/.test(candidate) ||
    /\b(UTC|GMT)\b/i.test(candidate)
  const t = dotted
    ? Date.UTC(Number(dotted[1]), Number(dotted[2]) - 1, Number(dotted[3]))
    : hasZone
    ? Date.parse(candidate)
    : Date.parse(`${candidate} UTC`)
  if (Number.isNaN(t)) return ""
  return new Date(t).toISOString()
}

export const normalizeNameserver = (ns: string): string => ns.trim().replace(/\.$/, "").toLowerCase()

export const dedupe = (values: ReadonlyArray<string>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const out: Array<string> = []
  for (const v of values) {
    const key = v.toLowerCase()
    if (v === "" || seen.has(key)) continue
    seen.add(key)
    out.push(v)
  }
  return out
}

export const emptyRecord = (domain: string, raw_source: RawSource): LookupRecord => ({
  domain,
  status: "",
  registrar: "",
  registrant: "",
  creation_date: "",
  expiration_date: "",
  update_date: "",
  nameservers: [],
  emails: [],
  raw_source
})

/** Fills the empty fields of `primary` from `secondary` (lists are merged). */
export const mergeRecords = (primary: LookupRecord, secondary: LookupRecord): LookupRecord => ({
  domain: primary.domain,
  status: primary.status || secondary.status,
  registrar: primary.registrar || secondary.registrar,
  registrant: primary.registrant || secondary.registrant,
  creation_date: primary.creation_date || secondary.creation_date,
  expiration_date: primary.expiration_date || secondary.expiration_date,
  update_date: primary.update_date || secondary.update_date,
  nameservers: primary.nameservers.length > 0 ? primary.nameservers : secondary.nameservers,
  emails: dedupe([...primary.emails, ...secondary.emails]),
  raw_source: primary.raw_source
})

/**
 * A registry answer without any registrant ("thin", like .com's: registrar and dates only, maybe
 * the registrar's abuse contact): worth asking the registrar.
 */
export const isThin = (r: LookupRecord): boolean => r.registrant === ""
