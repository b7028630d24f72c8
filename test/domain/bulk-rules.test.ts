/** Pure rules of bulk operations: the domain list, host names, folder names, contact handles. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { folderNameProblem, isContactHandle, normalizeDomainList, parseHostName } from "../../src/domain/BulkRules.js"

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/).filter((l) => !/^..--/.test(l))
const tld = fc.constantFrom("com", "net", "org", "io", "co.uk", "de")
const domain = fc.tuple(label, tld).map(([l, t]) => `${l}.${t}`)
const casing = (s: string) =>
  fc.array(fc.boolean(), { minLength: s.length, maxLength: s.length }).map((flags) =>
    [...s].map((c, i) => (flags[i] ? c.toUpperCase() : c)).join("")
  )

describe("normalizeDomainList", () => {
  it("keeps each A-label once, in first-seen order, whatever the casing or trailing dot", () =>
    fc.assert(
      fc.property(
        fc.array(domain, { minLength: 1, maxLength: 50 }).chain((ds) =>
          fc.tuple(fc.constant(ds), fc.array(fc.constantFrom(...ds).chain(casing), { maxLength: 50 }))
        ),
        ([ds, variants]) => {
          const { domains, invalid } = normalizeDomainList([
            ...ds,
            ...variants,
            ...ds.map((d) => `${d}.`)
          ])
          expect(invalid).toEqual([])
          expect(domains).toEqual([...new Set(ds)])
        }
      )
    ))

  it("reports every invalid entry with its index; subdomains are not registered names", () => {
    const { domains, invalid } = normalizeDomainList(["ok.com", "bad name", "www.ok.com", "bücher.de"])
    expect(domains).toEqual(["ok.com", "xn--bcher-kva.de"])
    expect(invalid.map((i) => i.index)).toEqual([1, 2])
  })
})

describe("host names, folders, handles", () => {
  it("any generated host name parses to its lowercase A-label", () =>
    fc.assert(fc.property(fc.tuple(label, domain).map(([l, d]) => `${l}.${d}`).chain(casing), (h) => {
      expect(Either.getOrThrow(parseHostName(h))).toBe(h.toLowerCase())
    })))

  it("rejects what is not a host name", () => {
    for (const h of ["", "bad host", "1.2.3.4", "-x.com", "a..b"]) expect(Either.isLeft(parseHostName(h))).toBe(true)
  })

  it("folder names: 1–64 letters, digits, space _ - . starting with a letter or digit", () => {
    for (const ok of ["Clients", "2024 renewals", "Ünïcode-ok_1.x"]) expect(folderNameProblem(ok)).toBeUndefined()
    for (const bad of ["", " lead", "trail ", "a/b", "x".repeat(65), "-dash"]) {
      expect(folderNameProblem(bad)).toBeDefined()
    }
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (s) => {
      const problem = folderNameProblem(s)
      if (problem === undefined) expect([...s].length).toBeLessThanOrEqual(64)
    }))
  })

  it("contact handles: 3–40 of letters, digits, _ - .", () => {
    expect(isContactHandle("acme-owner")).toBe(true)
    expect(isContactHandle("ab")).toBe(false)
    expect(isContactHandle("has space")).toBe(false)
  })
})
