/** Handlers of the sign-in endpoints: Origin check, rate limit, one service call, the cookie. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../../app/Api.js"
import { AppConfig } from "../../platform/Config.js"
import {
  clearSessionCookie,
  CurrentUser,
  isSameOriginWrite,
  originRefused,
  sessionTokenOf,
  setSessionCookie
} from "../Session.js"
import { Accounts, type User } from "./Accounts.js"
import { Me, SignedIn } from "./Api.js"
import { limitLogin } from "./LoginLimit.js"

const userView = (u: User) => ({ id: u.id, email: u.email, created_at: u.createdAt.toISOString() })

export const AuthHttpLive = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const config = yield* AppConfig
    return handlers
      .handle("login", ({ payload, request }) =>
        Effect.gen(function*() {
          if (!isSameOriginWrite(request, config.baseUrl)) return yield* originRefused()
          yield* limitLogin(payload.email)
          const signedIn = yield* accounts.signIn(payload.email, payload.password)
          yield* setSessionCookie(signedIn.token, signedIn.expiresAt)
          return new SignedIn({
            user: userView(signedIn.user),
            session: { expires_at: signedIn.expiresAt.toISOString() }
          })
        }))
      .handle("logout", ({ request }) =>
        Effect.gen(function*() {
          if (!isSameOriginWrite(request, config.baseUrl)) return yield* originRefused()
          const token = sessionTokenOf(request)
          if (token !== undefined) yield* accounts.endSession(token)
          yield* clearSessionCookie
        }))
      .handle("me", () =>
        Effect.gen(function*() {
          const user = yield* CurrentUser
          const domains = yield* accounts.domainsOf(user.id)
          return new Me({ user: userView(user), domains, session: { expires_at: user.sessionExpiresAt.toISOString() } })
        }))
  }))
