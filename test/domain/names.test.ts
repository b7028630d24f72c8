/**
 * Property tests: domain-name normalisation (UTS-46, A-label inside), the names the code builds
 * itself (`candidate`, `parseTld`, `suffixOf`) and the names a search checks.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import tr46 from "tr46"
import { candidate, parseDomainName, parseTld, suffixOf, toUnicode } from "../../src/domain/DomainName.js"
import { planSearch } from "../../src/search/Search.js"

const PROBLEMS = [
  "empty",
  "too_long",
  "empty_label",
  "label_too_long",
  "invalid_character",
  "hyphen_position",
  "bidi_rule",
  "contextual_joiner",
  "idna_mapping",
  "ip_address",
  "single_label",
  "suffix_only"
]

/** Letters a user may type: ASCII in both cases, digits, Latin accents, Greek, Cyrillic, CJK, sharp s. */
const char = fc.constantFrom(
  ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".split(""),
  "ü",
  "Ü",
  "é",
  "ñ",
  "ß",
  "ø",
  "α",
  "Ω",
  "ж",
  "Д",
  "中",
  "文",
  "ー"
)
const label = fc.array(fc.oneof({ weight: 8, arbitrary: char }, { weight: 1, arbitrary: fc.constant("-") }), {
  minLength: 1,
  maxLength: 20
})
  .map((cs) => cs.join(""))
const suffix = fc.constantFrom(
  "com",
  "net",
  "io",
  "co.uk",
  "de",
  "CoM",
  "org.",
  "xn--p1ai",
  "рф",
  "中国",
  "notarealtld"
)
const domainish = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), suffix).map(([labels, s]) =>
  `${labels.join(".")}.${s}`
)

/** The four UTS-46 label separators, with a few letters and spaces around them. */
const FULL_STOPS = [".", "\u3002", "\uFF0E", "\uFF61"]
const dotsAndLetters = fc.string({ unit: fc.constantFrom(...FULL_STOPS, "a", "b", " "), maxLength: 8 })

describe("domain names", () => {
  it("normalisation is idempotent: the A-label parses to itself", () => {
    fc.assert(
      fc.property(domainish, (input) => {
        const first = parseDomainName(input)
        if (Either.isLeft(first)) return
        const again = parseDomainName(first.right.ascii)
        expect(Either.isRight(again)).toBe(true)
        if (Either.isRight(again)) {
          expect(again.right.ascii).toBe(first.right.ascii)
          expect(again.right.unicode).toBe(first.right.unicode)
          expect(again.right.registrable).toBe(first.right.registrable)
        }
      }),
      { numRuns: 2000 }
    )
  })

  it("A-label round trip: the Unicode form parses back to the same A-label", () => {
    fc.assert(
      fc.property(domainish, (input) => {
        const parsed = parseDomainName(input)
        if (Either.isLeft(parsed)) return
        const { ascii } = parsed.right
        expect(ascii).toMatch(/^[a-z0-9.-]+$/)
        expect(ascii).toBe(ascii.toLowerCase())
        const unicode = toUnicode(ascii)
        const back = parseDomainName(unicode)
        expect(Either.isRight(back) && back.right.ascii).toBe(ascii)
      }),
      { numRuns: 2000 }
    )
  })

  it("case, a trailing dot and surrounding spaces do not change the name", () => {
    fc.assert(
      fc.property(domainish, (input) => {
        const base = parseDomainName(input)
        const variants = [input.toUpperCase(), input.endsWith(".") ? input : `${input}.`, `  ${input} `]
        for (const v of variants) {
          const other = parseDomainName(v)
          if (Either.isRight(base)) {
            // Upper-casing may turn ß into SS (a different name); every other variant is the same name.
            if (v === input.toUpperCase() && /ß/.test(input)) continue
            expect(Either.isRight(other) && other.right.ascii).toBe(base.right.ascii)
          }
        }
      }),
      { numRuns: 1000 }
    )
  })

  it("any input is either a name or a typed problem, never an exception", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: "grapheme" }),
          fc.string({ unit: "binary" }),
          dotsAndLetters,
          domainish
        ),
        (input) => {
          const parsed = parseDomainName(input)
          if (Either.isLeft(parsed)) {
            expect(PROBLEMS).toContain(parsed.left.problem)
            expect(parsed.left.message.length).toBeGreaterThan(0)
          } else {
            expect(parsed.right.ascii.length).toBeLessThanOrEqual(253)
            expect(parsed.right.labels.every((l) => l.length >= 1 && l.length <= 63)).toBe(true)
          }
        }
      ),
      { numRuns: 3000 }
    )
  })

  it("the ideographic and full-width full stops separate labels exactly like \".\"", () => {
    fc.assert(
      fc.property(domainish, fc.constantFrom(...FULL_STOPS), (input, dot) => {
        const plain = parseDomainName(input)
        const other = parseDomainName(input.replaceAll(".", dot))
        const outcome = (e: typeof plain) =>
          Either.match(e, { onLeft: (l) => `problem ${l.problem}`, onRight: (n) => n.ascii })
        expect(outcome(other)).toBe(outcome(plain))
      }),
      { numRuns: 1000 }
    )
  })

  it("a letters-digits-hyphens name (the fast path that skips tr46) gets exactly tr46's answer", () => {
    const ldh = fc.array(fc.constantFrom(..."aZ09x-n".split("")), { minLength: 1, maxLength: 8 }).map((cs) =>
      cs.join("")
    )
    const name = fc.tuple(
      fc.array(ldh, { minLength: 1, maxLength: 3 }),
      fc.constantFrom("com", "CO.uk", "xn--p1ai", "io")
    ).map(([ls, s]) => `${ls.join(".")}.${s}`)
    const options = {
      checkHyphens: true,
      checkBidi: true,
      checkJoiners: true,
      useSTD3ASCIIRules: true,
      transitionalProcessing: false
    }
    fc.assert(
      fc.property(
        fc.oneof(
          name,
          fc.constantFrom("xn--bcher-kva.de", "ab--c.com", "-a.com", "a-.com", "XN--P1AI.com", "a.b-.com")
        ),
        (input) => {
          const expected = tr46.toASCII(input, options)
          const parsed = parseDomainName(input)
          if (expected === null) {
            expect(Either.isLeft(parsed)).toBe(true)
            return
          }
          if (Either.isLeft(parsed)) return // rejected for a reason after UTS-46 (e.g. suffix only)
          expect(parsed.right.ascii).toBe(expected)
          expect(parsed.right.unicode).toBe(
            tr46.toUnicode(expected, {
              checkHyphens: false,
              checkBidi: false,
              checkJoiners: false,
              useSTD3ASCIIRules: false
            }).domain
          )
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("known answers", () => {
    const ascii = (s: string) => Either.getOrThrow(parseDomainName(s)).ascii
    expect(ascii("Bücher.DE")).toBe("xn--bcher-kva.de")
    expect(ascii("xn--bcher-kva.de")).toBe("xn--bcher-kva.de")
    expect(ascii("faß.de")).toBe("xn--fa-hia.de")
    expect(ascii("пример.рф")).toBe("xn--e1afmkfd.xn--p1ai")
    for (const dot of FULL_STOPS) {
      expect(ascii(`example${dot}com${dot}`)).toBe("example.com")
      expect(Either.flip(parseDomainName(dot)).pipe(Either.getOrThrow).problem).toBe("empty")
      expect(Either.flip(parseDomainName(`a${dot}${dot}com`)).pipe(Either.getOrThrow).problem).toBe("empty_label")
    }
    const uk = Either.getOrThrow(parseDomainName("www.label.co.uk"))
    expect([uk.suffix, uk.label, uk.registrable, uk.subdomain]).toEqual(["co.uk", "label", "label.co.uk", "www"])
  })
})

describe("the names the code builds", () => {
  const outcome = <A>(e: Either.Either<A, { problem: string; message: string }>) =>
    Either.match(e, { onLeft: (l) => `${l.problem}: ${l.message}`, onRight: (a) => a })

  it("candidate(label, tld) is the name label.tld", () => {
    fc.assert(
      fc.property(label, suffix, (l, t) => {
        const built = Either.map(candidate(l, t), (n) => n.ascii)
        expect(outcome(built)).toBe(outcome(Either.map(parseDomainName(`${l}.${t}`), (n) => n.ascii)))
      }),
      { numRuns: 1000 }
    )
  })

  it("parseTld gives the suffix a name under it has, in A-label form, and is idempotent", () => {
    fc.assert(
      fc.property(label, suffix, (l, t) => {
        const tld = parseTld(t)
        const name = candidate(l, t)
        if (Either.isLeft(tld)) return
        expect(tld.right).toMatch(/^[a-z0-9.-]+$/)
        expect(parseTld(tld.right)).toEqual(Either.right(tld.right))
        // A name under a TLD that is on the list has that TLD as its suffix.
        if (Either.isRight(name) && name.right.knownSuffix) expect(name.right.suffix).toBe(tld.right)
      }),
      { numRuns: 1000 }
    )
  })

  it("parseTld: known answers, and a problem (never an exception) for anything else", () => {
    expect(parseTld("CO.uk")).toEqual(Either.right("co.uk"))
    expect(parseTld("рф")).toEqual(Either.right("xn--p1ai"))
    expect(parseTld("com.")).toEqual(Either.right("com"))
    expect(Either.flip(parseTld("c m")).pipe(Either.getOrThrow).problem).toBe("invalid_character")
    expect(Either.flip(parseTld("-com")).pipe(Either.getOrThrow).problem).toBe("hyphen_position")
    fc.assert(
      fc.property(fc.oneof(fc.string(), dotsAndLetters, suffix), (t) => {
        const tld = parseTld(t)
        if (Either.isLeft(tld)) expect(PROBLEMS).toContain(tld.left.problem)
      }),
      { numRuns: 1000 }
    )
  })

  it("suffixOf is a name's public suffix, and the last label of anything else", () => {
    fc.assert(
      fc.property(fc.oneof(domainish, fc.string(), dotsAndLetters), (input) => {
        const parsed = parseDomainName(input)
        expect(suffixOf(input)).toBe(Either.isRight(parsed) ? parsed.right.suffix : input.split(".").pop())
      }),
      { numRuns: 1000 }
    )
    expect(suffixOf("www.Label.CO.UK")).toBe("co.uk")
    expect(suffixOf("not a name.example")).toBe("example")
  })
})

describe("the names a search checks", () => {
  const alternates = ["com", "net", "org", "io", "co", "ai", "app", "dev", "xyz"]
  it("primary first, no duplicates, alternates only for a plain label.suffix query", () => {
    fc.assert(
      fc.property(domainish, fc.boolean(), (input, withSub) => {
        const q = withSub ? `www.${input}` : input
        const plan = planSearch(q, alternates)
        const parsed = parseDomainName(q)
        expect(Either.isRight(plan)).toBe(Either.isRight(parsed))
        if (Either.isLeft(plan) || Either.isLeft(parsed)) return
        const names = plan.right.names.map((n) => n.registrable)
        expect(names[0]).toBe(parsed.right.registrable)
        expect(new Set(names).size).toBe(names.length)
        if (parsed.right.subdomain !== "") {
          expect(names).toEqual([parsed.right.registrable])
        } else {
          for (const n of plan.right.names.slice(1)) {
            expect(n.label).toBe(parsed.right.label)
            expect(alternates).toContain(n.suffix)
          }
          expect(names.length).toBe(1 + alternates.filter((t) => t !== parsed.right.suffix).length)
        }
      }),
      { numRuns: 1000 }
    )
  })
})
