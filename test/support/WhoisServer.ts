/**
 * Loopback WHOIS servers speaking RFC 3912 on one port (the service uses WHOIS_PORT for every
 * connection): one TCP listener per loopback address, so 127.0.0.1 can play IANA, 127.0.0.2 the
 * registry and 127.0.0.3 the registrar, each with its own answers.
 *
 *   const whois = yield* WhoisServer.start({
 *     "127.0.0.1": (q) => `refer: 127.0.0.2\n`,
 *     "127.0.0.2": (q) => q === "example.com" ? registryText : `No match for "${q.toUpperCase()}".\n`
 *   })
 */
import { Effect } from "effect"
import * as Net from "node:net"

/** The query line without CRLF → the answer text, or `hang` (never answer, keep the socket open). */
export type WhoisHandler = (query: string) => string | { readonly hang: true }

export interface WhoisServerShape {
  readonly port: number
  /** `address query` per connection, in order. */
  readonly queries: Array<string>
}

export const start = (handlers: Record<string, WhoisHandler>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const queries: Array<string> = []
      const sockets = new Set<Net.Socket>()
      const servers: Array<Net.Server> = []
      const listen = (address: string, handler: WhoisHandler, port: number) =>
        new Promise<number>((resolve, reject) => {
          const server = Net.createServer((socket) => {
            sockets.add(socket)
            socket.on("close", () => sockets.delete(socket))
            socket.on("error", () => {})
            let buffer = ""
            socket.on("data", (chunk) => {
              buffer += chunk.toString("utf8")
              const end = buffer.indexOf("\r\n")
              if (end === -1) return
              const query = buffer.slice(0, end)
              queries.push(`${address} ${query}`)
              const answer = handler(query)
              if (typeof answer !== "string") return
              socket.end(answer.replace(/\r?\n/g, "\r\n"))
            })
          })
          server.once("error", reject)
          server.listen(port, address, () => resolve((server.address() as Net.AddressInfo).port))
          servers.push(server)
        })
      const entries = Object.entries(handlers)
      const port = await listen(entries[0][0], entries[0][1], 0)
      for (const [address, handler] of entries.slice(1)) await listen(address, handler, port)
      return { port, queries, sockets, servers }
    }),
    ({ servers, sockets }) =>
      Effect.promise(async () => {
        for (const s of sockets) s.destroy()
        await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))))
      })
  ).pipe(Effect.map(({ port, queries }): WhoisServerShape => ({ port, queries })))

// --- Answer texts in the shapes real servers use ------------------------------------------------

export const ianaReferral = (tld: string, registry: string) =>
  `% IANA WHOIS server
% for more information on IANA, visit http://www.iana.org
% This query returned 1 object

refer:        ${registry}

domain:       ${tld.toUpperCase()}

organisation: Test Registry Services
status:       ACTIVE
remarks:      Registration information: http://www.example-registry.test

created:      1985-01-01
changed:      2023-12-07
source:       IANA
`

/** A thin (Verisign-style) registry answer pointing at the registrar's WHOIS server. */
export const thinRegistry = (domain: string, registrarServer: string) =>
  `   Domain Name: ${domain.toUpperCase()}
   Registry Domain ID: 2336799_DOMAIN_COM-VRSN
   Registrar WHOIS Server: ${registrarServer}
   Registrar URL: http://www.registrar.test
   Updated Date: 2024-08-14T07:01:34Z
   Creation Date: 1995-08-14T04:00:00Z
   Registry Expiry Date: 2030-08-13T04:00:00Z
   Registrar: Example Registrar, Inc.
   Registrar IANA ID: 9999
   Registrar Abuse Contact Email: abuse@registrar.test
   Registrar Abuse Contact Phone: +1.5555551234
   Domain Status: clientDeleteProhibited https://icann.org/epp#clientDeleteProhibited
   Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited
   Name Server: NS1.EXAMPLE.NET
   Name Server: NS2.EXAMPLE.NET
   DNSSEC: unsigned
   URL of the ICANN Whois Inaccuracy Complaint Form: https://www.icann.org/wicf/
>>> Last update of whois database: 2026-01-01T00:00:00Z <<<

NOTICE: The expiration date displayed in this record is the date the
registrar's sponsorship of the domain name registration in the registry is
currently set to expire.
`

export const registrarRecord = (domain: string) =>
  `Domain Name: ${domain}
Registrar WHOIS Server: whois.registrar.test
Creation Date: 1995-08-14T04:00:00Z
Registrar: Example Registrar, Inc.
Registrant Name: REDACTED FOR PRIVACY
Registrant Organization: Example Holdings
Registrant Email: Please query the RDDS service of the Registrar of Record
Admin Email: hostmaster@${domain}
Tech Email: tech@${domain}
Name Server: ns1.example.net
>>> Last update of WHOIS database: 2026-01-01T00:00:00Z <<<
`

export const noMatch = (domain: string) =>
  `No match for "${domain.toUpperCase()}".
>>> Last update of whois database: 2026-01-01T00:00:00Z <<<
`
