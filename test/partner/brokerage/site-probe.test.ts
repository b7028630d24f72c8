/**
 * The live-site check of brokerage eligibility, with an injected resolver and connector (no
 * network): a name resolving to a private, loopback, link-local or metadata address is never
 * contacted; HTTPS is tried before HTTP; real sites, parking/for-sale pages, errors and
 * nothing-at-all are told apart.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { classifyAnswer, probeSite } from "../../../src/partner/brokerage/SiteProbe.js"
import { makeOutbound, OutboundError } from "../../../src/platform/outbound/Outbound.js"
import type {
  ConnectTarget,
  OutboundConnector,
  OutboundResolver
} from "../../../src/platform/outbound/OutboundConnector.js"

const tableResolver = (table: Record<string, Array<string>>): OutboundResolver => (host) =>
  table[host]
    ? Effect.succeed(
      table[host].map((address) => ({ address, family: address.includes(":") ? 6 as const : 4 as const }))
    )
    : Effect.fail(new OutboundError({ reason: "dns_failure", message: `no such host ${host}`, url: host }))

const recording = (
  answer: (t: ConnectTarget) => { status: number; headers?: Record<string, string>; body?: string } | "refuse"
) => {
  const calls: Array<ConnectTarget> = []
  const connector: OutboundConnector = (t) =>
    Effect.suspend(() => {
      calls.push(t)
      const a = answer(t)
      if (a === "refuse") {
        return Effect.fail(
          new OutboundError({ reason: "connection_failed", message: "refused", url: t.url.toString() })
        )
      }
      return Effect.succeed({
        status: a.status,
        headers: a.headers ?? {},
        body: new TextEncoder().encode(a.body ?? ""),
        truncated: false
      })
    })
  return { calls, connector }
}

const HTML = { "content-type": "text/html; charset=utf-8" }
const REAL =
  `<html><head><title>Acme Widgets</title></head><body><h1>Acme Widgets</h1><p>We make the finest widgets since 1962. Shop our catalogue, read the blog, contact sales.</p></body></html>`
const PARKED =
  `<html><head><title>example-parked.com</title></head><body><h1>This domain is for sale!</h1><p>Make an offer today.</p></body></html>`
const t = Duration.seconds(2)

describe("brokerage live-site probe", () => {
  it.effect("never reaches private, loopback, link-local or metadata addresses (connector never called)", () =>
    Effect.gen(function*() {
      const targets = ["10.0.0.8", "127.0.0.1", "169.254.169.254", "192.168.0.10", "::1", "fd00:ec2::254", "100.64.1.1"]
      for (const ip of targets) {
        const { calls, connector } = recording(() => ({ status: 200, headers: HTML, body: REAL }))
        const outbound = makeOutbound({
          allowLoopback: false,
          allowedPorts: [80, 443],
          resolver: tableResolver({ "inside.com": [ip] }),
          connector
        })
        const finding = yield* probeSite(outbound, "inside.com", t)
        expect(finding.classification, ip).toBe("blocked")
        expect(calls, ip).toHaveLength(0)
      }
      // A public name that redirects to the metadata address: the redirect hop is refused too.
      const { calls, connector } = recording((c) =>
        c.url.hostname === "public.com"
          ? { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } }
          : { status: 200, headers: HTML, body: REAL }
      )
      const outbound = makeOutbound({
        allowLoopback: false,
        allowedPorts: [80, 443],
        resolver: tableResolver({ "public.com": ["93.184.216.34"] }),
        connector
      })
      const finding = yield* probeSite(outbound, "public.com", t)
      expect(finding.classification).not.toBe("live")
      expect(calls.every((c) => c.address.address === "93.184.216.34")).toBe(true)
    }))

  it.effect("HTTPS first, then HTTP; classifies live, parking, error and none", () =>
    Effect.gen(function*() {
      const resolver = tableResolver({
        "live.com": ["93.184.216.34"],
        "parked.com": ["93.184.216.35"],
        "broken.com": ["93.184.216.36"],
        "plain.com": ["93.184.216.37"]
      })
      const { calls, connector } = recording((c) => {
        switch (c.url.hostname) {
          case "live.com":
            return { status: 200, headers: HTML, body: REAL }
          case "parked.com":
            return { status: 200, headers: HTML, body: PARKED }
          case "broken.com":
            return { status: 503, headers: HTML, body: "down" }
          default:
            return c.url.protocol === "https:" ? "refuse" : { status: 200, headers: HTML, body: REAL }
        }
      })
      const outbound = makeOutbound({ allowLoopback: false, allowedPorts: [80, 443], resolver, connector })
      expect((yield* probeSite(outbound, "live.com", t)).classification).toBe("live")
      expect(calls[0]!.url.protocol).toBe("https:")
      expect((yield* probeSite(outbound, "parked.com", t)).classification).toBe("parking")
      expect((yield* probeSite(outbound, "broken.com", t)).classification).toBe("error")
      expect((yield* probeSite(outbound, "nowhere.com", t)).classification).toBe("none")
      const plain = yield* probeSite(outbound, "plain.com", t)
      expect(plain).toMatchObject({ classification: "live", url: "http://plain.com/" })
      expect(calls.filter((c) => c.url.hostname === "plain.com").map((c) => c.url.protocol)).toEqual([
        "https:",
        "http:"
      ])
    }))

  it("classifies parking services, placeholders and empty pages as not live", () => {
    const answer = (body: string, finalUrl = "https://x.com/") =>
      classifyAnswer({ status: 200, contentType: "text/html", body, finalUrl }).classification
    expect(answer(REAL)).toBe("live")
    expect(answer(PARKED)).toBe("parking")
    expect(answer(REAL, "https://www.hugedomains.com/domain_profile.cfm?d=x")).toBe("parking")
    expect(
      answer(
        "<title>Welcome to nginx!</title><h1>Welcome to nginx!</h1><p>If you see this page, the nginx web server is installed.</p>"
      )
    ).toBe("parking")
    expect(answer("<html><body></body></html>")).toBe("parking")
    expect(answer("<title>x</title><p>Buy this domain. Related searches: loans, insurance, hosting</p>")).toBe(
      "parking"
    )
    expect(
      classifyAnswer({ status: 404, contentType: "text/html", body: REAL, finalUrl: "https://x.com/" }).classification
    ).toBe("error")
  })
})
