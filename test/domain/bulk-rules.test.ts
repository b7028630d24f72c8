/** Pure rules of bulk operations: the domain list, host names, folder names, contact handles. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { getPublicSuffix } from "tldts"
import {
  addYears,
  CART_REFUSALS,
  cartItemRefusal,
  expiryPhase,
  folderNameProblem,
  isContactHandle,
  MAX_REGISTRATION_YEARS,
  normalizeDomainList,
  parseHostName,
  RENEW_GRACE_DAYS,
  RESTORE_WINDOW_DAYS
} from "../../src/domain/BulkRules.js"

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/).filter((l) => !/^..--/.test(l))
const tld = fc.constantFrom("com", "net", "org", "io", "co.uk", "de")
// A label can itself make a longer public suffix with the TLD ("co.io"), which is no registrable
// name: the Public Suffix List, read directly, keeps those out.
const domain = fc.tuple(label, tld).map(([l, t]) => `${l}.${t}`).filter((d) => d.endsWith(`.${getPublicSuffix(d)}`))
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

describe("cartItemRefusal (renew/restore items, refused before any cart)", () => {
  const DAY = 86_400_000
  const now = fc.date({
    min: new Date("2000-01-01T00:00:00Z"),
    max: new Date("2090-01-01T00:00:00Z"),
    noInvalidDate: true
  })
  /** An expiry from 200 days before `now` to 11 years after it. */
  const case_ = fc.tuple(now, fc.integer({ min: -200 * DAY, max: 11 * 366 * DAY }), fc.integer({ min: 1, max: 10 }))
    .map(([n, offset, years]) => ({ now: n, expiresAt: new Date(n.getTime() + offset), years }))

  it("a restore runs exactly in the redemption period; before it is not needed, after it is too late", () =>
    fc.assert(fc.property(case_, ({ expiresAt, now: n }) => {
      const refusal = cartItemRefusal({ op: "restore", years: 1, expiresAt }, n)
      const phase = expiryPhase(expiresAt, n)
      expect(refusal).toBe(
        phase === "redemption" ? undefined : phase === "gone" ? "past_restore_window" : "not_needed"
      )
    })))

  it("a renew runs before the redemption period, when the new expiry stays within ten years", () =>
    fc.assert(fc.property(case_, ({ expiresAt, now: n, years }) => {
      const refusal = cartItemRefusal({ op: "renew", years, expiresAt }, n)
      const since = n.getTime() - expiresAt.getTime()
      if (since > RESTORE_WINDOW_DAYS * DAY) expect(refusal).toBe("past_restore_window")
      else if (since > RENEW_GRACE_DAYS * DAY) expect(refusal).toBe("restore_required")
      else if (addYears(expiresAt, years) > addYears(n, MAX_REGISTRATION_YEARS)) expect(refusal).toBe("renewal_limit")
      else expect(refusal).toBeUndefined()
    })))

  it("never both: at most one of renew and restore runs for a name; before the window closes one of them does", () =>
    fc.assert(fc.property(case_, ({ expiresAt, now: n }) => {
      const renew = cartItemRefusal({ op: "renew", years: 1, expiresAt }, n)
      const restore = cartItemRefusal({ op: "restore", years: 1, expiresAt }, n)
      expect(renew === undefined && restore === undefined).toBe(false)
      const gone = expiryPhase(expiresAt, n) === "gone"
      const farAhead = addYears(expiresAt, 1) > addYears(n, MAX_REGISTRATION_YEARS)
      if (!gone && !farAhead) expect(renew === undefined || restore === undefined).toBe(true)
      for (const r of [renew, restore]) if (r !== undefined) expect(CART_REFUSALS).toContain(r)
    })))

  it("phases only move forward in time: active → grace → redemption → gone", () =>
    fc.assert(fc.property(case_, fc.integer({ min: 0, max: 400 * DAY }), ({ expiresAt, now: n }, later) => {
      const order = ["active", "grace", "redemption", "gone"]
      const before = order.indexOf(expiryPhase(expiresAt, n))
      const after = order.indexOf(expiryPhase(expiresAt, new Date(n.getTime() + later)))
      expect(after).toBeGreaterThanOrEqual(before)
    })))

  it("an unknown expiry is refused, whatever the op", () =>
    fc.assert(fc.property(now, fc.constantFrom("renew" as const, "restore" as const), (n, op) => {
      expect(cartItemRefusal({ op, years: 1, expiresAt: null }, n)).toBe("expiry_unknown")
    })))
})
