/**
 * The search slice's public operations (../operations/Operation.ts), for the agent tools and the
 * batch, with the rule of `POST /api/domain/search` (./Http.ts streams the same `Search.start`):
 *
 *   search_domain   one query: its name and, for a plain label.tld, the alternate TLDs
 *   check_domains   1 to 50 names at once, one row each in the order given; one search's quota
 *
 * Rows are reported as progress as they are known; marketplace prices only for a bearer token
 * with pricing:read.
 */
import { Effect, Either, Schema, Stream } from "effect"
import type { DomainName } from "../domain/DomainName.js"
import { canSeeMarketPrices } from "../identity/Viewer.js"
import { operation, type Who } from "../operations/Operation.js"
import { InvalidDomain } from "../platform/http/DomainInput.js"
import { limits, SearchBody } from "./Api.js"
import { RowEvent } from "./Rows.js"
import { Search, type SearchPlan } from "./Search.js"

/** A row of the search stream (`kind: "row"`), as `POST /api/domain/search` streams it. */
export const SearchRow = RowEvent.annotations({ identifier: "SearchRow" })

export const SearchDomainInput = Schema.Struct({
  ...SearchBody.fields,
  include_alternates: Schema.optionalWith(Schema.Boolean, { default: () => true }).annotations({
    description:
      "Also check the label under the common alternate TLDs (only for a plain label.tld query). Default true."
  })
})

/** search_domain's result: `{query, results: rows}`. */
export const SearchDomainOutput = Schema.Struct({
  query: Schema.String,
  results: Schema.Array(SearchRow)
}).annotations({ identifier: "SearchDomainResult" })

/** check_domains: up to 50 names, each checked as the search stream checks its queried name. */
export const MAX_CHECK_DOMAINS = 50
export const CheckDomainsInput = Schema.Struct({
  domains: Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))).pipe(
    Schema.minItems(1),
    Schema.maxItems(MAX_CHECK_DOMAINS)
  ).annotations({ description: "1 to 50 domain names, e.g. [\"example.com\", \"example.io\"]" })
})

/** check_domains' result: one search-stream row per distinct name, in the order asked. */
export const CheckDomainsOutput = Schema.Struct({
  results: Schema.Array(SearchRow)
}).annotations({ identifier: "CheckDomainsResult" })

/** A row in words, for progress and summaries. */
export const describeRow = (row: RowEvent): string => {
  const price = row.price === null
    ? ""
    : typeof row.price === "number"
    ? ` — $${row.price.toFixed(2)}/yr`
    : row.price.bin !== null
    ? ` — buy now $${row.price.bin.toFixed(2)}`
    : " — price shown with a pricing:read token"
  return `${row.domain_unicode}: ${row.state_label}${price}`
}

/** The rows of a plan, each reported as progress as it is known. */
const rowsOf = (plan: SearchPlan, who: Who) =>
  Effect.gen(function*() {
    const search = yield* Search
    const started = yield* search.start(plan, {
      requestId: who.requestId,
      marketPrices: canSeeMarketPrices(who.viewer) ? "all" : "none",
      startedAt: Date.now()
    })
    const total = plan.names.length
    const rows = yield* started.events.pipe(
      Stream.filter((e): e is RowEvent => e.kind === "row"),
      Stream.zipWithIndex,
      Stream.tap(([row, i]) => who.progress(i + 1, total, describeRow(row))),
      Stream.map(([row]) => row),
      Stream.runCollect
    )
    return [...rows]
  })

const listed = (rows: ReadonlyArray<RowEvent>) => rows.map(describeRow).join("\n")

export const searchDomain = operation({
  name: "search_domain",
  title: "Search a domain",
  description:
    "Availability of a domain (registrable, premium, registered, for sale, reserved…) with its price, and — for a plain label.tld " +
    "query with include_alternates (default) — the same label under common alternate TLDs. Rows arrive as progress notifications. " +
    "Same answer as POST /api/domain/search; marketplace prices need a bearer token with pricing:read.",
  endpoint: "POST /api/domain/search",
  input: SearchDomainInput,
  output: SearchDomainOutput,
  rateLimit: limits.search,
  run: (input, who) =>
    Effect.gen(function*() {
      const planned = yield* (yield* Search).parse(input.q)
      const plan = input.include_alternates ? planned : { ...planned, names: [planned.primary] }
      return { query: input.q, results: yield* rowsOf(plan, who) }
    }),
  summarize: (v) =>
    `${v.results.length} result${v.results.length === 1 ? "" : "s"} for ${v.query}:\n${listed(v.results)}`
})

export const checkDomains = operation({
  name: "check_domains",
  title: "Check many domains",
  description:
    "Availability and price of 1 to 50 domain names in one call, one row per distinct name in the order given (the same rows " +
    "as search_domain, without alternates). Rows arrive as progress notifications as they are known. Counts as one search " +
    "against the search quota; marketplace prices need a bearer token with pricing:read.",
  endpoint: "POST /api/domain/search",
  input: CheckDomainsInput,
  output: CheckDomainsOutput,
  rateLimit: limits.search,
  run: (input, who) =>
    Effect.gen(function*() {
      const search = yield* Search
      const names: Array<DomainName> = []
      const seen = new Set<string>()
      for (const [i, raw] of input.domains.entries()) {
        const parsed = search.parse(raw)
        if (Either.isLeft(parsed)) {
          return yield* new InvalidDomain({
            message: `domains[${i}]: ${parsed.left.message}`,
            details: { field: `domains[${i}]`, value: raw }
          })
        }
        const name = parsed.right.primary
        if (!seen.has(name.registrable)) {
          seen.add(name.registrable)
          names.push(name)
        }
      }
      const rows = yield* rowsOf({ primary: names[0]!, names, plain: false }, who)
      const order = new Map(names.map((n, i) => [n.registrable, i]))
      const total = names.length
      return { results: rows.sort((a, b) => (order.get(a.domain) ?? total) - (order.get(b.domain) ?? total)) }
    }),
  summarize: (v) => `${v.results.length} name${v.results.length === 1 ? "" : "s"} checked:\n${listed(v.results)}`
})
