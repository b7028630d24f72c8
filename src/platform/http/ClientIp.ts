/**
 * Who is calling and how, as far as the proxies we trust say: the caller's IP and whether the
 * request came over HTTPS. TRUST_PROXY names how many proxies in front of us append to
 * `X-Forwarded-For` / `X-Forwarded-Proto`; without it the socket is the only truth.
 */
import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"

/**
 * The caller's IP: the socket peer, or — only when TRUST_PROXY names N trusted hops — the N-th
 * address from the right of `X-Forwarded-For` (each trusted proxy appends the peer it saw).
 */
export const clientIpOf = (request: HttpServerRequest.HttpServerRequest, trustProxy: number): string => {
  const socketIp = normalizeIp(Option.getOrElse(request.remoteAddress, () => "unknown"))
  if (trustProxy <= 0) return socketIp
  const xff = request.headers["x-forwarded-for"]
  if (!xff) return socketIp
  const hops = xff.split(",").map((s) => s.trim()).filter((s) => s.length > 0)
  const pick = hops[hops.length - trustProxy] ?? hops[0]
  return pick ? normalizeIp(pick) : socketIp
}

const normalizeIp = (ip: string) => (ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip)

/** Whether the request reached us over HTTPS (directly, or per the nearest trusted proxy). */
export const isHttps = (request: HttpServerRequest.HttpServerRequest, trustProxy: number): boolean => {
  if (request.url.startsWith("https:")) return true
  if (trustProxy <= 0) return false
  const header = request.headers["x-forwarded-proto"]
  if (!header) return false
  const hops = header.split(",").map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0)
  const pick = hops[hops.length - trustProxy] ?? hops[0]
  return pick === "https"
}

/**
 * The host the caller asked for, lower-case, without port or trailing dot: `Host`, or — only when
 * TRUST_PROXY names trusted hops — the nearest trusted proxy's `X-Forwarded-Host`.
 */
export const hostOf = (request: HttpServerRequest.HttpServerRequest, trustProxy: number): string => {
  let raw = request.headers["host"] ?? ""
  const forwarded = trustProxy > 0 ? request.headers["x-forwarded-host"] : undefined
  if (forwarded) {
    const hops = forwarded.split(",").map((s) => s.trim()).filter((s) => s.length > 0)
    raw = hops[hops.length - trustProxy] ?? hops[0] ?? raw
  }
  const host = raw.trim().toLowerCase()
  const bare = host.startsWith("[") ? host : host.replace(/:\d*$/, "")
  return bare.replace(/\.$/, "")
}
