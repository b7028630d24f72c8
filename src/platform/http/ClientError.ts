/**
 * Requests Node refuses before any handler runs (an over-long request line or headers, a
 * malformed request, a client too slow to send its headers) get the typed JSON error shape and an
 * `X-Request-Id`, like every other answer, instead of Node's bare status line.
 */
import { Schema } from "effect"
import type { Server } from "node:http"
import type { Duplex } from "node:stream"
import { makeId } from "../Ids.js"
import { ErrorEnvelope } from "./Errors.js"

const REASONS: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large"
}

/** Status, code and message for a parser or timeout error raised by Node's HTTP server. */
export const classifyClientError = (code: string | undefined): { status: number; code: string; message: string } => {
  if (code === "HPE_HEADER_OVERFLOW") {
    return { status: 431, code: "headers_too_large", message: "The request line or headers are too large" }
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT" || code === "ERR_HTTP_HEADERS_TIMEOUT") {
    return { status: 408, code: "request_timeout", message: "The request was not received in time" }
  }
  return { status: 400, code: "bad_request", message: "The request is not valid HTTP" }
}

const encodeEnvelope = Schema.encodeSync(ErrorEnvelope)

export const answerClientErrors = (server: Server) => {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy()
      return
    }
    const c = classifyClientError(err.code)
    const requestId = makeId("req")
    const body = JSON.stringify(encodeEnvelope({ error: { code: c.code, message: c.message, request_id: requestId } }))
    socket.end(
      `HTTP/1.1 ${c.status} ${REASONS[c.status]}\r\n` +
        "Content-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        "Connection: close\r\n\r\n" +
        body
    )
  })
}
