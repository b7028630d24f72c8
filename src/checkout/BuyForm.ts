/**
 * The public buy page's form (`/buy/{domain}[?env=sandbox]`): where it posts, and its CSRF token.
 *
 * The token is `<issue time, base-36 seconds>.<HMAC of environment, domain and issue time>` under
 * a SERVICE_SECRET key of its own: valid for BUY_FORM_TTL_S on that page only (another domain's or
 * the other environment's page's token is refused). The post also passes the same-origin check
 * of every cookie/form post (identity/Session.ts `isSameOriginWrite`).
 */
import { createHmac } from "node:crypto"
import type { PartnerEnvironment } from "../partner/Auth.js"
import { safeEqual } from "../platform/security/Crypto.js"

/** How long a buy page's form may wait before its post (a day: a tab left open still works). */
export const BUY_FORM_TTL_S = 24 * 3600
const MAX_TOKEN_LENGTH = 100

/** The path of the buy page of `domain` in `environment`'s inventory (its form posts to it too). */
export const buyPath = (environment: PartnerEnvironment, domain: string) =>
  `/buy/${encodeURIComponent(domain)}${environment === "sandbox" ? "?env=sandbox" : ""}`

export const makeBuyForm = (key: Buffer) => {
  const mac = (environment: PartnerEnvironment, domain: string, issued: string) =>
    createHmac("sha256", key).update(`${environment}|${domain}|${issued}`).digest("base64url")
  return {
    /** The token of the page shown at `now` (ms). */
    token: (environment: PartnerEnvironment, domain: string, now: number) => {
      const issued = Math.floor(now / 1000).toString(36)
      return `${issued}.${mac(environment, domain, issued)}`
    },
    /** Whether a post's token is this page's, and fresh at `now` (ms); constant-time compare. */
    valid: (token: string | undefined, environment: PartnerEnvironment, domain: string, now: number) => {
      if (token === undefined || token.length > MAX_TOKEN_LENGTH) return false
      const [issued, given, ...rest] = token.split(".")
      if (rest.length > 0 || issued === undefined || given === undefined || !/^[0-9a-z]{1,10}$/.test(issued)) {
        return false
      }
      const age = now / 1000 - parseInt(issued, 36)
      return age >= -60 && age <= BUY_FORM_TTL_S && safeEqual(given, mac(environment, domain, issued))
    }
  }
}
