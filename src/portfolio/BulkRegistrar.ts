/**
 * How bulk operations call the registrar: a call it could not answer (not a refusal) is retried
 * a few times with back-off; a refusal is final, and reads as `code: message` on its item.
 */
import { Duration, Effect, Schedule } from "effect"
import { RegistrarUnavailable } from "./Errors.js"
import type { RegistrarError } from "./Registrar.js"

/** Retries a registrar call the registrar could not answer (not a refusal). */
export const retrying = <A>(call: Effect.Effect<A, RegistrarError>) =>
  call.pipe(
    Effect.retry({
      while: (e) => e.retryable,
      schedule: Schedule.exponential(Duration.millis(200)).pipe(Schedule.intersect(Schedule.recurs(3)))
    })
  )

export const registrarUnavailable = (e: RegistrarError) =>
  new RegistrarUnavailable({ message: `The registrar could not be reached: ${e.message}` })

export const describeError = (e: RegistrarError) => `${e.code}: ${e.message}`
