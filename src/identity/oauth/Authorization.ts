/**
 * The authorization endpoint's logic (RFC 6749 §4.1 with PKCE S256, RFC 8707 resource,
 * RFC 9207 `iss`): a request checked, then the user's approval (a grant and its single-use code)
 * or denial, each answered as the redirect back to the client.
 *
 * The contract: a bad client or redirect URI is never redirected to (an error page instead);
 * every other problem is redirected back with its `error`.
 */
import { Clock, Effect, Either } from "effect"
import {
  checkResource,
  formatScope,
  isValidS256Challenge,
  parseScope,
  SUPPORTED_SCOPES
} from "../../domain/OAuthRules.js"
import { clipEcho } from "../../platform/http/Errors.js"
import { makeId } from "../../platform/Ids.js"
import { randomSecret, sha256Hex } from "../../platform/security/Crypto.js"
import type { OAuthDeps } from "./OAuth.js"
import { type Client, getClient } from "./Registration.js"

/** Raw authorization request parameters (query string of GET /oauth/authorize, or the form re-posted). */
export interface AuthorizeParams {
  readonly response_type?: string | undefined
  readonly client_id?: string | undefined
  readonly redirect_uri?: string | undefined
  readonly code_challenge?: string | undefined
  readonly code_challenge_method?: string | undefined
  readonly state?: string | undefined
  readonly scope?: string | undefined
  readonly resource?: string | undefined
}

/** A validated authorization request, ready for sign-in and consent. */
export interface AuthorizeRequest {
  readonly client: Client
  readonly redirectUri: string
  readonly scopes: ReadonlyArray<string>
  readonly codeChallenge: string
  readonly state: string | undefined
  readonly resource: string | null
}

export type AuthorizeCheck =
  /** Bad client or redirect URI: show an error page, never redirect. */
  | { readonly _tag: "Fatal"; readonly title: string; readonly message: string }
  /** Client and redirect URI are fine, the rest is not: redirect back with `error`. */
  | {
    readonly _tag: "RedirectError"
    readonly redirectUri: string
    readonly state: string | undefined
    readonly error: string
    readonly description: string
  }
  | { readonly _tag: "Valid"; readonly request: AuthorizeRequest }

/** RFC 9207 + RFC 6749 §4.1.2: the redirect back to the client (success or error). */
export const redirectTo = (redirectUri: string, issuer: string, params: Record<string, string | undefined>): string => {
  const url = new URL(redirectUri)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v)
  url.searchParams.append("iss", issuer)
  return url.toString()
}

/** The client and the redirect URI: any problem here is an error page, never a redirect. */
const checkClient = (d: OAuthDeps, p: AuthorizeParams) =>
  Effect.gen(function*() {
    if (!p.client_id) {
      return {
        _tag: "Fatal",
        title: "Missing client_id",
        message: "The authorization request has no client_id."
      } as const
    }
    const client = yield* getClient(d.repo, p.client_id)
    if (client === undefined) {
      return {
        _tag: "Fatal",
        title: "Unknown application",
        message: "The application asking for access is not registered with this service."
      } as const
    }
    if (!p.redirect_uri) {
      return {
        _tag: "Fatal",
        title: "Missing redirect_uri",
        message: "The authorization request has no redirect_uri."
      } as const
    }
    if (!client.redirectUris.includes(p.redirect_uri)) {
      return {
        _tag: "Fatal",
        title: "Unregistered redirect URI",
        message:
          "The redirect URI of this request is not registered for the application, so you will not be sent there."
      } as const
    }
    return { _tag: "Client", client, redirectUri: p.redirect_uri } as const
  })

/** The rest of the request, for a known client and redirect URI: problems go back by redirect. */
const checkRequest = (issuer: string, p: AuthorizeParams, client: Client, redirectUri: string): AuthorizeCheck => {
  const redirectError = (error: string, description: string): AuthorizeCheck => ({
    _tag: "RedirectError",
    redirectUri,
    state: p.state,
    error,
    description
  })
  if (p.response_type !== "code") {
    return p.response_type === undefined || p.response_type === ""
      ? redirectError("invalid_request", "response_type is required (code)")
      : redirectError(
        "unsupported_response_type",
        `response_type "${clipEcho(String(p.response_type))}" is not supported; use code`
      )
  }
  if (!p.code_challenge) return redirectError("invalid_request", "code_challenge is required (PKCE with S256)")
  if (p.code_challenge_method !== "S256") {
    return redirectError(
      "invalid_request",
      p.code_challenge_method === undefined || p.code_challenge_method === ""
        ? "code_challenge_method is required and must be S256"
        : `code_challenge_method "${clipEcho(String(p.code_challenge_method))}" is not supported; use S256`
    )
  }
  if (!isValidS256Challenge(p.code_challenge)) {
    return redirectError(
      "invalid_request",
      "code_challenge must be the base64url SHA-256 of the code_verifier (43 characters)"
    )
  }
  const scopes = parseScope(p.scope)
  if (Either.isLeft(scopes)) {
    return redirectError(
      "invalid_scope",
      `Unsupported scope: ${clipEcho(scopes.left.join(", "))} (supported: ${SUPPORTED_SCOPES.join(" ")})`
    )
  }
  let resource: string | null = null
  if (p.resource !== undefined) {
    const r = checkResource(issuer, p.resource)
    if (Either.isLeft(r)) return redirectError("invalid_target", r.left)
    resource = r.right
  }
  return {
    _tag: "Valid",
    request: { client, redirectUri, scopes: scopes.right, codeChallenge: p.code_challenge, state: p.state, resource }
  }
}

export const checkAuthorize = (d: OAuthDeps, p: AuthorizeParams): Effect.Effect<AuthorizeCheck> =>
  Effect.map(
    checkClient(d, p),
    (c): AuthorizeCheck => c._tag === "Fatal" ? c : checkRequest(d.issuer, p, c.client, c.redirectUri)
  )

/** The user approved: a new grant and its single-use code. Returns the redirect URL. */
export const approve = (d: OAuthDeps, userId: string, request: AuthorizeRequest) =>
  Effect.gen(function*() {
    const code = randomSecret()
    const grantId = makeId("grt")
    const expiresAt = new Date((yield* Clock.currentTimeMillis) + d.ttl.code)
    yield* d.repo.transaction(
      Effect.zipRight(
        d.repo.insertGrant({
          id: grantId,
          client_id: request.client.clientId,
          user_id: userId,
          scope: formatScope(request.scopes),
          resource: request.resource
        }),
        d.repo.insertCode({
          code_hash: sha256Hex(code),
          grant_id: grantId,
          redirect_uri: request.redirectUri,
          code_challenge: request.codeChallenge,
          code_challenge_method: "S256",
          expires_at: expiresAt
        })
      )
    )
    return redirectTo(request.redirectUri, d.issuer, { code, state: request.state })
  })

export const deny = (d: OAuthDeps, request: AuthorizeRequest) =>
  redirectTo(request.redirectUri, d.issuer, {
    error: "access_denied",
    error_description: "The user denied the request",
    state: request.state
  })
