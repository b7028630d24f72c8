/**
 * RDAP client (RFC 9082/9083/9224): registration data of a domain, from the registry's RDAP
 * server found through the IANA bootstrap file, with the registrar's answer merged in when the
 * registry's is thin.
 *
 * API (stable; the availability engine and the WHOIS tool call it):
 *
 *   RdapClient.lookupDomain(asciiDomain: string, options?: { followRelated?: boolean })
 *     : Effect<RdapFound | RdapNotFound, RdapError>
 *
 *   - `{ _tag: "Found", domain, record, statuses, url, registrarUrl }`: the registry has the name;
 *     `record` is the `lookup.result` shape (raw_source "RDAP"), `statuses` the RDAP statuses.
 *   - `{ _tag: "NotFound", domain, url }`: the registry's RDAP server answered 404 for the name.
 *   - `RdapError` for everything else — no RDAP server for the TLD (`unsupported_tld`), timeout,
 *     unreachable server, 429 beyond the cap, other HTTP statuses, a body that is not a domain
 *     object, too many redirects, sandbox mode (`unavailable`). Callers must treat an error as
 *     "unknown", never as "available".
 *
 *   RdapClient.serverFor(asciiDomain): Effect<Option<string>>   the base URL the name maps to
 *   RdapClient.refreshBootstrap: Effect<BootstrapInfo, RdapError> re-fetch RDAP_BOOTSTRAP_URL now
 *   RdapClient.mode: "live" | "sandbox"
 *
 * Behaviour (live):
 * - Bootstrap: the bundled IANA snapshot (`data/rdap-dns.json`) until `RDAP_BOOTSTRAP_URL` has
 *   been fetched; the first lookup of a process waits (bounded) for that fetch, later refreshes
 *   happen in the background once the table is older than `RDAP_BOOTSTRAP_REFRESH`. A failed
 *   fetch keeps the current table and is retried after at most 5 minutes. An empty URL means the
 *   snapshot only.
 * - Longest-suffix match over the name's labels; https base URLs preferred.
 * - `Accept: application/rdap+json, application/json`; redirects followed by hand, at most
 *   `RDAP_MAX_REDIRECTS`; each request bounded by `RDAP_TIMEOUT`.
 * - 404 → NotFound. 429 → waits out `Retry-After` once when within `RDAP_RETRY_AFTER_CAP`, else
 *   `rate_limited` with `retryAfter`, and the server is skipped until then.
 * - A server that timed out or was unreachable is skipped (fast `unreachable` error) for 30 s, so
 *   a machine without network answers quickly instead of hanging on every name.
 * - Registrar referral: when the registry answer has no registrant, the
 *   `related` link is followed (same rules) and its data fills the gaps; its failure is ignored.
 *
 * Sandbox (`RDAP_MODE=sandbox`): no network at all; every lookup fails at once with
 * `unavailable` (the WHOIS tool then falls back to port 43, the availability engine says
 * "unknown").
 *
 * This file is the client (a lookup, its registrar referral, the sandbox); beside it:
 * RdapBootstrap.ts (the table), RdapTransport.ts (the GET, redirects, 429, skipped servers),
 * RdapMapping.ts (RDAP JSON → the lookup record), RdapError.ts.
 */
import { Context, Effect, Layer, Option } from "effect"
import { type BootstrapInfo, bundledBootstrap, makeBootstrap } from "./RdapBootstrap.js"
import { RdapError } from "./RdapError.js"
import { domainQueryUrl, isDomainObject, mapDomainObject, matchBootstrap, relatedLink } from "./RdapMapping.js"
import { makeFetchRdap, type RawAnswer, withSpanWhenTracing } from "./RdapTransport.js"
import { isThin, mergeRecords } from "./Record.js"
import type { LookupRecord } from "./Record.js"
import { LookupConfig, type LookupSettings } from "./Settings.js"

export { type BootstrapInfo, bundledBootstrap } from "./RdapBootstrap.js"
export { RdapError } from "./RdapError.js"
export { retryAfterSeconds } from "./RdapTransport.js"

export interface RdapFound {
  readonly _tag: "Found"
  /** A-label, as the registry spells it (lowercase). */
  readonly domain: string
  readonly record: LookupRecord
  /** RDAP statuses (RFC 8056 vocabulary), also joined in `record.status`. */
  readonly statuses: ReadonlyArray<string>
  /** The URL that answered for the registry. */
  readonly url: string
  /** The registrar's RDAP URL when its answer was merged in. */
  readonly registrarUrl: string | undefined
}

export interface RdapNotFound {
  readonly _tag: "NotFound"
  readonly domain: string
  readonly url: string
}

export type RdapLookup = RdapFound | RdapNotFound

export interface RdapClientShape {
  readonly mode: "live" | "sandbox"
  readonly lookupDomain: (
    asciiDomain: string,
    options?: { readonly followRelated?: boolean }
  ) => Effect.Effect<RdapLookup, RdapError>
  readonly serverFor: (asciiDomain: string) => Effect.Effect<Option.Option<string>>
  readonly refreshBootstrap: Effect.Effect<BootstrapInfo, RdapError>
}

export class RdapClient extends Context.Tag("app/RdapClient")<RdapClient, RdapClientShape>() {
  /** The stand-in for a rule's test: the sandbox (no network; the bundled bootstrap file). */
  static readonly Test: Layer.Layer<RdapClient> = Layer.sync(RdapClient, () => sandbox)
}

type FetchRdap = (start: string, skipKey: string) => Effect.Effect<RawAnswer, RdapError>

const decodeDomain = (answer: RawAnswer): Effect.Effect<unknown, RdapError> =>
  Effect.try({
    try: () => JSON.parse(answer.body) as unknown,
    catch: () =>
      new RdapError({
        reason: "decode",
        message: "RDAP answer is not JSON",
        url: answer.url,
        status: answer.status
      })
  }).pipe(
    Effect.filterOrFail(
      isDomainObject,
      () =>
        new RdapError({
          reason: "decode",
          message: "RDAP answer is not a domain object",
          url: answer.url,
          status: answer.status
        })
    )
  )

/** The registrar's answer for a thin registry record (its `related` link); its failure is ignored. */
const registrarAnswer = (fetchRdap: FetchRdap, related: string) => {
  const origin = (() => {
    try {
      return new URL(related).origin
    } catch {
      return related
    }
  })()
  return fetchRdap(related, origin).pipe(
    Effect.flatMap((a) => (a.status === 200
      ? decodeDomain(a)
      : Effect.fail(new RdapError({ reason: "upstream", message: `HTTP ${a.status}`, url: a.url })))
    ),
    Effect.option
  )
}

const lookupIn = (
  bootstrap: Effect.Effect.Success<ReturnType<typeof makeBootstrap>>,
  fetchRdap: FetchRdap
): RdapClientShape["lookupDomain"] =>
(asciiDomain, options) =>
  Effect.gen(function*() {
    const domain = asciiDomain.toLowerCase().replace(/\.$/, "")
    yield* bootstrap.ensure
    const bases = matchBootstrap(bootstrap.current(), domain)
    if (!bases) {
      return yield* new RdapError({
        reason: "unsupported_tld",
        message: `no RDAP server is registered for ${domain}`
      })
    }
    const base = bases[0]
    const answer = yield* fetchRdap(domainQueryUrl(base, domain), base)
    if (answer.status === 404) return { _tag: "NotFound", domain, url: answer.url } satisfies RdapNotFound
    if (answer.status !== 200) {
      return yield* new RdapError({
        reason: "upstream",
        message: `RDAP server answered HTTP ${answer.status}`,
        url: answer.url,
        status: answer.status
      })
    }
    const obj = yield* decodeDomain(answer)
    const mapped = mapDomainObject(domain, obj)
    let record = mapped.record
    let registrarUrl: string | undefined
    const related = options?.followRelated === false ? undefined : relatedLink(obj, answer.url)
    if (related && isThin(record)) {
      const registrar = yield* registrarAnswer(fetchRdap, related)
      if (Option.isSome(registrar)) {
        record = mergeRecords(record, mapDomainObject(domain, registrar.value).record)
        registrarUrl = related
      }
    }
    return {
      _tag: "Found",
      domain: record.domain,
      record,
      statuses: mapped.statuses,
      url: answer.url,
      registrarUrl
    } satisfies RdapFound
  }).pipe((effect) => withSpanWhenTracing(effect, "rdap.lookupDomain", () => ({ attributes: { domain: asciiDomain } })))

export const makeLive = (settings: LookupSettings) =>
  Effect.gen(function*() {
    const bootstrap = yield* makeBootstrap(settings)
    const fetchRdap = yield* makeFetchRdap(settings)
    const serverFor = (asciiDomain: string) =>
      bootstrap.ensure.pipe(
        Effect.map(() => Option.fromNullable(matchBootstrap(bootstrap.current(), asciiDomain.toLowerCase())?.[0]))
      )
    return {
      mode: "live",
      lookupDomain: lookupIn(bootstrap, fetchRdap),
      serverFor,
      refreshBootstrap: bootstrap.refresh
    } satisfies RdapClientShape
  })

/** No network: every lookup fails at once with `unavailable`. */
export const sandbox: RdapClientShape = {
  mode: "sandbox",
  lookupDomain: (asciiDomain) =>
    Effect.fail(
      new RdapError({
        reason: "unavailable",
        message: `RDAP lookups are disabled (RDAP_MODE=sandbox); ${asciiDomain} not looked up`
      })
    ),
  serverFor: (asciiDomain) =>
    Effect.succeed(Option.fromNullable(matchBootstrap(bundledBootstrap, asciiDomain.toLowerCase())?.[0])),
  refreshBootstrap: Effect.succeed({
    source: "bundled",
    publication: bundledBootstrap.publication,
    entries: bundledBootstrap.servers.size
  })
}

export const RdapClientLive = Layer.scoped(
  RdapClient,
  Effect.gen(function*() {
    const settings = yield* LookupConfig
    return settings.rdapMode === "sandbox" ? sandbox : yield* makeLive(settings)
  })
)
