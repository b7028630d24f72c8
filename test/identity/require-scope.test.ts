import { HttpServerRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { requireScope } from "../../src/identity/Bearer.js"
import { CurrentViewer, type Viewer } from "../../src/identity/Viewer.js"
import { AppConfigLive } from "../../src/platform/Config.js"

// No public operation requires a scope today (pricing:read only unmasks); this is the guard the
// first one that does will use, checked here against each kind of caller.
const run = (viewer: Viewer) =>
  requireScope("pricing:read").pipe(
    Effect.provideService(CurrentViewer, viewer),
    Effect.provideService(
      HttpServerRequest.HttpServerRequest,
      HttpServerRequest.fromWeb(new Request("http://127.0.0.1/api/market/listings"))
    ),
    Effect.provide(
      AppConfigLive.pipe(
        Layer.provide(
          Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["BASE_URL", "https://api.example.test"]])))
        )
      )
    ),
    Effect.flip,
    Effect.map((e) => ({ tag: e._tag, code: (e as any).code })),
    Effect.catchAllCause(() => Effect.succeed({ tag: "passed", code: "" }))
  )

describe("requireScope", () => {
  it.effect("anonymous → 401 unauthorized; token without the scope → 403 insufficient_scope; with it → passes", () =>
    Effect.gen(function*() {
      expect(yield* run({ _tag: "Anonymous" })).toEqual({ tag: "Unauthorized", code: "unauthorized" })
      expect(yield* run({ _tag: "User", userId: "usr_1", scopes: [], clientId: "c" })).toEqual({
        tag: "Forbidden",
        code: "insufficient_scope"
      })
      const ok = yield* requireScope("pricing:read").pipe(
        Effect.provideService(CurrentViewer, {
          _tag: "User",
          userId: "usr_1",
          scopes: ["pricing:read"],
          clientId: "c"
        }),
        Effect.provideService(
          HttpServerRequest.HttpServerRequest,
          HttpServerRequest.fromWeb(new Request("http://127.0.0.1/x"))
        ),
        Effect.provide(AppConfigLive)
      )
      expect(ok._tag).toBe("User")
    }))
})
