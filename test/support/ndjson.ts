/**
 * Reading the NDJSON search stream as a client does: line by line as bytes arrive, each event
 * stamped with when it arrived (ms since the request was sent).
 */
import { Effect } from "effect"
import { TestServer } from "./TestServer.js"

export interface StreamedEvent {
  readonly at: number
  readonly event: any
}

export interface StreamReply {
  readonly status: number
  readonly headers: Headers
  readonly events: ReadonlyArray<StreamedEvent>
  /** The body when it is not a stream (errors). */
  readonly json: any
}

export const readNdjson = async (
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  options: { readonly stopAfter?: (event: any) => boolean; readonly signal?: AbortController } = {}
): Promise<StreamReply> => {
  const controller = options.signal ?? new AbortController()
  const started = performance.now()
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: controller.signal
  })
  if (!(res.headers.get("content-type") ?? "").startsWith("application/x-ndjson")) {
    const text = await res.text()
    let json: any
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: res.status, headers: res.headers, events: [], json }
  }
  const events: Array<StreamedEvent> = []
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    buffer += decoder.decode(value, { stream: true })
    let nl: number
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl)
      buffer = buffer.slice(nl + 1)
      if (line.trim() === "") continue
      const event = JSON.parse(line)
      events.push({ at: performance.now() - started, event })
      if (options.stopAfter?.(event)) {
        controller.abort()
        return { status: res.status, headers: res.headers, events, json: undefined }
      }
    }
  }
  if (buffer.trim() !== "") throw new Error(`stream ended inside a line: ${buffer}`)
  return { status: res.status, headers: res.headers, events, json: undefined }
}

/** POST /api/domain/search on the TestServer in scope. */
export const search = (q: unknown, headers: Record<string, string> = {}, options?: Parameters<typeof readNdjson>[3]) =>
  Effect.flatMap(
    TestServer,
    (server) =>
      Effect.promise(() =>
        readNdjson(`${server.baseUrl}/api/domain/search`, typeof q === "string" ? { q } : q, headers, options)
      )
  )

/** The row events of a reply, by domain. */
export const rowsOf = (reply: StreamReply) =>
  new Map(reply.events.filter((e) => e.event.kind === "row").map((e) => [e.event.domain as string, e.event]))
