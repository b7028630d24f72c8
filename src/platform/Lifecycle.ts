/**
 * Where the process is in its life: serving, or draining towards shutdown.
 *
 * The moment SIGTERM arrives (or the service's scope starts closing), `/readyz` answers 503
 * `shutting_down` so a load balancer stops sending new work, while `/healthz` stays 200 (the
 * process is alive) and requests in flight finish. The listener keeps accepting for
 * `SHUTDOWN_DRAIN_DELAY` (default 1 s: time for the balancer to notice), then closes; idle
 * keep-alive connections are closed, busy ones once their response is sent (SHUTDOWN_GRACE caps it).
 */
import * as HttpServer from "@effect/platform/HttpServer"
import { Context, Effect, Layer } from "effect"
import { AppConfig } from "./Config.js"

export interface LifecycleShape {
  /** True from SIGTERM (or the start of shutdown) on. */
  readonly draining: () => boolean
  readonly beginDrain: Effect.Effect<void>
}

export class Lifecycle extends Context.Tag("app/Lifecycle")<Lifecycle, LifecycleShape>() {
  static readonly Live = Layer.scoped(
    Lifecycle,
    Effect.gen(function*() {
      let draining = false
      const onSignal = () => {
        draining = true
      }
      // Alongside the runtime's own handler (which starts closing the scope): flips readiness at once.
      yield* Effect.acquireRelease(
        Effect.sync(() => process.on("SIGTERM", onSignal)),
        () => Effect.sync(() => process.off("SIGTERM", onSignal))
      )
      return {
        draining: () => draining,
        beginDrain: Effect.sync(onSignal)
      }
    })
  )
}

/**
 * Built after the HTTP server, so its finalizer runs first on shutdown: readiness turns 503,
 * then the drain delay passes before the server stops accepting.
 */
export const DrainLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    yield* HttpServer.HttpServer
    const lifecycle = yield* Lifecycle
    const config = yield* AppConfig
    yield* Effect.addFinalizer(() =>
      lifecycle.beginDrain.pipe(
        Effect.zipRight(Effect.logInfo("shutting down: readiness is 503, draining")),
        Effect.zipRight(Effect.sleep(config.shutdownDrainDelay))
      )
    )
  })
)
