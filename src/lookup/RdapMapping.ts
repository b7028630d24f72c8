/**
 * RDAP, the pure parts: the IANA bootstrap registry (RFC 9224) and the mapping of an RFC 9083
 * domain object to our `LookupRecord`. No I/O.
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

// --- Bootstrap (RFC 9224) ----------------------------------------------------------------------

export interface Bootstrap {
  readonly publication: string
  /** Lowercase A-label suffix (usually a TLD) → base URLs, https first. */
  readonly servers: ReadonlyMap<string, ReadonlyArray<string>>
}

/** Parses an IANA `dns.json`; throws on anything that is not one. */
export const parseBootstrap = (json: unknown): Bootstrap => {
  const doc = json as { publication?: unknown; services?: unknown }
  if (typeof doc !== "object" || doc === null || !Array.isArray(doc.services)) {
    throw new Error("not an RDAP bootstrap file: no services array")
  }
  const servers = new Map<string, ReadonlyArray<string>>()
  for (const service of doc.services) {
    if (!Array.isArray(service) || !Array.isArray(service[0]) || !Array.isArray(service[1])) continue
    const urls = (service[1] as Array<unknown>)
      .filter((u): u is string => typeof u === "string" && /^https?:\/\//i.test(u))
      .map((u) => (u.endsWith("/") ? u : `${u}/`))
      .sort((a, b) => Number(b.startsWith("https:")) - Number(a.startsWith("https:")))
    if (urls.length === 0) continue
    for (const entry of service[0] as Array<unknown>) {
      if (typeof entry === "string" && entry !== "") servers.set(entry.toLowerCase().replace(/^\.+|\.+$/g, ""), urls)
    }
  }
  if (servers.size === 0) throw new Error("RDAP bootstrap file lists no services")
  return { publication: typeof doc.publication === "string" ? doc.publication : "", servers }
}

/** RFC 9224 §4: the entry matching the most labels of the name wins. */
export const matchBootstrap = (bootstrap: Bootstrap, asciiDomain: string): ReadonlyArray<string> | undefined => {
  const labels = asciiDomain.toLowerCase().replace(/\.$/, "").split(".")
  for (let i = 0; i < labels.length; i++) {
    const urls = bootstrap.servers.get(labels.slice(i).join("."))
    if (urls) return urls
  }
  return undefined
}

/** `<base>domain/<name>` (RFC 9082 §3.1.3). */
export const domainQueryUrl = (base: string, asciiDomain: string) =>
  `${base.endsWith("/") ? base : `${base}/`}domain/${encodeURIComponent(asciiDomain)}`

// --- Domain object (RFC 9083) -------------------------------------------------------------------

type Json = any

export const isDomainObject = (json: unknown): boolean =>
  typeof json === "object" && json !== null && (json as Json).objectClassName === "domain"

/** The properties of a jCard (RFC 7095): `[name, params, type, value…]`. */
const jcardProps = (entity: Json): Array<Array<Json>> => {
  const vcard = entity?.vcardArray
  if (!Array.isArray(vcard) || vcard[0] !== "vcard" || !Array.isArray(vcard[1])) return []
  return vcard[1].filter((p: unknown) => Array.isArray(p) && typeof p[0] === "string")
}

const jcardText = (entity: Json, name: string): string => {
  for (const p of jcardProps(entity)) {
    if (p[0].toLowerCase() !== name) continue
    const value = p.slice(3).flat(Infinity).filter((v: unknown) => typeof v === "string" && v.trim() !== "").join(" ")
      .trim()
    if (value !== "") return value
  }
  return ""
}

const jcardEmails = (entity: Json): Array<string> =>
  jcardProps(entity)
    .filter((p) => p[0].toLowerCase() === "email")
    .map((p) => (typeof p[3] === "string" ? p[3].trim().replace(/^mailto:/i, "") : ""))
    .filter((e) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(e))

/** Every entity, nested ones included (registrar abuse contacts live inside the registrar). */
const allEntities = (obj: Json): Array<Json> => {
  const out: Array<Json> = []
  const walk = (list: unknown, depth: number) => {
    if (!Array.isArray(list) || depth > 4) return
    for (const e of list) {
      if (typeof e !== "object" || e === null) continue
      out.push(e)
      walk((e as Json).entities, depth + 1)
    }
  }
  walk(obj?.entities, 0)
  return out
}

const hasRole = (entity: Json, role: string) =>
  Array.isArray(entity?.roles) && entity.roles.some((r: unknown) => typeof r === "string" && r.toLowerCase() === role)

const looksRedacted = (s: string) => /redacted|withheld|not disclosed|privacy|data protected/i.test(s)

/** RFC 9537: does the `redacted` member withhold the registrant's name or organisation? */
const registrantRedacted = (obj: Json): boolean =>
  Array.isArray(obj?.redacted) &&
  obj.redacted.some((r: Json) => {
    const label = `${r?.name?.type ?? ""} ${r?.name?.description ?? ""}`
    return /registrant/i.test(label) && /name|organi[sz]ation|\borg\b/i.test(label)
  })

const eventDate = (obj: Json, action: string): string => {
  if (!Array.isArray(obj?.events)) return ""
  const event = obj.events.find((e: Json) =>
    typeof e?.eventAction === "string" && e.eventAction.toLowerCase() === action
  )
  return normalizeDate(typeof event?.eventDate === "string" ? event.eventDate : undefined)
}

/** Maps a domain object; the statuses come back separately for callers that want the array. */
export const mapDomainObject = (
  asciiDomain: string,
  obj: Json
): { record: LookupRecord; statuses: ReadonlyArray<string> } => {
  const entities = allEntities(obj)
  const registrarEntity = entities.find((e) => hasRole(e, "registrar"))
  const registrar = registrarEntity
    ? jcardText(registrarEntity, "fn") || jcardText(registrarEntity, "org") ||
      (typeof registrarEntity.handle === "string" ? registrarEntity.handle : "")
    : ""

  const registrantEntity = entities.find((e) => hasRole(e, "registrant"))
  let registrant = ""
  if (registrantEntity) {
    const name = jcardText(registrantEntity, "fn")
    const org = jcardText(registrantEntity, "org")
    registrant = [name, org].find((v) => v !== "" && !looksRedacted(v)) ?? ""
    if (registrant === "" && (looksRedacted(name) || looksRedacted(org) || registrantRedacted(obj))) {
      registrant = REDACTED
    }
  }
  if (registrant === "" && registrantRedacted(obj)) registrant = REDACTED

  const statuses = normalizeStatuses(
    Array.isArray(obj?.status) ? obj.status.filter((s: unknown) => typeof s === "string") : []
  )
  const nameservers = dedupe(
    (Array.isArray(obj?.nameservers) ? obj.nameservers : [])
      .map((ns: Json) => (typeof ns?.ldhName === "string" ? normalizeNameserver(ns.ldhName) : ""))
      .filter((ns: string) => ns !== "")
  )
  const emails = dedupe(entities.flatMap(jcardEmails))
  const domain = typeof obj?.ldhName === "string" && obj.ldhName !== ""
    ? obj.ldhName.toLowerCase().replace(/\.$/, "")
    : asciiDomain

  return {
    statuses,
    record: {
      ...emptyRecord(domain, "RDAP"),
      status: statuses.join(", "),
      registrar,
      registrant,
      creation_date: eventDate(obj, "registration"),
      expiration_date: eventDate(obj, "expiration"),
      update_date: eventDate(obj, "last changed"),
      nameservers,
      emails
    }
  }
}

/**
 * The registrar's RDAP URL for this domain from a registry answer: a `related` link of type
 * `application/rdap+json` (or one whose path is `/domain/<name>`), other than `self`.
 */
export const relatedLink = (obj: Json, selfUrl: string): string | undefined => {
  if (!Array.isArray(obj?.links)) return undefined
  const candidates = obj.links.filter((l: Json) =>
    typeof l?.href === "string" && /^https?:\/\//i.test(l.href) && typeof l?.rel === "string" &&
    l.rel.toLowerCase() === "related"
  )
  const pick = candidates.find((l: Json) => typeof l.type === "string" && /rdap\+json/i.test(l.type)) ??
    candidates.find((l: Json) => /\/domain\/[^/]+$/i.test(l.href))
  if (!pick || pick.href === selfUrl) return undefined
  return pick.href as string
}
