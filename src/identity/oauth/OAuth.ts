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
 */
import { Clock, Context, Data, Duration, Effect, Either, Layer, Option } from "effect"
import {
  checkRedirectUri,
  checkResource,
  formatScope,
  isValidCodeVerifier,
  isValidS256Challenge,
  parseScope,
  resourceCovers,
  SUPPORTED_SCOPES,
  verifyS256
} from "../../domain/OAuthRules.js"
import { AppConfig } from "../../platform/Config.js"
import { clipEcho } from "../../platform/http/Errors.js"
import { makeId } from "../../platform/Ids.js"
import { randomSecret, sha256Hex } from "../Crypto.js"
import { IdentityConfig } from "../Settings.js"
import type { Viewer } from "../Viewer.js"
import { type ClientRow, OAuthRepo } from "./Repo.js"

export class OAuthError extends Data.TaggedError("OAuthError")<{
  readonly error: string
  readonly description: string
}> {}

type Outcome = Either.Either<TokenResponse, OAuthError>
const no = (e: OAuthError): Outcome => Either.left(e)
const yes = (t: TokenResponse): Outcome => Either.right(t)

const oauthError = (error: string, description: string) => new OAuthError({ error, description })

export interface Client {
  readonly clientId: string
  readonly clientName: string | null
  readonly redirectUris: ReadonlyArray<string>
  readonly metadata: Record<string, unknown>
  readonly createdAt: Date
}

const toClient = (row: ClientRow): Client => ({
  clientId: row.client_id,
  clientName: row.client_name,
  redirectUris: row.redirect_uris,
  metadata: row.metadata,
  createdAt: row.created_at
})

/** RFC 7591 §3.2.1 client information (a public client: no secret). */
export interface RegisteredClient {
  readonly client_id: string
  readonly client_id_issued_at: number
  readonly client_name?: string
  readonly redirect_uris: ReadonlyArray<string>
  readonly token_endpoint_auth_method: "none"
  readonly grant_types: ReadonlyArray<string>
  readonly response_types: ReadonlyArray<string>
  readonly scope?: string
  readonly client_uri?: string
  readonly logo_uri?: string
  readonly tos_uri?: string
  readonly policy_uri?: string
  readonly software_id?: string
  readonly software_version?: string
}

/** The client metadata fields stored and echoed as given (RFC 7591 §2). */
export const DESCRIPTIVE_METADATA = [
  "client_uri",
  "logo_uri",
  "tos_uri",
  "policy_uri",
  "software_id",
  "software_version"
] as const

export interface TokenResponse {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: number
  readonly refresh_token: string
  readonly scope: string
}

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

const make = Effect.gen(function*() {
  const repo = yield* OAuthRepo
  const config = yield* AppConfig
  const identitySettings = yield* IdentityConfig
  const issuer = config.baseUrl
  const ttl = {
    code: Duration.toMillis(identitySettings.codeTtl),
    access: Duration.toMillis(identitySettings.accessTokenTtl),
    refresh: Duration.toMillis(identitySettings.refreshTokenTtl)
  }
  const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

  const getClient = (clientId: string) =>
    Effect.map(repo.clientById(clientId), (row) => Option.getOrUndefined(Option.map(row, toClient)))

  // -------------------------------------------------------------------------
  // RFC 7591 dynamic client registration

  const registerClient = (body: unknown): Effect.Effect<RegisteredClient, OAuthError> =>
    Effect.gen(function*() {
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        return yield* oauthError("invalid_client_metadata", "The request body must be a JSON object of client metadata")
      }
      const m = body as Record<string, unknown>
      const uris = m.redirect_uris
      if (!Array.isArray(uris) || uris.length === 0) {
        return yield* oauthError("invalid_redirect_uri", "redirect_uris must be a non-empty array of URLs")
      }
      if (uris.length > 20) return yield* oauthError("invalid_redirect_uri", "At most 20 redirect_uris")
      const redirectUris: Array<string> = []
      for (const uri of uris) {
        const checked = checkRedirectUri(uri)
        if (Either.isLeft(checked)) return yield* oauthError("invalid_redirect_uri", checked.left)
        redirectUris.push(checked.right)
      }
      const optionalString = (key: string, max = 200) => {
        const v = m[key]
        if (v === undefined || v === null) return Either.right(undefined)
        if (typeof v !== "string" || v.length > max) {
          return Either.left(`${key} must be a string of at most ${max} characters`)
        }
        return Either.right(v)
      }
      const name = optionalString("client_name")
      if (Either.isLeft(name)) return yield* oauthError("invalid_client_metadata", name.left)
      for (const key of DESCRIPTIVE_METADATA) {
        const v = optionalString(key, 2000)
        if (Either.isLeft(v)) return yield* oauthError("invalid_client_metadata", v.left)
      }
      const authMethod = m.token_endpoint_auth_method ?? "none"
      if (authMethod !== "none") {
        return yield* oauthError(
          "invalid_client_metadata",
          `token_endpoint_auth_method "${
            clipEcho(String(authMethod))
          }" is not supported: only public clients ("none") may register`
        )
      }
      const grantTypes = m.grant_types ?? ["authorization_code", "refresh_token"]
      if (
        !Array.isArray(grantTypes) || grantTypes.length === 0 ||
        grantTypes.some((g) => g !== "authorization_code" && g !== "refresh_token") ||
        !grantTypes.includes("authorization_code")
      ) {
        return yield* oauthError(
          "invalid_client_metadata",
          "grant_types must include \"authorization_code\" and may add \"refresh_token\""
        )
      }
      const responseTypes = m.response_types ?? ["code"]
      if (!Array.isArray(responseTypes) || responseTypes.length !== 1 || responseTypes[0] !== "code") {
        return yield* oauthError("invalid_client_metadata", "response_types must be [\"code\"]")
      }
      let scope: string | undefined
      if (m.scope !== undefined) {
        const parsed = typeof m.scope === "string" ? parseScope(m.scope) : Either.left(["(not a string)"])
        if (Either.isLeft(parsed)) {
          return yield* oauthError(
            "invalid_client_metadata",
            `Unsupported scope: ${clipEcho(parsed.left.join(", "))} (supported: ${SUPPORTED_SCOPES.join(" ")})`
          )
        }
        scope = formatScope(parsed.right)
      }
      const descriptive: Partial<Record<typeof DESCRIPTIVE_METADATA[number], string>> = {}
      for (const key of DESCRIPTIVE_METADATA) {
        const v = m[key]
        if (typeof v === "string") descriptive[key] = v
      }
      const metadata = {
        token_endpoint_auth_method: "none" as const,
        grant_types: [...new Set(grantTypes as Array<string>)],
        response_types: ["code"],
        ...descriptive,
        ...(scope !== undefined ? { scope } : {})
      }
      const row = yield* repo.insertClient({
        client_id: makeId("client"),
        client_name: name.right ?? null,
        redirect_uris: redirectUris,
        metadata
      })
      return {
        client_id: row.client_id,
        client_id_issued_at: Math.floor(row.created_at.getTime() / 1000),
        ...(row.client_name !== null ? { client_name: row.client_name } : {}),
        redirect_uris: row.redirect_uris,
        ...metadata
      }
    })

  // -------------------------------------------------------------------------
  // Authorization endpoint

  const checkAuthorize = (p: AuthorizeParams): Effect.Effect<AuthorizeCheck> =>
    Effect.gen(function*() {
      if (!p.client_id) {
        return {
          _tag: "Fatal",
          title: "Missing client_id",
          message: "The authorization request has no client_id."
        } as const
      }
      const client = yield* getClient(p.client_id)
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
      const redirectError = (error: string, description: string): AuthorizeCheck => ({
        _tag: "RedirectError",
        redirectUri: p.redirect_uri!,
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
        request: {
          client,
          redirectUri: p.redirect_uri,
          scopes: scopes.right,
          codeChallenge: p.code_challenge,
          state: p.state,
          resource
        }
      } as const
    })

  /** The user approved: a new grant and its single-use code. Returns the redirect URL. */
  const approve = (userId: string, request: AuthorizeRequest) =>
    Effect.gen(function*() {
      const code = randomSecret()
      const grantId = makeId("grt")
      const expiresAt = new Date((yield* Clock.currentTimeMillis) + ttl.code)
      yield* repo.transaction(
        Effect.zipRight(
          repo.insertGrant({
            id: grantId,
            client_id: request.client.clientId,
            user_id: userId,
            scope: formatScope(request.scopes),
            resource: request.resource
          }),
          repo.insertCode({
            code_hash: sha256Hex(code),
            grant_id: grantId,
            redirect_uri: request.redirectUri,
            code_challenge: request.codeChallenge,
            code_challenge_method: "S256",
            expires_at: expiresAt
          })
        )
      )
      return redirectTo(request.redirectUri, issuer, { code, state: request.state })
    })

  const deny = (request: AuthorizeRequest) =>
    redirectTo(request.redirectUri, issuer, {
      error: "access_denied",
      error_description: "The user denied the request",
      state: request.state
    })

  // -------------------------------------------------------------------------
  // Token endpoint

  const issueTokens = (grantId: string, scope: string, resource: string | null) =>
    Effect.gen(function*() {
      const at = yield* now
      const access = randomSecret("at_")
      const refresh = randomSecret("rt_")
      yield* repo.insertTokens([
        {
          token_hash: sha256Hex(access),
          kind: "access",
          grant_id: grantId,
          scope,
          resource,
          created_at: at,
          expires_at: new Date(at.getTime() + ttl.access)
        },
        {
          token_hash: sha256Hex(refresh),
          kind: "refresh",
          grant_id: grantId,
          scope,
          resource,
          created_at: at,
          expires_at: new Date(at.getTime() + ttl.refresh)
        }
      ])
      return {
        access_token: access,
        token_type: "Bearer",
        expires_in: Math.floor(ttl.access / 1000),
        refresh_token: refresh,
        scope
      } satisfies TokenResponse
    })

  const requireClient = (clientId: string | undefined) =>
    Effect.gen(function*() {
      if (!clientId) {
        return yield* oauthError(
          "invalid_request",
          "client_id is required (public clients identify themselves with client_id)"
        )
      }
      const client = yield* getClient(clientId)
      if (client === undefined) return yield* oauthError("invalid_client", "Unknown client_id")
      return client
    })

  /** Validates an optional `resource` on the token request against the one bound to the grant. */
  const resolveTokenResource = (
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

  const exchangeCode = (req: TokenRequest) =>
    Effect.gen(function*() {
      if (!req.code) return yield* oauthError("invalid_request", "code is required")
      if (!req.redirect_uri) return yield* oauthError("invalid_request", "redirect_uri is required")
      if (!req.code_verifier) return yield* oauthError("invalid_request", "code_verifier is required (PKCE)")
      const client = yield* requireClient(req.client_id)
      const codeHash = sha256Hex(req.code)
      const outcome = yield* repo.transaction(
        Effect.gen(function*() {
          const at = yield* now
          const locked = yield* repo.lockCode(codeHash)
          if (Option.isNone(locked)) return no(oauthError("invalid_grant", "The authorization code is invalid"))
          const row = locked.value
          if (row.used_at !== null) {
            yield* repo.revokeGrant(row.grant_id, "code_reuse", at)
            return no(
              oauthError(
                "invalid_grant",
                "The authorization code was already used; every token issued with it has been revoked"
              )
            )
          }
          // Single use: the first redemption attempt consumes the code, whatever its outcome.
          yield* repo.markCodeUsed(codeHash, at)
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
          const resource = resolveTokenResource(req.resource, row.resource)
          if (Either.isLeft(resource)) return no(resource.left)
          if (resource.right !== null && row.resource === null) {
            yield* repo.bindGrantResource(row.grant_id, resource.right)
          }
          return yes(yield* issueTokens(row.grant_id, row.scope, resource.right))
        })
      )
      return yield* outcome
    })

  const refresh = (req: TokenRequest) =>
    Effect.gen(function*() {
      if (!req.refresh_token) return yield* oauthError("invalid_request", "refresh_token is required")
      const client = yield* requireClient(req.client_id)
      let requestedScopes: ReadonlyArray<string> | undefined
      if (req.scope !== undefined) {
        const parsed = parseScope(req.scope)
        if (Either.isLeft(parsed)) {
          return yield* oauthError("invalid_scope", `Unsupported scope: ${clipEcho(parsed.left.join(", "))}`)
        }
        requestedScopes = parsed.right
      }
      const tokenHash = sha256Hex(req.refresh_token)
      const outcome = yield* repo.transaction(
        Effect.gen(function*() {
          const at = yield* now
          const row = Option.getOrUndefined(yield* repo.tokenByHash(tokenHash, true))
          if (row === undefined || row.kind !== "refresh") {
            return no(oauthError("invalid_grant", "The refresh token is invalid"))
          }
          if (row.client_id !== client.clientId) {
            return no(oauthError("invalid_grant", "The refresh token was issued to another client"))
          }
          if (row.used_at !== null) {
            yield* repo.revokeGrant(row.grant_id, "refresh_token_reuse", at)
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
          const resource = resolveTokenResource(req.resource, row.resource)
          if (Either.isLeft(resource)) return no(resource.left)
          yield* repo.markTokenUsed(tokenHash, at)
          const scope = requestedScopes !== undefined ? formatScope(requestedScopes) : row.scope
          return yes(yield* issueTokens(row.grant_id, scope, resource.right))
        })
      )
      return yield* outcome
    })

  const token = (req: TokenRequest): Effect.Effect<TokenResponse, OAuthError> => {
    switch (req.grant_type) {
      case "authorization_code":
        return exchangeCode(req)
      case "refresh_token":
        return refresh(req)
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

  // -------------------------------------------------------------------------
  // Revocation (RFC 7009), introspection (RFC 7662), resource-server check

  const revoke = (tokenValue: string, clientId: string | undefined) =>
    Effect.gen(function*() {
      const at = yield* now
      const row = Option.getOrUndefined(yield* repo.tokenByHash(sha256Hex(tokenValue), false))
      // Unknown tokens, and tokens of another client, are answered like a success (RFC 7009 §2.2).
      if (row === undefined || (clientId !== undefined && clientId !== row.client_id)) return
      if (row.kind === "refresh") yield* repo.revokeGrant(row.grant_id, "revoked_by_client", at)
      else yield* repo.revokeToken(row.token_hash, at)
    })

  const introspect = (tokenValue: string): Effect.Effect<Introspection> =>
    Effect.gen(function*() {
      const at = yield* now
      const row = Option.getOrUndefined(yield* repo.tokenByHash(sha256Hex(tokenValue), false))
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
        iss: issuer,
        ...(row.resource !== null ? { aud: row.resource } : {})
      }
    })

  /** The Viewer for a presented access token on `requestUrl`, or undefined (unknown, expired, revoked, other audience). */
  const resolveAccessToken = (tokenValue: string, requestUrl: string): Effect.Effect<Viewer | undefined> =>
    Effect.gen(function*() {
      if (tokenValue.length > 512) return undefined
      const row = Option.getOrUndefined(yield* repo.activeAccessToken(sha256Hex(tokenValue), yield* now))
      if (row === undefined || !resourceCovers(row.resource, requestUrl)) return undefined
      return {
        _tag: "User",
        userId: row.user_id,
        scopes: row.scope === "" ? [] : row.scope.split(" "),
        clientId: row.client_id
      } as const
    })

  const deleteExpired = Effect.flatMap(now, (at) => repo.deleteExpired(new Date(at.getTime() - 24 * 3600_000)))

  return {
    issuer,
    getClient,
    registerClient,
    checkAuthorize,
    approve,
    deny,
    token,
    revoke,
    introspect,
    resolveAccessToken,
    deleteExpired
  }
})

export class OAuth extends Context.Tag("app/OAuth")<OAuth, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(OAuth, make).pipe(Layer.provide(OAuthRepo.Live))
}
