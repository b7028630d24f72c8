/**
 * RFC 7591 dynamic client registration, public clients only (no secret, `token_endpoint_auth_method`
 * "none"), and the registered clients as the other flows read them.
 *
 * The contract: what is stored is what was checked: HTTPS (or loopback) redirect URIs, the
 * authorization_code grant, response type `code`, supported scopes; descriptive metadata is
 * echoed as given.
 */
import { type Context, Effect, Either, Option } from "effect"
import { checkRedirectUri, formatScope, parseScope, SUPPORTED_SCOPES } from "../../domain/OAuthRules.js"
import { clipEcho } from "../../platform/http/Errors.js"
import { makeId } from "../../platform/Ids.js"
import { type OAuthError, oauthError } from "./OAuthError.js"
import { type ClientRow, type OAuthRepo } from "./Repo.js"

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

type Repo = Context.Tag.Service<typeof OAuthRepo>

export const getClient = (repo: Repo, clientId: string) =>
  Effect.map(repo.clientById(clientId), (row) => Option.getOrUndefined(Option.map(row, toClient)))

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

const checkRedirectUris = (uris: unknown) =>
  Effect.gen(function*() {
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
    return redirectUris
  })

/** The grant, response type and scope metadata: only what a public client of this server may use. */
const checkGrants = (m: Record<string, unknown>) =>
  Effect.gen(function*() {
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
    return { grantTypes: grantTypes as Array<string>, scope }
  })

export const registerClient = (repo: Repo, body: unknown): Effect.Effect<RegisteredClient, OAuthError> =>
  Effect.gen(function*() {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return yield* oauthError("invalid_client_metadata", "The request body must be a JSON object of client metadata")
    }
    const m = body as Record<string, unknown>
    const redirectUris = yield* checkRedirectUris(m.redirect_uris)
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
    const { grantTypes, scope } = yield* checkGrants(m)
    const descriptive: Partial<Record<typeof DESCRIPTIVE_METADATA[number], string>> = {}
    for (const key of DESCRIPTIVE_METADATA) {
      const v = m[key]
      if (typeof v === "string") descriptive[key] = v
    }
    const metadata = {
      token_endpoint_auth_method: "none" as const,
      grant_types: [...new Set(grantTypes)],
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
