/**
 * Which IP addresses outbound requests to user-influenced URLs must never reach (Outbound.ts):
 * loopback, private, link-local, CGNAT, multicast, unspecified, reserved, documentation, unique-
 * and site-local, and cloud-metadata addresses, IPv4 and IPv6 (IPv4-mapped, -compatible and NAT64
 * forms included). Pure; property-tested in test/tools/outbound.test.ts.
 */
import * as Net from "node:net"

/** Why an address may not be reached; `undefined` for a public unicast address. */
export type BlockedClass =
  | "unspecified"
  | "loopback"
  | "private"
  | "link_local"
  | "cgnat"
  | "multicast"
  | "reserved"
  | "documentation"
  | "metadata"
  | "unique_local"
  | "site_local"

const v4ToInt = (ip: string): number | undefined => {
  const parts = ip.split(".")
  if (parts.length !== 4) return undefined
  let n = 0
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined
    n = n * 256 + Number(p)
  }
  return n
}

const inV4 = (n: number, base: string, bits: number) => {
  const b = v4ToInt(base)!
  const size = 2 ** (32 - bits)
  return Math.floor(n / size) === Math.floor(b / size)
}

/** Cloud metadata endpoints on otherwise public or special addresses. */
const METADATA_V4 = new Set(["169.254.169.254", "169.254.170.2", "168.63.129.16", "100.100.100.200", "192.0.0.192"])

const classifyV4 = (ip: string): BlockedClass | undefined => {
  const n = v4ToInt(ip)
  if (n === undefined) return "reserved"
  if (METADATA_V4.has(ip)) return "metadata"
  if (inV4(n, "0.0.0.0", 8)) return "unspecified"
  if (inV4(n, "127.0.0.0", 8)) return "loopback"
  if (inV4(n, "10.0.0.0", 8) || inV4(n, "172.16.0.0", 12) || inV4(n, "192.168.0.0", 16)) return "private"
  if (inV4(n, "169.254.0.0", 16)) return "link_local"
  if (inV4(n, "100.64.0.0", 10)) return "cgnat"
  if (inV4(n, "224.0.0.0", 4)) return "multicast"
  if (inV4(n, "192.0.2.0", 24) || inV4(n, "198.51.100.0", 24) || inV4(n, "203.0.113.0", 24)) return "documentation"
  if (inV4(n, "192.0.0.0", 24) || inV4(n, "192.88.99.0", 24) || inV4(n, "198.18.0.0", 15) || inV4(n, "240.0.0.0", 4)) {
    return "reserved"
  }
  return undefined
}

/** Eight 16-bit groups of an IPv6 address (with an embedded dotted IPv4 tail handled). */
const v6Groups = (ip: string): Array<number> | undefined => {
  let s = ip.toLowerCase().replace(/^\[|\]$/g, "")
  const zone = s.indexOf("%")
  if (zone !== -1) s = s.slice(0, zone)
  const tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s)
  if (tail) {
    const n = v4ToInt(tail[1])
    if (n === undefined) return undefined
    s = s.slice(0, -tail[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const halves = s.split("::")
  if (halves.length > 2) return undefined
  const parse = (
    part: string
  ) => (part === "" ? [] : part.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)))
  const head = parse(halves[0])
  const rest = halves.length === 2 ? parse(halves[1]) : []
  const groups = halves.length === 2 ? [...head, ...Array(8 - head.length - rest.length).fill(0), ...rest] : head
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g))) return undefined
  return groups
}

const v4FromGroups = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`

const classifyV6 = (ip: string): BlockedClass | undefined => {
  const g = v6Groups(ip)
  if (!g) return "reserved"
  const zeroUpTo = (k: number) => g.slice(0, k).every((x) => x === 0)
  if (zeroUpTo(8)) return "unspecified"
  if (zeroUpTo(7) && g[7] === 1) return "loopback"
  // IPv4-mapped ::ffff:a.b.c.d and IPv4-compatible ::a.b.c.d: the embedded address decides.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyV4(v4FromGroups(g[6], g[7]))
  if (zeroUpTo(6)) return classifyV4(v4FromGroups(g[6], g[7])) ?? "reserved"
  // NAT64 64:ff9b::/96 embeds an IPv4 address; 64:ff9b:1::/48 is for local use.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return classifyV4(v4FromGroups(g[6], g[7]))
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "private"
  // 6to4 2002:aabb:ccdd::/48 embeds an IPv4 address.
  if (g[0] === 0x2002) return classifyV4(v4FromGroups(g[1], g[2])) ?? undefined
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) return "metadata"
  if ((g[0] & 0xfe00) === 0xfc00) return "unique_local"
  if ((g[0] & 0xffc0) === 0xfe80) return "link_local"
  if ((g[0] & 0xffc0) === 0xfec0) return "site_local"
  if ((g[0] & 0xff00) === 0xff00) return "multicast"
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "documentation"
  if (g[0] === 0x2001 && g[1] === 0) return "reserved" // Teredo
  if (g[0] === 0x2001 && (g[1] & 0xfff0) === 0x0010) return "reserved" // ORCHID
  if (g[0] === 0x2001 && (g[1] & 0xfff0) === 0x0020) return "reserved" // ORCHIDv2
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return "reserved" // discard-only
  return undefined
}

/** Classifies an IP address literal (v4 or v6); `undefined` means public and allowed. */
export const classifyAddress = (ip: string): BlockedClass | undefined => {
  const bare = ip.replace(/^\[|\]$/g, "")
  if (Net.isIPv4(bare)) return classifyV4(bare)
  if (Net.isIPv6(bare) || bare.includes(":")) return classifyV6(bare)
  return "reserved"
}
