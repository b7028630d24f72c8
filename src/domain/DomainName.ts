/**
 * Domain names (pure): UTS-46 normalisation and validation (`tr46`, the WHATWG URL standard's
 * implementation), public-suffix awareness (`tldts`, the Public Suffix List, ICANN section).
 *
 * Inside the service a name is always its A-label (punycode) form, lowercase, without a trailing
 * dot; `unicode` is kept for display. `label.co.uk` is a plain second-level query because `co.uk`
 * is a public suffix.
 */
import { Data, Either } from "effect"
import { parse as parsePsl } from "tldts"
import tr46 from "tr46"

export type DomainNameProblem =
  | "empty"
  | "too_long"
  | "empty_label"
  | "label_too_long"
  | "invalid_character"
  | "hyphen_position"
  | "bidi_rule"
  | "contextual_joiner"
  | "idna_mapping"
  | "ip_address"
  | "single_label"
  | "suffix_only"

export class InvalidDomainName extends Data.TaggedError("InvalidDomainName")<{
  readonly input: string
  readonly problem: DomainNameProblem
  readonly message: string
}> {}

export interface DomainName {
  /** A-label form: `xn--bcher-kva.de`. */
  readonly ascii: string
  /** U-label form for display: `bücher.de`. */
  readonly unicode: string
  readonly labels: ReadonlyArray<string>
  /** The public suffix (ICANN section of the PSL): `com`, `co.uk`. */
  readonly suffix: string
  /** Whether the suffix is on the Public Suffix List (false: unknown TLD). */
  readonly knownSuffix: boolean
  /** The registrable name: `example.co.uk` for `www.example.co.uk`. */
  readonly registrable: string
  /** The label left of the suffix: `example`. */
  readonly label: string
  /** Labels left of the registrable name (`www`), empty when the name is registrable itself. */
  readonly subdomain: string
}

const baseOptions = {
  checkHyphens: true,
  checkBidi: true,
  checkJoiners: true,
  useSTD3ASCIIRules: true,
  transitionalProcessing: false,
  verifyDNSLength: true
}

const fail = (input: string, problem: DomainNameProblem, message: string) =>
  Either.left(new InvalidDomainName({ input, problem, message }))

/** Which UTS-46 rule rejected the name: retried with one check off at a time. */
const explainIdnaFailure = (input: string, name: string): InvalidDomainName => {
  const tries: ReadonlyArray<[keyof typeof baseOptions, DomainNameProblem, string]> = [
    [
      "checkHyphens",
      "hyphen_position",
      "a label may not start or end with a hyphen, nor have hyphens in both the 3rd and 4th positions"
    ],
    [
      "checkBidi",
      "bidi_rule",
      "right-to-left and left-to-right characters are mixed in a way the Bidi rule (RFC 5893) forbids"
    ],
    [
      "checkJoiners",
      "contextual_joiner",
      "a zero-width joiner or non-joiner appears where the ContextJ rules (RFC 5892) forbid it"
    ],
    ["useSTD3ASCIIRules", "invalid_character", "only letters, digits and hyphens are allowed in a label"]
  ]
  for (const [option, problem, message] of tries) {
    if (tr46.toASCII(name, { ...baseOptions, [option]: false }) !== null) {
      return new InvalidDomainName({ input, problem, message })
    }
  }
  return new InvalidDomainName({
    input,
    problem: "idna_mapping",
    message: "the name contains characters that UTS-46 does not allow in domain names"
  })
}

/**
 * The A-label of a name made of letters, digits and inner hyphens only, with no `--` in a label's
 * 3rd and 4th positions (so no A-label either): UTS-46 maps such a name to its lowercase form and
 * its U-label form is the same. Undefined for anything else (tr46 decides). Almost every query
 * is such a name; skipping tr46 for it saves ≈ 40 µs per name (10 per search).
 */
const plainAscii = (name: string): string | undefined => {
  if (!/^[A-Za-z0-9.-]+$/.test(name)) return undefined
  const lower = name.toLowerCase()
  for (const label of lower.split(".")) {
    if (label.startsWith("-") || label.endsWith("-") || label.startsWith("--", 2)) return undefined
  }
  return lower
}

export const parseDomainName = (input: string): Either.Either<DomainName, InvalidDomainName> => {
  // UTS-46 maps the ideographic and full-width full stops to "."; do it first so the dot rules
  // below (trailing dot, empty labels) see every separator.
  const trimmed = input.trim().replace(/[\u3002\uFF0E\uFF61]/g, ".").replace(/\.$/, "")
  if (trimmed === "") return fail(input, "empty", "a domain name is required")
  if (trimmed.length > 1000) return fail(input, "too_long", "a domain name has at most 253 characters")
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(trimmed) || trimmed.includes(":") || /^\[.*\]$/.test(trimmed)) {
    return fail(input, "ip_address", "an IP address is not a domain name")
  }
  if (trimmed.split(".").some((l) => l === "")) {
    return fail(input, "empty_label", "the name has an empty label (two dots in a row, or a leading dot)")
  }

  const plain = plainAscii(trimmed)
  const ascii = plain ?? tr46.toASCII(trimmed, { ...baseOptions, verifyDNSLength: false })
  if (ascii === null) return Either.left(explainIdnaFailure(input, trimmed))
  const labels = ascii.split(".")
  if (labels.some((l) => l.length > 63)) {
    return fail(input, "label_too_long", "a label has at most 63 characters (in A-label form)")
  }
  if (ascii.length > 253) return fail(input, "too_long", "a domain name has at most 253 characters (in A-label form)")
  if (labels.length < 2) return fail(input, "single_label", "a domain name needs a label and a TLD, e.g. example.com")

  const psl = parsePsl(ascii, { allowPrivateDomains: false, detectIp: true, extractHostname: false })
  if (psl.isIp) return fail(input, "ip_address", "an IP address is not a domain name")
  const knownSuffix = psl.isIcann === true && psl.publicSuffix !== null
  const suffix = knownSuffix ? psl.publicSuffix! : labels[labels.length - 1]
  if (ascii === suffix) return fail(input, "suffix_only", `"${suffix}" is a public suffix, not a registrable name`)
  const suffixLabels = suffix.split(".").length
  const label = labels[labels.length - suffixLabels - 1]
  const registrable = `${label}.${suffix}`
  const subdomain = labels.slice(0, labels.length - suffixLabels - 1).join(".")
  return Either.right({
    ascii,
    unicode: plain ?? toUnicode(ascii),
    labels,
    suffix,
    knownSuffix,
    registrable,
    label,
    subdomain
  })
}

/** A-label → U-label for display (never fails: an undecodable label is returned as is). */
export const toUnicode = (ascii: string): string =>
  tr46.toUnicode(ascii, { checkHyphens: false, checkBidi: false, checkJoiners: false, useSTD3ASCIIRules: false }).domain

/**
 * The names the code builds itself (not a caller's input, which platform/http/DomainInput.ts
 * parses): each is the parse of a name made for the purpose, so its rules are exactly a name's.
 */

/** The name `label.tld` (a candidate, or a label checked under a TLD): `Bücher` + `de` → `xn--bcher-kva.de`. */
export const candidate = (label: string, tld: string): Either.Either<DomainName, InvalidDomainName> =>
  parseDomainName(`${label}.${tld}`)

/**
 * A TLD or public suffix (`com`, `co.uk`, `рф`) in A-label form (`xn--p1ai`), checked as the
 * suffix of a one-letter name: it is valid where `x.<tld>` is a name (its problem, if not).
 */
export const parseTld = (tld: string): Either.Either<string, InvalidDomainName> =>
  Either.map(candidate("x", tld), (name) => name.ascii.slice(2))

/** The public suffix of a name (`co.uk` for `a.co.uk`); for a string that is not a name, its last label. */
export const suffixOf = (domain: string): string =>
  Either.getOrElse(Either.map(parseDomainName(domain), (d) => d.suffix), () => domain.split(".").pop()!)
