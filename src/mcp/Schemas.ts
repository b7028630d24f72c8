/**
 * The JSON Schema form of an operation's input and output schemas for `tools/list`
 * (`inputSchema`, `outputSchema`). The schemas themselves are the operations' own, beside their
 * services (../operations/Operation.ts).
 */
import { JSONSchema, type Schema } from "effect"

export interface ObjectJsonSchema {
  readonly type: "object"
  readonly [key: string]: unknown
}

/**
 * JSON Schema of a struct schema with the object at the root (MCP requires `type: "object"` there;
 * `JSONSchema.make` puts an identified schema under `$defs` and refers to it).
 */
export const objectJsonSchema = (schema: Schema.Schema.Any): ObjectJsonSchema => {
  const { $defs, $ref, $schema: _, ...rest } = JSONSchema.make(schema) as {
    $defs?: Record<string, object>
    $ref?: string
    $schema?: string
    [k: string]: unknown
  }
  const defs = { ...$defs }
  let root: Record<string, unknown> = rest
  if ($ref !== undefined) {
    const name = $ref.replace("#/$defs/", "")
    root = { ...defs[name] }
    // Keep the definition: nested references to it (none today) stay valid.
  }
  return { ...root, ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}) } as ObjectJsonSchema
}
