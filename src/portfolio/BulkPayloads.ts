/**
 * The payload of each bulk operation, one schema per op: the service decodes a request's payload
 * with its op's schema (the op is in the path, so the body cannot be keyed on it at the edge), and
 * the OpenAPI document shows every shape (`payloadJsonSchema`). A decoded payload is a
 * `BulkCommand`: op and payload together, so the rules switch on the op and get its payload's type.
 */
import { Either, JSONSchema, type ParseResult, Schema } from "effect"
import { BULK_OPS, type BulkOp, MAX_NAMESERVERS, MIN_NAMESERVERS } from "../domain/BulkRules.js"

const Reason = Schema.optional(Schema.String.pipe(Schema.maxLength(500)))

export const BulkPayloads = {
  lock: Schema.Struct({ reason: Reason }),
  unlock: Schema.Struct({ reason: Reason }),
  setNameservers: Schema.Struct({
    nameservers: Schema.Array(Schema.String).pipe(Schema.minItems(MIN_NAMESERVERS), Schema.maxItems(MAX_NAMESERVERS))
  }),
  setFolder: Schema.Struct({ folder: Schema.NullOr(Schema.String) }),
  setContacts: Schema.Struct({ contacts: Schema.String }),
  setAutoRenew: Schema.Struct({ autoRenew: Schema.Boolean }),
  renew: Schema.Struct({ years: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 10)), { default: () => 1 }) }),
  restore: Schema.Struct({
    reason: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(500)), {
      default: () => "Restore requested by the owner"
    })
  })
} as const satisfies Record<BulkOp, Schema.Schema.AnyNoContext>

/** An op with its decoded payload. */
export type BulkCommand = {
  readonly [K in BulkOp]: { readonly op: K; readonly payload: Schema.Schema.Type<(typeof BulkPayloads)[K]> }
}[BulkOp]

const options = { onExcessProperty: "error", errors: "all" } as const

const as = <K extends BulkOp, A, I>(op: K, schema: Schema.Schema<A, I>, payload: unknown) =>
  Either.map(Schema.decodeUnknownEither(schema, options)(payload), (decoded) => ({ op, payload: decoded }))

/** The payload decoded by its op's schema (an absent payload is `{}`). */
export const commandOf = (op: BulkOp, input: unknown): Either.Either<BulkCommand, ParseResult.ParseError> => {
  const payload = input ?? {}
  switch (op) {
    case "lock":
      return as(op, BulkPayloads.lock, payload)
    case "unlock":
      return as(op, BulkPayloads.unlock, payload)
    case "setNameservers":
      return as(op, BulkPayloads.setNameservers, payload)
    case "setFolder":
      return as(op, BulkPayloads.setFolder, payload)
    case "setContacts":
      return as(op, BulkPayloads.setContacts, payload)
    case "setAutoRenew":
      return as(op, BulkPayloads.setAutoRenew, payload)
    case "renew":
      return as(op, BulkPayloads.renew, payload)
    case "restore":
      return as(op, BulkPayloads.restore, payload)
  }
}

/** Every op's payload shape, for the OpenAPI document (`anyOf`: lock's and unlock's are the same; each titled with its op). */
export const payloadJsonSchema = {
  description: "The op's payload (the op is in the path); an absent payload is `{}`. Unknown fields are refused.",
  anyOf: BULK_OPS.map((op) => {
    const schema: Schema.Schema.AnyNoContext = BulkPayloads[op]
    const { $schema: _, ...shape } = JSONSchema.make(schema)
    return { title: op, ...inlineDefs(shape) }
  })
}

/** A JSON Schema with its local `$defs` written in place: in the OpenAPI document `#/$defs/…` would not resolve. */
function inlineDefs(shape: JSONSchema.JsonSchema7Root): object {
  const defs: Record<string, unknown> = shape.$defs ?? {}
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk)
    if (v === null || typeof v !== "object") return v
    const entries = Object.entries(v).filter(([k]) => k !== "$defs")
    const ref = entries.find(([k, r]) => k === "$ref" && typeof r === "string" && r.startsWith("#/$defs/"))
    const own = Object.fromEntries(
      entries.filter(([k]) => k !== "$ref" || ref === undefined).map(([k, x]) => [k, walk(x)])
    )
    return ref === undefined ? own : { ...(walk(defs[String(ref[1]).slice("#/$defs/".length)]) as object), ...own }
  }
  return walk(shape) as object
}
