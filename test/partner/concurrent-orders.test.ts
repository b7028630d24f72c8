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
import { Deferred, Effect, Fiber, Option } from "effect"
import { Outbox } from "../../src/partner/events/Outbox.js"
import { request } from "../support/http.js"
import { createPartner, seedListings, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
const realSleep = (ms: number) => Effect.promise(() => new Promise<void>((r) => setTimeout(r, ms)))
const orderBody = (domain: string, price: number) => ({
  domain,
  expected_price: price,
  currency: "USD",
  external_payment_ref: `pay-${domain}`,
  buyer: { email: "b@example.org" }
})
// PGlite is one session: a held transaction holds every other connection's statements too, so
// only real PostgreSQL can show a second writer committing while the first is open.
const embedded = process.env.DATABASE_URL === undefined

layer(TestServer.layer(), { excludeTestServices: true })("one partner's concurrent orders", (it) => {
  it.effect(
    "GET /events waits for a writer in flight: the event committed later with a smaller id is not skipped",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* seedListings([{ domain: "feed-later.com", bin: 1_000 }])
        const cred = yield* createPartner()

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
          })).pipe(Effect.provide(Outbox.Live), Effect.orDie)
        )
        const heldId = yield* Deferred.await(appended)

        // An order of the same partner (a greater event id)…
        const order = yield* Effect.fork(signed(cred, "POST", "/api/partner/v1/orders", {
          body: orderBody("feed-later.com", 1_000),
          headers: { "idempotency-key": crypto.randomUUID() }
        }))
        if (!embedded) {
          // …commits while the first writer is still open: writers do not wait for each other.
          const early = yield* Fiber.join(order).pipe(Effect.timeout("10 seconds"))
          expect(early.status, early.text).toBe(201)
        }
        // A reader now must not answer the order's event alone: it waits for the writer in flight.
        const firstPage = yield* Effect.fork(signed(cred, "GET", "/api/partner/v1/events?limit=100"))
        yield* realSleep(400)
        if (!embedded) expect(Option.isNone(yield* Fiber.poll(firstPage))).toBe(true)
        yield* Deferred.succeed(release, undefined)
        expect(yield* Fiber.join(held)).toBe(heldId)
        expect((yield* Fiber.join(order)).status).toBe(201)

        // Paging on from the first page's cursor, every event is seen exactly once, in id order.
        const first = yield* Fiber.join(firstPage)
        expect(first.status, first.text).toBe(200)
        const cursor = first.json.next_cursor as string | null
        const rest = yield* signed(
          cred,
          "GET",
          `/api/partner/v1/events?limit=100${cursor ? `&after_id=${cursor}` : ""}`
        )
        const events = [...first.json.events, ...rest.json.events] as Array<{ id: string; type: string }>
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
        const replies = yield* Effect.forEach(domains, (d, i) =>
          signed(cred, "POST", "/api/partner/v1/orders", {
            body: orderBody(d, 1_000 + i),
            headers: { "idempotency-key": crypto.randomUUID() }
          }), { concurrency: "unbounded" })
        expect(replies.map((r) => r.status)).toEqual(domains.map(() => 201))
        const gmv = domains.reduce((sum, _, i) => sum + 1_000 + i, 0)
        const tx = yield* signed(cred, "GET", "/api/partner/v1/transactions")
        expect(tx.status, tx.text).toBe(200)
        expect(tx.json.totals.count).toBe(40)
        expect(tx.json.totals.gmv_cents).toBe(gmv)
        const events = yield* signed(cred, "GET", "/api/partner/v1/events?limit=100")
        expect(events.json.events.filter((e: any) => e.type === "order.recorded")).toHaveLength(40)
        const verify = yield* request("/api/admin/ledger/verify", { headers: ADMIN })
        expect(verify.status, verify.text).toBe(200)
        expect(verify.json.problems).toEqual([])
      }),
    { timeout: 60_000 }
  )
})
