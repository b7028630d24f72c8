/**
 * A loopback stand-in for Realtime Register's REST API, answering with the JSON shapes of its
 * documentation: `GET /v2/tlds/{tld}/info`, `GET /v2/customers/{c}/pricelist`,
 * `GET /v2/domains/{name}/check`, and the domain operations: `GET /v2/domains/{name}`,
 * `POST /v2/domains/{name}/update|renew|restore` (answering 200, or 202 with a process when
 * `asyncProcesses`, polled at `GET /v2/processes/{id}`), `GET /v2/customers/{c}/contacts/{h}`,
 * and what a delivery needs: the domain's `authcode` in `GET /v2/domains/{name}` (each read is
 * counted), `POST /v2/domains/{name}/push {recipient}` (a write; a name containing `-transferfail`
 * is refused with RTR's 60-day lock error), `GET /v2/domains/{name}/transfer` (`none`; after a push,
 * or once a test sets `transferOut` as the gaining registrar using the auth code would: `pending` on
 * the first poll, then `completed`).
 * Domains are held in memory (`domains`); `anyDomain` makes every name a registered one. Requires `Authorization: ApiKey <key>`; errors use RTR's
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
  /** Registered domains and their state. */
  readonly domains?: Record<string, Partial<RtrDomainState>>
  /** Every name is a registered domain (created on first use). */
  readonly anyDomain?: boolean
  /** Contact handles of the customer. */
  readonly contacts?: ReadonlyArray<string>
  /** Writes answer 202 with a process that completes on its second poll (all, or these domains). */
  readonly asyncProcesses?: boolean | ReadonlyArray<string>
  /** Every write waits this long before answering (the registry round trip). */
  readonly writeDelayMs?: number
}

export interface RtrDomainState {
  status: Array<string>
  ns: Array<string>
  autoRenew: boolean
  registrant: string
  expiryDate: string
  /** In the redemption period (restorable). */
  redemption: boolean
  /** Past the redemption period: restore is refused. */
  pastRestore: boolean
  /** Registry lock: every update is refused. */
  registryLocked: boolean
  /** The EPP authInfo. */
  authcode: string
  /** A transfer out: asked (push or auth code read), and how often its status was polled. */
  transferOut?: { kind: "push" | "auth_code"; recipient?: string; polls: number } | undefined
}

export interface RtrServer {
  readonly url: string
  readonly requests: Array<{ method: string; path: string; authorization: string | undefined }>
  readonly domains: Map<string, RtrDomainState>
  /** Write requests (update/renew/restore/push) per domain. */
  readonly writes: (domain: string) => number
  /** Push requests per domain. */
  readonly pushes: (domain: string) => number
}

const readBody = (req: Http.IncomingMessage) =>
  new Promise<any>((resolve) => {
    let data = ""
    req.on("data", (c) => (data += c))
    req.on("end", () => {
      try {
        resolve(data === "" ? {} : JSON.parse(data))
      } catch {
        resolve(undefined)
      }
    })
  })

const send = (res: Http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(body))
}

/** The account the tests' fakes take (spread into a fixture). */
export const TEST_RTR_ACCOUNT = { apiKey: "rtr-test-key", customer: "test" } as const

/** The service's settings for the fake `rtr` on TEST_RTR_ACCOUNT, the scheduled TLD sync off. */
export const rtrSettings = (rtr: RtrServer) => ({
  RTR_API_URL: rtr.url,
  RTR_API_KEY: TEST_RTR_ACCOUNT.apiKey,
  RTR_CUSTOMER: TEST_RTR_ACCOUNT.customer,
  TLD_SYNC_INTERVAL: "0 seconds"
})

export const startRtrServer = (fixture: RtrFixture) =>
  Effect.acquireRelease(
    Effect.async<{ server: Http.Server; handle: RtrServer }>((resume) => {
      const requests: RtrServer["requests"] = []
      const domains = new Map<string, RtrDomainState>()
      const writeCounts = new Map<string, number>()
      const pushCounts = new Map<string, number>()
      const processes = new Map<number, { polls: number; status: string; message?: string }>()
      let nextProcess = 1
      const fresh = (over: Partial<RtrDomainState> = {}): RtrDomainState => ({
        status: [],
        ns: ["ns1.registrar.test", "ns2.registrar.test"],
        autoRenew: false,
        registrant: "default-handle",
        expiryDate: "2027-06-01T00:00:00.000Z",
        redemption: false,
        pastRestore: false,
        registryLocked: false,
        authcode: `Ac-${Math.random().toString(36).slice(2, 12)}`,
        ...over
      })
      for (const [name, state] of Object.entries(fixture.domains ?? {})) domains.set(name, fresh(state))
      const domainOf = (name: string) => {
        let d = domains.get(name)
        if (d === undefined && fixture.anyDomain) domains.set(name, d = fresh())
        return d
      }
      const view = (name: string, d: RtrDomainState) => ({
        domainName: name,
        status: d.redemption ? [...d.status, "redemptionPeriod"] : d.status,
        autoRenew: d.autoRenew,
        ns: d.ns,
        registrant: d.registrant,
        expiryDate: d.expiryDate
      })
      /** 200 with `body`, or 202 with a process (completes on its second poll). */
      const finishWrite = (
        res: Http.ServerResponse,
        name: string,
        body: unknown,
        failure?: { type: string; message: string }
      ) => {
        const answer = () => {
          if (
            fixture.asyncProcesses === true ||
            (Array.isArray(fixture.asyncProcesses) && fixture.asyncProcesses.includes(name))
          ) {
            const id = nextProcess++
            processes.set(id, {
              polls: 0,
              status: failure ? "FAILED" : "COMPLETED",
              ...(failure ? { message: failure.message } : {})
            })
            return send(res, 202, { process: { id, status: "RUNNING" } })
          }
          return failure ? send(res, 422, failure) : send(res, 200, body)
        }
        if (fixture.writeDelayMs) setTimeout(answer, fixture.writeDelayMs)
        else answer()
      }
      const handleDomainWrite = async (
        req: Http.IncomingMessage,
        res: Http.ServerResponse,
        name: string,
        action: string
      ) => {
        const body = await readBody(req)
        const d = domainOf(name)
        if (d === undefined) {
          return send(res, 404, { type: "EntityNotFound", message: `Entity not found: domain ${name}` })
        }
        if (body === undefined) {
          return send(res, 400, { type: "ValidationError", message: "Invalid JSON" })
        }
        writeCounts.set(name, (writeCounts.get(name) ?? 0) + 1)
        if (action === "push") {
          pushCounts.set(name, (pushCounts.get(name) ?? 0) + 1)
          if (name.includes("-transferfail")) {
            return finishWrite(res, name, {}, {
              type: "ObjectStatusProhibitsOperation",
              message: "Transfer prohibited: the domain was registered or transferred less than 60 days ago"
            })
          }
          d.transferOut = { kind: "push", recipient: String(body.recipient ?? ""), polls: 0 }
          return finishWrite(res, name, {})
        }
        if (action === "update") {
          if (d.registryLocked) {
            return finishWrite(res, name, {}, {
              type: "ObjectStatusProhibitsOperation",
              message: "The domain is locked at the registry (serverUpdateProhibited)"
            })
          }
          if (Array.isArray(body.status)) d.status = body.status
          if (Array.isArray(body.ns)) d.ns = body.ns
          if (typeof body.registrant === "string") d.registrant = body.registrant
          if (typeof body.autoRenew === "boolean") d.autoRenew = body.autoRenew
          return finishWrite(res, name, {})
        }
        if (action === "renew") {
          const months = Number(body.period ?? 12)
          const next = new Date(d.expiryDate)
          next.setUTCMonth(next.getUTCMonth() + months)
          d.expiryDate = next.toISOString()
          return finishWrite(res, name, { domainName: name, expiryDate: d.expiryDate })
        }
        // restore
        if (d.pastRestore) {
          return finishWrite(res, name, {}, {
            type: "ObjectStatusProhibitsOperation",
            message: "The domain is past its redemption period and cannot be restored"
          })
        }
        d.redemption = false
        return finishWrite(res, name, { domainName: name, expiryDate: d.expiryDate })
      }
      const server = Http.createServer((req, res) => {
        const path = new URL(req.url ?? "/", "http://x").pathname
        requests.push({ method: req.method ?? "GET", path, authorization: req.headers.authorization })
        if (req.headers.authorization !== `ApiKey ${fixture.apiKey}`) {
          return send(res, 401, { type: "AuthenticationFailure", message: "Authentication failed" })
        }
        const retryAfter = fixture.rateLimited?.[path]
        if (retryAfter !== undefined) {
          return send(res, 429, { type: "RateLimitExceeded", message: "Too many requests" }, {
            "retry-after": String(retryAfter)
          })
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
        m = /^\/v2\/domains\/([^/]+)\/transfer$/.exec(path)
        if (m && req.method === "GET") {
          const d = domainOf(decodeURIComponent(m[1]))
          if (d === undefined) return send(res, 404, { type: "EntityNotFound", message: "Entity not found" })
          if (d.transferOut === undefined) return send(res, 200, { status: "none" })
          d.transferOut.polls++
          return send(res, 200, { status: d.transferOut.polls < 2 ? "pending" : "completed" })
        }
        m = /^\/v2\/domains\/([^/]+)\/(update|renew|restore|push)$/.exec(path)
        if (m && req.method === "POST") return void handleDomainWrite(req, res, decodeURIComponent(m[1]), m[2])
        m = /^\/v2\/domains\/([^/]+)$/.exec(path)
        if (m && req.method === "GET") {
          const name = decodeURIComponent(m[1])
          const d = domainOf(name)
          return d
            ? send(res, 200, { ...view(name, d), authcode: d.authcode })
            : send(res, 404, { type: "EntityNotFound", message: `Entity not found: domain ${name}` })
        }
        m = /^\/v2\/processes\/(\d+)$/.exec(path)
        if (m) {
          const p = processes.get(Number(m[1]))
          if (!p) return send(res, 404, { type: "EntityNotFound", message: "No such process" })
          p.polls++
          return send(res, 200, {
            id: Number(m[1]),
            status: p.polls < 2 ? "RUNNING" : p.status,
            ...(p.polls >= 2 && p.message ? { message: p.message } : {})
          })
        }
        m = /^\/v2\/customers\/([^/]+)\/contacts\/([^/]+)$/.exec(path)
        if (m) {
          const handle = decodeURIComponent(m[2])
          return (fixture.contacts ?? []).includes(handle)
            ? send(res, 200, { handle, name: "Contact" })
            : send(res, 404, { type: "EntityNotFound", message: `Entity not found: contact ${handle}` })
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
        resume(Effect.succeed({
          server,
          handle: {
            url: `http://127.0.0.1:${port}`,
            requests,
            domains,
            writes: (domain: string) => writeCounts.get(domain) ?? 0,
            pushes: (domain: string) => pushCounts.get(domain) ?? 0
          }
        }))
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
