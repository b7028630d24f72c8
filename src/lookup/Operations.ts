/**
 * The lookup slice's public operation (../operations/Operation.ts), the rule of
 * `POST /api/tools/whois` (./Http.ts calls the same `Lookups.whois`) for the agent tools and the
 * batch: the name, then the lookup against the caller's daily quota, which the service counts (per
 * IP anonymous, per account with a bearer token), so the record names no policy of its own.
 */
import { Effect } from "effect"
import { operation } from "../operations/Operation.js"
import { domainInput } from "../platform/http/DomainInput.js"
import { WhoisRequest, WhoisResponse } from "./Api.js"
import { Lookups } from "./Lookups.js"

export const whoisLookup = operation({
  name: "whois_lookup",
  title: "WHOIS/RDAP lookup",
  description:
    "Registration data of a domain (registrar, dates, status, nameservers) from RDAP, falling back to WHOIS. " +
    "Same answer as POST /api/tools/whois, and the same daily quota (10 per IP anonymous; more with a bearer token).",
  endpoint: "POST /api/tools/whois",
  input: WhoisRequest,
  output: WhoisResponse,
  rateLimit: null,
  run: (input, who) =>
    Effect.gen(function*() {
      const domain = (yield* domainInput("domain", input.domain)).ascii
      const lookups = yield* Lookups
      return yield* lookups.whois(domain, lookups.quotaOf(who.viewer, who.ip))
    }),
  summarize: (answer) => {
    const record = answer.lookup.result
    return `${answer.lookup.domain}: registered with ${record.registrar || "an unknown registrar"}` +
      (record.creation_date ? `, created ${record.creation_date}` : "") +
      (record.expiration_date ? `, expires ${record.expiration_date}` : "") +
      `. WHOIS lookups left today: ${answer.remaining} of ${answer.cap}.`
  }
})
