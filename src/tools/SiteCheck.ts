/**
 * site-check (async): fetches a URL through the SSRF-safe Outbound client and reports the
 * redirect chain, the final URL and status, the page title, TLS validity and the response time.
 * A URL the SSRF guard refuses fails the job (`address_not_allowed: …`); an unreachable site is
 * a finished check with `reachable: false`.
 */
import { Effect } from "effect"
import { JobFailure } from "../platform/jobs/Jobs.js"
import type { OutboundShape } from "../platform/outbound/Outbound.js"

export interface SiteCheckResult {
  readonly url: string
  readonly reachable: boolean
  readonly final_url: string | null
  readonly status: number | null
  readonly chain: ReadonlyArray<{ readonly url: string; readonly status: number; readonly location?: string }>
  readonly title: string | null
  readonly content_type: string | null
  readonly tls: { readonly valid: boolean; readonly valid_to: string | null; readonly error: string | null } | null
  readonly response_ms: number | null
  readonly error: string | null
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: " " }

export const extractTitle = (html: string): string | null => {
  const m = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)
  if (!m) return null
  const text = m[1]
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) =>
      e.startsWith("#x") || e.startsWith("#X")
        ? String.fromCodePoint(parseInt(e.slice(2), 16))
        : e.startsWith("#")
        ? String.fromCodePoint(Number(e.slice(1)))
        : ENTITIES[e.toLowerCase()] ?? all)
    .replace(/\s+/g, " ")
    .trim()
  return text === "" ? null : text.slice(0, 300)
}

/** Adds `https://` to a bare host; only http and https are accepted. */
export const normalizeUrl = (input: string): string | undefined => {
  const raw = /^[a-z][a-z0-9+.-]*:/i.test(input.trim()) ? input.trim() : `https://${input.trim()}`
  try {
    const url = new URL(raw)
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : undefined
  } catch {
    return undefined
  }
}

const BLOCKING = new Set(["invalid_url", "scheme_not_allowed", "port_not_allowed", "address_not_allowed"])

export const siteCheck = (outbound: OutboundShape, url: string): Effect.Effect<SiteCheckResult, JobFailure> =>
  outbound.fetch(url, {
    timeoutMs: 15_000,
    maxRedirects: 10,
    maxBodyBytes: 256 * 1024,
    allowInvalidTls: true,
    headers: { "user-agent": "DomainMarketplace-SiteCheck/1.0", accept: "text/html,*/*;q=0.8" }
  }).pipe(
    Effect.map((res): SiteCheckResult => {
      const contentType = res.headers["content-type"] ?? null
      const html = contentType === null || /html|xml|text/i.test(contentType) ? new TextDecoder().decode(res.body) : ""
      return {
        url,
        reachable: true,
        final_url: res.finalUrl,
        status: res.status,
        chain: res.hops.map((h) => ({ url: h.url, status: h.status, ...(h.location ? { location: h.location } : {}) })),
        title: extractTitle(html),
        content_type: contentType,
        tls: res.tls ? { valid: res.tls.valid, valid_to: res.tls.validTo ?? null, error: res.tls.error ?? null } : null,
        response_ms: res.elapsedMs,
        error: null
      }
    }),
    Effect.catchTag("OutboundError", (e) =>
      BLOCKING.has(e.reason)
        ? Effect.fail(new JobFailure({ message: `${e.reason}: ${e.message}` }))
        : Effect.succeed<SiteCheckResult>({
          url,
          reachable: false,
          final_url: null,
          status: null,
          chain: [],
          title: null,
          content_type: null,
          tls: null,
          response_ms: null,
          error: `${e.reason}: ${e.message}`
        }))
  )
