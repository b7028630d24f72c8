/**
 * Test helpers for the Partner API: issue credentials through the project's Credentials service
 * (the same code the CLI runs) over the test server's database, seed listings, and send signed
 * requests with the partner client's `signRequest`.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { signRequest } from "../../src/partner-client/index.js"
import type { PartnerEnvironment, Scope } from "../../src/partner/Auth.js"
import { Credentials, type IssuedCredential } from "../../src/partner/Credentials.js"
import { makeServiceSecret, ServiceSecret } from "../../src/platform/ServiceSecret.js"
import { fetchReply, type Reply } from "./http.js"
import { baseEnv, TestServer } from "./TestServer.js"

const CredentialsTest = Credentials.Live.pipe(
  Layer.provide(Layer.succeed(ServiceSecret, makeServiceSecret(Buffer.from(baseEnv.SERVICE_SECRET, "utf8"))))
)

let counter = 0

export const createPartner = (options?: {
  readonly environment?: PartnerEnvironment
  readonly scopes?: ReadonlyArray<Scope>
  readonly name?: string
  readonly affiliate?: boolean
}) =>
  Effect.flatMap(Credentials, (c) =>
    c.createPartner({
      name: options?.name ?? `Partner ${++counter}`,
      environment: options?.environment ?? "sandbox",
      scopes: options?.scopes ?? ["search", "buy", "webhook"],
      affiliate: options?.affiliate ?? false
    })).pipe(Effect.provide(CredentialsTest), Effect.orDie)

export const revokeKey = (keyId: string) =>
  Effect.flatMap(Credentials, (c) => c.revoke(keyId)).pipe(Effect.provide(CredentialsTest), Effect.orDie)

/** Suspends (true) or resumes (false) a partner, as `partner suspend|resume` does. */
export const suspendPartner = (partnerId: string, suspended = true) =>
  Effect.flatMap(Credentials, (c) => c.setSuspended(partnerId, suspended)).pipe(
    Effect.provide(CredentialsTest),
    Effect.orDie
  )

/** A key's scopes from now on, as `partner set-scopes` does (through another Credentials than the server's). */
export const setKeyScopes = (keyId: string, scopes: ReadonlyArray<Scope>) =>
  Effect.flatMap(Credentials, (c) => c.setScopes(keyId, scopes)).pipe(Effect.provide(CredentialsTest), Effect.orDie)

export interface ListingSeed {
  readonly domain: string
  readonly bin?: number | null
  readonly floor?: number | null
  readonly environment?: PartnerEnvironment
  readonly status?: "active" | "pending" | "sold" | "withdrawn"
  readonly locked?: boolean
}

/** Inserts listings (A-label domains), default environment sandbox, buy-now 150000 cents. */
export const seedListings = (seeds: ReadonlyArray<ListingSeed>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const s of seeds) {
      const dot = s.domain.indexOf(".")
      yield* sql`insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents, status, locked)
        values (${`lst_${s.environment ?? "sandbox"}_${s.domain}`}, ${
        s.environment ?? "sandbox"
      }, ${s.domain}, ${s.domain},
                ${s.domain.slice(dot + 1)}, ${s.domain.slice(0, dot)}, ${s.bin === undefined ? 150_000 : s.bin},
                ${s.floor === undefined ? 100_000 : s.floor}, ${s.status ?? "active"}, ${s.locked ?? false})
        on conflict (environment, domain) do nothing`
    }
  }).pipe(Effect.orDie)

export interface SignedOptions {
  readonly body?: unknown
  readonly headers?: Record<string, string>
  /** Override parts of the signing (to produce failures). */
  readonly timestamp?: number
  readonly nonce?: string
  readonly secret?: string
  readonly baseUrl?: string
}

/** A signed request to the TestServer in scope (or `baseUrl`), as a partner's code would send it. */
export const signed = (cred: IssuedCredential, method: string, path: string, options: SignedOptions = {}) =>
  Effect.gen(function*() {
    const baseUrl = options.baseUrl ?? (yield* TestServer).baseUrl
    const body = options.body === undefined
      ? undefined
      : typeof options.body === "string"
      ? options.body
      : JSON.stringify(options.body)
    const headers = signRequest(
      { keyId: cred.key_id, secret: options.secret ?? cred.secret },
      { method, url: path, body, timestamp: options.timestamp, nonce: options.nonce }
    )
    return yield* Effect.promise(() =>
      fetchReply(`${baseUrl}${path}`, {
        method,
        body,
        headers: {
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
          ...headers,
          ...options.headers
        }
      })
    )
  })

/** Records a paid order for `domain` at `price` cents (a fresh Idempotency-Key); returns its public id. */
export const buy = (cred: IssuedCredential, domain: string, price: number) =>
  signed(cred, "POST", "/api/partner/v1/orders", {
    body: {
      domain,
      expected_price: price,
      currency: "USD",
      external_payment_ref: `pay-${domain}`,
      buyer: { email: "b@example.org" }
    },
    headers: { "idempotency-key": crypto.randomUUID() }
  }).pipe(Effect.map((r) => {
    if (r.status !== 201) throw new Error(r.text)
    return r.json.public_id as string
  }))

/**
 * `partners` new partners with `each` orders, all delivered (TRANSFER_COMPLETED) through the
 * admin API; prices `basePrice + partner index`. Returns the order ids.
 */
export const deliveredOrders = (tag: string, partners: number, each: number, basePrice = 10_000) =>
  Effect.gen(function*() {
    const admin = { authorization: `Bearer ${baseEnv.ADMIN_TOKEN}` }
    const { baseUrl } = yield* TestServer
    const advance = (id: string, step: string) =>
      Effect.promise(() => fetchReply(`${baseUrl}/api/admin/orders/${id}/${step}`, { method: "POST", headers: admin }))
        .pipe(
          Effect.map((r) => {
            if (r.status !== 200) throw new Error(`${step} ${id}: ${r.status} ${r.text}`)
          })
        )
    const ids: Array<string> = []
    for (let p = 0; p < partners; p++) {
      const cred = yield* createPartner({ scopes: ["buy"] })
      const domains = Array.from({ length: each }, (_, i) => `${tag}-${p}-${i}.com`)
      yield* seedListings(domains.map((domain) => ({ domain, bin: basePrice + p })))
      const orderIds = yield* Effect.forEach(domains, (d) => buy(cred, d, basePrice + p), { concurrency: 4 })
      yield* Effect.forEach(
        orderIds,
        (id) => Effect.zipRight(advance(id, "start-transfer"), advance(id, "confirm-delivery")),
        { concurrency: 4 }
      )
      ids.push(...orderIds)
    }
    return ids
  })

export const expectError = (reply: Reply, status: number, code: string) => {
  if (reply.status !== status || reply.json?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${reply.status} ${reply.text}`)
  }
  if (reply.json.error.request_id !== reply.headers.get("x-request-id")) {
    throw new Error("request_id differs from X-Request-Id")
  }
  return reply.json.error as { code: string; message: string; request_id: string }
}

/** The webhook delivery row of an event (status and attempts so far). */
export const deliveryOf = (eventId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<
        { status: string; attempts: number }
      >`select status, attempts from partner_webhook_deliveries where event_id = ${eventId}`
  ).pipe(
    Effect.map((rows) => rows[0]),
    Effect.orDie
  )

/**
 * Polls `check` every 100 ms of real time (not the TestClock of `it.effect`) until `ok` holds or
 * `timeoutMs` passes; returns the last value.
 */
export const waitUntil = <A, R>(check: Effect.Effect<A, never, R>, ok: (a: A) => boolean, timeoutMs = 20_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    let last = yield* check
    while (!ok(last) && Date.now() < deadline) {
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
      last = yield* check
    }
    return last
  })
