/**
 * Fulfilment through the live Realtime Register client against a loopback fake of its REST API
 * (test/support/RtrServer.ts): a push target is pushed once (the process polled to completion),
 * the transfer status followed to TRANSFER_COMPLETED; the auth code read from the registrar is
 * handed out once; the registry's 60-day lock error ends in transfer.failed with its reason.
 * These are live partners' orders: a sandbox partner's delivery never reaches the registrar.
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
import { fetchReply } from "../support/http.js"
import { buy, createPartner, seedListings, signed, waitUntil } from "../support/PartnerKit.js"
import { type RtrServer, rtrSettings, startRtrServer, TEST_RTR_ACCOUNT } from "../support/RtrServer.js"
import * as TestServer from "../support/TestServer.js"

class Rtr extends Context.Tag("test/Rtr")<Rtr, RtrServer>() {}

const env = Layer.unwrapScoped(
  Effect.gen(function*() {
    const rtr = yield* startRtrServer({
      ...TEST_RTR_ACCOUNT,
      tlds: {},
      anyDomain: true,
      domains: { "locked-out.com": { status: ["clientTransferProhibited", "clientDeleteProhibited"] } },
      asyncProcesses: true
    })
    return TestServer.layer({
      ...rtrSettings(rtr),
      DELIVERY_AUTOSTART: "true",
      DELIVERY_STATUS_POLL: "200 millis",
      REVIEW_THRESHOLD_CENTS: "500000"
    }).pipe(Layer.merge(Layer.succeed(Rtr, rtr)))
  })
)

/**
 * An order held for review (at or above REVIEW_THRESHOLD_CENTS), its delivery chosen, then
 * cleared: the choice is in before the delivery can start.
 */
const heldOrderPushedTo = (cred: IssuedCredential, domain: string, target: string) =>
  Effect.gen(function*() {
    yield* seedListings([{ domain, bin: 600_000, environment: "live" }])
    const id = yield* buy(cred, domain, 600_000)
    const choice = yield* signed(cred, "PUT", `/api/partner/v1/orders/${id}/delivery`, {
      body: { method: "push", target_account: target }
    })
    expect(choice.status).toBe(200)
    const { baseUrl } = yield* TestServer.TestServer
    const cleared = yield* Effect.promise(() =>
      fetchReply(`${baseUrl}/api/admin/orders/${id}/clear-review`, {
        method: "POST",
        headers: { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }
      })
    )
    expect(cleared.status).toBe(200)
    return id
  })

const detail = (cred: IssuedCredential, id: string) =>
  Effect.map(signed(cred, "GET", `/api/partner/v1/orders/${id}`), (r) => r.json)

const eventsOf = (cred: IssuedCredential, id: string) =>
  Effect.map(
    signed(cred, "GET", "/api/partner/v1/events?limit=100"),
    (r) => (r.json.events as Array<any>).filter((e) => e.data?.order?.public_id === id)
  )

layer(env, { timeout: 120_000 })("fulfilment through the live registrar client", (it) => {
  it.effect("a push: unlocked, pushed once to the target account, followed to TRANSFER_COMPLETED", () =>
    Effect.gen(function*() {
      const rtr = yield* Rtr
      const cred = yield* createPartner({ environment: "live" })
      const id = yield* heldOrderPushedTo(cred, "locked-out.com", "acme-registrar")
      const done = yield* waitUntil(detail(cred, id), (d) => d.status === "TRANSFER_COMPLETED")
      expect(done.status).toBe("TRANSFER_COMPLETED")
      expect(done.transfer).toMatchObject({ state: "completed", method: "push", target: "acme-registrar" })
      expect(rtr.pushes("locked-out.com")).toBe(1)
      expect(rtr.domains.get("locked-out.com")!.transferOut?.recipient).toBe("acme-registrar")
      // Unlocked before the push, the other client statuses kept.
      expect(rtr.domains.get("locked-out.com")!.status).toEqual(["clientDeleteProhibited"])
      const types = (yield* eventsOf(cred, id)).map((e) => e.type)
      expect(types.filter((t) => t.startsWith("transfer."))).toEqual([
        "transfer.requested",
        "transfer.pending",
        "transfer.completed"
      ])
    }))

  it.effect("the auth code: read from the registrar, sealed, handed out once; the gaining side completes it", () =>
    Effect.gen(function*() {
      const rtr = yield* Rtr
      yield* seedListings([{ domain: "code-out.com", bin: 10_000, environment: "live" }])
      const cred = yield* createPartner({ environment: "live" })
      const id = yield* buy(cred, "code-out.com", 10_000)
      const ready = yield* waitUntil(detail(cred, id), (d) => d.transfer.state === "auth_code_ready")
      expect(ready.transfer).toMatchObject({ state: "auth_code_ready", method: "auth_code" })
      const event = (yield* eventsOf(cred, id)).find((e) => e.type === "transfer.auth_code_ready")
      const url = new URL(event.data.retrieve_url)
      const code = yield* signed(cred, "GET", `${url.pathname}${url.search}`)
      expect(code.status).toBe(200)
      expect(code.json.auth_code).toBe(rtr.domains.get("code-out.com")!.authcode)
      // The partner's registrar uses the code: the registrar reports the transfer out.
      rtr.domains.get("code-out.com")!.transferOut = { kind: "auth_code", polls: 0 }
      const done = yield* waitUntil(detail(cred, id), (d) => d.status === "TRANSFER_COMPLETED")
      expect(done.transfer.state).toBe("completed")
      expect(rtr.pushes("code-out.com")).toBe(0)
    }))

  it.effect("the registry's 60-day lock: transfer.failed with registrar_lock_60_days, not retried", () =>
    Effect.gen(function*() {
      const rtr = yield* Rtr
      const cred = yield* createPartner({ environment: "live" })
      const id = yield* heldOrderPushedTo(cred, "fresh-transferfail.com", "acme-registrar")
      const failed = yield* waitUntil(detail(cred, id), (d) => d.transfer.state === "failed")
      expect(failed.transfer).toMatchObject({ state: "failed", method: "push", attempts: 1 })
      expect(failed.transfer.last_error).toMatch(/60 days/)
      const f = (yield* eventsOf(cred, id)).find((e) => e.type === "transfer.failed")
      expect(f.data).toMatchObject({ reason: "registrar_lock_60_days", will_retry: false })
      expect(rtr.pushes("fresh-transferfail.com")).toBe(1)
    }))
  it.effect("a sandbox partner's order is delivered by the sandbox registrar: the registrar hears nothing of it", () =>
    Effect.gen(function*() {
      const rtr = yield* Rtr
      yield* seedListings([{ domain: "sandbox-only.com", bin: 10_000 }])
      const cred = yield* createPartner()
      const id = yield* buy(cred, "sandbox-only.com", 10_000)
      const done = yield* waitUntil(detail(cred, id), (d) => d.status === "TRANSFER_COMPLETED")
      expect(done.transfer).toMatchObject({ state: "completed", method: "auth_code" })
      expect(rtr.requests.filter((r) => r.path.includes("sandbox-only"))).toEqual([])
    }))
})
