/**
 * A bulk request checked before anything runs: its payload decoded by its op's schema, then the
 * op's own rules that need the catalogue or the registrar (a TLD's nameserver count and renewal
 * years, a contact handle that exists). Every refusal is a typed 400 naming its field.
 */
import { type Context, Effect, Either, Option, ParseResult } from "effect"
import type { Catalogue } from "../catalogue/Catalogue.js"
import { type BulkOp, folderNameProblem, isContactHandle, MIN_NAMESERVERS, parseHostName } from "../domain/BulkRules.js"
import { suffixOf } from "../domain/DomainName.js"
import { meaningfulIssues } from "../platform/http/DecodeErrors.js"
import { type BulkCommand, commandOf } from "./BulkPayloads.js"
import { registrarUnavailable } from "./BulkRegistrar.js"
import { InvalidBulkPayload, type RegistrarUnavailable } from "./Errors.js"
import type { Registrar } from "./Registrar.js"

/** What a stored job needs to run its items. */
export interface JobPayload {
  readonly nameservers?: ReadonlyArray<string>
  readonly folder?: string | null
  readonly contacts?: string
  readonly skipOnError: boolean
}

/** The request's payload decoded by its op's schema (./BulkPayloads.ts), or a typed 400 naming each field. */
export const decodePayload = (op: BulkOp, payload: unknown): Effect.Effect<BulkCommand, InvalidBulkPayload> =>
  Either.match(commandOf(op, payload), {
    onRight: Effect.succeed,
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
  })

/** Kept here for the bulk carts: the rule is a name's (domain/DomainName.ts). */
export { suffixOf }

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

/** Op-specific checks that need the catalogue or the registrar: the command with its payload normalised. */
export const validateFor = (
  s: CheckSources,
  command: BulkCommand,
  domains: ReadonlyArray<string>
): Effect.Effect<BulkCommand, InvalidBulkPayload | RegistrarUnavailable> =>
  Effect.gen(function*() {
    const tlds = [...new Set(domains.map(suffixOf))]
    switch (command.op) {
      case "setNameservers":
        return { op: command.op, payload: yield* checkNameservers(s, command.payload.nameservers, tlds) }
      case "setFolder": {
        if (command.payload.folder === null) return command
        const folder = command.payload.folder.normalize("NFC")
        const problem = folderNameProblem(folder)
        if (problem !== undefined) return yield* InvalidBulkPayload.of("payload.folder", problem)
        return { op: command.op, payload: { folder } }
      }
      case "setContacts":
        return { op: command.op, payload: yield* checkContacts(s, command.payload.contacts) }
      case "renew":
        return { op: command.op, payload: yield* checkRenewYears(s, command.payload.years, tlds) }
      default:
        return command
    }
  })
