/**
 * Operator commands for the local reserved/blocked list the availability engine checks first:
 *
 *   reserved list
 *   reserved add PATTERN [--kind reserved|blocked] --reason TEXT
 *   reserved remove PATTERN
 *
 * PATTERN is a domain (`example.com`), a label under every TLD (`nic.*`) or a whole suffix
 * (`*.test`); Unicode is accepted and stored in A-label form. Running services see changes within
 * CATALOGUE_CACHE_TTL (default 5 s).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Either } from "effect"
import { abort, json, print } from "../cli/Output.js"
import { candidate, parseTld } from "../domain/DomainName.js"
import { parseDomainInputWith } from "../platform/http/DomainInput.js"
import { AvailabilityEngine } from "./Availability.js"

/** Normalises a reserved-list pattern, or explains why it is not one. */
export const normalizePattern = (input: string): Either.Either<string, string> => {
  const p = input.trim().toLowerCase()
  if (p.startsWith("*.")) {
    return Either.mapBoth(parseTld(p.slice(2)), {
      onLeft: (e) => `"${input}": ${e.message}`,
      onRight: (tld) => `*.${tld}`
    })
  }
  if (p.endsWith(".*")) {
    const parsed = candidate(p.slice(0, -2), "com")
    if (Either.isLeft(parsed)) return Either.left(`"${input}": ${parsed.left.message}`)
    if (parsed.right.subdomain !== "") return Either.left(`"${input}": a label pattern is one label followed by .*`)
    return Either.right(`${parsed.right.label}.*`)
  }
  const parsed = parseDomainInputWith(p, (e) => `"${input}": ${e.message}`)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  if (parsed.right.subdomain !== "") {
    return Either.left(`"${input}" is not a registrable name (did you mean ${parsed.right.registrable}?)`)
  }
  return Either.right(parsed.right.ascii)
}

const pattern = Args.text({ name: "PATTERN" }).pipe(Args.withDescription("example.com, nic.* or *.test"))

const list = Command.make("list", { json }, ({ json }) =>
  Effect.gen(function*() {
    const engine = yield* AvailabilityEngine
    const rows = yield* engine.listReserved
    yield* print(
      json,
      { reserved: rows },
      rows.map((r) => `${r.pattern}\t${r.kind}\t${r.reason}`).join("\n") || "(empty)"
    )
  })).pipe(Command.withDescription("List reserved and blocked names"))

const add = Command.make("add", {
  json,
  pattern,
  kind: Options.choice("kind", ["reserved", "blocked"]).pipe(Options.withDefault("blocked" as const)),
  reason: Options.text("reason").pipe(Options.withDescription("Why (shown in meta.reason of search rows)"))
}, ({ json, kind, pattern, reason }) =>
  Effect.gen(function*() {
    const normalized = normalizePattern(pattern)
    if (Either.isLeft(normalized)) return yield* abort(normalized.left)
    const engine = yield* AvailabilityEngine
    yield* engine.addReserved({ pattern: normalized.right, kind, reason })
    yield* print(json, { pattern: normalized.right, kind, reason }, `${kind}: ${normalized.right}`)
  })).pipe(Command.withDescription("Reserve or block a name, a label under every TLD, or a whole suffix"))

const remove = Command.make("remove", { json, pattern }, ({ json, pattern }) =>
  Effect.gen(function*() {
    const normalized = normalizePattern(pattern)
    if (Either.isLeft(normalized)) return yield* abort(normalized.left)
    const engine = yield* AvailabilityEngine
    const removed = yield* engine.removeReserved(normalized.right)
    if (!removed) return yield* abort(`${normalized.right} is not on the list`)
    yield* print(json, { removed: normalized.right }, `removed ${normalized.right}`)
  })).pipe(Command.withDescription("Take a pattern off the reserved/blocked list"))

export const reservedCommand = Command.make("reserved").pipe(
  Command.withDescription("Local reserved/blocked names checked before any upstream"),
  Command.withSubcommands([list, add, remove])
)
