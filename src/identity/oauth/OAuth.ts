/**
 * The OAuth 2.1 authorization server (never sees HTTP): public clients only, authorization_code
 * with PKCE S256, refresh-token rotation, reuse detection, RFC 8707 resource binding, RFC 7009
 * revocation, RFC 7662 introspection.
 *
 * Failures are `OAuthError { error, description }` carrying the RFC 6749 / 7591 error code: OAuth's
 * own vocabulary, which its endpoints answer as `{error, error_description}` (the status follows
 * from the code at the edge: `invalid_client` is 401, every other 400).
 *
 * Reuse detection must survive the failure it reports, so the transactional parts return their
 * outcome as a value (an Either) and the error is raised only after the transaction committed.
 *
 * This file is the service (its settings, revocation, introspection, the resource server's check,
 * its one record of operations); the flows live beside it: Registration.ts (RFC 7591),
 * Authorization.ts (the authorization endpoint), Tokens.ts (the token endpoint), OAuthError.ts.
 */
import { Clock, Context, Duration, Effect, Option } from "effect"
import { resourceCovers } from "../../domain/OAuthRules.js"
import { AppConfig } from "../../platform/Config.js"
import { sha256Hex } from "../../platform/security/Crypto.js"
import { IdentityConfig } from "../Settings.js"
import type { Viewer } from "../Viewer.js"
import { approve, type AuthorizeParams, type AuthorizeRequest, checkAuthorize, deny } from "./Authorization.js"
import { getClient, registerClient } from "./Registration.js"
import { OAuthRepo } from "./Repo.js"
import { token, type TokenRequest } from "./Tokens.js"

export { type AuthorizeCheck, type AuthorizeParams, type AuthorizeRequest, redirectTo } from "./Authorization.js"
export { OAuthError } from "./OAuthError.js"
export { type Client, DESCRIPTIVE_METADATA, type RegisteredClient } from "./Registration.js"
export { type TokenRequest, type TokenResponse } from "./Tokens.js"

/** What every OAuth flow works with: its store, its issuer (BASE_URL), its lifetimes in ms, the clock. */
export interface OAuthDeps {
  readonly repo: Context.Tag.Service<typeof OAuthRepo>
  readonly issuer: string
  readonly ttl: { readonly code: number; readonly access: number; readonly refresh: number }
  readonly now: Effect.Effect<Date>
}

export interface Introspection {
  readonly active: boolean
  readonly scope?: string
  readonly client_id?: string
  readonly sub?: string
  readonly token_type?: string
  readonly exp?: number
  readonly iat?: number
  readonly iss?: string
  readonly aud?: string
}

const revoke = (d: OAuthDeps, tokenValue: string, clientId: string | undefined) =>
  Effect.gen(function*() {
    const at = yield* d.now
    const row = Option.getOrUndefined(yield* d.repo.tokenByHash(sha256Hex(tokenValue), false))
    // Unknown tokens, and tokens of another client, are answered like a success (RFC 7009 §2.2).
    if (row === undefined || (clientId !== undefined && clientId !== row.client_id)) return
    if (row.kind === "refresh") yield* d.repo.revokeGrant(row.grant_id, "revoked_by_client", at)
    else yield* d.repo.revokeToken(row.token_hash, at)
  })

const introspect = (d: OAuthDeps, tokenValue: string): Effect.Effect<Introspection> =>
  Effect.gen(function*() {
    const at = yield* d.now
    const row = Option.getOrUndefined(yield* d.repo.tokenByHash(sha256Hex(tokenValue), false))
    if (
      row === undefined || row.revoked_at !== null || row.grant_revoked_at !== null ||
      row.expires_at.getTime() <= at.getTime() ||
      (row.kind === "refresh" && row.used_at !== null)
    ) {
      return { active: false }
    }
    return {
      active: true,
      scope: row.scope,
      client_id: row.client_id,
      sub: row.user_id,
      ...(row.kind === "access" ? { token_type: "Bearer" } : { token_type: "refresh_token" }),
      exp: Math.floor(row.expires_at.getTime() / 1000),
      iat: Math.floor(row.created_at.getTime() / 1000),
      iss: d.issuer,
      ...(row.resource !== null ? { aud: row.resource } : {})
    }
  })

/** The Viewer for a presented access token on `requestUrl`, or undefined (unknown, expired, revoked, other audience). */
const resolveAccessToken = (d: OAuthDeps, tokenValue: string, requestUrl: string): Effect.Effect<Viewer | undefined> =>
  Effect.gen(function*() {
    if (tokenValue.length > 512) return undefined
    const row = Option.getOrUndefined(yield* d.repo.activeAccessToken(sha256Hex(tokenValue), yield* d.now))
    if (row === undefined || !resourceCovers(row.resource, requestUrl)) return undefined
    return {
      _tag: "User",
      userId: row.user_id,
      scopes: row.scope === "" ? [] : row.scope.split(" "),
      clientId: row.client_id
    } as const
  })

const make = Effect.gen(function*() {
  const identitySettings = yield* IdentityConfig
  const d: OAuthDeps = {
    repo: yield* OAuthRepo,
    issuer: (yield* AppConfig).baseUrl,
    ttl: {
      code: Duration.toMillis(identitySettings.codeTtl),
      access: Duration.toMillis(identitySettings.accessTokenTtl),
      refresh: Duration.toMillis(identitySettings.refreshTokenTtl)
    },
    now: Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
  }
  return {
    issuer: d.issuer,
    getClient: (clientId: string) => getClient(d.repo, clientId),
    registerClient: (body: unknown) => registerClient(d.repo, body),
    checkAuthorize: (p: AuthorizeParams) => checkAuthorize(d, p),
    approve: (userId: string, request: AuthorizeRequest) => approve(d, userId, request),
    deny: (request: AuthorizeRequest) => deny(d, request),
    token: (req: TokenRequest) => token(d, req),
    revoke: (tokenValue: string, clientId: string | undefined) => revoke(d, tokenValue, clientId),
    introspect: (tokenValue: string) => introspect(d, tokenValue),
    resolveAccessToken: (tokenValue: string, requestUrl: string) => resolveAccessToken(d, tokenValue, requestUrl),
    deleteExpired: Effect.flatMap(d.now, (at) => d.repo.deleteExpired(new Date(at.getTime() - 24 * 3600_000)))
  }
})

export class OAuth extends Effect.Service<OAuth>()("app/OAuth", {
  effect: make,
  dependencies: [OAuthRepo.Default]
}) {}
