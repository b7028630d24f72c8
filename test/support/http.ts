/**
 * A thin HTTP client over `fetch`, for asserting exactly what a user of the service sees:
 * status, headers and body.
 */
import { Effect } from "effect"
import { TestServer } from "./TestServer.js"

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly json: any
}

export interface RequestOptions {
  readonly method?: string
  readonly headers?: Record<string, string> | undefined
  /** An object is sent as JSON; a string is sent as is. */
  readonly body?: unknown
  readonly redirect?: RequestRedirect
}

export const fetchReply = async (url: string, options: RequestOptions = {}): Promise<Reply> => {
  const headers: Record<string, string> = { ...options.headers }
  let body: string | undefined
  if (options.body !== undefined) {
    if (typeof options.body === "string") {
      body = options.body
    } else {
      body = JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
  }
  const res = await fetch(url, {
    method: options.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    ...(body === undefined ? {} : { body }),
    redirect: options.redirect ?? "manual"
  })
  const text = await res.text()
  let json: any
  try {
    json = text.length > 0 ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: res.status, headers: res.headers, text, json }
}

/** Request a path of the TestServer in scope. */
export const request = (path: string, options?: RequestOptions) =>
  Effect.flatMap(TestServer, (server) => Effect.promise(() => fetchReply(`${server.baseUrl}${path}`, options)))

export const get = (path: string, headers?: Record<string, string>) => request(path, { headers })

export const post = (path: string, body?: unknown, headers?: Record<string, string>) =>
  request(path, { method: "POST", body, headers })

/** Asserts the typed error envelope and returns its `error` object. */
export const typedError = (reply: Reply) => {
  const e = reply.json?.error
  if (
    !e || typeof e !== "object" || typeof e.code !== "string" || typeof e.message !== "string" ||
    typeof e.request_id !== "string"
  ) {
    throw new Error(`expected the typed error shape, got ${reply.status} ${reply.text}`)
  }
  if (e.request_id !== reply.headers.get("x-request-id")) {
    throw new Error(`error.request_id ${e.request_id} differs from X-Request-Id ${reply.headers.get("x-request-id")}`)
  }
  return e as { code: string; message: string; request_id: string; details?: unknown }
}

/**
 * Waits in real time. (`Effect.sleep` inside @effect/vitest's `it.effect` runs on the TestClock
 * and would never wake up; the service under test always runs on the real clock.)
 */
export const realSleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))
