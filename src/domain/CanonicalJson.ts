/**
 * The canonical form of a JSON request body, for "the same body" of an Idempotency-Key replay
 * (the description: same key and same body → the stored response). Two bodies are the same when
 * they parse to the same value: key order, whitespace and number spelling (`1.0`, `1e0`) do not
 * matter; values, arrays' order and strings do. A body that is not JSON stays as it is (compared
 * byte for byte).
 */
export const canonicalJson = (text: string): string => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return text
  }
  return JSON.stringify(sorted(value))
}

const sorted = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sorted)
  if (value === null || typeof value !== "object") return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) out[key] = sorted((value as Record<string, unknown>)[key])
  return out
}
