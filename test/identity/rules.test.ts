/**
 * Properties of the pure OAuth rules (redirect URIs, scopes, PKCE, resource indicators) and of the
 * Origin check every cookie-authenticated write goes through (SessionAuth, login, logout, the
 * consent form).
 */
import { HttpServerRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import {
  checkRedirectUri,
  checkResource,
  DEFAULT_SCOPES,
  isValidCodeVerifier,
  parseScope,
  resourceCovers,
  s256,
  SUPPORTED_SCOPES,
  verifyS256
} from "../../src/domain/OAuthRules.js"
import { isSameOriginWrite } from "../../src/identity/Session.js"

const UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".split("")
const verifierArb = fc.array(fc.constantFrom(...UNRESERVED), { minLength: 43, maxLength: 128 }).map((cs) => cs.join(""))
const hostArb = fc.domain().filter((d) => d !== "localhost")
const pathArb = fc.array(fc.stringMatching(/^[a-z0-9_-]{1,8}$/), { maxLength: 3 }).map((ps) =>
  ps.map((p) => `/${p}`).join("")
)

describe("redirect URIs", () => {
  it("any https URL without fragment is accepted verbatim", () =>
    fc.assert(
      fc.property(hostArb, pathArb, (host, path) => {
        const uri = `https://${host}${path}?x=1`
        expect(checkRedirectUri(uri)).toEqual(Either.right(uri))
      }),
      { numRuns: 200 }
    ))

  it("http is refused off loopback", () =>
    fc.assert(fc.property(hostArb, pathArb, (host, path) => {
      expect(Either.isLeft(checkRedirectUri(`http://${host}${path}`))).toBe(true)
    })))

  it("http on a loopback address is accepted (native apps, any port)", () =>
    fc.assert(fc.property(
      fc.constantFrom("127.0.0.1", "127.1.2.3", "[::1]", "localhost"),
      fc.option(fc.integer({ min: 1, max: 65535 })),
      pathArb,
      (host, port, path) => {
        const uri = `http://${host}${port === null ? "" : `:${port}`}${path}`
        expect(checkRedirectUri(uri)).toEqual(Either.right(uri))
      }
    )))

  it("a fragment is always refused", () =>
    fc.assert(fc.property(hostArb, fc.string({ minLength: 0, maxLength: 10 }), (host, frag) => {
      expect(Either.isLeft(checkRedirectUri(`https://${host}/cb#${frag}`))).toBe(true)
    })))

  it("refuses relative, credentialed, non-http schemes and non-strings", () => {
    for (
      const bad of [
        "/cb",
        "cb",
        "https://user:pw@app.example/cb",
        "javascript:alert(1)",
        "data:text/html,x",
        "ftp://app.example/cb",
        "",
        42,
        null
      ]
    ) {
      expect(Either.isLeft(checkRedirectUri(bad)), String(bad)).toBe(true)
    }
  })
})

describe("scopes", () => {
  it("absent means the default scope", () => {
    expect(parseScope(undefined)).toEqual(Either.right(DEFAULT_SCOPES))
  })

  it("any set of supported scopes, in any spacing, parses to itself", () =>
    fc.assert(fc.property(fc.subarray([...SUPPORTED_SCOPES]), fc.constantFrom(" ", "  ", "   "), (scopes, sep) => {
      expect(parseScope(` ${scopes.join(sep)} `)).toEqual(Either.right([...scopes].sort()))
    })))

  it("an unknown scope is reported", () =>
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z:_]{1,20}$/).filter((s) => !SUPPORTED_SCOPES.includes(s)), (scope) => {
        expect(parseScope(`pricing:read ${scope}`)).toEqual(Either.left([scope]))
      })
    ))
})

describe("PKCE (S256 only)", () => {
  it("the S256 challenge of a verifier verifies; the verifier itself (plain) does not", () =>
    fc.assert(fc.property(verifierArb, (verifier) => {
      expect(isValidCodeVerifier(verifier)).toBe(true)
      expect(verifyS256(verifier, s256(verifier))).toBe(true)
      expect(verifyS256(verifier, verifier)).toBe(false)
    })))

  it("another verifier does not verify", () =>
    fc.assert(fc.property(verifierArb, verifierArb, (a, b) => {
      fc.pre(a !== b)
      expect(verifyS256(b, s256(a))).toBe(false)
    })))

  it("verifiers outside 43-128 unreserved characters are refused", () => {
    const ok = "a".repeat(43)
    expect(verifyS256("a".repeat(42), s256("a".repeat(42)))).toBe(false)
    expect(verifyS256("a".repeat(129), s256("a".repeat(129)))).toBe(false)
    expect(verifyS256(`${ok.slice(1)}+`, s256(`${ok.slice(1)}+`))).toBe(false)
    expect(verifyS256(ok, s256(ok))).toBe(true)
  })
})

describe("resource indicators", () => {
  const base = "https://market.example"

  it("the base URL and any path below it are resources of this service (canonical, no trailing slash)", () =>
    fc.assert(fc.property(pathArb, (path) => {
      expect(checkResource(base, `${base}${path}`)).toEqual(Either.right(`${base}${path}`))
      expect(checkResource(base, `${base}${path}/`)).toEqual(Either.right(`${base}${path}`))
    })))

  it("other origins, fragments and garbage are refused", () => {
    for (
      const bad of [
        "https://other.example",
        "http://market.example",
        "https://market.example.evil.com/",
        `${base}/#x`,
        "not a url",
        "https://market.examplex/"
      ]
    ) {
      expect(Either.isLeft(checkResource(base, bad)), bad).toBe(true)
    }
  })

  it("a token bound to a resource covers it and what is below it", () =>
    fc.assert(fc.property(pathArb, fc.stringMatching(/^[a-z0-9/_-]{0,12}$/), (path, rest) => {
      const resource = `${base}/mcp${path}`
      expect(resourceCovers(resource, resource)).toBe(true)
      expect(resourceCovers(resource, `${resource}/${rest}`)).toBe(true)
      expect(resourceCovers(resource, `${resource}?q=1`)).toBe(true)
      expect(resourceCovers(null, `${base}/${rest}`)).toBe(true)
    })))

  it("but not a sibling sharing a prefix, nor the rest of the service", () => {
    expect(resourceCovers(`${base}/mcp`, `${base}/mcpx`)).toBe(false)
    expect(resourceCovers(`${base}/mcp`, `${base}/api/market/listings`)).toBe(false)
    expect(resourceCovers(base, `${base}/api/market/listings`)).toBe(true)
  })
})

describe("Origin check of cookie-authenticated writes", () => {
  const base = "https://market.example"
  const req = (method: string, headers: Record<string, string>) =>
    HttpServerRequest.fromWeb(new Request(`http://internal:3000/api/x`, { method, headers }))

  it("safe methods always pass", () => {
    for (const method of ["GET", "HEAD", "OPTIONS"]) {
      expect(isSameOriginWrite(req(method, { origin: "https://evil.example" }), base)).toBe(true)
    }
  })

  it("writes pass from BASE_URL's origin, or from the host the request was sent to", () => {
    expect(isSameOriginWrite(req("POST", { origin: base }), base)).toBe(true)
    expect(isSameOriginWrite(req("DELETE", { origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080" }), base)).toBe(
      true
    )
  })

  it("writes from any other origin are refused", () =>
    fc.assert(fc.property(hostArb, fc.constantFrom("POST", "PUT", "PATCH", "DELETE"), (host, method) => {
      fc.pre(host !== "market.example")
      expect(isSameOriginWrite(req(method, { origin: `https://${host}`, host: "market.example" }), base)).toBe(false)
    })))

  it("opaque or malformed origins are refused; without Origin, Fetch Metadata decides", () => {
    expect(isSameOriginWrite(req("POST", { origin: "null" }), base)).toBe(false)
    expect(isSameOriginWrite(req("POST", { origin: "chrome-extension://abc", host: "abc" }), base)).toBe(false)
    expect(isSameOriginWrite(req("POST", { "sec-fetch-site": "cross-site" }), base)).toBe(false)
    expect(isSameOriginWrite(req("POST", { "sec-fetch-site": "same-site" }), base)).toBe(false)
    expect(isSameOriginWrite(req("POST", { "sec-fetch-site": "same-origin" }), base)).toBe(true)
    expect(isSameOriginWrite(req("POST", {}), base)).toBe(true) // curl, server-side code: not a browser page of another site
  })
})
