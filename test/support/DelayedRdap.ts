/**
 * A loopback RDAP service for availability tests: one HTTP server speaking RFC 9082/9083 (a
 * domain object for registered names, 404 for the rest) behind an IANA-format bootstrap
 * (`/dns.json`), with a per-TLD answer delay, and TLDs pointed at a closed port (unreachable).
 *
 * Every request is recorded with what became of it: answered, or abandoned by the client before
 * the answer (the connection closed while the delay ran) — which is how a test sees upstream
 * work being cancelled.
 */
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo, Socket } from "node:net"

export interface TldBehaviour {
  /** Milliseconds before answering. */
  readonly delayMs?: number
  /** Registered names under this TLD (A-labels); the rest answer 404. */
  readonly registered?: ReadonlyArray<string>
  /** Bootstrap points the TLD at a closed port: connections are refused. */
  readonly unreachable?: boolean
}

export interface RdapRequest {
  readonly path: string
  readonly domain: string
  readonly tld: string
  readonly at: number
  state: "pending" | "answered" | "abandoned"
}

export interface DelayedRdapShape {
  readonly url: string
  readonly bootstrapUrl: string
  readonly requests: Array<RdapRequest>
  /** Domain lookups only (bootstrap fetches excluded). */
  readonly lookups: () => ReadonlyArray<RdapRequest>
  /** Change a TLD's behaviour while running. */
  readonly set: (tld: string, behaviour: TldBehaviour) => void
}

const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = Http.createServer()
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port
      s.close(() => resolve(port))
    })
  })

/** An RFC 9083 domain object with the fields the service maps. */
export const registeredObject = (domain: string) => ({
  objectClassName: "domain",
  rdapConformance: ["rdap_level_0"],
  handle: `${domain.toUpperCase()}-LOOPBACK`,
  ldhName: domain.toUpperCase(),
  status: ["client transfer prohibited", "client delete prohibited"],
  events: [
    { eventAction: "registration", eventDate: "2001-02-03T04:05:06Z" },
    { eventAction: "expiration", eventDate: "2031-02-03T04:05:06Z" },
    { eventAction: "last changed", eventDate: "2025-01-01T00:00:00Z" }
  ],
  entities: [{
    objectClassName: "entity",
    roles: ["registrar"],
    vcardArray: ["vcard", [["version", {}, "text", "4.0"], ["fn", {}, "text", "Loopback Registrar Inc."]]]
  }],
  nameservers: [{ objectClassName: "nameserver", ldhName: "NS1.LOOPBACK.TEST" }]
})

export const start = (tlds: Record<string, TldBehaviour>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const behaviours = new Map(Object.entries(tlds))
      const requests: Array<RdapRequest> = []
      const sockets = new Set<Socket>()
      const timers = new Set<NodeJS.Timeout>()
      const dead = await closedPort()
      let base = ""
      const server = Http.createServer((req, res) => {
        const path = (req.url ?? "/").split("?")[0]
        if (path === "/dns.json") {
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify({
            description: "loopback bootstrap",
            publication: "2026-01-01T00:00:00Z",
            version: "1.0",
            services: [...behaviours.entries()].map(([tld, b]) => [
              [tld],
              [b.unreachable ? `http://127.0.0.1:${dead}/${tld}/` : `${base}/${tld}/`]
            ])
          }))
          return
        }
        const m = /^\/([^/]+)\/domain\/([^/]+)$/.exec(path)
        const tld = m?.[1] ?? ""
        const domain = decodeURIComponent(m?.[2] ?? "").toLowerCase()
        const entry: RdapRequest = { path, domain, tld, at: Date.now(), state: "pending" }
        requests.push(entry)
        const b = behaviours.get(tld) ?? {}
        res.on("close", () => {
          if (!res.writableEnded) entry.state = "abandoned"
        })
        const answer = () => {
          if (entry.state === "abandoned" || res.destroyed) return
          entry.state = "answered"
          if (m && (b.registered ?? []).includes(domain)) {
            res.writeHead(200, { "content-type": "application/rdap+json" })
            res.end(JSON.stringify(registeredObject(domain)))
          } else {
            res.writeHead(404, { "content-type": "application/rdap+json" })
            res.end(
              JSON.stringify({ errorCode: 404, title: "Not Found", description: [`${domain} is not registered`] })
            )
          }
        }
        const delay = b.delayMs ?? 0
        if (delay <= 0) return answer()
        const t = setTimeout(() => {
          timers.delete(t)
          answer()
        }, delay)
        timers.add(t)
      })
      server.on("connection", (s) => {
        sockets.add(s)
        s.on("close", () => sockets.delete(s))
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const shape: DelayedRdapShape = {
        url: base,
        bootstrapUrl: `${base}/dns.json`,
        requests,
        lookups: () => requests.filter((r) => r.path !== "/dns.json"),
        set: (tld, behaviour) => void behaviours.set(tld, behaviour)
      }
      return { server, sockets, timers, shape }
    }),
    ({ server, sockets, timers }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          for (const t of timers) clearTimeout(t)
          for (const s of sockets) s.destroy()
          server.close(() => resolve())
        })
      )
  ).pipe(Effect.map((s) => s.shape))
