/**
 * What generated clients need from the OpenAPI document, added to the finished document
 * (`finishOpenApi`) from facts the code already knows rather than by hand per operation:
 *
 * - `X-Request-Id` on every response (HttpMiddleware sets it on every answer);
 * - `RateLimit-Limit/Remaining/Reset/Policy` on every response of a rate-limited operation (one
 *   that can answer 429), `Retry-After` on 429 and 503;
 * - `Location` on the 202s that point at a job to poll (the async free tools; the Partner API's
 *   202s — webhook test, redelivery — are queued deliveries with nothing to poll);
 * - `Idempotency-Key` (request) and `Idempotent-Replayed` (response) on the operations listed in
 *   `IDEMPOTENT_OPERATIONS`;
 * - error examples with the codes each response really sends: a domain error's own code
 *   (`tld_not_found`), else the status's usual code (400 `validation_error`, 401 `unauthorized`,
 *   429 `rate_limited`, …); several errors at one status give one named example per code; a
 *   paged list's `InvalidCursor` gives the one code that list answers (`PAGED_LISTS`);
 * - `servers` relative to the document (it is served by the service itself, so `/` is BASE_URL);
 * - the bearer scheme as OAuth 2 authorization code with PKCE, so Swagger UI can obtain a token;
 * - response schemas without `additionalProperties: false` (fields are only ever added; request
 *   payloads keep it and reject unknown fields);
 * - an example on each JSON success response and each request body that has none, composed from
 *   the schema's own examples (never a placeholder: without them, no example);
 * - a `webhooks` section: the envelope of the events POSTed to a partner's endpoint
 *   (OpenApiWebhooks.ts).
 */
import { IDEMPOTENT_OPERATIONS } from "../http/IdempotencyKey.js"
import { cursorCodeOf } from "../http/PageCursor.js"
import { WEBHOOK_EVENT, webhooks } from "./OpenApiWebhooks.js"

type Json = Record<string, any>

const header = (description: string, schema: Json = { type: "string" }): Json => ({ description, schema })

export const X_REQUEST_ID = header(
  "Identifies this request in logs and in error bodies (`request_id`); echoed when the caller sends a valid one"
)
const RETRY_AFTER = header("Seconds to wait before retrying", { type: "integer", minimum: 1 })
const RATE_LIMIT_HEADERS: Json = {
  "RateLimit-Limit": header("Requests allowed in the current window", { type: "integer", minimum: 0 }),
  "RateLimit-Remaining": header("Requests left in the current window", { type: "integer", minimum: 0 }),
  "RateLimit-Reset": header("Seconds until the window resets", { type: "integer", minimum: 0 }),
  "RateLimit-Policy": header("The policy, e.g. `120;w=60` (limit; window in seconds)")
}
/** The async free tools answer 202 with `Location: /api/tools/{slug}/status/{jobId}` (src/tools/Http.ts). */
const ACCEPTED_WITH_LOCATION = (path: string) => path.startsWith("/api/tools/")
const LOCATION = header("Where to follow the accepted work (poll this URL)")
const IDEMPOTENT_REPLAYED = header(
  "`true` when this is the stored response of an earlier request with the same Idempotency-Key",
  {
    type: "string",
    enum: ["true"]
  }
)
const IDEMPOTENCY_KEY_ECHO = header("The Idempotency-Key of the request, echoed")

/** The `code` an error response of each status carries in the document's examples. */
const ERROR_CODE_BY_STATUS: Record<string, string> = {
  "400": "validation_error",
  "401": "unauthorized",
  "403": "forbidden",
  "404": "not_found",
  "409": "conflict",
  "413": "payload_too_large",
  "415": "unsupported_media_type",
  "422": "unprocessable",
  "429": "rate_limited",
  "500": "internal_error",
  "503": "unavailable"
}
const PARTNER_401 = "invalid_signature"

const isOperation = (op: unknown): op is Json =>
  typeof op === "object" && op !== null && (op as Json).responses !== undefined

const errorExample = (code: string): Json => ({
  error: { code, message: `Example ${code} answer`, request_id: "0f8fad5b-d9cb-469f-a165-70867728950e" }
})

/** Is this `$ref`'d schema the typed error envelope `{error: {code, message, request_id}}`? */
const isTypedError = (schema: Json | undefined) =>
  schema?.properties?.error?.properties?.code !== undefined &&
  schema?.properties?.error?.properties?.request_id !== undefined

/** A schema with its `$ref` (to `#/components/schemas/…`) followed, one level. */
const resolve = (schema: Json | undefined, schemas: Json): Json | undefined =>
  typeof schema?.$ref === "string" ? schemas[schema.$ref.replace("#/components/schemas/", "")] : schema

/**
 * The codes an error response really sends, in the order its schemas are listed: a domain error
 * (`errorWire`) declares its code as a literal; the generic envelope of a status sends that
 * status's usual code (`fallback`). Several errors at one status are an `anyOf`.
 */
const errorCodesOf = (
  schema: Json | undefined,
  schemas: Json,
  fallback: string | undefined,
  cursorCode: string | undefined
): Array<string> => {
  if (cursorCode !== undefined && schema?.$ref === "#/components/schemas/InvalidCursor") return [cursorCode]
  const resolved = resolve(schema, schemas)
  const alternatives: Array<Json> | undefined = resolved?.anyOf ?? resolved?.oneOf
  if (Array.isArray(alternatives)) {
    return [
      ...new Set(alternatives.flatMap((alternative) => errorCodesOf(alternative, schemas, fallback, cursorCode)))
    ]
  }
  if (!isTypedError(resolved)) return []
  const code = resolve(resolved!.properties.error, schemas)?.properties?.code
  if (typeof code?.const === "string") return [code.const]
  if (Array.isArray(code?.enum) && code.enum.length > 0) return code.enum
  return fallback === undefined ? [] : [fallback]
}

/**
 * An example value for a schema, composed only of the examples its parts declare (`examples`,
 * `example`, `const`, `enum`; `null` for a nullable part without one; an RFC 3339 instant for a
 * `date-time`; `true` for a boolean): required properties only, one array item. `undefined` when some required part
 * declares none, so the document never shows an invented placeholder ("string", 0); such a
 * schema needs an `examples` annotation of its own (test/platform/openapi/openapi-examples.test.ts).
 */
const exampleOf = (schema: Json | undefined, schemas: Json, depth: number): unknown => {
  if (schema === undefined || depth > 12) return undefined
  if (typeof schema.$ref === "string") return exampleOf(resolve(schema, schemas), schemas, depth + 1)
  if (schema.example !== undefined) return schema.example
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if (schema.const !== undefined) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  const union = schema.anyOf ?? schema.oneOf
  if (Array.isArray(union)) {
    for (const member of union) {
      if (member.type === "null") continue
      const example = exampleOf(member, schemas, depth + 1)
      if (example !== undefined) return example
    }
    return union.some((m: Json) => m.type === "null") ? null : undefined
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return exampleOf(schema.allOf[0], schemas, depth + 1)
  switch (schema.type) {
    case "object": {
      const out: Json = {}
      for (const name of schema.required ?? []) {
        const example = exampleOf(schema.properties?.[name], schemas, depth + 1)
        if (example === undefined) return undefined
        out[name] = example
      }
      return out
    }
    case "array": {
      const item = exampleOf(schema.items, schemas, depth + 1)
      return item === undefined ? undefined : [item]
    }
    case "string":
      return schema.format === "date-time" ? "2026-01-01T00:00:00.000Z" : undefined
    case "boolean":
      // Either value is real; a field where `true` would mislead declares `examples: [false]`.
      return true
    case "null":
      return null
    default:
      return undefined
  }
}

/** Each JSON or form body of `op` without an example gets one from its schema (`exampleOf`). */
const withRequestExamples = (op: Json, schemas: Json): Json => {
  const content: Json | undefined = op.requestBody?.content
  if (content === undefined) return op
  const out: Json = {}
  for (const [type, media] of Object.entries<Json>(content)) {
    const example = media.example === undefined && media.examples === undefined
      ? exampleOf(media.schema, schemas, 0)
      : undefined
    out[type] = example === undefined ? media : { ...media, example }
  }
  return { ...op, requestBody: { ...op.requestBody, content: out } }
}

const withResponseExtras = (path: string, method: string, op: Json, schemas: Json): Json => {
  const limited = op.responses["429"] !== undefined
  const key = `${method.toUpperCase()} ${path}`
  const idempotent = IDEMPOTENT_OPERATIONS.find((o) => o.operation === key)
  const responses: Json = {}
  for (const [status, response] of Object.entries<Json>(op.responses)) {
    if (response.$ref !== undefined) {
      responses[status] = response
      continue
    }
    const headers: Json = { "X-Request-Id": X_REQUEST_ID, ...response.headers }
    if (limited) Object.assign(headers, RATE_LIMIT_HEADERS)
    if (status === "429" || status === "503") headers["Retry-After"] = RETRY_AFTER
    if (status === "202" && ACCEPTED_WITH_LOCATION(path)) headers["Location"] = LOCATION
    if (idempotent?.replays && status.startsWith("2")) {
      headers["Idempotent-Replayed"] = IDEMPOTENT_REPLAYED
      headers["Idempotency-Key"] = IDEMPOTENCY_KEY_ECHO
    }
    let content = response.content
    const success = content?.["application/json"]
    if (
      status.startsWith("2") && success?.schema !== undefined && success.example === undefined &&
      success.examples === undefined
    ) {
      const example = exampleOf(success.schema, schemas, 0)
      if (example !== undefined) content = { ...content, "application/json": { ...success, example } }
    }
    const json = content?.["application/json"]
    if (
      !status.startsWith("2") && json?.schema !== undefined && json.example === undefined && json.examples === undefined
    ) {
      const fallback = status === "401" && path.startsWith("/api/partner/") ? PARTNER_401 : ERROR_CODE_BY_STATUS[status]
      const codes = errorCodesOf(json.schema, schemas, fallback, cursorCodeOf(key))
      if (codes.length === 1) {
        content = { ...content, "application/json": { ...json, example: errorExample(codes[0]!) } }
      } else if (codes.length > 1) {
        const examples = Object.fromEntries(codes.map((code) => [code, { value: errorExample(code) }]))
        content = { ...content, "application/json": { ...json, examples } }
      }
    }
    responses[status] = { ...response, headers, ...(content !== undefined ? { content } : {}) }
  }
  let parameters: Array<Json> | undefined = op.parameters
  if (idempotent !== undefined) {
    const others = (parameters ?? []).filter((p) => !(p.in === "header" && p.name.toLowerCase() === "idempotency-key"))
    parameters = [...others, {
      name: "Idempotency-Key",
      in: "header",
      required: idempotent.required !== undefined,
      description: "1-255 visible ASCII characters (e.g. a UUID v4), the same on every retry of one operation" +
        (idempotent.replays ? "; a repeat answers the stored response with Idempotent-Replayed: true" : ""),
      schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7E]+$" }
    }]
  }
  return { ...op, responses, ...(parameters !== undefined ? { parameters } : {}) }
}

/** Component schema names reachable from `node` through `$ref`s, following into `schemas`. */
const collectRefs = (node: unknown, schemas: Json, into: Set<string>) => {
  if (Array.isArray(node)) {
    for (const n of node) collectRefs(n, schemas, into)
    return
  }
  if (node === null || typeof node !== "object") return
  const ref = (node as Json).$ref
  if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
    const name = ref.slice("#/components/schemas/".length)
    if (!into.has(name)) {
      into.add(name)
      collectRefs(schemas[name], schemas, into)
    }
  }
  for (const v of Object.values(node as Json)) collectRefs(v, schemas, into)
}

const openObjects = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(openObjects)
  if (node === null || typeof node !== "object") return node
  const out: Json = {}
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === "additionalProperties" && v === false) continue
    out[k] = openObjects(v)
  }
  return out
}

export const generatorGrade = (spec: Json, scopes: ReadonlyArray<string>): Json => {
  const schemas: Json = { ...(spec.components?.schemas ?? {}) }
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    const out: Json = {}
    for (const [method, op] of Object.entries(item)) {
      out[method] = isOperation(op)
        ? withRequestExamples(withResponseExtras(path, method, op, schemas), schemas)
        : op
    }
    paths[path] = out
  }
  // Response schemas are open (additive-only changes); those also used in requests stay closed.
  const requestSide = new Set<string>()
  const responseSide = new Set<string>()
  for (const item of Object.values<Json>(paths)) {
    for (const op of Object.values<Json>(item)) {
      if (!isOperation(op)) continue
      collectRefs(op.requestBody, schemas, requestSide)
      collectRefs(op.parameters, schemas, requestSide)
      collectRefs(op.responses, schemas, responseSide)
    }
  }
  for (const name of responseSide) if (!requestSide.has(name)) schemas[name] = openObjects(schemas[name])
  for (const item of Object.values<Json>(paths)) {
    for (const op of Object.values<Json>(item)) {
      if (!isOperation(op)) continue
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (response.content !== undefined) {
          op.responses[status] = { ...response, content: openObjects(response.content) }
        }
      }
    }
  }
  Object.assign(schemas, { WebhookEvent: WEBHOOK_EVENT })
  const securitySchemes: Json = { ...(spec.components?.securitySchemes ?? {}) }
  if (securitySchemes.bearer !== undefined) {
    securitySchemes.bearer = {
      type: "oauth2",
      description:
        "OAuth 2.1 access token (`Authorization: Bearer …`), obtained with the authorization-code flow and PKCE (S256) from this service; " +
        "see /.well-known/oauth-authorization-server. Optional where accepted: anonymous callers are served with prices masked.",
      flows: {
        authorizationCode: {
          authorizationUrl: "/oauth/authorize",
          tokenUrl: "/api/oauth/token",
          refreshUrl: "/api/oauth/token",
          scopes: Object.fromEntries(scopes.map((s) => [s, s === "pricing:read" ? "Read registration prices" : s]))
        }
      },
      "x-pkce-required": true
    }
  }
  return {
    ...spec,
    servers: [{ url: "/", description: "This service (the document is served from BASE_URL)" }],
    paths,
    webhooks: webhooks(),
    components: { ...spec.components, schemas, securitySchemes }
  }
}
