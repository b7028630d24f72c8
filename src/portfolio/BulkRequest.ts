/**
 * A bulk request checked before anything runs: its payload decoded by its op's schema, then the
 * op's own rules that need the catalogue or the registrar (a TLD's nameserver count and renewal
 * years, a contact handle that exists). Every refusal is a typed 400 naming its field.
 */
import { type Context, Effect, Either, Option, ParseResult, Schema } from "effect"
import type { Catalogue } from "../catalogue/Catalogue.js"
import {
  type BulkOp,
  folderNameProblem,
  isContactHandle,
  MAX_NAMESERVERS,
  MIN_NAMESERVERS,
  parseHostName
} from "../domain/BulkRules.js"
import { parseDomainName } from "../domain/DomainName.js"
import { meaningfulIssues } from "../platform/http/DecodeErrors.js"
import { registrarUnavailable } from "./BulkRegistrar.js"
import { InvalidBulkPayload, type RegistrarUnavailable } from "./Errors.js"
import type { Registrar } from "./Registrar.js"

const Reason = Schema.optional(Schema.String.pipe(Schema.maxLength(500)))
const payloadSchemas = {
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
} as const

/** What a stored job needs to run its items. */
export interface JobPayload {
  readonly nameservers?: ReadonlyArray<string>
  readonly folder?: string | null
  readonly contacts?: string
  readonly skipOnError: boolean
}

export const decodePayload = (op: BulkOp, payload: unknown) =>
  Either.match(
    Schema.decodeUnknownEither(payloadSchemas[op] as Schema.Schema<any, any>, {
      onExcessProperty: "error",
      errors: "all"
    })(payload ?? {}),
    {
      onRight: (value) => Effect.succeed(value as Record<string, any>),
      onLeft: (error) => {
        const issues = meaningfulIssues(ParseResult.ArrayFormatter.formatErrorSync(error))
        const details = issues.slice(0, 20).map((i) => ({
          field: ["payload", ...i.path.map(String)].join("."),
          message: i.message
        }))
        return Effect.fail(
          new InvalidBulkPayload({ message: details.map((d) => `${d.field}: ${d.message}`).join("; "), details })
        )
      }
    }
  )

export const suffixOf = (domain: string) =>
  Either.getOrElse(Either.map(parseDomainName(domain), (d) => d.suffix), () => domain.split(".").pop()!)

export const clipList = (xs: ReadonlyArray<string>, n = 10) =>
  xs.slice(0, n).join(", ") + (xs.length > n ? ` and ${xs.length - n} more` : "")

/** What the op-specific checks read. */
export interface CheckSources {
  readonly catalogue: Context.Tag.Service<typeof Catalogue>
  readonly registrar: Context.Tag.Service<typeof Registrar>
}

const checkNameservers = (s: CheckSources, nameservers: ReadonlyArray<string>, tlds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const hosts: Array<string> = []
    for (const [i, ns] of nameservers.entries()) {
      const parsed = parseHostName(ns)
      if (Either.isLeft(parsed)) return yield* InvalidBulkPayload.of(`payload.nameservers.${i}`, parsed.left)
      if (!hosts.includes(parsed.right)) hosts.push(parsed.right)
    }
    if (hosts.length < MIN_NAMESERVERS) {
      return yield* InvalidBulkPayload.of(
        "payload.nameservers",
        `at least ${MIN_NAMESERVERS} different host names are required`
      )
    }
    for (const tld of tlds) {
      const meta = yield* Effect.orDie(s.catalogue.getMetadata(tld))
      if (Option.isSome(meta)) {
        const { maxNameservers, minNameservers } = meta.value
        if (hosts.length < minNameservers || hosts.length > maxNameservers) {
          return yield* InvalidBulkPayload.of(
            "payload.nameservers",
            `.${tld} accepts ${minNameservers}–${maxNameservers} nameservers, got ${hosts.length}`,
            { tld }
          )
        }
      }
    }
    return { nameservers: hosts }
  })

const checkContacts = (s: CheckSources, handle: string) =>
  Effect.gen(function*() {
    if (!isContactHandle(handle)) {
      return yield* InvalidBulkPayload.of("payload.contacts", "a contact handle is 3–40 letters, digits, _ - or .")
    }
    const exists = yield* s.registrar.contactExists(handle).pipe(Effect.mapError(registrarUnavailable))
    if (!exists) {
      return yield* InvalidBulkPayload.of(
        "payload.contacts",
        `no contact with handle "${handle}" exists at the registrar`
      )
    }
    return { contacts: handle }
  })

const checkRenewYears = (s: CheckSources, years: number, tlds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    for (const tld of tlds) {
      const meta = yield* Effect.orDie(s.catalogue.getMetadata(tld))
      const allowed = Option.match(meta, {
        onNone: () => [1],
        onSome: (m) => m.allowedYears.length > 0 ? m.allowedYears : [1]
      })
      if (!allowed.includes(years)) {
        return yield* InvalidBulkPayload.of(
          "payload.years",
          `.${tld} renews for ${allowed.join(", ")} year(s), not ${years}`,
          { tld, allowed }
        )
      }
    }
    return { years }
  })

/** Op-specific checks that need the catalogue or the registrar. Returns the normalised payload. */
export const validateFor = (
  s: CheckSources,
  op: BulkOp,
  payload: Record<string, any>,
  domains: ReadonlyArray<string>
): Effect.Effect<Record<string, any>, InvalidBulkPayload | RegistrarUnavailable> =>
  Effect.gen(function*() {
    const tlds = [...new Set(domains.map(suffixOf))]
    if (op === "setNameservers") return yield* checkNameservers(s, payload.nameservers as ReadonlyArray<string>, tlds)
    if (op === "setFolder") {
      if (payload.folder === null) return { folder: null }
      const folder = (payload.folder as string).normalize("NFC")
      const problem = folderNameProblem(folder)
      if (problem !== undefined) return yield* InvalidBulkPayload.of("payload.folder", problem)
      return { folder }
    }
    if (op === "setContacts") return yield* checkContacts(s, payload.contacts as string)
    if (op === "renew") return yield* checkRenewYears(s, payload.years, tlds)
    return payload
  })
