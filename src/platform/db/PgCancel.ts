/**
 * Cancelling the statement of an interrupted fiber (a client hung up, a deadline passed, a
 * shutdown) without taking a pooled connection. The contract: an interrupted fiber gets its
 * connection back in about one round trip, however busy the pool is.
 *
 * Why (issue 30): `@effect/sql-pg` cancels an interrupted statement by running
 * `SELECT pg_cancel_backend(<pid>)` through `pool.query`, i.e. on a second pooled connection, and
 * the interrupted fiber (holding its connection, its transaction and its row locks) waits up to
 * 5 s for it. When every pooled connection is held by such a fiber — 50 clients hanging up at
 * once — the cancels wait for a connection only they can free, so every request of the service
 * stalled for 5 s. `CancellingPool` answers that one query itself: the protocol's CancelRequest
 * (what psql's Ctrl-C sends) on a fresh socket, which takes no connection slot on either side.
 * The cancel lands exactly as `pg_cancel_backend` would (the server signals the same backend);
 * the library then rolls the transaction back on the same connection and releases it.
 *
 * test/platform/db/client-hangup.test.ts fails if the library ever cancels differently (the query
 * is then passed to the pool as before, and the stall comes back).
 */
import pg from "pg"

/** The statement `@effect/sql-pg` (0.53, `makeCancel`) sends to cancel an interrupted one. */
const CANCEL_QUERY = /^SELECT pg_cancel_backend\((\d+)\)$/

/**
 * pg's connection and client as its JS has them: `connect` and `cancel` on the connection, the
 * backend's key (BackendKeyData) on a connected client; its type declarations omit them.
 */
type RawConnection = pg.Connection & {
  connect(portOrSocket: number | string, host?: string): void
  cancel(pid: number, secret: number): void
}
type KeyedClient = pg.Client & { readonly processID?: number | null; readonly secretKey?: number | null }

interface BackendKey {
  readonly host: string
  readonly port: number
  readonly processID: number
  readonly secretKey: number
}

/**
 * Sends a CancelRequest for `key`'s backend; resolves once the server closed the socket (it has
 * signalled the backend by then) or after `timeoutMs` (a server that does not answer).
 */
export const sendCancelRequest = (key: BackendKey, timeoutMs: number): Promise<void> =>
  new Promise((resolve) => {
    const con = new pg.Connection() as RawConnection
    const done = () => {
      clearTimeout(timer)
      con.removeAllListeners()
      con.on("error", () => undefined)
      con.stream.destroy()
      resolve()
    }
    const timer = setTimeout(done, timeoutMs)
    con.once("connect", () => con.cancel(key.processID, key.secretKey))
    con.once("end", done)
    con.once("error", done)
    try {
      if (key.host.startsWith("/")) con.connect(`${key.host}/.s.PGSQL.${key.port}`)
      else con.connect(key.port, key.host)
    } catch {
      done()
    }
  })

/**
 * A `pg.Pool` that cancels over its own socket (see the header). Every other query goes to the
 * pool unchanged.
 */
export const cancellingPool = (cancelTimeoutMs: number) =>
  class CancellingPool extends pg.Pool {
    /** The pool's connected clients by backend pid: the keys a cancel needs. */
    private readonly backends = new Map<number, KeyedClient>()

    constructor(config?: pg.PoolConfig) {
      super(config)
      this.on("connect", (client: KeyedClient) => {
        const pid = client.processID
        if (typeof pid === "number") this.backends.set(pid, client)
      })
      this.on("remove", (client: KeyedClient) => {
        const pid = client.processID
        if (typeof pid === "number" && this.backends.get(pid) === client) this.backends.delete(pid)
      })
    }

    override query(...args: Array<any>): any {
      const match = typeof args[0] === "string" ? CANCEL_QUERY.exec(args[0]) : null
      const callback = args[args.length - 1]
      if (match === null || typeof callback !== "function") return Reflect.apply(super.query, this, args)
      const pid = Number(match[1])
      const client = this.backends.get(pid)
      // A pid the pool no longer holds: its statement ended with its connection, nothing to cancel.
      if (client === undefined || client.secretKey == null) {
        queueMicrotask(() => callback(null, { rows: [] }))
        return undefined
      }
      void sendCancelRequest(
        { host: client.host, port: client.port, processID: pid, secretKey: client.secretKey },
        cancelTimeoutMs
      ).then(() => callback(null, { rows: [] }))
      return undefined
    }
  }
