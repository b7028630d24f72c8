/**
 * The registrar side of the portfolio: the domain operations bulk jobs and paid carts run.
 *
 * - live: Realtime Register (src/catalogue/RealtimeRegister.ts), its asynchronous processes
 *   polled to completion by the client; used when RTR_API_URL is set.
 * - sandbox (unconfigured): an in-memory registrar with realistic latencies (REGISTRAR_SANDBOX_LATENCY,
 *   default 40–120 ms per call) and the failures a real one has: a name whose label starts with
 *   `locked-` is under registry lock (every update is refused); one starting with `redemption-`
 *   expired 40 days ago (in its redemption period: restorable), one starting with `expired-` 90 days
 *   ago (past its restore window: restore is refused); one containing `rejected` is refused by the
 *   registry on renew and restore (after a cart passed every check); contact handles starting
 *   with `unknown-` do not exist; labels starting with `premium-` renew at a premium price.
 *
 * Every call holds one of REGISTRAR_CONCURRENCY permits (default 16): that many calls in flight
 * per registrar per process, however many bulk jobs run at once.
 */
import { Context, Data, Duration, Effect, Layer, Option, Random } from "effect"
import { RealtimeRegister, type RtrError } from "../catalogue/RealtimeRegister.js"
import { PortfolioConfig } from "./Config.js"

/** The client statuses that make a domain "locked" (transfer lock). */
export const LOCK_STATUS = "clientTransferProhibited"

export interface RegistrarDomain {
  readonly locked: boolean
  readonly autoRenew: boolean
  readonly nameservers: ReadonlyArray<string>
  readonly contactsHandle: string | null
  readonly expiresAt: Date | null
}

export class RegistrarError extends Data.TaggedError("RegistrarError")<{
  readonly domain: string
  readonly code: "registry_locked" | "past_restore_window" | "not_found" | "rejected" | "unavailable"
  readonly message: string
}> {
  /** Worth retrying later (the registrar was unreachable or busy), as opposed to a refusal. */
  get retryable() {
    return this.code === "unavailable"
  }
}

export interface RegistrarShape {
  readonly mode: "live" | "sandbox"
  readonly info: (domain: string) => Effect.Effect<RegistrarDomain, RegistrarError>
  readonly setLock: (domain: string, locked: boolean) => Effect.Effect<void, RegistrarError>
  readonly setNameservers: (domain: string, nameservers: ReadonlyArray<string>) => Effect.Effect<void, RegistrarError>
  readonly setContacts: (domain: string, handle: string) => Effect.Effect<void, RegistrarError>
  readonly setAutoRenew: (domain: string, on: boolean) => Effect.Effect<void, RegistrarError>
  readonly renew: (domain: string, years: number) => Effect.Effect<{ readonly expiresAt: Date | null }, RegistrarError>
  readonly restore: (
    domain: string,
    reason: string
  ) => Effect.Effect<{ readonly expiresAt: Date | null }, RegistrarError>
  readonly contactExists: (handle: string) => Effect.Effect<boolean, RegistrarError>
  /** The registry's premium price per year for this op, when the name is premium. */
  readonly premiumPrice: (domain: string, op: "renew" | "restore") => Effect.Effect<Option.Option<number>>
}

export class Registrar extends Context.Tag("app/Registrar")<Registrar, RegistrarShape>() {
  /**
   * The stand-in for a rule's test: the sandbox registrar with no latency and its own state (a
   * fresh registry per layer), no RTR client, no concurrency bound.
   */
  static readonly Test: Layer.Layer<Registrar> = Layer.sync(
    Registrar,
    () => ({ mode: "sandbox" as const, ...makeSandbox({ min: Duration.zero, max: Duration.zero }) })
  )
}

const fromRtr = (domain: string) => (e: RtrError): RegistrarError => {
  const code = e.reason === "not_found"
    ? "not_found" as const
    : e.reason === "rejected"
    ? (/redemption|restore/i.test(e.message)
      ? "past_restore_window" as const
      : /lock|Prohibit/i.test(`${e.type ?? ""} ${e.message}`)
      ? "registry_locked" as const
      : "rejected" as const)
    : "unavailable" as const
  return new RegistrarError({ domain, code, message: e.message })
}

const parseDate = (s: string | undefined) => {
  if (s === undefined || s === "") return null
  const d = new Date(s)
  return Number.isNaN(d.getTime()) ? null : d
}

const live = (rtr: Context.Tag.Service<RealtimeRegister>): Omit<RegistrarShape, "mode"> => ({
  info: (domain) =>
    rtr.domainInfo(domain).pipe(
      Effect.map((i): RegistrarDomain => ({
        locked: i.status.includes(LOCK_STATUS),
        autoRenew: i.autoRenew,
        nameservers: i.ns,
        contactsHandle: i.registrant ?? null,
        expiresAt: parseDate(i.expiryDate)
      })),
      Effect.mapError(fromRtr(domain))
    ),
  setLock: (domain, locked) =>
    Effect.mapError(rtr.updateDomain(domain, { status: locked ? [LOCK_STATUS] : [] }), fromRtr(domain)),
  setNameservers: (domain, ns) => Effect.mapError(rtr.updateDomain(domain, { ns }), fromRtr(domain)),
  setContacts: (domain, handle) => Effect.mapError(rtr.updateDomain(domain, { registrant: handle }), fromRtr(domain)),
  setAutoRenew: (domain, on) => Effect.mapError(rtr.updateDomain(domain, { autoRenew: on }), fromRtr(domain)),
  renew: (domain, years) =>
    rtr.renewDomain(domain, years * 12).pipe(
      Effect.map((r) => ({ expiresAt: parseDate(r.expiryDate) })),
      Effect.mapError(fromRtr(domain))
    ),
  restore: (domain, reason) =>
    rtr.restoreDomain(domain, reason).pipe(
      Effect.map((r) => ({ expiresAt: parseDate(r.expiryDate) })),
      Effect.mapError(fromRtr(domain))
    ),
  contactExists: (handle) => Effect.mapError(rtr.contactExists(handle), fromRtr(handle)),
  premiumPrice: (domain) =>
    rtr.checkDomain(domain).pipe(
      Effect.map((c) => (c.premium === true && c.price !== undefined && (c.currency ?? "USD").toUpperCase() === "USD"
        ? Option.some(c.price)
        : Option.none())
      ),
      Effect.orElseSucceed(() => Option.none<number>())
    )
})

/** The in-memory sandbox registrar (per process). */
export const makeSandbox = (
  latency: { readonly min: Duration.Duration; readonly max: Duration.Duration }
): Omit<RegistrarShape, "mode"> => {
  const state = new Map<
    string,
    {
      locked: boolean
      autoRenew: boolean
      nameservers: ReadonlyArray<string>
      contactsHandle: string | null
      expiresAt: Date
    }
  >()
  const minMs = Duration.toMillis(latency.min)
  const maxMs = Math.max(minMs, Duration.toMillis(latency.max))
  const wait = Effect.flatMap(Random.nextIntBetween(minMs, maxMs + 1), (ms) => Effect.sleep(Duration.millis(ms)))
  const label = (domain: string) => domain.split(".")[0]
  const get = (domain: string) => {
    let d = state.get(domain)
    if (d === undefined) {
      d = {
        locked: false,
        autoRenew: false,
        nameservers: ["ns1.sandbox-registrar.test", "ns2.sandbox-registrar.test"],
        contactsHandle: null,
        expiresAt: new Date(
          Date.now() + (label(domain).startsWith("expired-")
                ? -90
                : label(domain).startsWith("redemption-")
                ? -40
                : 365) * 86_400_000
        )
      }
      state.set(domain, d)
    }
    return d
  }
  const rejected = (domain: string, op: string) =>
    new RegistrarError({ domain, code: "rejected", message: `the registry rejected the ${op} of ${domain}` })
  const update = (domain: string, change: (d: ReturnType<typeof get>) => void) =>
    Effect.zipRight(
      wait,
      Effect.suspend(() => {
        if (label(domain).startsWith("locked-")) {
          return Effect.fail(
            new RegistrarError({
              domain,
              code: "registry_locked",
              message: `${domain} is locked at the registry (serverUpdateProhibited); the registry refuses changes`
            })
          )
        }
        change(get(domain))
        return Effect.void
      })
    )
  return {
    info: (domain) => Effect.zipRight(wait, Effect.sync(() => ({ ...get(domain) }))),
    setLock: (domain, locked) => update(domain, (d) => (d.locked = locked)),
    setNameservers: (domain, ns) => update(domain, (d) => (d.nameservers = ns)),
    setContacts: (domain, handle) => update(domain, (d) => (d.contactsHandle = handle)),
    setAutoRenew: (domain, on) => update(domain, (d) => (d.autoRenew = on)),
    renew: (domain, years) =>
      Effect.zipRight(
        wait,
        Effect.suspend(() => {
          if (label(domain).includes("rejected")) return Effect.fail(rejected(domain, "renew"))
          const d = get(domain)
          const next = new Date(d.expiresAt)
          next.setUTCFullYear(next.getUTCFullYear() + years)
          d.expiresAt = next
          return Effect.succeed({ expiresAt: next })
        })
      ),
    restore: (domain) =>
      Effect.zipRight(
        wait,
        Effect.suspend(() =>
          label(domain).startsWith("expired-")
            ? Effect.fail(
              new RegistrarError({
                domain,
                code: "past_restore_window",
                message: `${domain} is past its redemption period and can no longer be restored`
              })
            )
            : label(domain).includes("rejected")
            ? Effect.fail(rejected(domain, "restore"))
            : Effect.sync(() => {
              // A restore renews for a year from the old expiry (RGP restore + renewal).
              const d = get(domain)
              const next = new Date(d.expiresAt)
              next.setUTCFullYear(next.getUTCFullYear() + 1)
              d.expiresAt = next
              return { expiresAt: next }
            })
        )
      ),
    contactExists: (handle) => Effect.as(wait, !handle.toLowerCase().startsWith("unknown-")),
    premiumPrice: (domain, op) =>
      Effect.succeed(
        label(domain).startsWith("premium-") ? Option.some(op === "renew" ? 25_000 : 40_000) : Option.none()
      )
  }
}

/** Bounds every call of `shape` to `permits` in flight. */
const bounded = (shape: Omit<RegistrarShape, "mode">, permits: number) =>
  Effect.map(Effect.makeSemaphore(permits), (semaphore): Omit<RegistrarShape, "mode"> => {
    const wrapped: Record<string, unknown> = {}
    for (const [key, fn] of Object.entries(shape)) {
      wrapped[key] = (...args: Array<unknown>) =>
        semaphore.withPermits(1)((fn as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args))
    }
    return wrapped as unknown as Omit<RegistrarShape, "mode">
  })

export const RegistrarLive = Layer.effect(
  Registrar,
  Effect.gen(function*() {
    const rtr = yield* RealtimeRegister
    const config = yield* PortfolioConfig
    const base = rtr.mode === "live" ? live(rtr) : makeSandbox(config.sandboxLatency)
    return { mode: rtr.mode, ...(yield* bounded(base, config.registrarConcurrency)) }
  })
)
