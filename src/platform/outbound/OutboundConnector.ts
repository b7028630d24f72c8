/**
 * The two I/O steps of an outbound request (Outbound.ts): resolving a host name to addresses,
 * and sending one request to an address already checked, with the connection pinned to it (no
 * second DNS lookup, so no rebinding between check and connect). Both are injectable, so tests
 * prove refusals without opening any connection.
 */
import { Data, Effect, Predicate } from "effect"
import * as Dns from "node:dns"
import * as Http from "node:http"
import * as Https from "node:https"
import * as Net from "node:net"
import type { TLSSocket } from "node:tls"

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

/** For https: whether the certificate validated, and its expiry. */
export interface TlsInfo {
  readonly valid: boolean
  readonly validTo?: string
  readonly error?: string
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
  readonly tls?: TlsInfo
}

/** Sends one request to a pinned address. Interruption must abort it. */
export type OutboundConnector = (target: ConnectTarget) => Effect.Effect<ConnectResult, OutboundError>

export const systemResolver: OutboundResolver = (hostname) =>
  Effect.tryPromise({
    try: () => Dns.promises.lookup(hostname, { all: true, verbatim: true }),
    catch: (e) =>
      new OutboundError({
        reason: "dns_failure",
        message: `could not resolve ${hostname}: ${(Predicate.hasProperty(e, "code") ? e.code : undefined) ?? e}`,
        url: hostname
      })
  }).pipe(
    Effect.map((list) => list.map((a) => ({ address: a.address, family: a.family === 6 ? 6 as const : 4 as const })))
  )

/**
 * The request options of `t` for node:http(s): the connection pinned to the checked address (the
 * lookup answers it, never DNS), and a known `body` sent with its Content-Length, never chunked:
 * receivers such as Python's http.server and several serverless front doors read an empty body
 * from a chunked request.
 */
const requestOptionsOf = (t: ConnectTarget, isHttps: boolean, body: Uint8Array | undefined): Https.RequestOptions => {
  const pinned = (_host: string, options: any, cb: (...args: Array<any>) => void) => {
    if (options?.all) cb(null, [{ address: t.address.address, family: t.address.family }])
    else cb(null, t.address.address, t.address.family)
  }
  const hostname = t.url.hostname.replace(/^\[|\]$/g, "")
  const headers: Record<string, string> = { ...t.headers, host: t.url.host }
  if (body !== undefined) headers["content-length"] = String(body.byteLength)
  else if (t.method !== "GET" && t.method !== "HEAD") headers["content-length"] = "0"
  return {
    method: t.method,
    host: hostname,
    port: t.url.port === "" ? (isHttps ? 443 : 80) : Number(t.url.port),
    path: `${t.url.pathname}${t.url.search}`,
    headers,
    lookup: pinned,
    agent: false,
    ...(isHttps
      ? { rejectUnauthorized: !t.allowInvalidTls, servername: Net.isIP(hostname) ? undefined : hostname }
      : {})
  }
}

/** Whether the server's certificate validated, and its expiry (for https). */
const tlsInfoOf = (res: Http.IncomingMessage): TlsInfo => {
  const socket = res.socket as TLSSocket
  const cert = socket.getPeerCertificate?.()
  return {
    valid: socket.authorized === true,
    ...(cert?.valid_to ? { validTo: new Date(cert.valid_to).toISOString() } : {}),
    ...(socket.authorized ? {} : { error: String(socket.authorizationError ?? "certificate not validated") })
  }
}

/** The response's headers, a repeated one joined with ", ". */
const headersOf = (incoming: Http.IncomingHttpHeaders): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(incoming)) {
    if (v !== undefined) {
      headers[k] = Array.isArray(v)
        ? v.join(", ")
        : v
    }
  }
  return headers
}

/** node:http(s) with the connection pinned to the checked address (no second DNS lookup). */
export const nodeConnector: OutboundConnector = (t) =>
  Effect.async<ConnectResult, OutboundError>((resume) => {
    const isHttps = t.url.protocol === "https:"
    const fail = (reason: OutboundError["reason"], message: string) =>
      resume(Effect.fail(new OutboundError({ reason, message, url: t.url.toString() })))
    const body = typeof t.body === "string" ? Buffer.from(t.body, "utf8") : t.body
    let done = false
    const req = (isHttps ? Https : Http).request(requestOptionsOf(t, isHttps, body), (res) => {
      const tls = isHttps ? tlsInfoOf(res) : undefined
      const chunks: Array<Buffer> = []
      let size = 0
      let truncated = false
      const finish = () => {
        if (done) return
        done = true
        resume(
          Effect.succeed({
            status: res.statusCode ?? 0,
            headers: headersOf(res.headers),
            body: new Uint8Array(Buffer.concat(chunks)),
            truncated,
            ...(tls ? { tls } : {})
          })
        )
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
