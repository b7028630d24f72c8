/**
 * Whether the database can be used at all, decided once at start-up, before the pool opens: one
 * connection is tried and its error sorted into
 *
 * - permanent: waiting changes nothing. DATABASE_URL is not a PostgreSQL URL, its host name has
 *   no address, nothing listens on the port (connection refused), the database does not exist
 *   (SQLSTATE 3D000), the password or the user is refused (28P01, 28000). Start-up ends at once.
 * - transient: the server is starting, busy or slow (time limits, 57P03, 53300, resets, a DNS
 *   server that did not answer). Tried again every 0.5 s for up to 30 s (docs/operations.md,
 *   "Database outages"), then start-up ends the same way.
 *
 * CONTRACT: start-up fails with `DatabaseUnreachable`, whose message is one plain sentence naming
 * the cause and never the password; the service and the CLI print it and exit with code 5
 * (`EX_DATABASE`, src/main.ts, src/cli.ts).
 */
import { Data, Duration, Effect, Schedule } from "effect"
import pg from "pg"

/** The exit code of a process that cannot use its database (the CLI's "unavailable"). */
export const EX_DATABASE = 5

/** How long a transient error is tried again at start-up. */
export const STARTUP_RETRY_LIMIT = Duration.seconds(30)

export class DatabaseUnreachable extends Data.TaggedError("DatabaseUnreachable")<{
  /** One plain sentence: what is wrong and what to check. */
  readonly message: string
  /** False when transient errors outlasted the retry limit. */
  readonly permanent: boolean
}> {}

/** What the process tried to reach, for the sentence (never the password). */
export interface DatabaseTarget {
  readonly host: string
  readonly port: number
  readonly database: string
  readonly user: string
  /** The setting an operator fixes (`DATABASE_URL`); undefined for the embedded database. */
  readonly setting: string | undefined
}

const at = (t: DatabaseTarget) => `PostgreSQL at ${t.host}:${t.port}`
const check = (t: DatabaseTarget, what: string) => t.setting === undefined ? "" : `; check ${what} in ${t.setting}`

/** The error codes of `error`: its own, and those of an AggregateError's members (IPv4 and IPv6 tried). */
const codesOf = (error: unknown): Array<string> => {
  if (error === null || typeof error !== "object") return []
  const own = (error as { code?: unknown }).code
  const members = (error as { errors?: unknown }).errors
  return [
    ...(typeof own === "string" ? [own] : []),
    ...(Array.isArray(members) ? members.flatMap(codesOf) : [])
  ]
}

const serverMessage = (error: unknown) => {
  const message = (error as { message?: unknown } | null)?.message
  return typeof message === "string" ? message.replace(/\s+/g, " ").trim() : "refused"
}

/** The sentence for a URL that is no PostgreSQL URL (its value is never repeated: it may hold a password). */
export const badUrlSentence = (setting: string) =>
  `${setting} is not a PostgreSQL URL; expected postgres://user:password@host:5432/database.`

/** Why `error` will not go away by waiting, as one sentence; undefined when it may (retry it). */
export const permanentCause = (error: unknown, t: DatabaseTarget): string | undefined => {
  const codes = codesOf(error)
  const has = (code: string) => codes.includes(code)
  if (has("ERR_INVALID_URL")) return badUrlSentence(t.setting ?? "The database address")
  if (has("ENOTFOUND")) {
    return `The database host "${t.host}" is unknown (no address for that name)${check(t, "the host")}.`
  }
  if (codes.length > 0 && codes.every((c) => c === "ECONNREFUSED")) {
    return `${at(t)} refused the connection (nothing listens on that port)${check(t, "the host and port")}.`
  }
  if (has("3D000")) {
    return `The database "${t.database}" does not exist on ${at(t)}${
      t.setting === undefined ? "" : `; create it or fix the database name in ${t.setting}`
    }.`
  }
  if (has("28P01")) return `${at(t)} refused the password of user "${t.user}"${check(t, "the password")}.`
  if (has("28000") || has("42501")) {
    return `${at(t)} refused user "${t.user}" (${serverMessage(error)})${check(t, "the user")}.`
  }
  return undefined
}

/** Whether `url` can be a PostgreSQL connection string (checked before any connection or DNS query). */
export const isPostgresUrl = (url: string): boolean => {
  if (url.startsWith("/")) return true // a Unix socket directory, as pg accepts it
  try {
    const parsed = new URL(url)
    return ["postgres:", "postgresql:", "socket:"].includes(parsed.protocol)
  } catch {
    return false
  }
}

const summary = (error: unknown) => {
  const code = codesOf(error)[0]
  return `${serverMessage(error)}${code === undefined ? "" : ` (${code})`}`
}

/**
 * Opens one connection with `config` and runs `select 1`: succeeds once that works, fails with
 * `DatabaseUnreachable` at once on a permanent error, or after `STARTUP_RETRY_LIMIT` of transient ones.
 */
export const probeDatabase = (
  config: pg.ClientConfig,
  options: { readonly setting: string | undefined; readonly connectTimeoutMs: number; readonly statementMs: number }
): Effect.Effect<void, DatabaseUnreachable> => {
  const connectionString = config.connectionString
  if (connectionString !== undefined && !isPostgresUrl(connectionString)) {
    return Effect.fail(
      new DatabaseUnreachable({ message: badUrlSentence(options.setting ?? "DATABASE_URL"), permanent: true })
    )
  }
  let target: DatabaseTarget | undefined
  const once = Effect.tryPromise({
    try: async () => {
      const client = new pg.Client({
        ...config,
        connectionTimeoutMillis: options.connectTimeoutMs,
        query_timeout: options.statementMs
      })
      target = {
        host: client.host ?? "localhost",
        port: client.port ?? 5432,
        database: client.database ?? client.user ?? "",
        user: client.user ?? "",
        setting: options.setting
      }
      client.on("error", () => undefined)
      try {
        await client.connect()
        await client.query("select 1")
      } finally {
        await client.end().catch(() => undefined)
      }
    },
    catch: (cause) => cause
  })
  const sentence = (cause: unknown) =>
    target === undefined
      ? new DatabaseUnreachable({ message: badUrlSentence(options.setting ?? "DATABASE_URL"), permanent: true })
      : new DatabaseUnreachable({
        message: permanentCause(cause, target) ??
          `${at(target)} could not be used for ${Duration.format(STARTUP_RETRY_LIMIT)}: ${summary(cause)}.`,
        permanent: permanentCause(cause, target) !== undefined
      })
  return once.pipe(
    Effect.retry({
      schedule: Schedule.spaced("500 millis").pipe(Schedule.upTo(STARTUP_RETRY_LIMIT)),
      while: (cause) => target !== undefined && permanentCause(cause, target) === undefined
    }),
    Effect.mapError(sentence)
  )
}
