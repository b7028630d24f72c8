/**
 * A loopback fake of Stripe's transfers API (`POST /v1/transfers`), enough of the protocol for the
 * live payout provider: bearer secret key, form-encoded body, `Idempotency-Key` (a replayed key
 * answers the first response and creates nothing), Stripe's error envelope.
 *
 * Destinations steer it: `acct_fail…` → 400 invalid_request_error; `acct_flaky…` → 500 on the
 * first attempt of each key, then success.
 */
import { Effect } from "effect"
import * as Http from "node:http"

export interface StripeTransfer {
  readonly id: string
  readonly amount: number
  readonly currency: string
  readonly destination: string
  readonly idempotencyKey: string | undefined
  readonly metadata: Record<string, string>
}

export interface StripeFake {
  readonly baseUrl: string
  readonly apiKey: string
  /** Transfers created (replays excluded). */
  readonly transfers: Array<StripeTransfer>
  /** Every request received, replays and failures included. */
  readonly requests: Array<{ key: string | undefined; destination: string; status: number }>
}

export const startStripeFake = (apiKey = "sk_test_fake_key") =>
  Effect.acquireRelease(
    Effect.async<{ fake: StripeFake; server: Http.Server }>((resume) => {
      const transfers: Array<StripeTransfer> = []
      const requests: StripeFake["requests"] = []
      const replies = new Map<string, { status: number; body: unknown }>()
      const flaky = new Set<string>()
      const server = Http.createServer((req, res) => {
        let raw = ""
        req.on("data", (d) => (raw += d))
        req.on("end", () => {
          const send = (status: number, body: unknown, destination = "") => {
            requests.push({ key: req.headers["idempotency-key"] as string | undefined, destination, status })
            res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
          }
          if (req.headers.authorization !== `Bearer ${apiKey}`) {
            return send(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } })
          }
          if (req.method !== "POST" || req.url !== "/v1/transfers") return send(404, { error: { type: "invalid_request_error", message: "Unrecognized request URL" } })
          const form = new URLSearchParams(raw)
          const destination = form.get("destination") ?? ""
          const key = req.headers["idempotency-key"] as string | undefined
          if (key && replies.has(key)) {
            const r = replies.get(key)!
            return send(r.status, r.body, destination)
          }
          if (destination.startsWith("acct_flaky") && key && !flaky.has(key)) {
            flaky.add(key)
            return send(500, { error: { type: "api_error", message: "temporary" } }, destination)
          }
          const amount = Number(form.get("amount"))
          let reply: { status: number; body: unknown }
          if (destination.startsWith("acct_fail")) {
            reply = { status: 400, body: { error: { type: "invalid_request_error", code: "account_invalid", message: `No such destination: '${destination}'` } } }
          } else if (!Number.isInteger(amount) || amount <= 0 || !form.get("currency")) {
            reply = { status: 400, body: { error: { type: "invalid_request_error", message: "Invalid amount or currency" } } }
          } else {
            const metadata: Record<string, string> = {}
            for (const [k, v] of form) {
              const m = /^metadata\[(.+)\]$/.exec(k)
              if (m) metadata[m[1]!] = v
            }
            const t: StripeTransfer = { id: `tr_${transfers.length + 1}`, amount, currency: form.get("currency")!, destination, idempotencyKey: key, metadata }
            transfers.push(t)
            reply = { status: 200, body: { id: t.id, object: "transfer", amount, currency: t.currency, destination, metadata } }
          }
          if (key) replies.set(key, reply)
          send(reply.status, reply.body, destination)
        })
      })
      server.listen(0, "127.0.0.1", (): void => {
        const { port } = server.address() as import("node:net").AddressInfo
        resume(Effect.succeed({ server, fake: { baseUrl: `http://127.0.0.1:${port}`, apiKey, transfers, requests } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ fake }) => fake))
