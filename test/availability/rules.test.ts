/**
 * The engine's rules (pure) and its upstream guard: how registrar and RDAP evidence combine, and
 * the circuit breaker's state machine.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Fiber, TestClock } from "effect"
import fc from "fast-check"
import { isRejected, makeGuard } from "../../src/availability/Guard.js"
import {
  availableOf,
  combineEvidence,
  type RdapEvidence,
  type RegistrarEvidence
} from "../../src/domain/Availability.js"

const whois = { registrar: "R", created: null, expires: null, status: [] }
const registrar: fc.Arbitrary<RegistrarEvidence> = fc.oneof(
  fc.constant({ _tag: "NotConfigured" } as const),
  fc.record({
    _tag: fc.constant("Answered" as const),
    available: fc.boolean(),
    premium: fc.boolean(),
    priceCents: fc.option(fc.nat({ max: 10_000_000 }), { nil: null }),
    reason: fc.option(fc.string(), { nil: null })
  }),
  fc.record({ _tag: fc.constant("Failed" as const), reason: fc.string() })
)
const rdap: fc.Arbitrary<RdapEvidence> = fc.oneof(
  fc.constant({ _tag: "Registered", whois } as const),
  fc.constant({ _tag: "Unregistered" } as const),
  fc.record({ _tag: fc.constant("NoService" as const), reason: fc.string() }),
  fc.record({ _tag: fc.constant("Failed" as const), reason: fc.string() })
)
const standard = fc.option(fc.nat({ max: 100_000 }), { nil: null })

describe("combining evidence", () => {
  it("available only on an authoritative 'not registered' (registrar said available, or RDAP 404)", () => {
    fc.assert(
      fc.property(registrar, rdap, standard, (r, d, p) => {
        const o = combineEvidence(r, d, p)
        if (o.state === "available" || o.state === "premium") {
          expect((r._tag === "Answered" && r.available) || d._tag === "Unregistered").toBe(true)
        }
        // A failed or missing RDAP answer without a registrar answer is never available.
        if (r._tag !== "Answered" && d._tag !== "Unregistered") expect(availableOf(o.state)).not.toBe(true)
      })
    )
  })

  it("never a standard price for a premium name; no price at all when the registrar could not confirm", () => {
    fc.assert(
      fc.property(registrar, rdap, standard, (r, d, p) => {
        const o = combineEvidence(r, d, p)
        if (r._tag === "Answered" && r.available && r.premium) {
          expect(o.state).toBe("premium")
          expect(o.priceCents).toBe(r.priceCents)
        }
        if (r._tag === "Failed" && o.state === "available") {
          expect(o.priceCents).toBeNull()
          expect(o.complete).toBe(false)
        }
        if (o.state === "available" && !(r._tag === "Failed")) expect(o.priceCents).toBe(p)
        if (o.state !== "available" && o.state !== "premium") expect(o.priceCents).toBeNull()
      })
    )
  })

  it("registered, reserved and unknown as the description says", () => {
    fc.assert(
      fc.property(registrar, rdap, standard, (r, d, p) => {
        const o = combineEvidence(r, d, p)
        if (d._tag === "Registered" && !(r._tag === "Answered" && r.available)) expect(o.state).toBe("registered")
        if (r._tag === "Answered" && !r.available && d._tag === "Unregistered") expect(o.state).toBe("reserved")
        if (r._tag !== "Answered" && d._tag === "Failed") {
          expect(o.state).toBe("unknown")
          expect(o.reason).toContain("rdap:")
          expect(o.complete).toBe(false)
        }
        if (o.whois !== null) expect(d._tag).toBe("Registered")
      })
    )
  })
})

describe("upstream guard", () => {
  const options = {
    name: "test upstream",
    timeout: Duration.seconds(1),
    concurrency: 2,
    failures: 3,
    cooldown: Duration.seconds(30)
  }
  const boom = Effect.fail("boom" as const)

  it.effect("opens after N consecutive failures, fails fast while open, lets one trial through after the cooldown", () =>
    Effect.gen(function*() {
      const guard = yield* makeGuard(options)
      let calls = 0
      const failing = Effect.suspend(() => {
        calls++
        return boom
      })
      for (let i = 0; i < 3; i++) expect(yield* Effect.either(guard.run("a", failing))).toEqual(Either.left("boom"))
      expect(yield* guard.stateOf("a")).toBe("open")
      const rejected = yield* Effect.either(guard.run("a", failing))
      expect(Either.isLeft(rejected) && isRejected(rejected.left) && rejected.left.reason).toBe("circuit_open")
      expect(calls).toBe(3)
      // Other keys are independent.
      expect(yield* guard.run("b", Effect.succeed(1))).toBe(1)

      yield* TestClock.adjust(Duration.seconds(31))
      expect(yield* guard.stateOf("a")).toBe("half_open")
      // The trial fails: open again at once.
      expect(yield* Effect.either(guard.run("a", failing))).toEqual(Either.left("boom"))
      expect(yield* guard.stateOf("a")).toBe("open")
      yield* TestClock.adjust(Duration.seconds(31))
      // The trial succeeds: closed.
      expect(yield* guard.run("a", Effect.succeed("ok"))).toBe("ok")
      expect(yield* guard.stateOf("a")).toBe("closed")
    }))

  it.effect("answers that are not failures (e.g. 404) keep the circuit closed; a success resets the count", () =>
    Effect.gen(function*() {
      const guard = yield* makeGuard(options)
      const notFound = Effect.fail("not_found" as const)
      for (let i = 0; i < 5; i++) yield* Effect.either(guard.run("a", notFound, (e) => e !== "not_found"))
      expect(yield* guard.stateOf("a")).toBe("closed")
      yield* Effect.either(guard.run("a", boom))
      yield* Effect.either(guard.run("a", boom))
      yield* guard.run("a", Effect.succeed(1))
      yield* Effect.either(guard.run("a", boom))
      yield* Effect.either(guard.run("a", boom))
      expect(yield* guard.stateOf("a")).toBe("closed")
    }))

  it.effect("a call slower than the timeout is rejected as timeout and counts as a failure", () =>
    Effect.gen(function*() {
      const guard = yield* makeGuard({ ...options, failures: 1 })
      const fiber = yield* Effect.fork(Effect.either(guard.run("slow", Effect.never)))
      yield* TestClock.adjust(Duration.seconds(2))
      const result = yield* Fiber.join(fiber)
      expect(Either.isLeft(result) && isRejected(result.left) && result.left.reason).toBe("timeout")
      expect(yield* guard.stateOf("slow")).toBe("open")
    }))

  it.effect("bounded concurrency: waiting for a permit counts toward the timeout", () =>
    Effect.gen(function*() {
      const guard = yield* makeGuard({ ...options, concurrency: 1, failures: 100 })
      // The first call holds the only permit for 1.5 s (it cannot be cut short).
      const first = yield* Effect.fork(
        Effect.either(guard.run("k", Effect.uninterruptible(Effect.sleep(Duration.millis(1500)))))
      )
      yield* Effect.yieldNow()
      const second = yield* Effect.fork(Effect.either(guard.run("k", Effect.succeed("second"))))
      yield* TestClock.adjust(Duration.millis(1100))
      // The second never got the permit within its 1 s: timeout, although its own work is instant.
      const secondResult = yield* Fiber.join(second)
      expect(Either.isLeft(secondResult) && isRejected(secondResult.left) && secondResult.left.reason).toBe("timeout")
      yield* TestClock.adjust(Duration.millis(500))
      yield* Fiber.join(first)
      // With the permit free again, a call goes through.
      expect(yield* guard.run("k", Effect.succeed("third"))).toBe("third")
    }))

  it.effect("an interrupted call (the client went away) is not a failure", () =>
    Effect.gen(function*() {
      const guard = yield* makeGuard({ ...options, failures: 1 })
      const fiber = yield* Effect.fork(guard.run("k", Effect.never))
      yield* Fiber.interrupt(fiber)
      expect(yield* guard.stateOf("k")).toBe("closed")
    }))
})
