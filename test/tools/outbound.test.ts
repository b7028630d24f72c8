import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { classifyAddress } from "../../src/platform/outbound/AddressClass.js"
import { makeOutbound, OutboundError } from "../../src/platform/outbound/Outbound.js"
import type {
  ConnectTarget,
  OutboundConnector,
  OutboundResolver
} from "../../src/platform/outbound/OutboundConnector.js"

/** A resolver that answers from a table, never from the network. */
const tableResolver = (table: Record<string, Array<string>>): OutboundResolver => (host) =>
  table[host]
    ? Effect.succeed(
      table[host].map((address) => ({ address, family: address.includes(":") ? 6 as const : 4 as const }))
    )
    : Effect.fail(new OutboundError({ reason: "dns_failure", message: `no such host ${host}`, url: host }))

/** A connector that records what it was asked and never touches the network. */
const recordingConnector = (
  answer: (t: ConnectTarget, n: number) => { status: number; headers?: Record<string, string>; body?: string }
) => {
  const calls: Array<ConnectTarget> = []
  const connector: OutboundConnector = (t) =>
    Effect.sync(() => {
      calls.push(t)
      const a = answer(t, calls.length)
      return {
        status: a.status,
        headers: a.headers ?? {},
        body: new TextEncoder().encode(a.body ?? ""),
        truncated: false
      }
    })
  return { calls, connector }
}

const reasonOf = <A>(effect: Effect.Effect<A, OutboundError>) => Effect.map(Effect.flip(effect), (e) => e.reason)

describe("SSRF guard: address classes", () => {
  const blocked: Array<[string, string]> = [
    ["http://127.0.0.1/", "loopback"],
    ["http://127.8.9.10/", "loopback"],
    ["http://2130706433/", "loopback"], // decimal form of 127.0.0.1
    ["http://0x7f.1/", "loopback"], // hex/short form
    ["http://[::1]/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "loopback"], // IPv4-mapped
    ["http://[::ffff:7f00:1]/", "loopback"], // IPv4-mapped, hex
    ["http://[::127.0.0.1]/", "loopback"], // IPv4-compatible
    ["http://10.1.2.3/", "private"],
    ["http://172.16.0.1/", "private"],
    ["http://172.31.255.255/", "private"],
    ["http://192.168.1.1/", "private"],
    ["http://[::ffff:192.168.1.1]/", "private"],
    ["http://[64:ff9b::a00:1]/", "private"], // NAT64 of 10.0.0.1
    ["http://[2002:c0a8:101::1]/", "private"], // 6to4 of 192.168.1.1
    ["http://169.254.1.1/", "link-local"],
    ["http://[fe80::1]/", "link-local"],
    ["http://169.254.169.254/latest/meta-data/", "metadata"],
    ["http://[fd00:ec2::254]/", "metadata"],
    ["http://100.64.0.1/", "cgnat"],
    ["http://100.127.255.254/", "cgnat"],
    ["http://224.0.0.1/", "multicast"],
    ["http://[ff02::1]/", "multicast"],
    ["http://0.0.0.0/", "unspecified"],
    ["http://[::]/", "unspecified"],
    ["http://240.0.0.1/", "reserved"],
    ["http://255.255.255.255/", "reserved"],
    ["http://198.18.0.1/", "reserved"],
    ["http://192.0.2.10/", "documentation"],
    ["http://[2001:db8::1]/", "documentation"],
    ["http://[fc00::1]/", "unique-local"],
    ["http://[fd12:3456::1]/", "unique-local"]
  ]
  for (const [url, cls] of blocked) {
    it.effect(`refuses ${url} (${cls}) without connecting`, () =>
      Effect.gen(function*() {
        const { calls, connector } = recordingConnector(() => ({ status: 200 }))
        const outbound = makeOutbound({
          allowLoopback: false,
          allowedPorts: [80, 443],
          resolver: tableResolver({}),
          connector
        })
        const e = yield* Effect.flip(outbound.fetch(url))
        expect(e.reason).toBe("address_not_allowed")
        expect(e.message).toContain(cls)
        expect(calls).toHaveLength(0)
        expect(yield* reasonOf(outbound.check(url))).toBe("address_not_allowed")
      }))
  }

  it("public addresses pass", () => {
    for (
      const ip of ["93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2002:808:808::1"]
    ) {
      expect(classifyAddress(ip), ip).toBeUndefined()
    }
  })

  it("an IPv4-mapped IPv6 address is classified like its IPv4 address (property)", () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(classifyAddress(`::ffff:${ip}`)).toBe(classifyAddress(ip))
      })
    )
  })

  it("every address of 10/8, 172.16/12 and 192.168/16 is private (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 24 - 1 }), (n) => {
        expect(classifyAddress(`10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`)).toBe("private")
        expect(classifyAddress(`172.${16 + ((n >> 16) & 15)}.${(n >> 8) & 255}.${n & 255}`)).toBe("private")
        expect(classifyAddress(`192.168.${(n >> 8) & 255}.${n & 255}`)).toBe("private")
      })
    )
  })
})

describe("SSRF guard: schemes, ports, DNS and redirects", () => {
  it.effect("only http and https, only allowed ports", () =>
    Effect.gen(function*() {
      const { calls, connector } = recordingConnector(() => ({ status: 200 }))
      const outbound = makeOutbound({
        allowLoopback: false,
        allowedPorts: [80, 443],
        resolver: tableResolver({ "public.test": ["93.184.216.34"] }),
        connector
      })
      expect(yield* reasonOf(outbound.fetch("ftp://public.test/file"))).toBe("scheme_not_allowed")
      expect(yield* reasonOf(outbound.fetch("file:///etc/passwd"))).toBe("scheme_not_allowed")
      expect(yield* reasonOf(outbound.fetch("gopher://public.test:70/"))).toBe("scheme_not_allowed")
      expect(yield* reasonOf(outbound.fetch("http://public.test:8080/"))).toBe("port_not_allowed")
      expect(yield* reasonOf(outbound.fetch("http://public.test:22/"))).toBe("port_not_allowed")
      expect(yield* reasonOf(outbound.fetch("not a url"))).toBe("invalid_url")
      expect(yield* reasonOf(outbound.fetch("http://user:pw@public.test/"))).toBe("invalid_url")
      expect(yield* reasonOf(outbound.fetch("http://nowhere.test/"))).toBe("dns_failure")
      expect(calls).toHaveLength(0)
      const ok = yield* outbound.fetch("https://public.test/")
      expect(ok.status).toBe(200)
      expect(calls).toHaveLength(1)
    }))

  it.effect("DNS answering a private address is refused, and the connection is pinned to the checked address", () =>
    Effect.gen(function*() {
      const { calls, connector } = recordingConnector(() => ({ status: 204 }))
      const outbound = makeOutbound({
        allowLoopback: false,
        allowedPorts: [80, 443],
        resolver: tableResolver({
          "internal.test": ["10.0.0.5"],
          "mixed.test": ["93.184.216.34", "192.168.0.10"],
          "v6private.test": ["fd00::5"],
          "public.test": ["93.184.216.34"]
        }),
        connector
      })
      expect(yield* reasonOf(outbound.fetch("http://internal.test/"))).toBe("address_not_allowed")
      expect(yield* reasonOf(outbound.fetch("http://mixed.test/"))).toBe("address_not_allowed")
      expect(yield* reasonOf(outbound.fetch("http://v6private.test/"))).toBe("address_not_allowed")
      expect(calls).toHaveLength(0)
      yield* outbound.fetch("http://public.test/path?q=1")
      expect(calls[0].address).toEqual({ address: "93.184.216.34", family: 4 })
      expect(calls[0].url.toString()).toBe("http://public.test/path?q=1")
    }))

  it.effect("a redirect to a blocked address is refused before connecting to it", () =>
    Effect.gen(function*() {
      const { calls, connector } = recordingConnector((_t, n) =>
        n === 1 ? { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } } : { status: 200 }
      )
      const outbound = makeOutbound({
        allowLoopback: false,
        allowedPorts: [80, 443],
        resolver: tableResolver({ "public.test": ["93.184.216.34"] }),
        connector
      })
      const e = yield* Effect.flip(outbound.fetch("http://public.test/"))
      expect(e.reason).toBe("address_not_allowed")
      expect(calls).toHaveLength(1)

      const viaName = recordingConnector((
        _t,
        n
      ) => (n === 1 ? { status: 301, headers: { location: "https://internal.test/" } } : { status: 200 }))
      const outbound2 = makeOutbound({
        allowLoopback: false,
        allowedPorts: [80, 443],
        resolver: tableResolver({ "public.test": ["93.184.216.34"], "internal.test": ["172.20.0.1"] }),
        connector: viaName.connector
      })
      expect(yield* reasonOf(outbound2.fetch("http://public.test/"))).toBe("address_not_allowed")
      expect(viaName.calls).toHaveLength(1)
    }))

  it.effect("redirect chains are bounded and credentials are not carried to another origin", () =>
    Effect.gen(function*() {
      const { calls, connector } = recordingConnector((t) =>
        t.url.hostname === "a.test"
          ? { status: 302, headers: { location: "http://b.test/next" } }
          : { status: 302, headers: { location: "/again" } }
      )
      const outbound = makeOutbound({
        allowLoopback: false,
        allowedPorts: [80, 443],
        resolver: tableResolver({ "a.test": ["93.184.216.34"], "b.test": ["93.184.216.35"] }),
        connector
      })
      const e = yield* Effect.flip(
        outbound.fetch("http://a.test/", { maxRedirects: 3, headers: { Authorization: "secret" } })
      )
      expect(e.reason).toBe("too_many_redirects")
      expect(calls).toHaveLength(4)
      expect(calls[0].headers["authorization"]).toBe("secret")
      expect(calls[1].headers["authorization"]).toBeUndefined()
      const first = yield* outbound.fetch("http://a.test/", { maxRedirects: 0 })
      expect(first.status).toBe(302)
    }))
})

describe("Outbound over real loopback connections (test switch on)", () => {
  const startServer = Effect.acquireRelease(
    Effect.async<Http.Server>((resume) => {
      const server = Http.createServer((req, res) => {
        if (req.url === "/start") {
          res.writeHead(301, { location: "/middle" })
          return res.end()
        }
        if (req.url === "/middle") {
          res.writeHead(302, { location: "/final" })
          return res.end()
        }
        if (req.url === "/final") {
          res.writeHead(200, { "content-type": "text/html" })
          return res.end("<html><title>Final</title></html>")
        }
        if (req.url === "/big") {
          res.writeHead(200)
          return res.end("x".repeat(10_000))
        }
        if (req.url === "/to-private") {
          res.writeHead(302, { location: "http://10.0.0.1/" })
          return res.end()
        }
        if (req.url === "/hang") return
        res.writeHead(404)
        res.end()
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

  it.scopedLive("follows the status chain to the final URL, caps the body, times out a hang", () =>
    Effect.gen(function*() {
      const server = yield* startServer
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const outbound = makeOutbound({ allowLoopback: true, allowedPorts: [80, 443] })
      const res = yield* outbound.fetch(`${base}/start`)
      expect(res.status).toBe(200)
      expect(res.finalUrl).toBe(`${base}/final`)
      expect(res.hops.map((h) => [h.status, h.address])).toEqual([[301, "127.0.0.1"], [302, "127.0.0.1"], [
        200,
        "127.0.0.1"
      ]])
      expect(new TextDecoder().decode(res.body)).toContain("<title>Final</title>")

      const big = yield* outbound.fetch(`${base}/big`, { maxBodyBytes: 100 })
      expect([big.body.length, big.truncated]).toEqual([100, true])

      expect(yield* reasonOf(outbound.fetch(`${base}/to-private`))).toBe("address_not_allowed")
      expect(yield* reasonOf(outbound.fetch(`${base}/hang`, { timeoutMs: 300 }))).toBe("timeout")

      const strict = makeOutbound({ allowLoopback: false, allowedPorts: [80, 443] })
      expect(yield* reasonOf(strict.fetch(`${base}/final`))).toBe("address_not_allowed")
    }))
})
