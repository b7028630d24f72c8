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
 * - `OUTBOUND_ALLOW_LOOPBACK=true` (tests only; refused in production) lets 127.0.0.1/::1 through.
 * The resolver and connector are injectable so tests prove refusals without any connection.
 */
import { Context, Data, type Effect } from "effect"

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
