/**
 * The access log: one line per request, written by the server middleware (HttpMiddleware.ts)
 * when the response is chosen.
 */
import type { AppConfigShape } from "../Config.js"

export interface AccessLogEntry {
  readonly request_id: string
  readonly method: string
  readonly path: string
  /** The route template, `unmatched` when no route knows the path (bounded, unlike `path`). */
  readonly route: string
  readonly status: number
  readonly duration_ms: number
  /** The caller's IP (X-Forwarded-For only under TRUST_PROXY, as everywhere else). */
  readonly client_ip: string
  /** Clipped to `MAX_USER_AGENT` characters; absent when the request had none. */
  readonly user_agent?: string | undefined
  /** The trace id of a valid inbound W3C `traceparent`, to correlate with the caller's traces. */
  readonly trace_id?: string | undefined
  /** A signed Partner API request that authenticated: its partner and credential (the public key id). */
  readonly partner_id?: string | undefined
  readonly key_id?: string | undefined
}

/** Who made a request, noted by the authentication that established it, read by the access log. */
export interface Caller {
  readonly partner_id: string
  readonly key_id: string
}

// Keyed by the request's underlying message, which every derived request object shares.
const callers = new WeakMap<object, Caller>()
const keyOf = (request: { readonly source: unknown }) => request.source as object

export const noteCaller = (request: { readonly source: unknown }, caller: Caller): void => {
  callers.set(keyOf(request), caller)
}

export const callerOf = (request: { readonly source: unknown }): Caller | undefined => callers.get(keyOf(request))

export const MAX_USER_AGENT = 200

/** The access-log line (JSON format), without its trailing newline. */
export const formatAccessLine = (e: AccessLogEntry, now: Date = new Date()): string =>
  `{"message":"request","logLevel":"INFO","timestamp":"${now.toISOString()}","annotations":${JSON.stringify(e)}}`

/**
 * Log lines are buffered and written in one chunk per event-loop turn (or when 64 KiB pile up):
 * a write per request is a system call per request (synchronous when stdout is a file). Pending
 * lines are written before the process exits.
 */
const makeLineWriter = () => {
  let buffer: Array<string> = []
  let size = 0
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (buffer.length === 0) return
    const chunk = buffer.join("")
    buffer = []
    size = 0
    process.stdout.write(chunk)
  }
  process.once("exit", flush)
  return (line: string) => {
    buffer.push(line)
    size += line.length
    if (size >= 65_536) flush()
    else if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
}

/**
 * One line per request: it is the hottest log line of the service, so it skips the general
 * logger's machinery (same JSON fields as the other log lines; the logger's per-line fiber-ref
 * reads and formatting cost pricing throughput, bench/pricing.ts). Disabled when LOG_LEVEL is
 * above info.
 */
export const makeAccessLog = (config: AppConfigShape): ((entry: AccessLogEntry) => void) | undefined => {
  if (!["all", "trace", "debug", "info"].includes(config.logLevel.toLowerCase())) return undefined
  const write = makeLineWriter()
  if (config.logFormat === "pretty") {
    return (e) =>
      write(
        `[${
          new Date().toISOString()
        }] INFO ${e.method} ${e.path} ${e.status} ${e.duration_ms}ms ${e.request_id} ${e.client_ip}\n`
      )
  }
  return (e) => write(`${formatAccessLine(e)}\n`)
}
