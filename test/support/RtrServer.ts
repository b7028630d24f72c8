/**
 * A loopback stand-in for Realtime Register's REST API, answering with the JSON shapes of its
 * documentation: `GET /v2/tlds/{tld}/info`, `GET /v2/customers/{c}/pricelist`,
 * `GET /v2/domains/{name}/check`. Requires `Authorization: ApiKey <key>`; errors use RTR's
 * `{"type": "...", "message": "..."}` body. Every request is recorded.
 */
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface RtrFixture {
  readonly apiKey: string
  readonly customer: string
  /** tld → TldInfo JSON as RTR sends it. */
  readonly tlds: Record<string, unknown>
  readonly prices?: ReadonlyArray<{ product: string; action: string; currency: string; price: number }>
  readonly checks?: Record<string, unknown>
  /** Paths answered with 429 and this Retry-After. */
  readonly rateLimited?: Record<string, number>
  /** Paths answered with 500. */
  readonly broken?: ReadonlyArray<string>
}

export interface RtrServer {
  readonly url: string
  readonly requests: Array<{ method: string; path: string; authorization: string | undefined }>
}

const send = (res: Http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(body))
}

export const startRtrServer = (fixture: RtrFixture) =>
  Effect.acquireRelease(
    Effect.async<{ server: Http.Server; handle: RtrServer }>((resume) => {
      const requests: RtrServer["requests"] = []
      const server = Http.createServer((req, res) => {
        const path = new URL(req.url ?? "/", "http://x").pathname
        requests.push({ method: req.method ?? "GET", path, authorization: req.headers.authorization })
        if (req.headers.authorization !== `ApiKey ${fixture.apiKey}`) {
          return send(res, 401, { type: "AuthenticationFailure", message: "Authentication failed" })
        }
        const retryAfter = fixture.rateLimited?.[path]
        if (retryAfter !== undefined) {
          return send(res, 429, { type: "RateLimitExceeded", message: "Too many requests" }, { "retry-after": String(retryAfter) })
        }
        if (fixture.broken?.includes(path)) return send(res, 500, { type: "InternalError", message: "Something broke" })
        let m = /^\/v2\/tlds\/([^/]+)\/info$/.exec(path)
        if (m) {
          const info = fixture.tlds[decodeURIComponent(m[1])]
          return info
            ? send(res, 200, info)
            : send(res, 404, { type: "EntityNotFound", message: `Entity not found: tld ${m[1]}` })
        }
        m = /^\/v2\/customers\/([^/]+)\/pricelist$/.exec(path)
        if (m) {
          return m[1] === fixture.customer
            ? send(res, 200, { prices: fixture.prices ?? [], priceChanges: [], promos: [] })
            : send(res, 403, { type: "AuthorizationFailure", message: "Not your customer" })
        }
        m = /^\/v2\/domains\/([^/]+)\/check$/.exec(path)
        if (m) {
          const check = fixture.checks?.[decodeURIComponent(m[1])]
          return check ? send(res, 200, check) : send(res, 200, { available: true })
        }
        send(res, 404, { type: "NotFound", message: "No such endpoint" })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, handle: { url: `http://127.0.0.1:${port}`, requests } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ handle }) => handle))

/** A TLD info answer in Realtime Register's documented shape (the fields we map and a few more). */
export const rtrTldInfo = (overrides: {
  provider?: string
  applicableFor: Array<string>
  metadata?: Record<string, unknown>
}) => ({
  hash: "0f3c",
  provider: overrides.provider ?? "TestRegistry",
  applicableFor: overrides.applicableFor,
  metadata: {
    createDomainPeriods: [12, 24, 36],
    renewDomainPeriods: [12, 24, 36],
    autoRenewDomainPeriods: [12],
    transferDomainPeriods: [12],
    redemptionPeriod: 30,
    pendingDeletePeriod: 5,
    addGracePeriod: 5,
    renewGracePeriod: 5,
    autoRenewGracePeriod: 45,
    transferGracePeriod: 5,
    expiryDateOffset: 0,
    transferFOA: false,
    adjustableAuthCode: true,
    customAuthcodeSupport: true,
    transferSupportsAuthcode: true,
    transferRequiresAuthcode: true,
    creationRequiresPreValidation: false,
    zoneCheck: null,
    possibleClientDomainStatuses: ["clientHold", "clientTransferProhibited"],
    allowedDnssecRecords: 4,
    allowedDnssecAlgorithms: [8, 13],
    validationCategory: "general",
    featuresAvailable: ["CREATE", "RENEW", "TRANSFER", "UPDATE", "DELETE", "RESTORE"],
    registrantChangeApprovalRequired: false,
    premiumSupport: "REGULAR",
    domainSyntax: { minLength: 1, maxLength: 63, idnSupport: true, idnType: "UTS46_2003" },
    nameservers: { min: 2, max: 13, required: true },
    registrant: { organizationRequired: false, organizationAllowed: true, allowedCountries: [] },
    adminContacts: { min: 1, max: 1, required: true, organizationRequired: false, organizationAllowed: true },
    ...overrides.metadata
  }
})
