/**
 * A cancelled `search_domain` stops its upstream lookups: cancelled by the SDK client
 * (`notifications/cancelled`, which arrives on another HTTP request than the call), or by the
 * client going away mid-stream.
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as DelayedRdap from "../support/DelayedRdap.js"
import { connect, mcpUrl } from "../support/mcp.js"
import * as TestServer from "../support/TestServer.js"

class Rdap extends Context.Tag("test/Rdap")<Rdap, DelayedRdap.DelayedRdapShape>() {}

const SLOW = { delayMs: 20_000 }

const server = Layer.unwrapScoped(
  Effect.map(DelayedRdap.start({ com: SLOW, net: SLOW, io: SLOW }), (rdap) =>
    TestServer.layer({
      RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl,
      ALTERNATE_TLDS: "net,io",
      AVAILABILITY_UPSTREAM_TIMEOUT: "60 seconds",
      RDAP_TIMEOUT: "60 seconds"
    }).pipe(Layer.merge(Layer.succeed(Rdap, rdap))))
)

/** Polls a condition every 50 ms, up to `ms`. */
const eventually = (condition: () => boolean, ms: number) =>
  Effect.gen(function*() {
    for (let waited = 0; waited < ms && !condition(); waited += 50) yield* Effect.sleep("50 millis")
    return condition()
  })

const lookupsOf = (rdap: DelayedRdap.DelayedRdapShape, label: string) =>
  rdap.lookups().filter((r) => r.domain.startsWith(`${label}.`))

layer(server, { timeout: 120_000 })("cancelling a tool call", (it) => {
  it.scoped("notifications/cancelled from the SDK client stops the call's upstream lookups", () =>
    Effect.gen(function*() {
      const rdap = yield* Rdap
      const client = yield* connect()
      const controller = new AbortController()
      const call = client.callTool({ name: "search_domain", arguments: { q: "cancelme.com" } }, undefined, {
        signal: controller.signal,
        timeout: 90_000
      })
        .then(() => "answered", (e) => String(e))
      expect(yield* eventually(() => lookupsOf(rdap, "cancelme").length === 3, 15_000)).toBe(true)
      expect(lookupsOf(rdap, "cancelme").every((r) => r.state === "pending")).toBe(true)

      controller.abort("changed my mind")
      expect(yield* Effect.promise(() => call)).toContain("changed my mind")
      // Each RDAP request is abandoned long before its 20 s answer.
      expect(yield* eventually(() => lookupsOf(rdap, "cancelme").every((r) => r.state === "abandoned"), 10_000)).toBe(
        true
      )
      // The session still works.
      const tools = yield* Effect.promise(() => client.listTools())
      expect(tools.tools).toHaveLength(8)
    }))

  it.effect("a client that goes away mid-call stops the call's upstream lookups", () =>
    Effect.gen(function*() {
      const rdap = yield* Rdap
      const url = yield* mcpUrl
      const controller = new AbortController()
      const response = yield* Effect.promise(() =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 7,
            method: "tools/call",
            params: { name: "search_domain", arguments: { q: "goingaway.com" } }
          }),
          signal: controller.signal
        })
      )
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toContain("text/event-stream")
      expect(yield* eventually(() => lookupsOf(rdap, "goingaway").length === 3, 15_000)).toBe(true)

      controller.abort()
      expect(yield* eventually(() => lookupsOf(rdap, "goingaway").every((r) => r.state === "abandoned"), 10_000)).toBe(
        true
      )
    }))
})
