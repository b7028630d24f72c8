/**
 * One process owns an embedded DATA_DIR.
 *
 * Two processes opening the same PGlite directory each get a private copy of the database in
 * memory: the second one's writes are silently lost (the CLI printed a partner key the running
 * service never saw). So the process that opens the embedded database holds
 * `DATA_DIR/embedded.lock`, a file created exclusively with its pid and, once the database is
 * up, the loopback socket it serves it on:
 *
 *   {"pid":1234,"host":"127.0.0.1","port":54321,"since":"2026-…"}
 *
 * - `acquire`: creates the file; a lock left by a dead process (kill -9, power loss) is taken
 *   over; a live owner's lock is reported as `Held` with its socket (null while it is starting).
 * - `publish`: records the socket once the database serves it.
 * - `release`: removes the file if it is still ours (scope finaliser).
 *
 * The service refuses to start on a DATA_DIR another live process holds; the CLI joins the
 * owner's socket instead, so its writes land in the very database the service uses.
 */
import { Data, Effect } from "effect"
import * as Fs from "node:fs"
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

export const lockFileOf = (dataDir: string) => Path.resolve(dataDir, "embedded.lock")

/** True when a process with this pid exists (EPERM: it exists but belongs to another user). */
export const isAlive = (pid: number): boolean => {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

const readOwner = (file: string): LockOwner | undefined => {
  try {
    const parsed = JSON.parse(Fs.readFileSync(file, "utf8")) as Partial<LockOwner>
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

const write = (file: string, owner: LockOwner, flag: "wx" | "w") =>
  Fs.writeFileSync(file, JSON.stringify(owner) + "\n", { mode: 0o600, flag })

export type Acquired =
  | { readonly _tag: "Acquired"; readonly file: string }
  | { readonly _tag: "Held"; readonly file: string; readonly owner: LockOwner }

/** Takes the lock of `dataDir` for this process, or tells who holds it. */
export const acquire = (dataDir: string): Effect.Effect<Acquired> =>
  Effect.sync(() => {
    const file = lockFileOf(dataDir)
    Fs.mkdirSync(Path.dirname(file), { recursive: true })
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        write(file, { pid: process.pid, host: null, port: null, since: new Date().toISOString() }, "wx")
        return { _tag: "Acquired", file } as const
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
      }
      const owner = readOwner(file)
      // A half-written file of a process that is starting right now: look again.
      if (owner === undefined) {
        const age = Date.now() - (Fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0)
        if (age < 2_000) continue
      } else if (owner.pid !== process.pid && isAlive(owner.pid)) {
        return { _tag: "Held", file, owner } as const
      } else if (owner.pid === process.pid) {
        return { _tag: "Held", file, owner } as const
      }
      // Stale: its process is gone. Remove it and try again (another taker may win the race).
      Fs.rmSync(file, { force: true })
    }
    const owner = readOwner(file)
    return { _tag: "Held", file, owner: owner ?? { pid: 0, host: null, port: null, since: "" } } as const
  })

/** Records the socket this process serves the database on. */
export const publish = (file: string, host: string, port: number) =>
  Effect.sync(() => {
    const owner = readOwner(file)
    if (owner?.pid !== process.pid) return
    write(file, { ...owner, host, port }, "w")
  })

/** Removes the lock if this process still owns it. */
export const release = (file: string) =>
  Effect.sync(() => {
    if (readOwner(file)?.pid === process.pid) Fs.rmSync(file, { force: true })
  })

/** Takes the lock for the scope, or fails with DataDirBusy naming the owner. */
export const hold = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.flatMap(acquire(dataDir), (result) =>
      result._tag === "Acquired"
        ? Effect.succeed(result.file)
        : Effect.fail(
          new DataDirBusy({
            dataDir,
            owner: result.owner,
            message: `DATA_DIR ${Path.resolve(dataDir)} is in use by process ${result.owner.pid}` +
              " (another service started on the same directory). Two processes must never open one embedded database: " +
              "stop the other process, or give this one another DATA_DIR (or a DATABASE_URL)."
          })
        )),
    (file) => release(file)
  )

/**
 * For a second process (the CLI): waits up to `waitMs` for a live owner to publish its socket.
 * None when nobody holds the lock; the owner otherwise (its `port` null if it never published).
 */
export const ownerOf = (dataDir: string, waitMs = 15_000) =>
  Effect.gen(function*() {
    const file = lockFileOf(dataDir)
    const deadline = Date.now() + waitMs
    for (;;) {
      const owner = readOwner(file)
      if (owner === undefined || owner.pid === process.pid || !isAlive(owner.pid)) return undefined
      if (owner.port !== null || Date.now() >= deadline) return owner
      yield* Effect.sleep("200 millis")
    }
  })
