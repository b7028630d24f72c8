import { Effect } from "effect"
import * as Net from "node:net"

/**
 * A loopback port that is free now, for a process that binds it later. It is drawn from below the
 * kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range, 32768–60999 here): a port the
 * kernel hands to some other test's `listen(0)` in the seconds before the child binds would send
 * this test's requests to that server (once seen as a 404 from a foreign in-memory server).
 */
export const freePort = (): Effect.Effect<number> =>
  Effect.async<number | undefined>((resume) => {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    const srv = Net.createServer()
    srv.once("error", () => resume(Effect.succeed(undefined)))
    srv.listen(port, "127.0.0.1", () => srv.close(() => resume(Effect.succeed(port))))
  }).pipe(
    Effect.flatMap((port) => port === undefined ? freePort() : Effect.succeed(port))
  )
