import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { post } from "../support/http.js"
import { accessToken } from "../support/identity.js"
import * as TestServer from "../support/TestServer.js"

const introspect = (token: string) =>
  post("/api/oauth/introspect", `token=${encodeURIComponent(token)}`, {
    authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}`,
    "content-type": "application/x-www-form-urlencoded"
  })

layer(TestServer.layer())("accessToken fixture", (it) => {
  it.effect("returns a live access token holding the asked scopes, issued through the real flow", () =>
    Effect.gen(function*() {
      const token = yield* accessToken(["pricing:read"])
      expect(token).toMatch(/^at_[A-Za-z0-9_-]{43}$/)
      const info = yield* introspect(token)
      expect(info.status).toBe(200)
      expect(info.json).toMatchObject({ active: true, scope: "pricing:read", token_type: "Bearer" })
      expect(info.json.sub).toMatch(/^usr_/)
    }))

  it.effect("accessToken([]) is a live token without any scope", () =>
    Effect.gen(function*() {
      const token = yield* accessToken([])
      const info = yield* introspect(token)
      expect(info.json).toMatchObject({ active: true, scope: "" })
    }))
})
