/**
 * A loopback TCP proxy that can hold traffic back: put it between the service and its database
 * to keep a request in flight for as long as a test needs.
 */
import { Effect } from "effect"
import * as Net from "node:net"

export interface SlowProxy {
  readonly port: number
  /** Delay applied to every chunk sent towards the upstream, in ms (0 = none). */
  setDelay(ms: number): void
}

export const startSlowProxy = (upstreamHost: string, upstreamPort: number) =>
  Effect.acquireRelease(
    Effect.async<{ server: Net.Server; sockets: Set<Net.Socket>; proxy: SlowProxy }>((resume) => {
      let delay = 0
      const sockets = new Set<Net.Socket>()
      const server = Net.createServer((client) => {
        const upstream = Net.connect(upstreamPort, upstreamHost)
        sockets.add(client).add(upstream)
        client.on("data", (chunk) => {
          if (delay === 0) upstream.write(chunk)
          else setTimeout(() => upstream.write(chunk), delay)
        })
        upstream.on("data", (chunk) => client.write(chunk))
        const close = () => {
          client.destroy()
          upstream.destroy()
        }
        client.on("close", close).on("error", close)
        upstream.on("close", close).on("error", close)
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as Net.AddressInfo).port
        resume(Effect.succeed({ server, sockets, proxy: { port, setDelay: (ms) => (delay = ms) } }))
      })
    }),
    ({ server, sockets }) =>
      Effect.async<void>((resume) => {
        for (const s of sockets) s.destroy()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ proxy }) => proxy))
