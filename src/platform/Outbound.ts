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
 * The resolver and connector are injectable so tests prove refusals without any connection
 * (`makeOutbound({ resolver, connector, … })`). With the loopback switch on, a loopback target
 * may use any port (test servers listen on ephemeral ports); every other target needs an
 * allowed port (`OUTBOUND_ALLOWED_PORTS`, default 80,443).
 */
import { Context, Data, Duration, Effect, Layer } from "effect"
import * as Dns from "node:dns"
import * as Http from "node:http"
import * as Https from "node:https"
import * as Net from "node:net"
import type { TLSSocket } from "node:tls"
import { AppConfig } from "./Config.js"

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
  readonly tls?: { readonly valid: boolean; readonly validTo?: string; readonly error?: string }
}

export class OutboundError extends Data.TaggedError("OutboundError")<{
  readonly reason:
    | "invalid_url"
    | "scheme_not_allowed"
    | "port_not_allowed"
    | "address_not_allowed"
    | "dns_failure"
    | "too_many_redirects"
    | "timeout"
    | "connection_failed"
  readonly message: string
  readonly url: string
}> {}

export interface OutboundShape {
  readonly fetch: (url: string, request?: OutboundRequest) => Effect.Effect<OutboundResponse, OutboundError>
  /** Checks a URL (scheme, port, resolved addresses) without sending anything. */
  readonly check: (url: string) => Effect.Effect<URL, OutboundError>
}

export class Outbound extends Context.Tag("app/Outbound")<Outbound, OutboundShape>() {}

// =================================================================================================
// Implementation
// =================================================================================================

/** Why an address may not be reached; `undefined` for a public unicast address. */
export type BlockedClass =
  | "unspecified"
  | "loopback"
  | "private"
  | "link_local"
  | "cgnat"
  | "multicast"
  | "reserved"
  | "documentation"
  | "metadata"
  | "unique_local"
  | "site_local"

const v4ToInt = (ip: string): number | undefined => {
  const parts = ip.split(".")
  if (parts.length !== 4) return undefined
  let n = 0
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined
    n = n * 256 + Number(p)
  }
  return n
}

const inV4 = (n: number, base: string, bits: number) => {
  const b = v4ToInt(base)!
  const size = 2 ** (32 - bits)
  return Math.floor(n / size) === Math.floor(b / size)
}

/** Cloud metadata endpoints on otherwise public or special addresses. */
const METADATA_V4 = new Set(["169.254.169.254", "169.254.170.2", "168.63.129.16", "100.100.100.200", "192.0.0.192"])

const classifyV4 = (ip: string): BlockedClass | undefined => {
  const n = v4ToInt(ip)
  if (n === undefined) return "reserved"
  if (METADATA_V4.has(ip)) return "metadata"
  if (inV4(n, "0.0.0.0", 8)) return "unspecified"
  if (inV4(n, "127.0.0.0", 8)) return "loopback"
  if (inV4(n, "10.0.0.0", 8) || inV4(n, "172.16.0.0", 12) || inV4(n, "192.168.0.0", 16)) return "private"
  if (inV4(n, "169.254.0.0", 16)) return "link_local"
  if (inV4(n, "100.64.0.0", 10)) return "cgnat"
  if (inV4(n, "224.0.0.0", 4)) return "multicast"
  if (inV4(n, "192.0.2.0", 24) || inV4(n, "198.51.100.0", 24) || inV4(n, "203.0.113.0", 24)) return "documentation"
  if (inV4(n, "192.0.0.0", 24) || inV4(n, "192.88.99.0", 24) || inV4(n, "198.18.0.0", 15) || inV4(n, "240.0.0.0", 4)) {
    return "reserved"
  }
  return undefined
}

/** Eight 16-bit groups of an IPv6 address (with an embedded dotted IPv4 tail handled). */
const v6Groups = (ip: string): Array<number> | undefined => {
  let s = ip.toLowerCase().replace(/^\[|\]$/g, "")
  const zone = s.indexOf("%")
  if (zone !== -1) s = s.slice(0, zone)
  const tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s)
  if (tail) {
    const n = v4ToInt(tail[1])
    if (n === undefined) return undefined
    s = s.slice(0, -tail[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const halves = s.split("::")
  if (halves.length > 2) return undefined
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)))
  const head = parse(halves[0])
  const rest = halves.length === 2 ? parse(halves[1]) : []
  const groups = halves.length === 2 ? [...head, ...Array(8 - head.length - rest.length).fill(0), ...rest] : head
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g))) return undefined
  return groups
}

const v4FromGroups = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`

const classifyV6 = (ip: string): BlockedClass | undefined => {
  const g = v6Groups(ip)
  if (!g) return "reserved"
  const zeroUpTo = (k: number) => g.slice(0, k).every((x) => x === 0)
  if (zeroUpTo(8)) return "unspecified"
  if (zeroUpTo(7) && g[7] === 1) return "loopback"
  // IPv4-mapped ::ffff:a.b.c.d and IPv4-compatible ::a.b.c.d: the embedded address decides.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyV4(v4FromGroups(g[6], g[7]))
  if (zeroUpTo(6)) return classifyV4(v4FromGroups(g[6], g[7])) ?? "reserved"
  // NAT64 64:ff9b::/96 embeds an IPv4 address; 64:ff9b:1::/48 is for local use.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyV4(v4FromGroups(g[6], g[7]))
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "private"
  // 6to4 2002:aabb:ccdd::/48 embeds an IPv4 address.
  if (g[0] === 0x2002) return classifyV4(v4FromGroups(g[1], g[2])) ?? undefined
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) return "metadata"
  if ((g[0] & 0xfe00) === 0xfc00) return "unique_local"
  if ((g[0] & 0xffc0) === 0xfe80) return "link_local"
  if ((g[0] & 0xffc0) === 0xfec0) return "site_local"
  if ((g[0] & 0xff00) === 0xff00) return "multicast"
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "documentation"
  if (g[0] === 0x2001 && g[1] === 0) return "reserved" // Teredo
  if (g[0] === 0x2001 && (g[1] & 0xfff0) === 0x0010) return "reserved" // ORCHID
  if (g[0] === 0x2001 && (g[1] & 0xfff0) === 0x0020) return "reserved" // ORCHIDv2
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return "reserved" // discard-only
  return undefined
}

/** Classifies an IP address literal (v4 or v6); `undefined` means public and allowed. */
export const classifyAddress = (ip: string): BlockedClass | undefined => {
  const bare = ip.replace(/^\[|\]$/g, "")
  if (Net.isIPv4(bare)) return classifyV4(bare)
  if (Net.isIPv6(bare) || bare.includes(":")) return classifyV6(bare)
  return "reserved"
}

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** Host name → addresses. The default uses the operating system's resolver. */
export type OutboundResolver = (hostname: string) => Effect.Effect<ReadonlyArray<ResolvedAddress>, OutboundError>

export interface ConnectTarget {
  readonly url: URL
  /** The checked address the connection must use. */
  readonly address: ResolvedAddress
  readonly method: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array
  readonly maxBodyBytes: number
  readonly allowInvalidTls: boolean
}

export interface ConnectResult {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  readonly truncated: boolean
  readonly tls?: OutboundResponse["tls"]
}

/** Sends one request to a pinned address. Interruption must abort it. */
export type OutboundConnector = (target: ConnectTarget) => Effect.Effect<ConnectResult, OutboundError>

export const systemResolver: OutboundResolver = (hostname) =>
  Effect.tryPromise({
    try: () => Dns.promises.lookup(hostname, { all: true, verbatim: true }),
    catch: (e) =>
      new OutboundError({ reason: "dns_failure", message: `could not resolve ${hostname}: ${(e as any)?.code ?? e}`, url: hostname })
  }).pipe(Effect.map((list) => list.map((a) => ({ address: a.address, family: a.family === 6 ? 6 as const : 4 as const }))))

/** node:http(s) with the connection pinned to the checked address (no second DNS lookup). */
export const nodeConnector: OutboundConnector = (t) =>
  Effect.async<ConnectResult, OutboundError>((resume) => {
    const isHttps = t.url.protocol === "https:"
    const pinned = (_host: string, options: any, cb: (...args: Array<any>) => void) => {
      if (options?.all) cb(null, [{ address: t.address.address, family: t.address.family }])
      else cb(null, t.address.address, t.address.family)
    }
    const fail = (reason: OutboundError["reason"], message: string) =>
      resume(Effect.fail(new OutboundError({ reason, message, url: t.url.toString() })))
    const hostname = t.url.hostname.replace(/^\[|\]$/g, "")
    // A known body goes out with its Content-Length, never chunked: receivers such as Python's
    // http.server and several serverless front doors read an empty body from a chunked request.
    const body = typeof t.body === "string" ? Buffer.from(t.body, "utf8") : t.body
    const headers: Record<string, string> = { ...t.headers, host: t.url.host }
    if (body !== undefined) headers["content-length"] = String(body.byteLength)
    else if (t.method !== "GET" && t.method !== "HEAD") headers["content-length"] = "0"
    const options: Https.RequestOptions = {
      method: t.method,
      host: hostname,
      port: t.url.port === "" ? (isHttps ? 443 : 80) : Number(t.url.port),
      path: `${t.url.pathname}${t.url.search}`,
      headers,
      lookup: pinned as any,
      agent: false,
      ...(isHttps ? { rejectUnauthorized: !t.allowInvalidTls, servername: Net.isIP(hostname) ? undefined : hostname } : {})
    }
    let done = false
    const req = (isHttps ? Https : Http).request(options, (res) => {
      let tls: OutboundResponse["tls"]
      if (isHttps) {
        const socket = res.socket as TLSSocket
        const cert = socket.getPeerCertificate?.()
        tls = {
          valid: socket.authorized === true,
          ...(cert?.valid_to ? { validTo: new Date(cert.valid_to).toISOString() } : {}),
          ...(socket.authorized ? {} : { error: String(socket.authorizationError ?? "certificate not validated") })
        }
      }
      const chunks: Array<Buffer> = []
      let size = 0
      let truncated = false
      const finish = () => {
        if (done) return
        done = true
        const headers: Record<string, string> = {}
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v
        resume(Effect.succeed({ status: res.statusCode ?? 0, headers, body: new Uint8Array(Buffer.concat(chunks)), truncated, ...(tls ? { tls } : {}) }))
      }
      res.on("data", (chunk: Buffer) => {
        if (truncated) return
        if (size + chunk.length > t.maxBodyBytes) {
          chunks.push(chunk.subarray(0, t.maxBodyBytes - size))
          size = t.maxBodyBytes
          truncated = true
          finish()
          res.destroy()
          return
        }
        chunks.push(chunk)
        size += chunk.length
      })
      res.on("end", finish)
      res.on("error", (e) => {
        if (!done) {
          done = true
          fail("connection_failed", `response failed: ${e.message}`)
        }
      })
    })
    req.on("error", (e: any) => {
      if (done) return
      done = true
      fail("connection_failed", `connection to ${t.url.host} failed: ${e?.code ?? e?.message ?? e}`)
    })
    req.end(body)
    return Effect.sync(() => {
      done = true
      req.destroy()
    })
  })

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

  const err = (reason: OutboundError["reason"], message: string, url: string) => new OutboundError({ reason, message, url })

  /** Scheme, resolution, address classes and port: the address to pin. */
  const checkUrl = (raw: string): Effect.Effect<{ url: URL; address: ResolvedAddress }, OutboundError> =>
    Effect.gen(function*() {
      const url = yield* Effect.try({ try: () => new URL(raw), catch: () => err("invalid_url", "not a valid absolute URL", raw) })
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return yield* err("scheme_not_allowed", `only http and https URLs are allowed, not ${url.protocol.replace(/:$/, "")}`, raw)
      }
      if (url.username !== "" || url.password !== "") return yield* err("invalid_url", "URLs with credentials are not allowed", raw)
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
        return yield* err("address_not_allowed", `${host} resolves to a ${blocked.replace("_", "-")} address (${a.address}), which may not be reached`, raw)
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
        hops.push({ url: url.toString(), status: result.status, address: address.address, ...(location ? { location } : {}) })
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
  Effect.map(AppConfig, (config) =>
    makeOutbound({ allowLoopback: config.outboundAllowLoopback, allowedPorts: config.outboundAllowedPorts }))
)
