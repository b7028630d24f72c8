/**
 * A loopback webhook receiver (a partner's endpoint) speaking plain HTTP on 127.0.0.1, with
 * scripted behaviour per delivery (by arrival index, or decided from the request): answer a
 * status (with a body of its choice, or `ok`/`nope`; `hold` sends it and never ends the answer),
 * or hang without answering. Every request is recorded with its raw body and headers.
 */
import { Effect } from "effect"
import * as Http from "node:http"

export type Behaviour =
  | { readonly status: number; readonly body?: string | Uint8Array; readonly hold?: boolean }
  | "hang"

export interface ReceivedDelivery {
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
  readonly at: number
}

export interface WebhookReceiver {
  readonly url: string
  readonly received: Array<ReceivedDelivery>
  /** Behaviour for the n-th request (0-based); `fallback` after the script runs out. */
  script: Array<Behaviour>
  fallback: Behaviour
  /** Resolves when at least `n` requests arrived (polling, bounded by `timeoutMs`). */
  readonly waitFor: (n: number, timeoutMs?: number) => Effect.Effect<ReadonlyArray<ReceivedDelivery>>
}

export const webhookReceiver = (options?: {
  readonly script?: Array<Behaviour>
  readonly fallback?: Behaviour
  /** Decides per request (before the script); `undefined` falls through to the script. */
  readonly decide?: (delivery: ReceivedDelivery, n: number) => Behaviour | undefined
}) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ server: Http.Server; receiver: WebhookReceiver }>((resolve) => {
          const received: Array<ReceivedDelivery> = []
          const state = { script: options?.script ?? [], fallback: options?.fallback ?? { status: 200 } }
          const server = Http.createServer((req, res) => {
            const chunks: Array<Buffer> = []
            req.on("data", (c) => chunks.push(c))
            req.on("end", () => {
              const n = received.length
              const delivery = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() }
              received.push(delivery)
              const behaviour = options?.decide?.(delivery, n) ?? state.script[n] ?? state.fallback
              if (behaviour === "hang") return // never answer; the sender must time out
              res.writeHead(behaviour.status, { "content-type": "text/plain" })
              const body = behaviour.body ?? (behaviour.status < 300 ? "ok" : "nope")
              // Held: the body so far, then nothing more; the sender must not wait for the end.
              if (behaviour.hold === true) res.write(body)
              else res.end(body)
            })
          })
          server.listen(0, "127.0.0.1", () => {
            const port = (server.address() as any).port as number
            const receiver: WebhookReceiver = {
              url: `http://127.0.0.1:${port}/hooks`,
              received,
              get script() {
                return state.script
              },
              set script(s) {
                state.script = s
              },
              get fallback() {
                return state.fallback
              },
              set fallback(f) {
                state.fallback = f
              },
              waitFor: (n, timeoutMs = 20_000) =>
                Effect.promise(async () => {
                  const deadline = Date.now() + timeoutMs
                  while (received.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
                  return received
                })
            }
            resolve({ server, receiver })
          })
        })
    ),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  ).pipe(Effect.map(({ receiver }) => receiver))
