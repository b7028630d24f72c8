/**
 * Final touches on the generated OpenAPI 3.1 document so it says what the service really sends:
 * request-validation failures are our 400 error shapes (typed, or legacy on the legacy paths),
 * never HttpApi's internal decode-error body.
 */
import { LEGACY_ERROR_PATHS } from "./HttpMiddleware.js"

type Json = Record<string, any>

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

export const finishOpenApi = (spec: Json): Json => {
  const paths: Json = {}
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    const legacy = LEGACY_ERROR_PATHS.has(path.replace(/\{[^}]+\}/g, "x"))
    paths[path] = replaceRefs(item, legacy ? "#/components/schemas/LegacyBadRequest" : "#/components/schemas/BadRequest")
  }
  const schemas = { ...(spec.components?.schemas ?? {}) }
  delete schemas.HttpApiDecodeError
  delete schemas.Issue
  delete schemas.PropertyKey
  return { ...spec, paths, components: { ...spec.components, schemas } }
}
