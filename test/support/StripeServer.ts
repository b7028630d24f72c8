/**
 * A loopback fake of Stripe's transfers API (`POST /v1/transfers`), enough of the protocol for the
 * live payout provider: bearer secret key, form-encoded body, `Idempotency-Key` (a replayed key
 * answers the first response and creates nothing), Stripe's error envelope.
 *
 * Destinations steer it: `acct_fail…` → 400 invalid_request_error; `acct_flaky…` → 500 on the
 * first attempt of each key, then success.
 *
 * PaymentIntents for the hosted checkout (`fake.checkout` steers it): create, confirm with
 * `payment_method_data[card][…]` (4242… succeeds, …0002 is a 402 card_error, …3220 needs the
 * 3-D Secure redirect at `/3ds/{id}`, which succeeds and sends the buyer to the intent's
 * return_url), retrieve, refunds. On success it sends `payment_intent.succeeded` to
 * `checkout.webhookUrl`, signed like Stripe (`Stripe-Signature: t=…,v1=…`), `webhookTimes`
 * times, before answering the confirm call; `hangConfirm` never answers the confirm call (the
 * intent has succeeded: the caller's process can be killed in between).
 */
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import * as Http from "node:http"

export interface StripeIntent {
  id: string
  amount: number
  currency: string
  status: "requires_payment_method" | "requires_action" | "succeeded" | "canceled"
  metadata: Record<string, string>
  return_url: string | null
  refunded: boolean
}

export interface StripeCheckoutControls {
  webhookUrl: string | null
  webhookSecret: string
  webhookTimes: number
  hangConfirm: boolean
}

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
  readonly intents: Map<string, StripeIntent>
  /** Confirm calls received (replays included), with the card number the provider was given. */
  readonly confirms: Array<{ id: string; card: string }>
  readonly refunds: Array<string>
  readonly webhooksSent: Array<{ id: string; status: number }>
  readonly checkout: StripeCheckoutControls
}

const metadataOf = (form: URLSearchParams) => {
  const metadata: Record<string, string> = {}
  for (const [k, v] of form) {
    const m = /^metadata\[(.+)\]$/.exec(k)
    if (m) metadata[m[1]!] = v
  }
  return metadata
}

const intentJson = (pi: StripeIntent, base: string) => ({
  id: pi.id,
  object: "payment_intent",
  amount: pi.amount,
  currency: pi.currency,
  status: pi.status,
  metadata: pi.metadata,
  next_action: pi.status === "requires_action"
    ? { type: "redirect_to_url", redirect_to_url: { url: `${base}/3ds/${pi.id}`, return_url: pi.return_url } }
    : null,
  last_payment_error: pi.status === "requires_payment_method" && pi.return_url !== null
    ? { message: "Your card was declined." }
    : null
})

export const startStripeFake = (apiKey = "sk_test_fake_key") =>
  Effect.acquireRelease(
    Effect.async<{ fake: StripeFake; server: Http.Server }>((resume) => {
      const transfers: Array<StripeTransfer> = []
      const requests: StripeFake["requests"] = []
      const replies = new Map<string, { status: number; body: unknown }>()
      const flaky = new Set<string>()
      const intents = new Map<string, StripeIntent>()
      const confirms: StripeFake["confirms"] = []
      const refunds: Array<string> = []
      const webhooksSent: StripeFake["webhooksSent"] = []
      const checkout: StripeCheckoutControls = {
        webhookUrl: null,
        webhookSecret: "whsec_test_fake",
        webhookTimes: 1,
        hangConfirm: false
      }
      /** `payment_intent.succeeded`, signed as Stripe signs, `webhookTimes` times (the same event id). */
      const sendWebhooks = async (pi: StripeIntent, base: string) => {
        if (!checkout.webhookUrl) return
        const body = JSON.stringify({
          id: `evt_${pi.id}`,
          object: "event",
          type: "payment_intent.succeeded",
          data: { object: intentJson(pi, base) }
        })
        for (let i = 0; i < checkout.webhookTimes; i++) {
          const t = Math.floor(Date.now() / 1000)
          const sig = createHmac("sha256", checkout.webhookSecret).update(`${t}.${body}`).digest("hex")
          const status = await fetch(checkout.webhookUrl, {
            method: "POST",
            headers: { "content-type": "application/json", "stripe-signature": `t=${t},v1=${sig}` },
            body
          }).then((r) => r.status, () => 0)
          webhooksSent.push({ id: pi.id, status })
        }
      }
      const server = Http.createServer((req, res) => {
        let raw = ""
        req.on("data", (d) => (raw += d))
        req.on("end", () => {
          const send = (status: number, body: unknown, destination = "") => {
            requests.push({ key: req.headers["idempotency-key"] as string | undefined, destination, status })
            res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
          }
          if (req.headers.authorization !== `Bearer ${apiKey}` && !req.url?.startsWith("/3ds/")) {
            return send(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } })
          }
          const base = `http://127.0.0.1:${(server.address() as import("node:net").AddressInfo).port}`
          const threeDs = /^\/3ds\/(pi_\w+)$/.exec(req.url ?? "")
          if (threeDs && req.method === "GET") {
            const pi = intents.get(threeDs[1]!)
            if (!pi) return send(404, { error: { message: "no such intent" } })
            pi.status = "succeeded"
            const back = new URL(pi.return_url!)
            back.searchParams.set("payment_intent", pi.id)
            void sendWebhooks(pi, base)
            res.writeHead(302, { location: back.toString() }).end()
            return
          }
          if (req.url?.startsWith("/v1/payment_intents") || req.url === "/v1/refunds") {
            const form = new URLSearchParams(raw)
            const key = req.headers["idempotency-key"] as string | undefined
            const replayKey = key ? `${req.url} ${key}` : undefined
            if (replayKey && replies.has(replayKey) && !(req.url.endsWith("/confirm") && checkout.hangConfirm)) {
              const r = replies.get(replayKey)!
              return send(r.status, r.body)
            }
            const remember = (status: number, body: unknown) => {
              if (replayKey) replies.set(replayKey, { status, body })
              send(status, body)
            }
            if (req.method === "POST" && req.url === "/v1/payment_intents") {
              const pi: StripeIntent = {
                id: `pi_${intents.size + 1}${Math.random().toString(36).slice(2, 8)}`,
                amount: Number(form.get("amount")),
                currency: form.get("currency") ?? "usd",
                status: "requires_payment_method",
                metadata: metadataOf(form),
                return_url: null,
                refunded: false
              }
              intents.set(pi.id, pi)
              return remember(200, intentJson(pi, base))
            }
            if (req.method === "POST" && req.url === "/v1/refunds") {
              const pi = intents.get(form.get("payment_intent") ?? "")
              if (!pi) {
                return remember(404, { error: { type: "invalid_request_error", message: "No such payment_intent" } })
              }
              pi.refunded = true
              refunds.push(pi.id)
              return remember(200, {
                id: `re_${refunds.length}`,
                object: "refund",
                payment_intent: pi.id,
                status: "succeeded"
              })
            }
            const m = /^\/v1\/payment_intents\/(pi_\w+)(\/confirm)?$/.exec(req.url)
            const pi = m ? intents.get(m[1]!) : undefined
            if (!m || !pi) {
              return send(404, { error: { type: "invalid_request_error", message: "No such payment_intent" } })
            }
            if (req.method === "GET" && !m[2]) return send(200, intentJson(pi, base))
            if (req.method === "POST" && m[2]) {
              const card = form.get("payment_method_data[card][number]") ?? ""
              confirms.push({ id: pi.id, card })
              pi.return_url = form.get("return_url")
              if (card === "4000000000000002") {
                pi.status = "requires_payment_method"
                return remember(402, {
                  error: {
                    type: "card_error",
                    code: "card_declined",
                    message: "Your card was declined.",
                    payment_intent: intentJson(pi, base)
                  }
                })
              }
              if (card === "4000000000003220") {
                pi.status = "requires_action"
                return remember(200, intentJson(pi, base))
              }
              pi.status = "succeeded"
              if (checkout.hangConfirm) return // never answered: the caller dies or times out
              void sendWebhooks(pi, base).then(() => remember(200, intentJson(pi, base)))
              return
            }
            return send(405, { error: { message: "method not allowed" } })
          }
          if (req.method !== "POST" || req.url !== "/v1/transfers") {
            return send(404, { error: { type: "invalid_request_error", message: "Unrecognized request URL" } })
          }
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
            reply = {
              status: 400,
              body: {
                error: {
                  type: "invalid_request_error",
                  code: "account_invalid",
                  message: `No such destination: '${destination}'`
                }
              }
            }
          } else if (!Number.isInteger(amount) || amount <= 0 || !form.get("currency")) {
            reply = {
              status: 400,
              body: { error: { type: "invalid_request_error", message: "Invalid amount or currency" } }
            }
          } else {
            const metadata: Record<string, string> = {}
            for (const [k, v] of form) {
              const m = /^metadata\[(.+)\]$/.exec(k)
              if (m) metadata[m[1]!] = v
            }
            const t: StripeTransfer = {
              id: `tr_${transfers.length + 1}`,
              amount,
              currency: form.get("currency")!,
              destination,
              idempotencyKey: key,
              metadata
            }
            transfers.push(t)
            reply = {
              status: 200,
              body: { id: t.id, object: "transfer", amount, currency: t.currency, destination, metadata }
            }
          }
          if (key) replies.set(key, reply)
          send(reply.status, reply.body, destination)
        })
      })
      server.listen(0, "127.0.0.1", (): void => {
        const { port } = server.address() as import("node:net").AddressInfo
        resume(
          Effect.succeed({
            server,
            fake: {
              baseUrl: `http://127.0.0.1:${port}`,
              apiKey,
              transfers,
              requests,
              intents,
              confirms,
              refunds,
              webhooksSent,
              checkout
            }
          })
        )
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ fake }) => fake))
