/**
 * idn-convert: Unicode ↔ A-label (punycode) under UTS-46 (nontransitional), with the rule that
 * rejected an invalid name explained. Pure.
 */
import { Either } from "effect"
import { parseDomainInputWith } from "../platform/http/DomainInput.js"

export interface IdnConvertResult {
  readonly input: string
  readonly valid: boolean
  /** A-label form (null when invalid). */
  readonly ascii: string | null
  /** U-label form for display (null when invalid). */
  readonly unicode: string | null
  /** Whether any label is an IDN (xn--). */
  readonly is_idn: boolean
  readonly labels: ReadonlyArray<{ readonly ascii: string; readonly unicode: string }>
  /** Why the name is invalid: a DomainName problem code and its explanation. */
  readonly error: { readonly code: string; readonly message: string } | null
}

export const idnConvert = (input: string): IdnConvertResult => {
  const parsed = parseDomainInputWith(input, (e) => ({ code: e.problem, message: e.message }))
  if (Either.isLeft(parsed)) {
    return { input, valid: false, ascii: null, unicode: null, is_idn: false, labels: [], error: parsed.left }
  }
  const name = parsed.right
  const unicodeLabels = name.unicode.split(".")
  return {
    input,
    valid: true,
    ascii: name.ascii,
    unicode: name.unicode,
    is_idn: name.labels.some((l) => l.startsWith("xn--")),
    labels: name.labels.map((ascii, i) => ({ ascii, unicode: unicodeLabels[i] ?? ascii })),
    error: null
  }
}
