/**
 * A loopback TCP proxy whose behaviour the test switches at will, to put the service in front of
 * a database outage:
 *
 * - `forward()`: every byte goes through (the normal state);
 * - `refuse()`: the port is closed and every open connection is cut (a database that is down:
 *   ECONNREFUSED);
 * - `blackhole()`: connections are still accepted but nothing passes either way, and open
 *   connections go silent (a database that stops answering: only time limits get out of it).
 *
 * Switching back to `forward()` cuts the connections that were silenced (as a real outage leaves
 * them) and forwards new ones again, on the same port.
 */
import { Effect } from "effect"
import * as Net from "node:net"
import { freePort } from "./FreePort.js"

export type ProxyMode = "forward" | "refuse" | "blackhole"

export interface TcpProxy {
  readonly port: number
  readonly mode: () => ProxyMode
  readonly forward: () => Effect.Effect<void>
  readonly refuse: () => Effect.Effect<void>
  readonly blackhole: () => Effect.Effect<void>
  /**
   * Once a connection sends a chunk containing `text` (e.g. a table name in a statement), that
   * chunk is delivered and everything the connection sends afterwards is swallowed: the process
   * behind it is frozen right after that statement, e.g. to crash it there.
   */
  readonly holdAfter: (text: string) => void
}

interface Pair {
  readonly client: Net.Socket
  upstream: Net.Socket | undefined
  silenced: boolean
  held: boolean
}

export const startTcpProxy = (upstreamHost: string, upstreamPort: number) =>
  Effect.gen(function*() {
    let mode: ProxyMode = "forward"
    let holdText: string | undefined
    const pairs = new Set<Pair>()

    const destroy = (pair: Pair) => {
      pair.client.destroy()
      pair.upstream?.destroy()
      pairs.delete(pair)
    }

    const onConnection = (client: Net.Socket) => {
      const pair: Pair = { client, upstream: undefined, silenced: mode === "blackhole", held: false }
      pairs.add(pair)
      client.on("error", () => destroy(pair)).on("close", () => destroy(pair))
      if (pair.silenced) {
        client.on("data", () => undefined) // swallowed
        return
      }
      const upstream = Net.connect(upstreamPort, upstreamHost)
      pair.upstream = upstream
      client.on("data", (chunk: Buffer) => {
        if (pair.silenced || pair.held) return
        upstream.write(chunk)
        if (holdText !== undefined && chunk.includes(holdText)) pair.held = true
      })
      upstream.on("data", (chunk) => {
        if (!pair.silenced) client.write(chunk)
      })
      upstream.on("error", () => destroy(pair)).on("close", () => destroy(pair))
    }

    let server = Net.createServer(onConnection)
    const listen = (port: number) =>
      Effect.async<number, Error>((resume) => {
        server.once("error", (e) => resume(Effect.fail(e)))
        server.listen(port, "127.0.0.1", () => resume(Effect.succeed((server.address() as Net.AddressInfo).port)))
      })
    const closeServer = Effect.async<void>((resume) => {
      if (!server.listening) return resume(Effect.void)
      server.close(() => resume(Effect.void))
    })

    // Outside the ephemeral range (see freePort): `refuse` closes the port and `forward` binds it
    // again, and a closed ephemeral port may meanwhile go to another test's `listen(0)`.
    const port = yield* Effect.flatMap(freePort(), listen).pipe(Effect.retry({ times: 5 }), Effect.orDie)
    yield* Effect.addFinalizer(() => Effect.zipRight(Effect.sync(() => [...pairs].forEach(destroy)), closeServer))

    const proxy: TcpProxy = {
      port,
      holdAfter: (text) => {
        holdText = text
      },
      mode: () => mode,
      forward: () =>
        Effect.gen(function*() {
          const previous = mode
          mode = "forward"
          for (const pair of [...pairs]) if (pair.silenced) destroy(pair)
          if (previous === "refuse") {
            server = Net.createServer(onConnection)
            yield* Effect.orDie(listen(port))
          }
        }),
      refuse: () =>
        Effect.gen(function*() {
          if (mode === "refuse") return
          mode = "refuse"
          for (const pair of [...pairs]) destroy(pair)
          yield* closeServer
        }),
      blackhole: () =>
        Effect.gen(function*() {
          if (mode === "refuse") {
            server = Net.createServer(onConnection)
            yield* Effect.orDie(listen(port))
          }
          mode = "blackhole"
          for (const pair of pairs) pair.silenced = true
        })
    }
    return proxy
  })
