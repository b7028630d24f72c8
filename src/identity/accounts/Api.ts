/**
 * Sign-in endpoints (cookie sessions), used by people in a browser: bulk domain operations and
 * the OAuth consent page act for the signed-in user.
 *
 *   POST /api/auth/login   {email, password} → 200 {user, session}, sets the session cookie
 *   POST /api/auth/logout  → 204, ends the session and expires the cookie
 *   GET  /api/auth/me      → 200 {user, domains, session} (signed in), else 401
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt, rateLimited } from "../../platform/http/ApiAnnotations.js"
import { BadRequest, errorWire, Forbidden, RateLimited } from "../../platform/http/Errors.js"
import { policy } from "../../platform/http/RateLimit.js"
import { SessionAuth } from "../Session.js"
import { InvalidCredentials } from "./Errors.js"

export const loginLimits = {
  /** Attempts per client IP. */
  ip: policy("auth_login", 20, 60),
  /** Attempts per account (e-mail), whichever IPs they come from: slows password guessing on one account. */
  account: policy("auth_login_account", 10, 900)
} as const

export const UserView = Schema.Struct({
  id: Schema.String.annotations({ description: "User id (`usr_…`)", examples: ["usr_01jd3k9x0a1b2c3d4e5f6g7h8j"] }),
  email: Schema.String.annotations({ examples: ["owner@example.org"] }),
  created_at: Schema.String.annotations({ description: "RFC 3339 UTC", examples: ["2026-01-09T14:02:11.000Z"] })
}).annotations({ identifier: "User" })

export const SessionView = Schema.Struct({
  expires_at: Schema.String.annotations({
    description: "When the session ends (RFC 3339 UTC); signing in again starts a new one",
    examples: ["2026-01-23T14:02:11.000Z"]
  })
}).annotations({ identifier: "Session" })

export class LoginRequest extends Schema.Class<LoginRequest>("LoginRequest")({
  email: Schema.String.annotations({
    description: "The account's e-mail address (case-insensitive)",
    examples: ["owner@example.org"]
  }),
  password: Schema.String.annotations({
    description: "The account's password",
    examples: ["correct horse battery staple"]
  })
}) {}

export class SignedIn extends Schema.Class<SignedIn>("SignedIn")({
  user: UserView,
  session: SessionView
}) {}

export class Me extends Schema.Class<Me>("Me")({
  user: UserView,
  domains: Schema.Array(Schema.String).annotations({
    description: "Domains this user owns (A-labels); bulk operations act on these only",
    examples: [["example.com", "example.net"]]
  }),
  session: SessionView
}) {}

export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("login", "/api/auth/login")
      .setPayload(LoginRequest)
      .addSuccess(SignedIn)
      .addError(errorWire(InvalidCredentials))
      .addError(RateLimited)
      .addError(BadRequest)
      .addError(Forbidden)
      .annotate(OpenApi.Summary, "Sign in with e-mail and password")
      .annotate(
        OpenApi.Description,
        "Sets the session cookie `mp_session` (HttpOnly, SameSite=Lax, Secure in production). 401 `invalid_credentials` for an unknown e-mail or a wrong password (the same answer for both). 403 `origin_refused` when a browser page of another site sends it. Rate-limited per IP (20/min) and per account (10 per 15 min)."
      )
      .pipe(rateLimited(loginLimits.ip, { enforcedBy: "service" }), documentedAt("/docs/identity.md#sign-in"))
  )
  .add(
    HttpApiEndpoint.post("logout", "/api/auth/logout")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(Forbidden)
      .annotate(OpenApi.Summary, "Sign out")
      .annotate(OpenApi.Description, "Ends the session (if any) and expires the cookie. Always 204, signed in or not.")
      .pipe(documentedAt("/docs/identity.md#sign-in"))
  )
  .add(
    HttpApiEndpoint.get("me", "/api/auth/me")
      .addSuccess(Me)
      .middleware(SessionAuth)
      .annotate(OpenApi.Summary, "The signed-in user")
      .annotate(OpenApi.Description, "401 `not_signed_in` without a valid session cookie.")
      .pipe(documentedAt("/docs/identity.md#sign-in"))
  )
  .annotate(OpenApi.Title, "Sign-in")
  .annotate(OpenApi.Description, "Accounts and cookie sessions (bulk operations, OAuth consent)")
{}
