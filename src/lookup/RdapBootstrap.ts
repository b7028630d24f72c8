/**
 * The IANA RDAP bootstrap table (RFC 9224) the client maps names to servers with: the bundled
 * snapshot (`data/rdap-dns.json`) until `RDAP_BOOTSTRAP_URL` has been fetched.
 *
 * The contract: the first lookup of a process waits (bounded) for that fetch, later refreshes run
 * in the background once the table is older than `RDAP_BOOTSTRAP_REFRESH`; a failed fetch keeps
 * the current table and is retried after at most 5 minutes. An empty URL means the snapshot only.
 */
import type { HttpClientError } from "@effect/platform"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect } from "effect"
import * as Fs from "node:fs"
import { describeHttpFailure } from "../platform/outbound/UpstreamFault.js"
import { RdapError } from "./RdapError.js"
import { type Bootstrap, parseBootstrap } from "./RdapMapping.js"
import type { LookupSettings } from "./Settings.js"

const BOOTSTRAP_RETRY_MS = 5 * 60_000

/** The bundled IANA snapshot. */
export const bundledBootstrap: Bootstrap = parseBootstrap(
  JSON.parse(Fs.readFileSync(new URL("./data/rdap-dns.json", import.meta.url), "utf8"))
)

export interface BootstrapInfo {
  readonly source: "bundled" | "remote"
  readonly publication: string
  readonly entries: number
}

/** The table of a process, and when it was fetched or may be tried again. */
interface BootstrapState {
  table: Bootstrap
  source: "bundled" | "remote"
  fetchedAt: number
  attempted: boolean
  nextAttemptAt: number
  refreshing: boolean
}

const infoOf = (state: BootstrapState): BootstrapInfo => ({
  source: state.source,
  publication: state.table.publication,
  entries: state.table.servers.size
})

/** Fetches RDAP_BOOTSTRAP_URL into `state`; a failure keeps the table and sets the next attempt. */
const fetchInto = (
  client: HttpClient.HttpClient,
  settings: LookupSettings,
  state: BootstrapState
): Effect.Effect<BootstrapInfo, RdapError> =>
  Effect.gen(function*() {
    const url = settings.rdapBootstrapUrl
    if (url === "") return infoOf(state)
    const fail = (message: string) => new RdapError({ reason: "upstream", message, url })
    const response = yield* client.execute(HttpClientRequest.get(url).pipe(HttpClientRequest.acceptJson)).pipe(
      Effect.flatMap((r): Effect.Effect<unknown, RdapError | HttpClientError.ResponseError> =>
        r.status === 200 ? r.json : Effect.fail(fail(`bootstrap answered HTTP ${r.status}`))
      ),
      Effect.scoped,
      Effect.timeoutFail({
        duration: Duration.millis(Math.min(Duration.toMillis(settings.rdapTimeout), 5_000)),
        onTimeout: () => new RdapError({ reason: "timeout", message: "bootstrap fetch timed out", url })
      }),
      Effect.catchTags({
        RequestError: (e) =>
          Effect.fail(
            new RdapError({ reason: "unreachable", message: `bootstrap unreachable: ${describeHttpFailure(e)}`, url })
          ),
        ResponseError: (e) => Effect.fail(fail(`bootstrap: ${describeHttpFailure(e)}`))
      })
    )
    const parsed = yield* Effect.try({
      try: () => parseBootstrap(response),
      catch: (e) => new RdapError({ reason: "decode", message: `bootstrap: ${(e as Error).message}`, url })
    })
    state.table = parsed
    state.source = "remote"
    state.fetchedAt = Date.now()
    return infoOf(state)
  }).pipe(
    Effect.tapError((e) =>
      Effect.sync(() => {
        const refreshMs = Duration.toMillis(settings.rdapBootstrapRefresh)
        state.nextAttemptAt = Date.now() + Math.min(refreshMs || BOOTSTRAP_RETRY_MS, BOOTSTRAP_RETRY_MS)
      }).pipe(Effect.zipRight(
        Effect.logWarning("RDAP bootstrap refresh failed; keeping the current table").pipe(
          Effect.annotateLogs({ reason: e.reason, error: e.message })
        )
      ))
    )
  )

/** The process's bootstrap table: `current()`, `ensure` before a lookup, `refresh` on demand. */
export const makeBootstrap = (settings: LookupSettings) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const refreshMs = Duration.toMillis(settings.rdapBootstrapRefresh)
    const state: BootstrapState = {
      table: bundledBootstrap,
      source: "bundled",
      fetchedAt: 0,
      attempted: settings.rdapBootstrapUrl === "",
      nextAttemptAt: 0,
      refreshing: false
    }
    const firstFetch = yield* Effect.makeSemaphore(1)
    const refresh = fetchInto(client, settings, state)
    const ensure = Effect.suspend(() => {
      if (!state.attempted) {
        return firstFetch.withPermits(1)(
          Effect.suspend(() => (state.attempted ? Effect.void : refresh.pipe(
            Effect.ignore,
            Effect.ensuring(Effect.sync(() => {
              state.attempted = true
            }))
          )))
        )
      }
      const now = Date.now()
      if (
        refreshMs > 0 && !state.refreshing && now - state.fetchedAt >= refreshMs && now >= state.nextAttemptAt &&
        settings.rdapBootstrapUrl !== ""
      ) {
        state.refreshing = true
        return Effect.forkDaemon(refresh.pipe(
          Effect.ignore,
          Effect.ensuring(Effect.sync(() => {
            state.refreshing = false
          }))
        )).pipe(Effect.asVoid)
      }
      return Effect.void
    })
    return { current: () => state.table, ensure, refresh }
  })
