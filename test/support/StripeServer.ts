/**
 * A loopback fake of Stripe's REST API, enough of each protocol for the service's live clients:
 * bearer secret key, form-encoded bodies, `Idempotency-Key` (a replayed key answers the first
 * response and creates nothing), Stripe's error envelope.
 *
 * Transfers (`POST /v1/transfers`, the payout provider). Destinations steer it: `acct_fail…` →
 * 400 invalid_request_error; `acct_flaky…` → 500 on the first attempt of each key, then success.
 *
 * Checkout Sessions (the hosted checkout's `stripe` provider): `POST /v1/checkout/sessions`
 * (`mode=payment`, `line_items[i][price_data]…`, `success_url`, `cancel_url`,
 * `client_reference_id`, `metadata[…]`, `expires_at` within Stripe's 30 minutes to 24 hours),
 * `GET /v1/checkout/sessions/{id}` (`expand[]=payment_intent`), `POST …/{id}/expire`, and
 * `POST /v1/refunds {payment_intent, amount?}` (partial refunds add up; one past the payment is 400,
 * a refund of a fully refunded one 400 `charge_already_refunded`). Each
 * session has a hosted `url` on this server: `GET {url}?action=pay` is the buyer paying (the
 * session completes, a PaymentIntent succeeds, `checkout.session.completed` goes out) and answers
 * 303 to its `success_url`; `?action=cancel` answers 303 to its `cancel_url`. A test steers the
 * same from code: `pay(id)`, `expire(id)` (Stripe's own expiry), `sendEvent(type, object)`.
 * Events go to `checkout.webhookUrl`, signed as Stripe signs them (`Stripe-Signature: t=…,v1=…`),
 * `webhookTimes` times each (0: a lost webhook), in `checkout.livemode`.
 */
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import * as Http from "node:http"

export interface StripeCheckoutSession {
  readonly id: string
  status: "open" | "complete" | "expired"
  payment_status: "unpaid" | "paid"
  readonly amount_total: number
  readonly currency: string
  readonly client_reference_id: string | null
  readonly metadata: Record<string, string>
  readonly success_url: string
  readonly cancel_url: string
  readonly customer_email: string | null
  readonly expires_at: number
  readonly line_items: ReadonlyArray<{ name: string; unit_amount: number; quantity: number; currency: string }>
  readonly idempotencyKey: string | undefined
  livemode: boolean
  payment_intent: string | null
}

export interface StripeIntent {
  readonly id: string
  readonly amount: number
  readonly currency: string
  status: "succeeded"
  readonly metadata: Record<string, string>
  refunded: boolean
  /** Cents given back so far (partial refunds add up; `refunded` once it reaches `amount`). */
  amountRefunded?: number
}

export interface StripeCheckoutControls {
  webhookUrl: string | null
  webhookSecret: string
  /** How many times each event is delivered (0: the webhook is lost). */
  webhookTimes: number
  /** The mode of the sessions and events (our test key: false). */
  livemode: boolean
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
  /** Every transfer request received, replays and failures included. */
  readonly requests: Array<{ key: string | undefined; destination: string; status: number }>
  /** Checkout Sessions created (replays excluded), by id. */
  readonly sessions: Map<string, StripeCheckoutSession>
  /** The PaymentIntents of paid sessions, by id. */
  readonly intents: Map<string, StripeIntent>
  /** PaymentIntents refunded (each partial refund too), in order. */
  readonly refunds: Array<string>
  /** Every refund with its amount, in order. */
  readonly refundAmounts: Array<{ readonly paymentIntent: string; readonly amount: number }>
  readonly webhooksSent: Array<{ id: string; type: string; status: number }>
  readonly checkout: StripeCheckoutControls
  /** The buyer pays on the hosted page; resolves once the webhooks were delivered. */
  readonly pay: (sessionId: string) => Promise<void>
  /** Stripe expires the session (its `expires_at` passed). */
  readonly expire: (sessionId: string) => Promise<void>
  /** Sends an event about `object`, signed, `webhookTimes` times; resolves to our endpoint's statuses. */
  readonly sendEvent: (type: string, object: unknown) => Promise<Array<number>>
}

const metadataOf = (form: URLSearchParams) => {
  const metadata: Record<string, string> = {}
  for (const [k, v] of form) {
    const m = /^metadata\[(.+)\]$/.exec(k)
    if (m) metadata[m[1]!] = v
  }
  return metadata
}

const lineItemsOf = (form: URLSearchParams) => {
  const items: Array<{ name: string; unit_amount: number; quantity: number; currency: string }> = []
  for (let i = 0; form.has(`line_items[${i}][price_data][unit_amount]`); i++) {
    const p = `line_items[${i}]`
    items.push({
      name: form.get(`${p}[price_data][product_data][name]`) ?? "",
      unit_amount: Number(form.get(`${p}[price_data][unit_amount]`)),
      quantity: Number(form.get(`${p}[quantity]`) ?? "1"),
      currency: form.get(`${p}[price_data][currency]`) ?? ""
    })
  }
  return items
}

const stripeError = (message: string, code?: string) => ({
  error: { type: "invalid_request_error", message, ...(code ? { code } : {}) }
})

const intentJson = (pi: StripeIntent) => ({
  id: pi.id,
  object: "payment_intent",
  amount: pi.amount,
  amount_received: pi.amount,
  currency: pi.currency,
  status: pi.status,
  metadata: pi.metadata
})

export const startStripeFake = (apiKey = "sk_test_fake_key") =>
  Effect.acquireRelease(
    Effect.async<{ fake: StripeFake; server: Http.Server }>((resume) => {
      const transfers: Array<StripeTransfer> = []
      const requests: StripeFake["requests"] = []
      const replies = new Map<string, { status: number; body: unknown }>()
      const flaky = new Set<string>()
      const sessions = new Map<string, StripeCheckoutSession>()
      const intents = new Map<string, StripeIntent>()
      const refunds: Array<string> = []
      const refundAmounts: Array<{ paymentIntent: string; amount: number }> = []
      const webhooksSent: StripeFake["webhooksSent"] = []
      const checkout: StripeCheckoutControls = {
        webhookUrl: null,
        webhookSecret: "whsec_test_fake",
        webhookTimes: 1,
        livemode: false
      }
      let baseUrl = ""
      const sessionJson = (s: StripeCheckoutSession, expand = false) => ({
        id: s.id,
        object: "checkout.session",
        mode: "payment",
        status: s.status,
        payment_status: s.payment_status,
        amount_total: s.amount_total,
        currency: s.currency,
        client_reference_id: s.client_reference_id,
        metadata: s.metadata,
        customer_email: s.customer_email,
        success_url: s.success_url,
        cancel_url: s.cancel_url,
        expires_at: s.expires_at,
        livemode: s.livemode,
        payment_intent: expand && s.payment_intent ? intentJson(intents.get(s.payment_intent)!) : s.payment_intent,
        url: s.status === "open" ? `${baseUrl}/c/pay/${s.id}` : null
      })
      const sendEvent = async (type: string, object: unknown) => {
        const statuses: Array<number> = []
        if (!checkout.webhookUrl) return statuses
        const id = `evt_${Math.random().toString(36).slice(2, 12)}`
        const body = JSON.stringify({
          id,
          object: "event",
          type,
          livemode: checkout.livemode,
          created: Math.floor(Date.now() / 1000),
          data: { object }
        })
        for (let i = 0; i < checkout.webhookTimes; i++) {
          const t = Math.floor(Date.now() / 1000)
          const sig = createHmac("sha256", checkout.webhookSecret).update(`${t}.${body}`).digest("hex")
          const status = await fetch(checkout.webhookUrl, {
            method: "POST",
            headers: { "content-type": "application/json", "stripe-signature": `t=${t},v1=${sig}` },
            body
          }).then((r) => r.status, () => 0)
          statuses.push(status)
          webhooksSent.push({ id, type, status })
        }
        return statuses
      }
      const pay = async (id: string) => {
        const s = sessions.get(id)
        if (!s || s.status !== "open") throw new Error(`stripe fake: session ${id} is not open`)
        const pi: StripeIntent = {
          id: `pi_${intents.size + 1}${Math.random().toString(36).slice(2, 8)}`,
          amount: s.amount_total,
          currency: s.currency,
          status: "succeeded",
          metadata: { ...s.metadata },
          refunded: false
        }
        intents.set(pi.id, pi)
        s.status = "complete"
        s.payment_status = "paid"
        s.payment_intent = pi.id
        await sendEvent("checkout.session.completed", sessionJson(s))
      }
      const expire = async (id: string) => {
        const s = sessions.get(id)
        if (!s || s.status !== "open") throw new Error(`stripe fake: session ${id} is not open`)
        s.status = "expired"
        await sendEvent("checkout.session.expired", sessionJson(s))
      }
      const server = Http.createServer((req, res) => {
        let raw = ""
        req.on("data", (d) => (raw += d))
        req.on("end", () => {
          const send = (status: number, body: unknown, destination = "") => {
            if (req.url === "/v1/transfers") {
              requests.push({ key: req.headers["idempotency-key"] as string | undefined, destination, status })
            }
            res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
          }
          const url = new URL(req.url ?? "/", baseUrl)
          // The hosted payment page: the buyer's browser, no API key.
          const hosted = /^\/c\/pay\/(cs_test_\w+)$/.exec(url.pathname)
          if (hosted && req.method === "GET") {
            const s = sessions.get(hosted[1]!)
            if (!s) return send(404, stripeError("No such checkout session"))
            const action = url.searchParams.get("action")
            if (action === "cancel") return void res.writeHead(303, { location: s.cancel_url }).end()
            if (action === "pay") {
              if (s.status !== "open") return send(409, stripeError(`This session is ${s.status}`))
              void pay(s.id).then(() => res.writeHead(303, { location: s.success_url }).end())
              return
            }
            res.writeHead(200, { "content-type": "text/html" }).end(
              `<!doctype html><title>Stripe Checkout (fake)</title><p>Pay ${s.amount_total} ${s.currency}</p>`
            )
            return
          }
          if (req.headers.authorization !== `Bearer ${apiKey}`) {
            return send(401, stripeError("Invalid API Key provided"))
          }
          if (url.pathname.startsWith("/v1/checkout/sessions") || url.pathname === "/v1/refunds") {
            const form = new URLSearchParams(raw)
            const key = req.headers["idempotency-key"] as string | undefined
            const replayKey = key && req.method === "POST" ? `${url.pathname} ${key}` : undefined
            if (replayKey && replies.has(replayKey)) {
              const r = replies.get(replayKey)!
              return send(r.status, r.body)
            }
            const remember = (status: number, body: unknown) => {
              if (replayKey) replies.set(replayKey, { status, body })
              send(status, body)
            }
            if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
              const items = lineItemsOf(form)
              const now = Math.floor(Date.now() / 1000)
              const expiresAt = form.has("expires_at") ? Number(form.get("expires_at")) : now + 24 * 3600
              const problem = form.get("mode") !== "payment"
                ? "mode must be payment"
                : !form.get("success_url") || !form.get("cancel_url")
                ? "success_url and cancel_url are required"
                : items.length === 0
                ? "line_items is required"
                : items.some((i) =>
                    !Number.isInteger(i.unit_amount) || i.unit_amount <= 0 || i.quantity < 1 || !i.name ||
                    i.currency !== items[0]!.currency
                  )
                ? "invalid line_items"
                : expiresAt < now + 30 * 60 - 5 || expiresAt > now + 24 * 3600
                ? "expires_at must be between 30 minutes and 24 hours from now"
                : undefined
              if (problem) return remember(400, stripeError(problem))
              const s: StripeCheckoutSession = {
                id: `cs_test_${sessions.size + 1}${Math.random().toString(36).slice(2, 10)}`,
                status: "open",
                payment_status: "unpaid",
                amount_total: items.reduce((sum, i) => sum + i.unit_amount * i.quantity, 0),
                currency: items[0]!.currency,
                client_reference_id: form.get("client_reference_id"),
                metadata: metadataOf(form),
                success_url: form.get("success_url")!,
                cancel_url: form.get("cancel_url")!,
                customer_email: form.get("customer_email"),
                expires_at: expiresAt,
                line_items: items,
                idempotencyKey: key,
                livemode: checkout.livemode,
                payment_intent: null
              }
              sessions.set(s.id, s)
              return remember(200, sessionJson(s))
            }
            if (req.method === "POST" && url.pathname === "/v1/refunds") {
              const pi = intents.get(form.get("payment_intent") ?? "")
              if (!pi) return remember(404, stripeError("No such payment_intent"))
              if (pi.refunded) {
                return remember(400, stripeError("Charge has already been refunded.", "charge_already_refunded"))
              }
              const left = pi.amount - (pi.amountRefunded ?? 0)
              const amount = form.has("amount") ? Number(form.get("amount")) : left
              if (!Number.isInteger(amount) || amount <= 0 || amount > left) {
                return remember(400, stripeError("Refund amount is greater than the unrefunded amount."))
              }
              pi.amountRefunded = (pi.amountRefunded ?? 0) + amount
              pi.refunded = pi.amountRefunded === pi.amount
              refunds.push(pi.id)
              refundAmounts.push({ paymentIntent: pi.id, amount })
              return remember(200, {
                id: `re_${refunds.length}`,
                object: "refund",
                payment_intent: pi.id,
                status: "succeeded"
              })
            }
            const m = /^\/v1\/checkout\/sessions\/(cs_test_\w+)(\/expire)?$/.exec(url.pathname)
            const s = m ? sessions.get(m[1]!) : undefined
            if (!m || !s) return send(404, stripeError("No such checkout session"))
            if (req.method === "GET" && !m[2]) {
              return send(200, sessionJson(s, url.searchParams.getAll("expand[]").includes("payment_intent")))
            }
            if (req.method === "POST" && m[2]) {
              if (s.status !== "open") return remember(400, stripeError(`This session is ${s.status}`))
              s.status = "expired"
              void sendEvent("checkout.session.expired", sessionJson(s))
              return remember(200, sessionJson(s))
            }
            return send(405, stripeError("method not allowed"))
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
        baseUrl = `http://127.0.0.1:${port}`
        resume(
          Effect.succeed({
            server,
            fake: {
              baseUrl,
              apiKey,
              transfers,
              requests,
              sessions,
              intents,
              refunds,
              refundAmounts,
              webhooksSent,
              checkout,
              pay,
              expire,
              sendEvent
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
