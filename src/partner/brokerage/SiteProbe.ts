/**
 * The live-site check of brokerage eligibility: does the domain serve a real site?
 *
 * Contract: every fetch goes through the SSRF-safe Outbound client (resolution, address classes,
 * pinned connection, capped body and time), HTTPS first then HTTP, so a name resolving to a
 * private, loopback, link-local or metadata address is never contacted (it classifies as
 * `blocked`, not live). Only `live` makes a domain ineligible: a parking or for-sale page, a
 * default server page, an error status or no answer at all is not a live site.
 */
import { Duration, Effect, Option } from "effect"
import * as Dns from "node:dns"
import { makeOutbound, OutboundError, type OutboundShape } from "../../platform/outbound/Outbound.js"
import { type OutboundResolver, systemResolver } from "../../platform/outbound/OutboundConnector.js"
import { extractTitle } from "../../tools/SiteCheck.js"

export type SiteClass = "live" | "parking" | "error" | "none" | "blocked"

export interface SiteFinding {
  readonly classification: SiteClass
  /** The URL that answered (or was last tried). */
  readonly url: string
  readonly status: number | null
  readonly title: string | null
  /** Why it is not live, in a few words. */
  readonly detail: string | null
}

/** Marketplaces and parking services: a redirect there or a page naming them is a for-sale page. */
const PARKING_HOSTS =
  /(^|\.)(sedo\.com|sedoparking\.com|dan\.com|afternic\.com|hugedomains\.com|bodis\.com|parkingcrew\.net|above\.com|undeveloped\.com|atom\.com|squadhelp\.com|domainmarket\.com|buydomains\.com|uniregistry\.com|parklogic\.com|voodoo\.com|namebright\.com|sav\.com)$/i
const PARKING_TEXT = [
  /this domain (name )?(is|may be) for sale/i,
  /buy this domain/i,
  /domain (is )?for sale/i,
  /make an offer/i,
  /(is|was) parked (free|for free)?/i,
  /domain parking/i,
  /parked domain/i,
  /this domain has expired/i,
  /related (searches|links)/i,
  /sedoparking|parkingcrew|bodis|afternic|hugedomains|dan\.com/i,
  /registered at namecheap|godaddy\.com\/(domain-?search|forsale)/i
]
/** Placeholders that are no site yet. */
const PLACEHOLDER_TEXT = [
  /welcome to nginx/i,
  /apache2? .*default page/i,
  /^\s*it works!?\s*$/i,
  /coming soon/i,
  /under construction/i,
  /future home of/i,
  /default web site page/i
]

const visibleText = (html: string) =>
  html.replace(/<script[\s\S]*?<\/script>/gi, " ").replace(/<style[\s\S]*?<\/style>/gi, " ").replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ").trim()

/** Classifies one HTTP answer (pure; tested alone). */
export const classifyAnswer = (a: {
  readonly status: number
  readonly contentType: string | null
  readonly body: string
  readonly finalUrl: string
}): {
  readonly classification: "live" | "parking" | "error"
  readonly title: string | null
  readonly detail: string | null
} => {
  const title = extractTitle(a.body)
  if (a.status >= 400) return { classification: "error", title, detail: `HTTP ${a.status}` }
  if (a.status >= 300) return { classification: "error", title, detail: `HTTP ${a.status} without a usable redirect` }
  let host = ""
  try {
    host = new URL(a.finalUrl).hostname
  } catch {
    // keep empty
  }
  if (PARKING_HOSTS.test(host)) return { classification: "parking", title, detail: `redirects to ${host}` }
  const text = visibleText(a.body)
  const haystack = `${title ?? ""} ${text.slice(0, 20_000)}`
  if (PARKING_TEXT.some((r) => r.test(haystack))) {
    return { classification: "parking", title, detail: "a parking or for-sale page" }
  }
  if (PLACEHOLDER_TEXT.some((r) => r.test(title ?? "") || r.test(text.slice(0, 300)))) {
    return { classification: "parking", title, detail: "a placeholder page (no site yet)" }
  }
  if (text.length < 20 && !/html/i.test(a.contentType ?? "html")) {
    return { classification: "error", title, detail: "no page content" }
  }
  if (text.length < 20) return { classification: "parking", title, detail: "an empty page" }
  return { classification: "live", title, detail: null }
}

const BLOCKED = new Set(["address_not_allowed", "port_not_allowed", "scheme_not_allowed", "invalid_url"])

/** HTTPS then HTTP, each within `timeout`. */
export const probeSite = (
  outbound: OutboundShape,
  domain: string,
  timeout: Duration.Duration
): Effect.Effect<SiteFinding> => {
  const attempt = (url: string) =>
    outbound.fetch(url, {
      timeoutMs: Duration.toMillis(timeout),
      maxRedirects: 5,
      maxBodyBytes: 128 * 1024,
      allowInvalidTls: true,
      headers: { "user-agent": "DomainMarketplace-Brokerage/1.0", accept: "text/html,*/*;q=0.8" }
    }).pipe(
      Effect.map((res): SiteFinding => {
        const contentType = res.headers["content-type"] ?? null
        const body = contentType === null || /html|xml|text/i.test(contentType)
          ? new TextDecoder().decode(res.body)
          : ""
        const c = classifyAnswer({ status: res.status, contentType, body, finalUrl: res.finalUrl })
        return {
          classification: c.classification,
          url: res.finalUrl,
          status: res.status,
          title: c.title,
          detail: c.detail
        }
      }),
      Effect.catchTag("OutboundError", (e) =>
        Effect.succeed<SiteFinding>({
          classification: BLOCKED.has(e.reason) ? "blocked" : e.reason === "dns_failure" ? "none" : "error",
          url,
          status: null,
          title: null,
          detail: `${e.reason}: ${e.message}`
        }))
    )
  return Effect.gen(function*() {
    const https = yield* attempt(`https://${domain}/`)
    // Nothing more to learn over HTTP when the name does not resolve or may not be reached.
    if (https.status !== null || https.classification === "none" || https.classification === "blocked") return https
    const http = yield* attempt(`http://${domain}/`)
    return http.status !== null ? http : https
  })
}

/** A resolver asking `DNS_RESOLVER` (host:port) when set, else the system's (as the dns-lookup tool). */
export const configuredResolver = (server: Option.Option<string>, timeoutMs: number): OutboundResolver => {
  if (Option.isNone(server)) return systemResolver
  return (host) =>
    Effect.tryPromise({
      try: async () => {
        const r = new Dns.promises.Resolver({ timeout: timeoutMs, tries: 1 })
        r.setServers([server.value])
        const [v4, v6] = await Promise.all([
          r.resolve4(host).catch(() => [] as Array<string>),
          r.resolve6(host).catch(() => [] as Array<string>)
        ])
        return [
          ...v4.map((address) => ({ address, family: 4 as const })),
          ...v6.map((address) => ({ address, family: 6 as const }))
        ]
      },
      catch: (e) =>
        new OutboundError({ reason: "dns_failure", message: `could not resolve ${host}: ${String(e)}`, url: host })
    })
}

/** The Outbound the probe uses: the service's SSRF rules with the configured resolver. */
export const probeOutbound = (
  o: {
    allowLoopback: boolean
    allowedPorts: ReadonlyArray<number>
    dnsResolver: Option.Option<string>
    timeoutMs: number
  }
) =>
  makeOutbound({
    allowLoopback: o.allowLoopback,
    allowedPorts: o.allowedPorts,
    resolver: configuredResolver(o.dnsResolver, o.timeoutMs)
  })
