/**
 * The agent tools: the public reads (`search_domain`, `whois_lookup`, `tld_registration_price`,
 * `tld_requirements`, `check_domains`, `suggest_domains`, `get_listing`) and `create_purchase_link`,
 * each calling the service its REST endpoint calls, with the same validation, masking and quota,
 * and answering the REST body as structured content. What a tool is: ./Tool.ts.
 *
 * Contract: a tool never re-enters the service through HTTP, and a tool failure (bad input,
 * quota, no data) is a `ToolFailure` with the REST error's code and message, never a defect.
 */
import { Effect, Either, Option, Stream } from "effect"
import { limits as catalogueLimits } from "../catalogue/Api.js"
import { Catalogue } from "../catalogue/Catalogue.js"
import { isTld, normalizeTld } from "../catalogue/PriceCsv.js"
import { buyPath } from "../checkout/BuyForm.js"
import { canSeeMarketPrices } from "../identity/Viewer.js"
import { WhoisNotFound, WhoisQuotaSpent, WhoisUnavailable } from "../lookup/Errors.js"
import { Lookups } from "../lookup/Lookups.js"
import { limits as marketLimits } from "../market/Api.js"
import { ListingNotFound } from "../market/Errors.js"
import { Market } from "../market/Market.js"
import { toListingItem } from "../market/View.js"
import { AppConfig } from "../platform/Config.js"
import { domainInput, InvalidDomain } from "../platform/http/DomainInput.js"
import { limits as searchLimits } from "../search/Api.js"
import type { RowEvent } from "../search/Rows.js"
import { Search } from "../search/Search.js"
import { limits as toolLimits } from "../tools/Api.js"
import { InvalidKeywords } from "../tools/Errors.js"
import { Tools } from "../tools/Tools.js"
import {
  CheckDomainsInput,
  CheckDomainsOutput,
  CreatePurchaseLinkInput,
  CreatePurchaseLinkOutput,
  GetListingInput,
  GetListingOutput,
  SearchDomainInput,
  SearchDomainOutput,
  SuggestDomainsInput,
  SuggestDomainsOutput,
  TldRegistrationPriceInput,
  TldRegistrationPriceOutput,
  TldRequirementsInput,
  TldRequirementsOutput,
  WhoisLookupInput,
  WhoisLookupOutput
} from "./Schemas.js"
import { admit, type AgentTool, tool, ToolFailure, toolFailure } from "./Tool.js"

const describeRow = (row: RowEvent): string => {
  const price = row.price === null
    ? ""
    : typeof row.price === "number"
    ? ` — $${row.price.toFixed(2)}/yr`
    : row.price.bin !== null
    ? ` — buy now $${row.price.bin.toFixed(2)}`
    : " — price shown with a pricing:read token"
  return `${row.domain_unicode}: ${row.state_label}${price}`
}

const searchDomain = tool({
  name: "search_domain",
  title: "Search a domain",
  description:
    "Availability of a domain (registrable, premium, registered, for sale, reserved…) with its price, and — for a plain label.tld " +
    "query with include_alternates (default) — the same label under common alternate TLDs. Rows arrive as progress notifications. " +
    "Same answer as POST /api/domain/search; marketplace prices need a bearer token with pricing:read.",
  input: SearchDomainInput,
  output: SearchDomainOutput,
  run: (input, caller) =>
    Effect.gen(function*() {
      const search = yield* Search
      const planned = yield* Effect.mapError(search.parse(input.q), toolFailure(InvalidDomain))
      const plan = input.include_alternates ? planned : { ...planned, names: [planned.primary] }
      yield* admit(searchLimits.search, caller)
      const startedAt = Date.now()
      const started = yield* search.start(plan, {
        requestId: caller.requestId,
        marketPrices: canSeeMarketPrices(caller.viewer) ? "all" : "none",
        startedAt
      })
      const total = plan.names.length
      const rows = yield* started.events.pipe(
        Stream.filter((e): e is RowEvent => e.kind === "row"),
        Stream.zipWithIndex,
        Stream.tap(([row, i]) => caller.progress(i + 1, total, describeRow(row))),
        Stream.map(([row]) => row),
        Stream.runCollect
      )
      const results = [...rows]
      const lines = results.map(describeRow)
      return {
        value: { query: input.q, results },
        summary: `${results.length} result${results.length === 1 ? "" : "s"} for ${input.q}:\n${lines.join("\n")}`
      }
    })
})

const whoisLookup = tool({
  name: "whois_lookup",
  title: "WHOIS/RDAP lookup",
  description:
    "Registration data of a domain (registrar, dates, status, nameservers) from RDAP, falling back to WHOIS. " +
    "Same answer as POST /api/tools/whois, and the same daily quota (10 per IP anonymous; more with a bearer token).",
  input: WhoisLookupInput,
  output: WhoisLookupOutput,
  run: (input, caller) =>
    Effect.gen(function*() {
      const domain = (yield* domainInput("domain", input.domain)).ascii
      const lookups = yield* Lookups
      const answer = yield* lookups.whois(domain, lookups.quotaOf(caller.viewer, caller.ip))
      const record = answer.lookup.result
      return {
        value: answer,
        summary: `${domain}: registered with ${record.registrar || "an unknown registrar"}` +
          (record.creation_date ? `, created ${record.creation_date}` : "") +
          (record.expiration_date ? `, expires ${record.expiration_date}` : "") +
          `. WHOIS lookups left today: ${answer.remaining} of ${answer.cap}.`
      }
    }).pipe(
      Effect.catchTags({
        InvalidDomain: toolFailure(InvalidDomain),
        WhoisQuotaSpent: toolFailure(WhoisQuotaSpent),
        WhoisNotFound: toolFailure(WhoisNotFound),
        WhoisUnavailable: toolFailure(WhoisUnavailable)
      })
    )
})

const validTld = (raw: string, field: string) => {
  const tld = normalizeTld(raw)
  return isTld(tld)
    ? Effect.succeed(tld)
    : new ToolFailure({ code: "invalid_tld", message: `"${raw}" is not a valid TLD`, details: { field } })
}

const tldRegistrationPrice = tool({
  name: "tld_registration_price",
  title: "TLD price",
  description:
    "Price in USD cents for one year of a lifecycle operation (register by default, renew, transfer, restore) of a TLD; " +
    "priceCents is null when the TLD/operation is unsupported. Same answer as GET /api/pricing/tld.",
  input: TldRegistrationPriceInput,
  output: TldRegistrationPriceOutput,
  run: (input, caller) =>
    Effect.gen(function*() {
      const tld = yield* validTld(input.tld, "tld")
      yield* admit(catalogueLimits.pricing, caller)
      const price = Option.getOrNull(yield* Effect.orDie((yield* Catalogue).getPrice(tld, input.op)))
      return {
        value: { tld, op: input.op, priceCents: price },
        summary: price === null
          ? `.${tld}: no ${input.op} price (unsupported)`
          : `.${tld} ${input.op}: $${(price / 100).toFixed(2)} for one year`
      }
    })
})

const tldRequirements = tool({
  name: "tld_requirements",
  title: "TLD registration requirements",
  description:
    "Registration rules of a TLD: allowed periods, contacts, nameserver counts, DNSSEC, IDN and other features. " +
    "Same answer as GET /api/tlds/{tld}/metadata.",
  input: TldRequirementsInput,
  output: TldRequirementsOutput,
  run: (input, caller) =>
    Effect.gen(function*() {
      const tld = yield* validTld(input.tld, "tld")
      yield* admit(catalogueLimits.metadata, caller)
      const metadata = yield* Effect.orDie((yield* Catalogue).getMetadata(tld))
      if (Option.isNone(metadata)) {
        return yield* new ToolFailure({ code: "tld_not_found", message: `No registry metadata for .${tld}` })
      }
      const m = metadata.value
      return {
        value: m,
        summary: `.${m.tld} (${m.provider}): periods ${m.periodsMonths.join(", ")} months`
      }
    })
})

const checkDomains = tool({
  name: "check_domains",
  title: "Check many domains",
  description:
    "Availability and price of 1 to 50 domain names in one call, one row per distinct name in the order given (the same rows " +
    "as search_domain, without alternates). Rows arrive as progress notifications as they are known. Counts as one search " +
    "against the search quota; marketplace prices need a bearer token with pricing:read.",
  input: CheckDomainsInput,
  output: CheckDomainsOutput,
  run: (input, caller) =>
    Effect.gen(function*() {
      const search = yield* Search
      const names = []
      const seen = new Set<string>()
      for (const [i, raw] of input.domains.entries()) {
        const parsed = search.parse(raw)
        if (Either.isLeft(parsed)) {
          return yield* new ToolFailure({
            code: InvalidDomain.meta.code,
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
      yield* admit(searchLimits.search, caller)
      const plan = { primary: names[0]!, names, plain: false }
      const started = yield* search.start(plan, {
        requestId: caller.requestId,
        marketPrices: canSeeMarketPrices(caller.viewer) ? "all" : "none",
        startedAt: Date.now()
      })
      const total = names.length
      const rows = yield* started.events.pipe(
        Stream.filter((e): e is RowEvent => e.kind === "row"),
        Stream.zipWithIndex,
        Stream.tap(([row, i]) => caller.progress(i + 1, total, describeRow(row))),
        Stream.map(([row]) => row),
        Stream.runCollect
      )
      const order = new Map(names.map((n, i) => [n.registrable, i]))
      const results = [...rows].sort((a, b) => (order.get(a.domain) ?? total) - (order.get(b.domain) ?? total))
      return {
        value: { results },
        summary: `${results.length} name${results.length === 1 ? "" : "s"} checked:\n${
          results.map(describeRow).join("\n")
        }`
      }
    })
})

const suggestDomains = tool({
  name: "suggest_domains",
  title: "Suggest domains",
  description:
    "Domain names built from a short description (its words joined, with common prefixes and suffixes, hyphenated), each " +
    "checked for availability with its price. Same answer as POST /api/tools/domain-suggest (its result) and the same quota.",
  input: SuggestDomainsInput,
  output: SuggestDomainsOutput,
  run: (input, caller) =>
    Effect.gen(function*() {
      yield* admit(toolLimits["domain-suggest"], caller)
      const answer = yield* (yield* Tools).suggest({
        keywords: input.description,
        tlds: input.tlds,
        limit: input.limit
      })
      // The cache keeps the answer as unknown; it is the suggestion body built just above it.
      const value = answer.result as typeof SuggestDomainsOutput.Type
      const available = value.suggestions.filter((s) => s.available === true)
      return {
        value,
        summary: `${available.length} of ${value.suggestions.length} suggestions available:\n` +
          value.suggestions.map((s) =>
            `${s.domain_unicode}: ${s.available === true ? "available" : s.state}${
              s.price !== null ? ` — $${s.price.toFixed(2)}/yr` : ""
            }`
          ).join("\n")
      }
    }).pipe(Effect.catchTags({ InvalidKeywords: toolFailure(InvalidKeywords) }))
})

const getListing = tool({
  name: "get_listing",
  title: "Read a listing",
  description:
    "One marketplace listing (a domain for sale): buy-now and floor prices, description, whether a sale is under way. " +
    "Same answer as GET /api/market/listings/{domain}; prices need a bearer token with pricing:read.",
  input: GetListingInput,
  output: GetListingOutput,
  run: (input, caller) =>
    Effect.gen(function*() {
      const name = yield* domainInput("domain", input.domain, "field-input")
      yield* admit(marketLimits.listings, caller)
      const config = yield* AppConfig
      const row = yield* (yield* Market).listedListing("live", name.ascii)
      const item = toListingItem(row, canSeeMarketPrices(caller.viewer), config.baseUrl)
      return {
        value: new GetListingOutput(item),
        summary: `${item.domain_unicode} is for sale` +
          (item.bin_price !== null
            ? `: buy now $${item.bin_price.toFixed(2)}`
            : " (price shown with a pricing:read token)") +
          (item.locked ? "; a sale is under way" : "")
      }
    }).pipe(
      Effect.catchTags({ InvalidDomain: toolFailure(InvalidDomain), ListingNotFound: toolFailure(ListingNotFound) })
    )
})

const createPurchaseLink = tool({
  name: "create_purchase_link",
  title: "Create a purchase link",
  description:
    "The link to a listed domain's buy page, for the person to open and pay there; this tool never pays or reserves anything. " +
    "A name listed only in the sandbox inventory gets the sandbox buy page (?env=sandbox). A name not listed is refused.",
  input: CreatePurchaseLinkInput,
  output: CreatePurchaseLinkOutput,
  run: (input, caller) =>
    Effect.gen(function*() {
      const name = yield* domainInput("domain", input.domain, "field-input")
      yield* admit(marketLimits.listings, caller)
      const config = yield* AppConfig
      const market = yield* Market
      const environment = yield* market.listedListing("live", name.ascii).pipe(
        Effect.as("live" as const),
        Effect.catchTag("ListingNotFound", () =>
          Effect.as(market.listedListing("sandbox", name.ascii), "sandbox" as const))
      )
      const url = `${config.baseUrl}${buyPath(environment, name.ascii)}`
      return {
        value: { url },
        summary: `Open ${url} to buy ${name.unicode}` +
          (environment === "sandbox" ? " (sandbox: no real payment)" : "") +
          ". Nothing is charged until the person pays on that page."
      }
    }).pipe(
      Effect.catchTags({ InvalidDomain: toolFailure(InvalidDomain), ListingNotFound: toolFailure(ListingNotFound) })
    )
})

export const TOOLS: ReadonlyArray<AgentTool> = [
  searchDomain,
  whoisLookup,
  tldRegistrationPrice,
  tldRequirements,
  checkDomains,
  suggestDomains,
  getListing,
  createPurchaseLink
]

export const toolNamed = (name: string): AgentTool | undefined => TOOLS.find((t) => t.name === name)
