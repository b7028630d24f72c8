/**
 * A loopback RDAP server speaking HTTP with RFC 9083 JSON: registry and registrar answers,
 * 404s, 429s with Retry-After, redirects and a hang. Also serves an IANA-format bootstrap file
 * (`/dns.json`) mapping TLDs to base paths of this server.
 *
 *   const rdap = yield* RdapServer.start({ tlds: { com: "/registry/", net: "/hang/" } })
 *   rdap.answer("/registry/domain/example.com", { status: 200, json: domainObject(...) })
 */
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface Answer {
  readonly status?: number
  readonly json?: unknown
  readonly body?: string
  readonly headers?: Record<string, string>
  /** Never answer (the connection stays open until the server closes). */
  readonly hang?: boolean
}

export interface RdapServerShape {
  readonly url: string
  readonly bootstrapUrl: string
  /** Paths requested so far, in order, with their Accept header. */
  readonly requests: Array<{ path: string; accept: string | undefined }>
  readonly answer: (path: string, answer: Answer | ((n: number) => Answer)) => void
}

export const start = (options: { readonly tlds: Record<string, string> }) =>
  Effect.acquireRelease(
    Effect.async<{ server: Http.Server; shape: RdapServerShape; sockets: Set<import("node:net").Socket> }>((resume) => {
      const routes = new Map<string, Answer | ((n: number) => Answer)>()
      const counts = new Map<string, number>()
      const requests: RdapServerShape["requests"] = []
      const sockets = new Set<import("node:net").Socket>()
      let base = ""
      const server = Http.createServer((req, res) => {
        const path = (req.url ?? "/").split("?")[0]
        requests.push({ path, accept: req.headers.accept })
        if (path === "/dns.json") {
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify({
            description: "test bootstrap",
            publication: "2026-01-01T00:00:00Z",
            version: "1.0",
            services: Object.entries(options.tlds).map(([tld, p]) => [[tld], [`${base}${p}`]])
          }))
          return
        }
        const route = routes.get(path)
        const n = (counts.get(path) ?? 0) + 1
        counts.set(path, n)
        const a: Answer = route === undefined
          ? { status: 404, json: { errorCode: 404, title: "Not Found" } }
          : typeof route === "function"
          ? route(n)
          : route
        if (a.hang) return
        const body = a.json !== undefined ? JSON.stringify(a.json) : a.body ?? ""
        res.writeHead(a.status ?? 200, { "content-type": "application/rdap+json", ...a.headers })
        res.end(body)
      })
      server.on("connection", (s) => {
        sockets.add(s)
        s.on("close", () => sockets.delete(s))
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        base = `http://127.0.0.1:${port}`
        resume(Effect.succeed({
          server,
          sockets,
          shape: {
            url: base,
            bootstrapUrl: `${base}/dns.json`,
            requests,
            answer: (path, a) => routes.set(path, a)
          }
        }))
      })
    }),
    ({ server, sockets }) =>
      Effect.async<void>((resume) => {
        for (const s of sockets) s.destroy()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((s) => s.shape))

// --- RFC 9083 object builders --------------------------------------------------------------------

const vcard = (props: Array<[string, string]>) => [
  "vcard",
  [["version", {}, "text", "4.0"], ...props.map(([name, value]) => [name, {}, "text", value])]
]

export interface DomainObjectOptions {
  readonly registrar?: string
  readonly registrant?: { readonly fn?: string; readonly org?: string; readonly email?: string }
  readonly redactedRegistrant?: boolean
  readonly abuseEmail?: string
  readonly status?: ReadonlyArray<string>
  readonly nameservers?: ReadonlyArray<string>
  readonly created?: string
  readonly expires?: string
  readonly changed?: string
  readonly related?: string
}

export const domainObject = (ldhName: string, o: DomainObjectOptions = {}) => ({
  objectClassName: "domain",
  rdapConformance: ["rdap_level_0", "icann_rdap_response_profile_1", ...(o.redactedRegistrant ? ["redacted"] : [])],
  handle: `${ldhName.toUpperCase()}-TEST`,
  ldhName: ldhName.toUpperCase(),
  status: o.status ?? ["client transfer prohibited"],
  events: [
    ...(o.created ? [{ eventAction: "registration", eventDate: o.created }] : []),
    ...(o.expires ? [{ eventAction: "expiration", eventDate: o.expires }] : []),
    ...(o.changed ? [{ eventAction: "last changed", eventDate: o.changed }] : []),
    { eventAction: "last update of RDAP database", eventDate: "2026-01-01T00:00:00Z" }
  ],
  nameservers: (o.nameservers ?? []).map((ns) => ({ objectClassName: "nameserver", ldhName: ns.toUpperCase() })),
  entities: [
    ...(o.registrar
      ? [{
        objectClassName: "entity",
        roles: ["registrar"],
        handle: "9999",
        publicIds: [{ type: "IANA Registrar ID", identifier: "9999" }],
        vcardArray: vcard([["fn", o.registrar]]),
        entities: o.abuseEmail
          ? [{ objectClassName: "entity", roles: ["abuse"], vcardArray: vcard([["fn", ""], ["email", o.abuseEmail]]) }]
          : []
      }]
      : []),
    ...(o.registrant
      ? [{
        objectClassName: "entity",
        roles: ["registrant"],
        vcardArray: vcard([
          ["fn", o.registrant.fn ?? ""],
          ...(o.registrant.org ? [["org", o.registrant.org] as [string, string]] : []),
          ...(o.registrant.email ? [["email", o.registrant.email] as [string, string]] : [])
        ])
      }]
      : [])
  ],
  ...(o.redactedRegistrant
    ? {
      redacted: [{
        name: { type: "Registrant Name" },
        prePath: "$.entities[?(@.roles[0]=='registrant')].vcardArray[1][?(@[0]=='fn')][3]",
        method: "emptyValue",
        reason: { type: "Server policy" }
      }]
    }
    : {}),
  links: [
    {
      value: `https://rdap.example/domain/${ldhName}`,
      rel: "self",
      href: `https://rdap.example/domain/${ldhName}`,
      type: "application/rdap+json"
    },
    ...(o.related ? [{ value: o.related, rel: "related", href: o.related, type: "application/rdap+json" }] : [])
  ]
})
