/**
 * A loopback DNS server speaking the DNS wire protocol over UDP (RFC 1035, via `dns-packet`),
 * answering from a zone table; unknown names are NXDOMAIN, known names without the asked type
 * answer NOERROR with no records (NODATA).
 *
 *   const dns = yield* DnsServer.start({ "example.com": [{ type: "A", data: "93.184.216.34" }] })
 *   // DNS_RESOLVER = `127.0.0.1:${dns.port}`
 */
import * as DnsPacket from "dns-packet"
import { Effect } from "effect"
import * as Dgram from "node:dgram"

export type ZoneRecord = { readonly type: string; readonly data: unknown; readonly ttl?: number }

export const start = (zone: Record<string, ReadonlyArray<ZoneRecord>>) =>
  Effect.acquireRelease(
    Effect.async<{ socket: Dgram.Socket; port: number; queries: Array<string> }>((resume) => {
      const socket = Dgram.createSocket("udp4")
      const queries: Array<string> = []
      socket.on("message", (msg, rinfo) => {
        let query: DnsPacket.Packet
        try {
          query = DnsPacket.decode(msg)
        } catch {
          return
        }
        const q = query.questions?.[0]
        if (!q) return
        const name = q.name.toLowerCase().replace(/\.$/, "")
        queries.push(`${q.type} ${name}`)
        const records = zone[name]
        const answers = (records ?? [])
          .filter((r) => r.type === q.type)
          .map((r) =>
            ({ name: q.name, type: r.type, class: "IN", ttl: r.ttl ?? 300, data: r.data }) as DnsPacket.Answer
          )
        const response = DnsPacket.encode({
          id: query.id,
          type: "response",
          flags: DnsPacket.RECURSION_DESIRED | DnsPacket.RECURSION_AVAILABLE | (records === undefined ? 3 : 0),
          questions: query.questions,
          answers
        })
        socket.send(response, rinfo.port, rinfo.address)
      })
      socket.bind(0, "127.0.0.1", () => resume(Effect.succeed({ socket, port: socket.address().port, queries })))
    }),
    ({ socket }) => Effect.sync(() => socket.close())
  ).pipe(Effect.map(({ port, queries }) => ({ port, address: `127.0.0.1:${port}`, queries })))
