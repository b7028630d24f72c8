/**
 * No error, log line or message returned to one caller carries another caller's data. An
 * upstream failure is remembered (an RDAP server skipped for a while after failing, an open
 * circuit) and then shown to the next callers: what is remembered must not quote the request
 * that failed — its URL names the domain someone else asked about.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { post } from "../support/http.js"
import { rowsOf, search } from "../support/ndjson.js"
import * as RdapServer from "../support/RdapServer.js"
import { freePort } from "../support/ServiceProcess.js"
import * as TestServer from "../support/TestServer.js"

/**
 * The bootstrap names, for .org, an RDAP base URL that fetch refuses before connecting (port
 * 99999): every call fails with a transport error without a system error code — the case where
 * the HTTP client's message (`… (GET <url>)`) used to be remembered verbatim for the server.
 */
const Env = Layer.unwrapScoped(
  Effect.gen(function*() {
    const rdap = yield* RdapServer.start({ tlds: {} })
    rdap.answer("/custom/dns.json", {
      json: {
        description: "test bootstrap",
        publication: "2026-01-01T00:00:00Z",
        version: "1.0",
        services: [[["org"], [`http://127.0.0.1:99999/registry/`]]]
      }
    })
    const closed = yield* freePort()
    return TestServer.layer({
      RDAP_BOOTSTRAP_URL: `${rdap.url.replace(/\/$/, "")}/custom/dns.json`,
      RDAP_TIMEOUT: "2 seconds",
      WHOIS_REFERRAL_SERVER: "127.0.0.1",
      WHOIS_PORT: String(closed),
      WHOIS_TIMEOUT: "1 second",
      AVAILABILITY_BREAKER_FAILURES: "1"
    })
  })
)

layer(Env, { excludeTestServices: true, timeout: 180_000 })("upstream failures", (it) => {
  it.effect("a failure caused by one caller's lookup is never quoted to another caller", () =>
    Effect.gen(function*() {
      // First caller: its lookup fails and the RDAP server is skipped / its circuit opens.
      const first = yield* post("/api/tools/whois", { domain: "ambercomet.org" })
      expect(first.json.error.code).toBe("whois_unavailable")
      const firstSearch = yield* search("ambercomet.org")
      expect(rowsOf(firstSearch).get("ambercomet.org")?.state).toBe("unknown")

      // Second caller, another domain on the same server: every answer is about its own domain only.
      const second = yield* post("/api/tools/whois", { domain: "quietfern.org" })
      expect(second.json.error.code).toBe("whois_unavailable")
      expect(second.json.error.message).toContain("quietfern.org")
      const secondSearch = yield* search("quietfern.org")
      const row = rowsOf(secondSearch).get("quietfern.org")
      expect(row?.state).toBe("unknown")
      for (const answer of [JSON.stringify(second.json), JSON.stringify(secondSearch.events)]) {
        expect(answer).not.toContain("ambercomet")
        expect(answer).not.toContain("operator:pw")
        expect(answer).not.toMatch(/\/domain\//)
      }
    }))
})
