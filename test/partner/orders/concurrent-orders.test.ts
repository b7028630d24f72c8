/**
 * One partner's orders at once (issue 18): they no longer wait for each other's commits, and the
 * rules that used to come with that waiting still hold.
 *
 * - The events feed: a reader paging `GET /events` by cursor never misses an event that commits
 *   after its page with a smaller id. A writer (here the outbox append of a transaction held
 *   open) no longer blocks the partner's other writers; the feed waits for it instead.
 * - The maintained sales totals (written per backend slot, migration 0160) still sum to the
 *   orders: `GET /transactions` totals and `ledger verify` after 40 concurrent orders.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option } from "effect"
import type { IssuedCredential } from "../../../src/partner/Credentials.js"
import { Outbox } from "../../../src/partner/events/Outbox.js"
import type { OrderRequest } from "../../../src/partner/orders/Api.js"
import { DeliveryQueueLive } from "../../../src/partner/webhooks/DeliveryQueue.js"
import { IdempotencyKey } from "../../../src/platform/http/IdempotencyKey.js"
import { apiClient } from "../../support/ApiClient.js"
import { createPartner, seedListings } from "../../support/PartnerKit.js"
import * as TestServer from "../../support/TestServer.js"

const realSleep = (ms: number) => Effect.promise(() => new Promise<void>((r) => setTimeout(r, ms)))
const orderBody = (domain: string, price: number): typeof OrderRequest.Type => ({
  domain,
  expected_price: price,
  currency: "USD",
  external_payment_ref: `pay-${domain}`,
  buyer: { email: "b@example.org" }
})
// PGlite is one session: a held transaction holds every other connection's statements too, so
// only real PostgreSQL can show a second writer committing while the first is open.
const embedded = process.env.DATABASE_URL === undefined

/** POST /orders through the typed client signed as `cred`, with a fresh Idempotency-Key; the order and the response. */
const createOrder = (cred: IssuedCredential, payload: typeof OrderRequest.Type) =>
  Effect.flatMap(
    apiClient({ partner: cred }),
    (client) =>
      client.partnerOrders.createOrder({
        payload,
        headers: { "idempotency-key": IdempotencyKey.make(crypto.randomUUID()) },
        withResponse: true
      })
  )

layer(TestServer.layer(), { excludeTestServices: true })("one partner's concurrent orders", (it) => {
  it.effect(
    "GET /events waits for a writer in flight: the event committed later with a smaller id is not skipped",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* seedListings([{ domain: "feed-later.com", bin: 1_000 }])
        const cred = yield* createPartner()
        const client = yield* apiClient({ partner: cred })

        // A writer appends its event (the smaller id) and stays open.
        const appended = yield* Deferred.make<string>()
        const release = yield* Deferred.make<void>()
        const held = yield* Effect.fork(
          sql.withTransaction(Effect.gen(function*() {
            const outbox = yield* Outbox
            const id = yield* outbox.append({
              partnerId: cred.partner_id,
              environment: "sandbox",
              type: "test.in_flight",
              data: { n: 1 }
            })
            yield* Deferred.succeed(appended, id)
            yield* Deferred.await(release)
            return id
          })).pipe(Effect.provide(Outbox.Live.pipe(Layer.provide(DeliveryQueueLive))), Effect.orDie)
        )
        const heldId = yield* Deferred.await(appended)

        // An order of the same partner (a greater event id)…
        const order = yield* Effect.fork(createOrder(cred, orderBody("feed-later.com", 1_000)))
        if (!embedded) {
          // …commits while the first writer is still open: writers do not wait for each other.
          const [, early] = yield* Fiber.join(order).pipe(Effect.timeout("10 seconds"))
          expect(early.status).toBe(201)
        }
        // A reader now must not answer the order's event alone: it waits for the writer in flight.
        const firstPage = yield* Effect.fork(
          client.partnerEvents.listEvents({ urlParams: { limit: "100" }, withResponse: true })
        )
        yield* realSleep(400)
        if (!embedded) expect(Option.isNone(yield* Fiber.poll(firstPage))).toBe(true)
        yield* Deferred.succeed(release, undefined)
        expect(yield* Fiber.join(held)).toBe(heldId)
        expect((yield* Fiber.join(order))[1].status).toBe(201)

        // Paging on from the first page's cursor, every event is seen exactly once, in id order.
        const [first, firstResponse] = yield* Fiber.join(firstPage)
        expect(firstResponse.status).toBe(200)
        const cursor = first.next_cursor
        const rest = yield* client.partnerEvents.listEvents({
          urlParams: cursor ? { limit: "100", after_id: cursor } : { limit: "100" }
        })
        const events = [...first.events, ...rest.events]
        const ids = events.map((e) => e.id)
        const orderEvent = events.find((e) => e.type === "order.recorded")
        expect(ids).toContain(heldId)
        expect(orderEvent).toBeDefined()
        expect(heldId < orderEvent!.id).toBe(true)
        expect(new Set(ids).size).toBe(ids.length)
        expect([...ids].sort()).toEqual(ids)
      }),
    { timeout: 60_000 }
  )

  it.effect(
    "40 concurrent orders of one partner: each recorded once, GET /transactions totals and ledger verify agree",
    () =>
      Effect.gen(function*() {
        const domains = Array.from({ length: 40 }, (_, i) => `totals-${i}.com`)
        yield* seedListings(domains.map((domain, i) => ({ domain, bin: 1_000 + i })))
        const cred = yield* createPartner({ scopes: ["buy", "report", "webhook"] })
        const replies = yield* Effect.forEach(
          domains,
          (d, i) => createOrder(cred, orderBody(d, 1_000 + i)),
          { concurrency: "unbounded" }
        )
        expect(replies.map(([, response]) => response.status)).toEqual(domains.map(() => 201))
        const gmv = domains.reduce((sum, _, i) => sum + 1_000 + i, 0)
        const client = yield* apiClient({ partner: cred })
        const [tx, txResponse] = yield* client.partnerMoney.listTransactions({ urlParams: {}, withResponse: true })
        expect(txResponse.status).toBe(200)
        expect(tx.totals.count).toBe(40)
        expect(tx.totals.gmv_cents).toBe(gmv)
        const events = yield* client.partnerEvents.listEvents({ urlParams: { limit: "100" } })
        expect(events.events.filter((e) => e.type === "order.recorded")).toHaveLength(40)
        const admin = yield* apiClient({ bearer: TestServer.baseEnv.ADMIN_TOKEN })
        const [verify, verifyResponse] = yield* admin.adminMoney.verifyLedger({ withResponse: true })
        expect(verifyResponse.status).toBe(200)
        expect(verify.problems).toEqual([])
      }),
    { timeout: 60_000 }
  )
})
