/**
 * The token endpoint (RFC 6749 §4.1.3 and §6): an authorization code exchanged under PKCE, and a
 * refresh token rotated, each for a new access and refresh token pair.
 *
 * The contract: a code and a refresh token are single-use, and a second use revokes the whole
 * grant. Reuse detection must survive the failure it reports, so each transaction returns its
 * outcome as a value (an Either) and the error is raised only after it committed.
 */
import { Effect, Either, Option } from "effect"
import { checkResource, formatScope, isValidCodeVerifier, parseScope, verifyS256 } from "../../domain/OAuthRules.js"
import { clipEcho } from "../../platform/http/Errors.js"
import { randomSecret, sha256Hex } from "../../platform/security/Crypto.js"
import type { OAuthDeps } from "./OAuth.js"
import { type OAuthError, oauthError } from "./OAuthError.js"
import { type Client, getClient } from "./Registration.js"

export interface TokenResponse {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: number
  readonly refresh_token: string
  readonly scope: string
}

export interface TokenRequest {
  readonly grant_type?: string | undefined
  readonly client_id?: string | undefined
  readonly code?: string | undefined
  readonly redirect_uri?: string | undefined
  readonly code_verifier?: string | undefined
  readonly refresh_token?: string | undefined
  readonly scope?: string | undefined
  readonly resource?: string | undefined
}

type Outcome = Either.Either<TokenResponse, OAuthError>
const no = (e: OAuthError): Outcome => Either.left(e)
const yes = (t: TokenResponse): Outcome => Either.right(t)

const issueTokens = (d: OAuthDeps, grantId: string, scope: string, resource: string | null) =>
  Effect.gen(function*() {
    const at = yield* d.now
    const access = randomSecret("at_")
    const refresh = randomSecret("rt_")
    yield* d.repo.insertTokens([
      {
        token_hash: sha256Hex(access),
        kind: "access",
        grant_id: grantId,
        scope,
        resource,
        created_at: at,
        expires_at: new Date(at.getTime() + d.ttl.access)
      },
      {
        token_hash: sha256Hex(refresh),
        kind: "refresh",
        grant_id: grantId,
        scope,
        resource,
        created_at: at,
        expires_at: new Date(at.getTime() + d.ttl.refresh)
      }
    ])
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: Math.floor(d.ttl.access / 1000),
      refresh_token: refresh,
      scope
    } satisfies TokenResponse
  })

const requireClient = (d: OAuthDeps, clientId: string | undefined) =>
  Effect.gen(function*() {
    if (!clientId) {
      return yield* oauthError(
        "invalid_request",
        "client_id is required (public clients identify themselves with client_id)"
      )
    }
    const client = yield* getClient(d.repo, clientId)
    if (client === undefined) return yield* oauthError("invalid_client", "Unknown client_id")
    return client
  })

/** Validates an optional `resource` on the token request against the one bound to the grant. */
const resolveTokenResource = (
  issuer: string,
  requested: string | undefined,
  bound: string | null
): Either.Either<string | null, OAuthError> => {
  if (requested === undefined) return Either.right(bound)
  const r = checkResource(issuer, requested)
  if (Either.isLeft(r)) return Either.left(oauthError("invalid_target", r.left))
  if (bound !== null && bound !== r.right) {
    return Either.left(
      oauthError("invalid_target", `The grant is bound to resource ${bound}, not ${clipEcho(String(r.right))}`)
    )
  }
  return Either.right(r.right)
}

/** The code's redemption, under its row lock: consumed whatever the outcome, a reuse revoking the grant. */
const redeemCode = (d: OAuthDeps, req: TokenRequest, client: Client, codeHash: string) =>
  Effect.gen(function*() {
    const at = yield* d.now
    const locked = yield* d.repo.lockCode(codeHash)
    if (Option.isNone(locked)) return no(oauthError("invalid_grant", "The authorization code is invalid"))
    const row = locked.value
    if (row.used_at !== null) {
      yield* d.repo.revokeGrant(row.grant_id, "code_reuse", at)
      return no(
        oauthError(
          "invalid_grant",
          "The authorization code was already used; every token issued with it has been revoked"
        )
      )
    }
    // Single use: the first redemption attempt consumes the code, whatever its outcome.
    yield* d.repo.markCodeUsed(codeHash, at)
    if (row.grant_revoked_at !== null) return no(oauthError("invalid_grant", "The authorization was revoked"))
    if (row.expires_at.getTime() <= at.getTime()) {
      return no(oauthError("invalid_grant", "The authorization code has expired"))
    }
    if (row.client_id !== client.clientId) {
      return no(oauthError("invalid_grant", "The authorization code was issued to another client"))
    }
    if (row.redirect_uri !== req.redirect_uri) {
      return no(oauthError("invalid_grant", "redirect_uri does not match the one of the authorization request"))
    }
    if (!isValidCodeVerifier(req.code_verifier!)) {
      return no(oauthError("invalid_grant", "code_verifier must be 43-128 characters of [A-Za-z0-9-._~]"))
    }
    if (!verifyS256(req.code_verifier!, row.code_challenge)) {
      return no(oauthError("invalid_grant", "code_verifier does not match the code_challenge"))
    }
    const resource = resolveTokenResource(d.issuer, req.resource, row.resource)
    if (Either.isLeft(resource)) return no(resource.left)
    if (resource.right !== null && row.resource === null) {
      yield* d.repo.bindGrantResource(row.grant_id, resource.right)
    }
    return yes(yield* issueTokens(d, row.grant_id, row.scope, resource.right))
  })

const exchangeCode = (d: OAuthDeps, req: TokenRequest) =>
  Effect.gen(function*() {
    if (!req.code) return yield* oauthError("invalid_request", "code is required")
    if (!req.redirect_uri) return yield* oauthError("invalid_request", "redirect_uri is required")
    if (!req.code_verifier) return yield* oauthError("invalid_request", "code_verifier is required (PKCE)")
    const client = yield* requireClient(d, req.client_id)
    const outcome = yield* d.repo.transaction(redeemCode(d, req, client, sha256Hex(req.code)))
    return yield* outcome
  })

/** The refresh token's rotation, under its row lock: a reuse revokes the grant and all its tokens. */
const rotate = (
  d: OAuthDeps,
  req: TokenRequest,
  client: Client,
  tokenHash: string,
  requestedScopes: ReadonlyArray<string> | undefined
) =>
  Effect.gen(function*() {
    const at = yield* d.now
    const row = Option.getOrUndefined(yield* d.repo.tokenByHash(tokenHash, true))
    if (row === undefined || row.kind !== "refresh") {
      return no(oauthError("invalid_grant", "The refresh token is invalid"))
    }
    if (row.client_id !== client.clientId) {
      return no(oauthError("invalid_grant", "The refresh token was issued to another client"))
    }
    if (row.used_at !== null) {
      yield* d.repo.revokeGrant(row.grant_id, "refresh_token_reuse", at)
      return no(
        oauthError(
          "invalid_grant",
          "The refresh token was already used; the authorization and all its tokens have been revoked"
        )
      )
    }
    if (row.revoked_at !== null || row.grant_revoked_at !== null) {
      return no(oauthError("invalid_grant", "The refresh token was revoked"))
    }
    if (row.expires_at.getTime() <= at.getTime()) {
      return no(oauthError("invalid_grant", "The refresh token has expired"))
    }
    const granted = row.scope === "" ? [] : row.scope.split(" ")
    if (
      requestedScopes !== undefined && requestedScopes.some((s) => !granted.includes(s))
    ) {
      return no(oauthError("invalid_scope", "The requested scope exceeds the scope originally granted"))
    }
    const resource = resolveTokenResource(d.issuer, req.resource, row.resource)
    if (Either.isLeft(resource)) return no(resource.left)
    yield* d.repo.markTokenUsed(tokenHash, at)
    const scope = requestedScopes !== undefined ? formatScope(requestedScopes) : row.scope
    return yes(yield* issueTokens(d, row.grant_id, scope, resource.right))
  })

const refresh = (d: OAuthDeps, req: TokenRequest) =>
  Effect.gen(function*() {
    if (!req.refresh_token) return yield* oauthError("invalid_request", "refresh_token is required")
    const client = yield* requireClient(d, req.client_id)
    let requestedScopes: ReadonlyArray<string> | undefined
    if (req.scope !== undefined) {
      const parsed = parseScope(req.scope)
      if (Either.isLeft(parsed)) {
        return yield* oauthError("invalid_scope", `Unsupported scope: ${clipEcho(parsed.left.join(", "))}`)
      }
      requestedScopes = parsed.right
    }
    const tokenHash = sha256Hex(req.refresh_token)
    const outcome = yield* d.repo.transaction(rotate(d, req, client, tokenHash, requestedScopes))
    return yield* outcome
  })

export const token = (d: OAuthDeps, req: TokenRequest): Effect.Effect<TokenResponse, OAuthError> => {
  switch (req.grant_type) {
    case "authorization_code":
      return exchangeCode(d, req)
    case "refresh_token":
      return refresh(d, req)
    case undefined:
    case "":
      return Effect.fail(oauthError("invalid_request", "grant_type is required"))
    default:
      return Effect.fail(
        oauthError(
          "unsupported_grant_type",
          `grant_type "${clipEcho(String(req.grant_type))}" is not supported; use authorization_code or refresh_token`
        )
      )
  }
}
