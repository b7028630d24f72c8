/**
 * domain-suggest: names built from keywords (pure), then checked by the availability engine.
 *
 * Candidates, in order: the keywords joined on every requested TLD; then with common affixes
 * (get-, try-, my-, go-, the-, -hq, -hub, -app, -labs, -online) on the first two TLDs; then the
 * keywords hyphenated. Only valid names are kept, without duplicates, up to `limit`.
 */
import { Either } from "effect"
import { candidate, type DomainName } from "../domain/DomainName.js"

export const DEFAULT_SUGGEST_TLDS = ["com", "net", "org", "io", "co", "app", "dev", "ai"]
const PREFIXES = ["get", "try", "my", "go", "the"]
const SUFFIXES = ["hq", "hub", "app", "labs", "online"]

export const keywordTokens = (keywords: string): ReadonlyArray<string> =>
  keywords
    .normalize("NFC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== "")
    .slice(0, 5)

/** The suggested names, parsed (the engine checks them as they are). */
export const suggestNames = (
  keywords: string,
  tlds: ReadonlyArray<string>,
  limit: number
): ReadonlyArray<DomainName> => {
  const tokens = keywordTokens(keywords)
  if (tokens.length === 0) return []
  const joined = tokens.join("")
  const out: Array<DomainName> = []
  const seen = new Set<string>()
  const add = (label: string, tld: string) => {
    if (out.length >= limit) return
    const parsed = candidate(label, tld)
    if (Either.isLeft(parsed) || parsed.right.subdomain !== "" || seen.has(parsed.right.ascii)) return
    seen.add(parsed.right.ascii)
    out.push(parsed.right)
  }
  for (const tld of tlds) add(joined, tld)
  for (const tld of tlds.slice(0, 2)) {
    for (const p of PREFIXES) add(`${p}${joined}`, tld)
    for (const s of SUFFIXES) add(`${joined}${s}`, tld)
  }
  if (tokens.length > 1) { for (const tld of tlds) add(tokens.join("-"), tld) }
  return out
}
