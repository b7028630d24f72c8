/**
 * WHOIS (RFC 3912) text, the pure parts: the per-TLD server table, referral lines, "no such
 * domain" answers per registry, and the mapping of `Key: value` text to our `LookupRecord`.
 * No I/O.
 */
import {
  dedupe,
  emptyRecord,
  type LookupRecord,
  normalizeDate,
  normalizeNameserver,
  normalizeStatuses,
  REDACTED
} from "./Record.js"

// --- Server table ------------------------------------------------------------------------------

export interface WhoisServer {
  readonly host: string
  /** Query line with `$addr` for the name; default `$addr\r\n`. */
  readonly query: string
  /** Send the A-label (true) or the U-label (false). */
  readonly punycode: boolean
}

type RawEntry = string | null | { host?: string; query?: string; punycode?: boolean }

/** TLD (or multi-label suffix) → server; `null` entries (no WHOIS service) are kept as null. */
export const parseServerTable = (json: Record<string, RawEntry>): ReadonlyMap<string, WhoisServer | null> => {
  const out = new Map<string, WhoisServer | null>()
  for (const [suffix, v] of Object.entries(json)) {
    if (v === null || v === "") out.set(suffix.toLowerCase(), null)
    else if (typeof v === "string") out.set(suffix.toLowerCase(), { host: v, query: "$addr\r\n", punycode: true })
    else if (typeof v === "object" && typeof v.host === "string") {
      out.set(suffix.toLowerCase(), { host: v.host, query: v.query ?? "$addr\r\n", punycode: v.punycode ?? true })
    }
  }
  return out
}

/** Longest matching suffix; `undefined` when the table does not know the name's TLD. */
export const serverFor = (
  table: ReadonlyMap<string, WhoisServer | null>,
  asciiDomain: string
): WhoisServer | null | undefined => {
  const labels = asciiDomain.toLowerCase().split(".")
  for (let i = 1; i < labels.length; i++) {
    const suffix = labels.slice(i).join(".")
    if (table.has(suffix)) return table.get(suffix)
  }
  return undefined
}

export const queryLine = (server: WhoisServer, ascii: string, unicode: string) =>
  server.query.replace("$addr", server.punycode ? ascii : unicode)

// --- Key/value text -----------------------------------------------------------------------------

export interface Field {
  readonly key: string
  readonly value: string
}

/**
 * `Key: value` lines (keys lowercased, trimmed). A key with an empty value followed by indented
 * lines (Nominet style) takes those lines as values. Comment lines (`%`, `#`) and everything
 * after the ">>> Last update" marker are ignored.
 */
export const fields = (text: string): ReadonlyArray<Field> => {
  const out: Array<Field> = []
  const lines = text.replace(/\r/g, "").split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (/^\s*>>>/.test(line)) break
    if (/^\s*[%#]/.test(line)) continue
    const m = /^\s*([A-Za-z][\w ./()-]{0,60}?)\s*:\s*(.*)$/.exec(line)
    if (!m) continue
    const key = m[1].trim().toLowerCase()
    const value = m[2].trim()
    if (value !== "") {
      out.push({ key, value })
      continue
    }
    // Block form: indented continuation lines until a blank or unindented line.
    for (
      let j = i + 1;
      j < lines.length && /^\s+\S/.test(lines[j]) && !/^\s*[A-Za-z][\w ./()-]{0,60}?:\s/.test(lines[j]);
      j++
    ) {
      out.push({ key, value: lines[j].trim() })
      i = j
    }
  }
  return out
}

const first = (fs: ReadonlyArray<Field>, keys: ReadonlyArray<string>): string => {
  for (const k of keys) {
    const f = fs.find((x) => x.key === k)
    if (f) return f.value
  }
  return ""
}

const all = (fs: ReadonlyArray<Field>, keys: ReadonlyArray<string>): Array<string> =>
  fs.filter((f) => keys.includes(f.key)).map((f) => f.value)

// --- Referrals -----------------------------------------------------------------------------------

/** `host` from `whois://host:port/`, `host:43` or `host`. */
const bareHost = (v: string) =>
  v.trim().replace(/^r?whois:\/\//i, "").replace(/\/.*$/, "").replace(/:\d+$/, "").toLowerCase()

const HOST_RE = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/

/** An IANA-style pure referral (`refer:`, `ReferralServer:`): the answer holds no domain data. */
export const referral = (text: string): string | undefined => {
  const v = first(fields(text), ["refer", "referralserver"])
  const host = v === "" ? "" : bareHost(v)
  return HOST_RE.test(host) ? host : undefined
}

/** A registry's pointer to the sponsoring registrar's WHOIS server. */
export const registrarServer = (text: string): string | undefined => {
  const v = first(fields(text), ["registrar whois server", "whois server"])
  const host = v === "" ? "" : bareHost(v)
  return HOST_RE.test(host) ? host : undefined
}

// --- "No such domain" ----------------------------------------------------------------------------

/** Per-registry answers meaning "this name is not registered". */
export const NOT_FOUND_BY_SERVER: Readonly<Record<string, ReadonlyArray<RegExp>>> = {
  "whois.verisign-grs.com": [/^No match for "/m],
  "whois.pir.org": [/^NOT FOUND/m, /^Domain not found\./m],
  "whois.nic.uk": [/No match for "/],
  "whois.denic.de": [/^Status:\s*free/m],
  "whois.eu": [/^Status:\s*AVAILABLE/m],
  "whois.nic.io": [/^NOT FOUND/m, /is available for purchase/],
  "whois.nic.co": [/^No Data Found/m, /^The queried object does not exist/m],
  "whois.nic.google": [/^Domain not found\./m],
  "whois.afilias.net": [/^NOT FOUND/m],
  "whois.jprs.jp": [/No match!!/],
  "whois.cira.ca": [/^Not found:/m],
  "whois.auda.org.au": [/^NOT FOUND/m, /^No Data Found/m],
  "whois.nic.fr": [/^%% NOT FOUND/m, /No entries found/],
  "whois.sidn.nl": [/is free/],
  "whois.iis.se": [/^domain "\S+" not found/m],
  "whois.dns.be": [/^Status:\s*AVAILABLE/m],
  "whois.registro.br": [/No match for domain/],
  "whois.nic.ch": [/We do not have an entry in our database/]
}

/** Answers registries commonly give for an unregistered name. */
const NOT_FOUND_GENERIC: ReadonlyArray<RegExp> = [
  /^No match for/im,
  /^NOT FOUND\b/m,
  /^No Data Found/im,
  /^Domain not found/im,
  /^No entries found/im,
  /^No Object Found/im,
  /^The queried object does not exist/im,
  /^Domain Status:\s*No Object Found/im,
  /^%?\s*No match/im,
  /^Status:\s*(free|available)\s*$/im,
  /is available for registration/i,
  /^Object does not exist/im,
  /^This domain name has not been registered/im
]

export const isNotFound = (server: string, text: string): boolean => {
  const specific = NOT_FOUND_BY_SERVER[server.toLowerCase()]
  if (specific?.some((re) => re.test(text))) return true
  // A real record mentions its own name as `Domain Name:`; a not-found notice does not.
  const hasRecord = /^\s*domain(?: name)?:\s*\S/im.test(text) &&
    /^\s*(registrar|creation date|created|registered on|status)\s*:/im.test(text)
  return !hasRecord && NOT_FOUND_GENERIC.some((re) => re.test(text))
}

export const isRateLimited = (text: string): boolean =>
  /(query|connection|request)s? (rate )?limit (exceeded|reached)|too many (queries|requests)|WHOIS LIMIT EXCEEDED|please try again later/i
    .test(text) &&
  !/^\s*domain name:/im.test(text)

// --- Record ---------------------------------------------------------------------------------------

const REGISTRAR_KEYS = [
  "registrar",
  "sponsoring registrar",
  "registrar name",
  "registrar organization",
  "registrar-name"
]
const REGISTRANT_KEYS = [
  "registrant name",
  "registrant",
  "registrant organization",
  "registrant organisation",
  "owner",
  "holder"
]
const CREATED_KEYS = [
  "creation date",
  "created",
  "created on",
  "registered on",
  "registration time",
  "domain registration date",
  "registered",
  "created date",
  "registration date"
]
const EXPIRES_KEYS = [
  "registry expiry date",
  "registrar registration expiration date",
  "expiration date",
  "expiry date",
  "expires on",
  "expires",
  "paid-till",
  "expiration time",
  "domain expiration date",
  "renewal date"
]
const UPDATED_KEYS = [
  "updated date",
  "last updated on",
  "last-modified",
  "last updated",
  "last modified",
  "changed",
  "modified"
]
const STATUS_KEYS = ["domain status", "status", "state"]
const NS_KEYS = ["name server", "nameserver", "nameservers", "nserver", "name servers", "dns"]

const EMAIL_RE = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g

export const parseRecord = (
  asciiDomain: string,
  text: string
): { record: LookupRecord; statuses: ReadonlyArray<string> } => {
  const fs = fields(text)
  // The first registrant name or organisation that is not withheld; REDACTED when all are.
  const registrantValues = REGISTRANT_KEYS.flatMap((k) => all(fs, [k]))
  const withheld = (v: string) => /redacted|withheld|not disclosed|data protected|privacy/i.test(v)
  const registrant = registrantValues.find((v) => !withheld(v)) ?? (registrantValues.length > 0 ? REDACTED : "")
  const statuses = normalizeStatuses(all(fs, STATUS_KEYS).flatMap((s) => s.split(/,\s*/)))
  const nameservers = dedupe(
    all(fs, NS_KEYS)
      .flatMap((v) => v.split(/\s+/))
      .filter((v) => /^[a-z0-9.-]+\.[a-z0-9-]+\.?$/i.test(v))
      .map(normalizeNameserver)
  )
  const emails = dedupe(
    fs.filter((f) => /e-?mail/.test(f.key)).flatMap((f) => f.value.match(EMAIL_RE) ?? [])
  )
  const registrarRaw = first(fs, REGISTRAR_KEYS)
  const registrar = /^https?:\/\//i.test(registrarRaw) ? "" : registrarRaw.replace(/\s*\[Tag = .*\]$/, "")
  const domainName = first(fs, ["domain name", "domain"]).toLowerCase()
  return {
    statuses,
    record: {
      ...emptyRecord(domainName && !domainName.includes(" ") ? domainName.replace(/\.$/, "") : asciiDomain, "WHOIS"),
      status: statuses.join(", "),
      registrar,
      registrant,
      creation_date: normalizeDate(first(fs, CREATED_KEYS)),
      expiration_date: normalizeDate(first(fs, EXPIRES_KEYS)),
      update_date: normalizeDate(first(fs, UPDATED_KEYS)),
      nameservers,
      emails
    }
  }
}
