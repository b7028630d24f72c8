/**
 * Outbound HTTP to URLs a user can influence (site-check, webhooks, …), with SSRF defence.
 *
 * CONTRACT (implemented by `OutboundLive`):
 * - only http/https, only allowed ports (80/443 by default, configurable);
 * - the host is resolved and every resolved address checked: no loopback, private, link-local,
 *   CGNAT, multicast, unspecified, reserved or cloud-metadata addresses, IPv4 and IPv6
 *   (including IPv4-mapped/compatible and NAT64 forms);
 * - the connection is pinned to the checked address (no second DNS lookup, no rebinding);
 * - redirects are followed manually up to `maxRedirects`, each hop checked the same way;
 * - body size and total time are capped;
 * - a request body is always sent with its Content-Length (never chunked);
 * - `OUTBOUND_ALLOW_LOOPBACK=true` (tests only; refused in production) lets 127.0.0.1/::1 through.
 * Which addresses are refused: AddressClass.ts. The resolver and connector (OutboundConnector.ts)
 * are injectable so tests prove refusals without any connection
 * (`makeOutbound({ resolver, connector, … })`). With the loopback switch on, a loopback target
 * may use any port (test servers listen on ephemeral ports); every other target needs an
 * allowed port (`OUTBOUND_ALLOWED_PORTS`, default 80,443).
 */
import { Context, Duration, Effect, Layer } from "effect"
import * as Net from "node:net"
import { AppConfig } from "../Config.js"
import { classifyAddress } from "./AddressClass.js"
import {
  nodeConnector,
  type OutboundConnector,
  OutboundError,
  type OutboundResolver,
  type ResolvedAddress,
  systemResolver,
  type TlsInfo
} from "./OutboundConnector.js"

/** The service's failure, shared with the connector and resolver it uses. */
export { OutboundError }

export interface OutboundRequest {
  readonly method?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array
  /** Total time for the whole exchange, redirects included. Default 10 s. */
  readonly timeoutMs?: number
  /** Response bodies beyond this are cut (and `truncated` set). Default 1 MiB. */
  readonly maxBodyBytes?: number
  /** 0 returns the first response as is. Default 5. */
  readonly maxRedirects?: number
  /**
   * https only: still answer when the certificate does not validate (the failure is reported in
   * `tls`). Default false: such a connection fails with `connection_failed`.
   */
  readonly allowInvalidTls?: boolean
}

export interface OutboundHop {
  readonly url: string
  readonly status: number
  readonly address: string
  readonly location?: string
}

export interface OutboundResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  readonly truncated: boolean
  /** Every hop, first request first. */
  readonly hops: ReadonlyArray<OutboundHop>
  readonly finalUrl: string
  readonly elapsedMs: number
  /** For https: whether the certificate validated, and its expiry. */
  readonly tls?: TlsInfo
}

export interface OutboundShape {
  readonly fetch: (url: string, request?: OutboundRequest) => Effect.Effect<OutboundResponse, OutboundError>
  /** Checks a URL (scheme, port, resolved addresses) without sending anything. */
  readonly check: (url: string) => Effect.Effect<URL, OutboundError>
}

export class Outbound extends Context.Tag("app/Outbound")<Outbound, OutboundShape>() {}

export interface OutboundOptions {
  readonly allowLoopback: boolean
  readonly allowedPorts: ReadonlyArray<number>
  readonly resolver?: OutboundResolver
  readonly connector?: OutboundConnector
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
/** Headers not carried to another origin on a redirect. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"]

export const makeOutbound = (options: OutboundOptions): OutboundShape => {
  const resolve = options.resolver ?? systemResolver
  const connect = options.connector ?? nodeConnector
  const allowed = new Set(options.allowedPorts)

  const err = (reason: OutboundError["reason"], message: string, url: string) =>
    new OutboundError({ reason, message, url })

  /** Scheme, resolution, address classes and port: the address to pin. */
  const checkUrl = (raw: string): Effect.Effect<{ url: URL; address: ResolvedAddress }, OutboundError> =>
    Effect.gen(function*() {
      const url = yield* Effect.try({
        try: () => new URL(raw),
        catch: () => err("invalid_url", "not a valid absolute URL", raw)
      })
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return yield* err(
          "scheme_not_allowed",
          `only http and https URLs are allowed, not ${url.protocol.replace(/:$/, "")}`,
          raw
        )
      }
      if (url.username !== "" || url.password !== "") {
        return yield* err("invalid_url", "URLs with credentials are not allowed", raw)
      }
      const host = url.hostname.replace(/^\[|\]$/g, "")
      if (host === "") return yield* err("invalid_url", "the URL has no host", raw)
      const addresses: ReadonlyArray<ResolvedAddress> = Net.isIP(host)
        ? [{ address: host, family: Net.isIPv6(host) ? 6 : 4 }]
        : yield* resolve(host)
      if (addresses.length === 0) return yield* err("dns_failure", `${host} has no addresses`, raw)
      for (const a of addresses) {
        const blocked = classifyAddress(a.address)
        if (blocked === undefined) continue
        if (blocked === "loopback" && options.allowLoopback) continue
        return yield* err(
          "address_not_allowed",
          `${host} resolves to a ${blocked.replace("_", "-")} address (${a.address}), which may not be reached`,
          raw
        )
      }
      const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
      const loopbackOnly = addresses.every((a) => classifyAddress(a.address) === "loopback")
      if (!allowed.has(port) && !(options.allowLoopback && loopbackOnly)) {
        return yield* err("port_not_allowed", `port ${port} is not allowed (allowed: ${[...allowed].join(", ")})`, raw)
      }
      return { url, address: addresses[0] }
    })

  const fetch: OutboundShape["fetch"] = (rawUrl, request = {}) => {
    const timeoutMs = request.timeoutMs ?? 10_000
    const maxRedirects = request.maxRedirects ?? 5
    const maxBodyBytes = request.maxBodyBytes ?? 1024 * 1024
    const started = Date.now()
    return Effect.gen(function*() {
      const hops: Array<OutboundHop> = []
      let current = rawUrl
      let method = (request.method ?? "GET").toUpperCase()
      let body = request.body
      let headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(request.headers ?? {})) headers[k.toLowerCase()] = v
      let origin: string | undefined
      for (let hop = 0;; hop++) {
        const { address, url } = yield* checkUrl(current)
        if (origin !== undefined && url.origin !== origin) {
          headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADERS.includes(k)))
        }
        origin = url.origin
        const result = yield* connect({
          url,
          address,
          method,
          headers,
          ...(body !== undefined ? { body } : {}),
          maxBodyBytes,
          allowInvalidTls: request.allowInvalidTls ?? false
        })
        const location = result.headers["location"]
        hops.push({
          url: url.toString(),
          status: result.status,
          address: address.address,
          ...(location ? { location } : {})
        })
        if (REDIRECT_STATUSES.has(result.status) && location && maxRedirects > 0) {
          if (hop >= maxRedirects) {
            return yield* err("too_many_redirects", `more than ${maxRedirects} redirects`, rawUrl)
          }
          current = yield* Effect.try({
            try: () => new URL(location, url).toString(),
            catch: () => err("invalid_url", "redirect with an invalid Location", url.toString())
          })
          if (result.status === 303 || ((result.status === 301 || result.status === 302) && method === "POST")) {
            method = "GET"
            body = undefined
            delete headers["content-type"]
            delete headers["content-length"]
          }
          continue
        }
        return {
          status: result.status,
          headers: result.headers,
          body: result.body,
          truncated: result.truncated,
          hops,
          finalUrl: url.toString(),
          elapsedMs: Date.now() - started,
          ...(result.tls ? { tls: result.tls } : {})
        } satisfies OutboundResponse
      }
    }).pipe(
      Effect.timeoutFail({
        duration: Duration.millis(timeoutMs),
        onTimeout: () => err("timeout", `no complete answer within ${timeoutMs} ms`, rawUrl)
      }),
      Effect.tap((response) => Effect.annotateCurrentSpan("http.response.status_code", response.status)),
      // The host only: a user's URL may carry credentials in its path or query. No trace headers
      // are sent (the target is a third party).
      Effect.withSpan(`outbound ${(request.method ?? "GET").toUpperCase()}`, {
        kind: "client",
        captureStackTrace: false,
        attributes: { "http.request.method": (request.method ?? "GET").toUpperCase(), "server.address": hostOf(rawUrl) }
      })
    )
  }

  return { fetch, check: (url) => Effect.map(checkUrl(url), (c) => c.url) }
}

const hostOf = (raw: string) => {
  try {
    return new URL(raw).hostname
  } catch {
    return "invalid"
  }
}

/** The service's Outbound: OUTBOUND_ALLOWED_PORTS, OUTBOUND_ALLOW_LOOPBACK, the system resolver. */
export const OutboundLive = Layer.effect(
  Outbound,
  Effect.map(
    AppConfig,
    (config) => makeOutbound({ allowLoopback: config.outboundAllowLoopback, allowedPorts: config.outboundAllowedPorts })
  )
)
