/**
 * One process owns an embedded DATA_DIR.
 *
 * Two processes opening the same PGlite directory each get a private copy of the database in
 * memory: the second one's writes are silently lost (the CLI printed a partner key the running
 * service never saw). So the process that opens the embedded database holds the directory's lock.
 *
 * The lock is a Unix socket the holder listens on, `DATA_DIR/embedded.sock`: the kernel closes it
 * when the holder dies, however it dies (kill -9, OOM), so liveness is never guessed from a pid. A
 * recorded pid proved nothing: a zombie answers `kill(pid, 0)`, pids are reused, and in a
 * container node gets the same pid on every start, so a `kill -9` left a lock that looked held
 * for ever. Binding a socket path is atomic (EADDRINUSE when it exists); a socket file nobody
 * listens on (ECONNREFUSED) is a dead holder's, removed under a short-lived takeover guard so two
 * takers cannot remove each other's fresh socket.
 *
 * Whoever connects reads the owner's record, `{"pid":1234,"host":"127.0.0.1","port":54321,"since":"…"}`
 * (host and port null until the database serves its socket); `DATA_DIR/embedded.lock` holds a copy
 * for operators and tests, never consulted for liveness.
 *
 * - `hold`: takes the lock for the scope, or fails with `DataDirBusy` naming the live owner.
 * - `publish`: records the socket the database is served on, once it is.
 * - `ownerOf`: for a second process (the CLI): the live owner, so it joins the owner's database.
 */
import { Data, Effect } from "effect"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"

export interface LockOwner {
  readonly pid: number
  readonly host: string | null
  readonly port: number | null
  readonly since: string
}

export class DataDirBusy extends Data.TaggedError("DataDirBusy")<{
  readonly dataDir: string
  readonly owner: LockOwner
  readonly message: string
}> {}

/** The informational copy of the owner's record. */
export const lockFileOf = (dataDir: string) => Path.resolve(dataDir, "embedded.lock")

/** Unix socket paths are limited to ~104 bytes: a long DATA_DIR gets its socket in the temp dir. */
export const socketPathOf = (dataDir: string) => {
  const inDir = Path.resolve(dataDir, "embedded.sock")
  if (Buffer.byteLength(inDir) <= 100) return inDir
  const real = Fs.realpathSync(Path.resolve(dataDir))
  return Path.join(Os.tmpdir(), `marketplace-${createHash("sha256").update(real).digest("hex").slice(0, 16)}.sock`)
}

/** A takeover guard older than this belongs to a taker that died in the few milliseconds it needs. */
const GUARD_STALE_MS = 5_000
const PROBE_TIMEOUT_MS = 1_000

const parseOwner = (text: string): LockOwner | undefined => {
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>
    if (typeof parsed.pid !== "number") return undefined
    return {
      pid: parsed.pid,
      host: typeof parsed.host === "string" ? parsed.host : null,
      port: typeof parsed.port === "number" ? parsed.port : null,
      since: typeof parsed.since === "string" ? parsed.since : ""
    }
  } catch {
    return undefined
  }
}

const readLockFile = (dataDir: string) => {
  try {
    return parseOwner(Fs.readFileSync(lockFileOf(dataDir), "utf8"))
  } catch {
    return undefined
  }
}

type Probe =
  | { readonly _tag: "Live"; readonly owner: LockOwner | undefined }
  | { readonly _tag: "Stale" }
  | { readonly _tag: "Absent" }

/** Connects to the lock socket: a listener is a live holder, which answers with its record. */
const probe = (socketPath: string) =>
  new Promise<Probe>((resolve) => {
    let text = ""
    let connected = false
    const socket = Net.connect(socketPath)
    const done = (result: Probe) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(result)
    }
    // A holder that is alive but stopped (SIGSTOP, a debugger) accepts the connection and never
    // answers: still live.
    const timer = setTimeout(() => done({ _tag: "Live", owner: undefined }), PROBE_TIMEOUT_MS)
    socket.setEncoding("utf8")
    socket.on("connect", () => (connected = true))
    socket.on("data", (chunk: string) => (text += chunk))
    socket.on("end", () => done({ _tag: "Live", owner: parseOwner(text) }))
    socket.on("error", (e: NodeJS.ErrnoException) => {
      if (connected) return done({ _tag: "Live", owner: parseOwner(text) })
      if (e.code === "ECONNREFUSED") return done({ _tag: "Stale" })
      if (e.code === "ENOENT") return done({ _tag: "Absent" })
      // EAGAIN: a listener whose backlog is full is very much alive.
      done({ _tag: "Live", owner: undefined })
    })
  })

const listen = (socketPath: string, record: () => string) =>
  new Promise<Net.Server | "in-use">((resolve, reject) => {
    const server = Net.createServer((socket) => {
      socket.on("error", () => undefined)
      socket.end(record())
    })
    server.once("error", (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" ? resolve("in-use") : reject(e)))
    server.listen(socketPath, () => {
      server.removeAllListeners("error")
      server.on("error", () => undefined)
      // The lock never keeps the process alive by itself.
      server.unref()
      resolve(server)
    })
  })

/** Removes a dead holder's socket file, under a guard so that two takers never remove a fresh one. */
const removeStale = (socketPath: string) =>
  new Promise<void>((resolve) => {
    const guard = `${socketPath}.takeover`
    try {
      Fs.writeFileSync(guard, String(process.pid), { flag: "wx", mode: 0o600 })
    } catch {
      const age = Date.now() - (Fs.statSync(guard, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > GUARD_STALE_MS) Fs.rmSync(guard, { force: true })
      setTimeout(resolve, 50)
      return
    }
    // Under the guard, look again: another taker may have replaced the dead socket meanwhile.
    void probe(socketPath).then((again) => {
      if (again._tag === "Stale") Fs.rmSync(socketPath, { force: true })
      Fs.rmSync(guard, { force: true })
      resolve()
    })
  })

/** The lock, held by this process. */
export interface Held {
  readonly dataDir: string
  readonly socketPath: string
  readonly server: Net.Server
  owner: LockOwner
}

export type Acquired =
  | { readonly _tag: "Acquired"; readonly lock: Held }
  | { readonly _tag: "Held"; readonly owner: LockOwner }

const writeLockFile = (lock: Held) =>
  Fs.writeFileSync(lockFileOf(lock.dataDir), JSON.stringify(lock.owner) + "\n", { mode: 0o600 })

/** Takes the lock of `dataDir` for this process, or tells who holds it. */
export const acquire = (dataDir: string): Effect.Effect<Acquired> =>
  Effect.promise(async () => {
    Fs.mkdirSync(Path.resolve(dataDir), { recursive: true })
    const socketPath = socketPathOf(dataDir)
    let lock: Held | undefined
    for (let attempt = 0; attempt < 50; attempt++) {
      const bound = await listen(socketPath, () => JSON.stringify(lock?.owner ?? { pid: process.pid }))
      if (bound !== "in-use") {
        lock = {
          dataDir,
          socketPath,
          server: bound,
          owner: { pid: process.pid, host: null, port: null, since: new Date().toISOString() }
        }
        writeLockFile(lock)
        return { _tag: "Acquired", lock } as const
      }
      const found = await probe(socketPath)
      if (found._tag === "Live") {
        return { _tag: "Held", owner: found.owner ?? readLockFile(dataDir) ?? unknownOwner } as const
      }
      if (found._tag === "Stale") await removeStale(socketPath)
    }
    return { _tag: "Held", owner: readLockFile(dataDir) ?? unknownOwner } as const
  })

const unknownOwner: LockOwner = { pid: 0, host: null, port: null, since: "" }

/** Records the socket this process serves the database on. */
export const publish = (lock: Held, host: string, port: number) =>
  Effect.sync(() => {
    lock.owner = { ...lock.owner, host, port }
    writeLockFile(lock)
  })

/** Releases the lock: the socket file goes with the listener, then the record. */
export const release = (lock: Held) =>
  Effect.promise(() =>
    new Promise<void>((resolve) => {
      lock.server.close(() => resolve())
      Fs.rmSync(lockFileOf(lock.dataDir), { force: true })
    })
  )

/** Takes the lock for the scope, or fails with DataDirBusy naming the owner. */
export const hold = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.flatMap(acquire(dataDir), (result) =>
      result._tag === "Acquired"
        ? Effect.succeed(result.lock)
        : Effect.fail(
          new DataDirBusy({
            dataDir,
            owner: result.owner,
            message: `DATA_DIR ${Path.resolve(dataDir)} is in use by process ${result.owner.pid}` +
              " (another service started on the same directory). Two processes must never open one embedded database: " +
              "stop the other process, or give this one another DATA_DIR (or a DATABASE_URL)."
          })
        )),
    release
  )

/**
 * For a second process (the CLI): waits up to `waitMs` for a live owner to publish its socket.
 * None when nobody holds the lock; the owner otherwise (its `port` null if it never published).
 */
export const ownerOf = (dataDir: string, waitMs = 15_000) =>
  Effect.gen(function*() {
    if (!Fs.existsSync(Path.resolve(dataDir))) return undefined
    const socketPath = socketPathOf(dataDir)
    const deadline = Date.now() + waitMs
    for (;;) {
      const found = yield* Effect.promise(() => probe(socketPath))
      if (found._tag !== "Live") return undefined
      const owner = found.owner ?? readLockFile(dataDir) ?? unknownOwner
      if (owner.port !== null || Date.now() >= deadline) return owner
      yield* Effect.sleep("200 millis")
    }
  })
