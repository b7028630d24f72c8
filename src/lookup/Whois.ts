/**
 * WHOIS port-43 client (RFC 3912), the fallback when RDAP has no answer.
 *
 *   WhoisClient.lookupDomain(asciiDomain): Effect<WhoisFound | WhoisNotFound, WhoisError>
 *
 * - The registry's server comes from the bundled per-TLD table (`data/whois-servers.json`, from
 *   the `whois` npm package), with its query format (`DOMAIN $addr` for Verisign, `-T dn` for
 *   DENIC…). A TLD missing from the table is asked of `WHOIS_REFERRAL_SERVER` (IANA), whose
 *   `refer:` line names the registry. When `WHOIS_REFERRAL_SERVER` is set to anything but
 *   whois.iana.org, every lookup starts there (so operators and tests can redirect the chain).
 * - Referrals are followed: IANA `refer:` → registry; a thin registry answer (no registrant)
 *   with `Registrar WHOIS Server:` → registrar, whose data fills the gaps. At most
 *   `WHOIS_MAX_REFERRALS` hops; a failing registrar hop keeps the registry's answer.
 * - Every connection uses `WHOIS_PORT` and is bounded by `WHOIS_TIMEOUT`; at most
 *   `WHOIS_MAX_BYTES` of an answer are read.
 * - Per-registry "no such domain" patterns (plus common generic ones) → `NotFound`.
 */
import { Context, Data, Duration, Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Net from "node:net"
import { toUnicode } from "../domain/DomainName.js"
import { isThin, type LookupRecord, mergeRecords } from "./Record.js"
import { LookupConfig, type LookupSettings } from "./Settings.js"
import {
  isNotFound,
  isRateLimited,
  parseRecord,
  parseServerTable,
  queryLine,
  referral,
  registrarServer,
  serverFor,
  type WhoisServer
} from "./WhoisParse.js"

export class WhoisError extends Data.TaggedError("WhoisError")<{
  readonly reason: "no_server" | "timeout" | "unreachable" | "rate_limited" | "too_many_referrals" | "empty"
  readonly message: string
  readonly server?: string
}> {}

export interface WhoisFound {
  readonly _tag: "Found"
  readonly domain: string
  readonly record: LookupRecord
  readonly statuses: ReadonlyArray<string>
  /** The registry's server that answered. */
  readonly server: string
  readonly registrarServer: string | undefined
}

export interface WhoisNotFound {
  readonly _tag: "NotFound"
  readonly domain: string
  readonly server: string
}

export interface WhoisClientShape {
  readonly lookupDomain: (asciiDomain: string) => Effect.Effect<WhoisFound | WhoisNotFound, WhoisError>
}

export class WhoisClient extends Context.Tag("app/WhoisClient")<WhoisClient, WhoisClientShape>() {}

export const bundledServers = parseServerTable(
  JSON.parse(Fs.readFileSync(new URL("./data/whois-servers.json", import.meta.url), "utf8"))
)

const DEFAULT_REFERRAL = "whois.iana.org"

/** One RFC 3912 exchange: connect, send the query line, read until close (or the cap). */
export const query = (host: string, port: number, line: string, timeoutMs: number, maxBytes: number) =>
  Effect.async<string, WhoisError>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let done = false
    const socket = Net.createConnection({ host, port })
    const finish = (result: Effect.Effect<string, WhoisError>) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resume(result)
    }
    const timer = setTimeout(
      () =>
        finish(
          Effect.fail(
            new WhoisError({
              reason: "timeout",
              message: `${host} did not answer within ${timeoutMs} ms`,
              server: host
            })
          )
        ),
      timeoutMs
    )
    socket.setNoDelay(true)
    socket.on("connect", () => socket.write(line.endsWith("\r\n") ? line : `${line}\r\n`))
    socket.on("data", (chunk: Buffer) => {
      const room = maxBytes - size
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk)
      size += Math.min(chunk.length, room)
      if (size >= maxBytes) finish(Effect.succeed(Buffer.concat(chunks).toString("utf8")))
    })
    socket.on("end", () => finish(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
    socket.on("close", () => finish(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
    socket.on(
      "error",
      (e: any) =>
        finish(
          Effect.fail(
            new WhoisError({ reason: "unreachable", message: `${host}: ${e?.code ?? e?.message ?? e}`, server: host })
          )
        )
    )
    return Effect.sync(() => {
      done = true
      clearTimeout(timer)
      socket.destroy()
    })
  })

export const makeWhoisClient = (settings: LookupSettings, table = bundledServers): WhoisClientShape => {
  const timeoutMs = Duration.toMillis(settings.whoisTimeout)
  const ask = (host: string, line: string) => query(host, settings.whoisPort, line, timeoutMs, settings.whoisMaxBytes)
  const useTable = settings.whoisReferralServer.toLowerCase() === DEFAULT_REFERRAL
  /** TLD → registry server learned from the referral server (per process). */
  const learned = new Map<string, WhoisServer>()

  const lookupDomain = (asciiDomain: string): Effect.Effect<WhoisFound | WhoisNotFound, WhoisError> =>
    Effect.gen(function*() {
      const domain = asciiDomain.toLowerCase().replace(/\.$/, "")
      const unicode = toUnicode(domain)
      const tld = domain.slice(domain.lastIndexOf(".") + 1)
      let hops = 0

      // 1. The registry's server: table, learned referral, or ask the referral server.
      let registry: WhoisServer | null | undefined = useTable ? serverFor(table, domain) : learned.get(tld)
      if (registry === null) {
        return yield* new WhoisError({ reason: "no_server", message: `.${tld} has no WHOIS service` })
      }
      let registryText: string | undefined
      if (registry === undefined) {
        const referralServer = settings.whoisReferralServer
        let host = referralServer
        let text = yield* ask(host, `${domain}\r\n`)
        // Follow pure referrals (IANA `refer:`) until a server answers with data.
        for (let next = referral(text); next !== undefined && next !== host; next = referral(text)) {
          if (++hops > settings.whoisMaxReferrals) {
            return yield* new WhoisError({
              reason: "too_many_referrals",
              message: `more than ${settings.whoisMaxReferrals} WHOIS referrals`,
              server: next
            })
          }
          host = next
          text = yield* ask(host, `${domain}\r\n`)
        }
        if (hops === 0 && !isNotFound(host, text) && parseRecord(domain, text).record.domain !== domain) {
          // The referral server answered about something else (IANA's page for the TLD itself).
          return yield* new WhoisError({
            reason: "no_server",
            message: `${referralServer} names no WHOIS server for .${tld}`,
            server: host
          })
        }
        registry = { host, query: "$addr\r\n", punycode: true }
        if (hops > 0) learned.set(tld, registry)
        registryText = text
      } else {
        registryText = yield* ask(registry.host, queryLine(registry, domain, unicode))
      }

      // 2. The registry's answer.
      if (registryText.trim() === "") {
        return yield* new WhoisError({
          reason: "empty",
          message: `${registry.host} sent an empty answer`,
          server: registry.host
        })
      }
      if (isNotFound(registry.host, registryText)) {
        return { _tag: "NotFound", domain, server: registry.host } satisfies WhoisNotFound
      }
      if (isRateLimited(registryText)) {
        return yield* new WhoisError({
          reason: "rate_limited",
          message: `${registry.host} refused: query limit exceeded`,
          server: registry.host
        })
      }
      const parsed = parseRecord(domain, registryText)
      let record = parsed.record
      let registrarHost: string | undefined

      // 3. The registrar, when the registry's answer is thin.
      const pointer = registrarServer(registryText)
      if (pointer && pointer !== registry.host && isThin(record) && hops < settings.whoisMaxReferrals) {
        const text = yield* ask(pointer, `${domain}\r\n`).pipe(Effect.option)
        if (
          text._tag === "Some" && text.value.trim() !== "" && !isNotFound(pointer, text.value) &&
          !isRateLimited(text.value)
        ) {
          record = mergeRecords(record, parseRecord(domain, text.value).record)
          registrarHost = pointer
        }
      }
      if (
        record.registrar === "" && record.creation_date === "" && record.expiration_date === "" &&
        record.status === "" && record.nameservers.length === 0
      ) {
        return yield* new WhoisError({
          reason: "empty",
          message: `${registry.host} answered without registration data`,
          server: registry.host
        })
      }
      return {
        _tag: "Found",
        domain: record.domain,
        record: { ...record, domain },
        statuses: parsed.statuses,
        server: registry.host,
        registrarServer: registrarHost
      } satisfies WhoisFound
    }).pipe(Effect.withSpan("whois.lookupDomain", { attributes: { domain: asciiDomain } }))

  return { lookupDomain }
}

export const WhoisClientLive = Layer.effect(
  WhoisClient,
  Effect.map(LookupConfig, (settings) => makeWhoisClient(settings))
)
