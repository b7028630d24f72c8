/**
 * The registrar as a delivery sees it: unlock the name, read its auth code, push it to another
 * account at the same registrar, and ask where a transfer out stands.
 *
 * - live (RTR_API_URL set): Realtime Register (src/catalogue/RealtimeRegister.ts), processes
 *   polled to completion by the client. Only live orders go there: a sandbox partner's delivery
 *   always talks to the sandbox registrar, whatever is configured.
 * - sandbox: deterministic outcomes by name, remembered in the database
 *   (`sandbox_registrar_transfers`, one row per push or hand-over asked for) so a restarted
 *   process sees what its predecessor asked:
 *   - a name containing `-transferfail` is refused: the registry's 60-day transfer lock;
 *   - a name containing `-transferflaky` is unreachable twice, then works (temporary failures);
 *   - any other push or auth code completes DELIVERY_SANDBOX_TRANSFER (2 s) after it was asked,
 *     or at once when the partner's sandbox `advance` hurries it.
 *
 * A failure says whether it is temporary (retried with back-off) and, if not, the reason given to
 * the partner (`registrar_lock_60_days`, `registrar_rejected`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Context, Data, Duration, Effect, Layer, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { RealtimeRegister, type RtrError } from "../catalogue/RealtimeRegister.js"
import { FulfilmentConfig } from "./Settings.js"

export class RegistrarFailure extends Data.TaggedError("RegistrarFailure")<{
  readonly temporary: boolean
  /** The reason a partner reads in `transfer.failed` (permanent failures). */
  readonly reason: string
  readonly message: string
}> {}

export type TransferStatus = "none" | "pending" | "completed" | "failed"

export interface DeliveryRegistrarShape {
  readonly mode: "live" | "sandbox"
  readonly unlock: (domain: string) => Effect.Effect<void, RegistrarFailure>
  /** A secret: never logged. */
  readonly authCode: (domain: string) => Effect.Effect<string, RegistrarFailure>
  readonly push: (domain: string, target: string) => Effect.Effect<void, RegistrarFailure>
  readonly status: (
    domain: string
  ) => Effect.Effect<{ readonly status: TransferStatus; readonly reason?: string | undefined }, RegistrarFailure>
}

/** The registrar of each environment's deliveries. */
export interface DeliveryRegistrarsShape {
  /** Sandbox deliveries: always the sandbox registrar. Live ones: Realtime Register when configured. */
  readonly of: (environment: "live" | "sandbox") => DeliveryRegistrarShape
  /** The sandbox registrar completes the transfers of `domain` asked so far now (sandbox `advance`). */
  readonly hurry: (domain: string) => Effect.Effect<void>
}

export class DeliveryRegistrars extends Context.Tag("fulfilment/DeliveryRegistrars")<
  DeliveryRegistrars,
  DeliveryRegistrarsShape
>() {}

export const LOCK_60_DAYS = "registrar_lock_60_days"

/** A Realtime Register error as a delivery failure: transport trouble is temporary, a refusal is not. */
export const failureOfRtr = (e: RtrError): RegistrarFailure => {
  const temporary = e.reason === "unreachable" || e.reason === "timeout" || e.reason === "upstream" ||
    e.reason === "rate_limited" || e.reason === "decode"
  const lock = /60[- ]?day/i.test(`${e.type ?? ""} ${e.message}`)
  return new RegistrarFailure({
    temporary,
    reason: temporary ? "registrar_unavailable" : lock ? LOCK_60_DAYS : "registrar_rejected",
    message: e.message
  })
}

const makeLive = Effect.map(RealtimeRegister, (rtr): DeliveryRegistrarShape => ({
  mode: "live",
  unlock: (domain) => Effect.mapError(rtr.unlockDomain(domain), failureOfRtr),
  authCode: (domain) => Effect.mapError(rtr.authCode(domain), failureOfRtr),
  push: (domain, target) => Effect.mapError(rtr.pushDomain(domain, target), failureOfRtr),
  status: (domain) => Effect.mapError(rtr.transferStatus(domain), failureOfRtr)
}))

const SandboxRow = Schema.Struct({ kind: Schema.String, age_ms: Schema.Number })

const makeSandbox = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const settings = yield* FulfilmentConfig
  const record = (domain: string, kind: string, target: string | null) =>
    Effect.orDie(
      sql`insert into sandbox_registrar_transfers (domain, kind, target) values (${domain}, ${kind}, ${target})`
    )
  const rows = SqlSchema.findAll({
    Request: Schema.String,
    Result: SandboxRow,
    execute: (domain) =>
      sql`select kind, (extract(epoch from (now() - at)) * 1000)::float8 as age_ms
          from sandbox_registrar_transfers where domain = ${domain} order by seq`
  })
  const history = (domain: string) => Effect.orDie(rows(domain))
  const refusal = (domain: string) =>
    Effect.gen(function*() {
      if (domain.includes("-transferfail")) {
        return yield* new RegistrarFailure({
          temporary: false,
          reason: LOCK_60_DAYS,
          message: `The registry refuses to transfer ${domain}: it was registered or transferred less than 60 days ago`
        })
      }
      if (domain.includes("-transferflaky")) {
        const failed = (yield* history(domain)).filter((r) => r.kind === "unreachable").length
        if (failed < 2) {
          yield* record(domain, "unreachable", null)
          return yield* new RegistrarFailure({
            temporary: true,
            reason: "registrar_unavailable",
            message: "Sandbox registrar unreachable (a -transferflaky name fails twice)"
          })
        }
      }
    })
  const transferMs = Duration.toMillis(settings.sandboxTransfer)
  const hurry = (domain: string) =>
    Effect.asVoid(Effect.orDie(
      sql`update sandbox_registrar_transfers set at = least(at, now() - ${`${transferMs} milliseconds`}::interval)
          where domain = ${domain}`
    ))
  const shape: DeliveryRegistrarShape = {
    mode: "sandbox",
    unlock: (domain) => refusal(domain),
    authCode: (domain) =>
      Effect.zipRight(
        refusal(domain),
        Effect.as(record(domain, "auth_code", null), `SBX-${randomBytes(9).toString("base64url")}`)
      ),
    push: (domain, target) => Effect.zipRight(refusal(domain), record(domain, "push", target)),
    status: (domain) =>
      Effect.map(history(domain), (all) => {
        const handed = all.filter((r) => r.kind === "push" || r.kind === "auth_code")
        const first = handed[0]
        if (first === undefined) return { status: "none" as const }
        return { status: first.age_ms >= transferMs ? "completed" as const : "pending" as const }
      })
  }
  return { shape, hurry }
})

/** Live orders: Realtime Register when configured (RTR_API_URL), else the sandbox registrar, as sandbox orders. */
export const DeliveryRegistrarsLive = Layer.effect(
  DeliveryRegistrars,
  Effect.gen(function*() {
    const rtr = yield* RealtimeRegister
    const sandbox = yield* makeSandbox
    const live = rtr.mode === "live" ? yield* makeLive : sandbox.shape
    return {
      of: (environment) => environment === "sandbox" ? sandbox.shape : live,
      hurry: sandbox.hurry
    } satisfies DeliveryRegistrarsShape
  })
)
