/**
 * Final touches on the generated OpenAPI 3.1 document so it says what the service really sends
 * and needs:
 *
 * - request-validation failures are our 400 error shapes (typed, or legacy on the legacy paths),
 *   never HttpApi's internal decode-error body;
 * - credentials HttpApiSecurity cannot express (several headers that go together, like the API
 *   key pair or the Partner API's signing headers) are declared by their middleware as a static
 *   `openApiSecurity` (see `DocumentedSecurity`) and land on every operation that middleware guards;
 * - the bearer token is optional wherever it is accepted (anonymous callers are served with
 *   prices masked), so those operations also list the empty requirement `{}`;
 * - every operation may answer 503 `unavailable` with `Retry-After` while the database cannot be
 *   reached (`ApiErrorsLive`), so every operation lists it;
 * - `Schema.Unknown` fields lose the `$id: "/schemas/unknown"` Effect's JSON Schema gives every one
 *   of them (dozens of schemas with one `$id` make every example unverifiable by a linter);
 * - an operation that only redirects (3xx) lists a `default` response (the error envelope), as
 *   linters require a success or default answer;
 * - then what generated clients need (src/platform/openapi/OpenApiHeaders.ts): response headers, the
 *   Idempotency-Key request header, error examples by status, `servers`, the OAuth 2 scheme,
 *   open response schemas and the `webhooks` section.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { SUPPORTED_SCOPES } from "../../domain/OAuthRules.js"
import { LEGACY_ERROR_PATHS } from "../http/ApiErrors.js"
import { generatorGrade } from "./OpenApiHeaders.js"

type Json = Record<string, any>

/**
 * What a middleware's credentials look like in OpenAPI: its security schemes, by name. An
 * operation it guards requires all of them together.
 */
export interface DocumentedSecurity {
  readonly schemes: Readonly<Record<string, Json>>
}

/** A header credential, for `DocumentedSecurity.schemes`. */
export const headerScheme = (name: string, description: string): Json => ({
  type: "apiKey",
  in: "header",
  name,
  description
})

const documentedSecurityOf = (middleware: unknown): DocumentedSecurity | undefined =>
  (middleware as { openApiSecurity?: DocumentedSecurity }).openApiSecurity

/**
 * From the middlewares that declare `openApiSecurity`: the requirement of each guarded operation
 * (by `method path-template`) and every scheme those requirements name.
 */
const documentedSecurity = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
) => {
  const requirements = new Map<string, Json>()
  const schemes: Json = {}
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, middleware }) => {
      const documented = [...middleware].map(documentedSecurityOf).filter((d) => d !== undefined)
      if (documented.length === 0) return
      const requirement: Json = {}
      for (const d of documented) {
        Object.assign(schemes, d.schemes)
        for (const name of Object.keys(d.schemes)) requirement[name] = []
      }
      const path = endpoint.path.replace(/:(\w+)\??/g, "{$1}")
      requirements.set(`${endpoint.method.toLowerCase()} ${path}`, requirement)
    }
  })
  return { requirements, schemes }
}

const isEmpty = (requirement: Json) => Object.keys(requirement).length === 0

const withSecurity = (path: string, item: Json, requirements: Map<string, Json>): Json => {
  const out: Json = {}
  for (const [method, op] of Object.entries(item)) {
    const documented = requirements.get(`${method} ${path}`)
    let security: Array<Json> | undefined = op.security
    if (documented !== undefined) security = [...(security ?? []).filter((r) => !isEmpty(r)), documented]
    if (security?.some((r) => "bearer" in r) && !security.some(isEmpty)) security = [...security, {}]
    out[method] = security === undefined ? op : { ...op, security }
  }
  return out
}

const DECODE_REF = "#/components/schemas/HttpApiDecodeError"

const replaceRefs = (node: unknown, replacement: string): unknown => {
  if (Array.isArray(node)) {
    const mapped = node.map((n) => replaceRefs(n, replacement))
    // Drop duplicates a replacement may create inside anyOf.
    const seen = new Set<string>()
    return mapped.filter((n) => {
      const key = JSON.stringify(n)
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
  }
  if (node && typeof node === "object") {
    const obj = node as Json
    if (obj.$ref === DECODE_REF) return { $ref: replacement }
    const out: Json = {}
    for (const [k, v] of Object.entries(obj)) out[k] = replaceRefs(v, replacement)
    if (Array.isArray(out.anyOf) && out.anyOf.length === 1) return out.anyOf[0]
    return out
  }
  return node
}

const RETRY_AFTER_HEADER: Json = {
  description: "Seconds to wait before retrying",
  schema: { type: "integer", minimum: 1 }
}

const LEGACY_ERROR_SCHEMA: Json = {
  type: "object",
  required: ["error"],
  properties: { error: { type: "string", description: "Human-readable message" } },
  additionalProperties: false
}

/** Adds the database-outage 503 (typed, or legacy on the legacy paths) to each operation lacking one. */
const withUnavailable = (item: Json, legacy: boolean): Json => {
  const out: Json = {}
  for (const [method, op] of Object.entries(item)) {
    if (typeof op !== "object" || op === null || op.responses === undefined) {
      out[method] = op
      continue
    }
    const existing: Json | undefined = op.responses["503"]
    const response: Json = existing !== undefined
      ? { ...existing, headers: { ...existing.headers, "Retry-After": RETRY_AFTER_HEADER } }
      : {
        description:
          "`unavailable`: the database cannot be reached right now; or `request_timeout`: the request took longer than REQUEST_TIMEOUT (default 30 s) to handle. Retry after Retry-After seconds",
        headers: { "Retry-After": RETRY_AFTER_HEADER },
        content: {
          "application/json": { schema: legacy ? LEGACY_ERROR_SCHEMA : { $ref: "#/components/schemas/Unavailable" } }
        }
      }
    out[method] = { ...op, responses: { ...op.responses, "503": response } }
  }
  return out
}

const BODY_METHODS = new Set(["post", "put", "patch"])

const errorResponse = (description: string, ref: string): Json => ({
  description,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } }
})

/**
 * The answers of the request guard (src/platform/http/RequestGuard.ts), which every operation can give
 * besides its own: 413 on any operation taking a body, 415 on those with a declared body type,
 * in the shape of the path (OAuth, legacy or typed). Its 503 `request_timeout` is described with
 * the database outage's 503 (withUnavailable).
 */
const withGuardResponses = (path: string, item: Json): Json => {
  const oauth = path.startsWith("/api/oauth/")
  const legacy = LEGACY_ERROR_PATHS.has(path)
  const ref = oauth ? "OAuthError" : legacy ? "LegacyBadRequest" : "BadRequest"
  const out: Json = {}
  for (const [method, op] of Object.entries<Json>(item)) {
    if (typeof op !== "object" || op === null || op.responses === undefined) {
      out[method] = op
      continue
    }
    const added: Json = {}
    if (BODY_METHODS.has(method)) {
      added["413"] = errorResponse("payload_too_large: the body exceeds MAX_BODY_BYTES (default 1 MiB)", ref)
    }
    if (op.requestBody !== undefined) {
      added["415"] = errorResponse(
        `unsupported_media_type: send the body as ${Object.keys(op.requestBody.content ?? {}).join(" or ")}`,
        ref
      )
    }
    out[method] = { ...op, responses: { ...added, ...op.responses } }
  }
  return out
}

/** The `$id`s Effect's JSON Schema gives its keyword schemas (`Schema.Unknown` → "/schemas/unknown"). */
const KEYWORD_ID = /^\/schemas\/(unknown|any|object|\{\})$/

const withoutKeywordIds = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutKeywordIds)
  if (node === null || typeof node !== "object") return node
  const out: Json = {}
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === "$id" && typeof v === "string" && KEYWORD_ID.test(v)) continue
    out[k] = withoutKeywordIds(v)
  }
  return out
}

/** A redirect-only operation's other answers: the error envelope of its path. */
const withDefaultResponse = (path: string, item: Json): Json => {
  const out: Json = {}
  for (const [method, op] of Object.entries<Json>(item)) {
    const codes = typeof op === "object" && op !== null && op.responses !== undefined ? Object.keys(op.responses) : []
    const redirectOnly = codes.length > 0 && !codes.some((c) => c.startsWith("2") || c === "default")
    out[method] = redirectOnly
      ? {
        ...op,
        responses: {
          ...op.responses,
          default: errorResponse(
            "Any other answer: an error in the typed envelope",
            LEGACY_ERROR_PATHS.has(path) ? "LegacyBadRequest" : "BadRequest"
          )
        }
      }
      : op
  }
  return out
}

export const finishOpenApi = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  spec: Json,
  api: HttpApi.HttpApi<Id, Groups, E, R>
): Json => {
  const { requirements, schemes } = documentedSecurity(api)
  const securitySchemes: Json = { ...(spec.components?.securitySchemes ?? {}), ...schemes }
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    const legacy = LEGACY_ERROR_PATHS.has(path.replace(/\{[^}]+\}/g, "x"))
    const secured = withGuardResponses(path, withSecurity(path, item, requirements))
    paths[path] = withUnavailable(
      replaceRefs(
        withDefaultResponse(path, secured),
        legacy ? "#/components/schemas/LegacyBadRequest" : "#/components/schemas/BadRequest"
      ) as Json,
      legacy
    )
  }
  const schemas = { ...(spec.components?.schemas ?? {}) }
  delete schemas.HttpApiDecodeError
  delete schemas.Issue
  delete schemas.PropertyKey
  return generatorGrade(
    withoutKeywordIds({ ...spec, paths, components: { ...spec.components, schemas, securitySchemes } }) as Json,
    SUPPORTED_SCOPES
  )
}
