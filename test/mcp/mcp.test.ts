/**
 * `/mcp` with the official SDK client: the four tools (schemas, annotations, results equal to the
 * REST endpoints'), progress rows, tool errors vs JSON-RPC errors, bearer tokens (masking, 401
 * discovery, the SDK's own OAuth flow), the WHOIS cap shared with REST, resources and the prompt.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer } from "effect"
import * as DelayedRdap from "../support/DelayedRdap.js"
import { fetchReply } from "../support/http.js"
import { get, post } from "../support/http.js"
import { accessToken, createTestUser, signIn } from "../support/identity.js"
import { serverAtBaseUrl } from "../support/identity.js"
import { connect, mcpUrl, textOf } from "../support/mcp.js"
import { rowsOf, search } from "../support/ndjson.js"
import { inOneWindow } from "../support/RateWindow.js"
import * as TestServer from "../support/TestServer.js"

const WHOIS_CAP = 4

const server = Layer.unwrapScoped(
  Effect.map(
    DelayedRdap.start({ com: { registered: ["taken.com", "whois-one.com", "whois-two.com"] }, net: {}, io: {} }),
    (rdap) =>
      serverAtBaseUrl({
        RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl,
        ALTERNATE_TLDS: "net,io",
        RATE_LIMITS: JSON.stringify({ auth_login: 1000, auth_login_account: 1000, whois: WHOIS_CAP })
      })
  )
)

const listed = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql`insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents)
      values ('lst_mcp_1', 'live', 'onsale.io', 'onsale.io', 'io', 'onsale', 500000, 300000)
      on conflict do nothing`
).pipe(Effect.orDie)

/** A row without what differs between two checks of the same name (timing, cache). */
const stable = (row: any) => {
  const { cached: _c, meta, ...rest } = row
  return { ...rest, meta: { source: meta.source } }
}

const call = (
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options?: Parameters<Client["callTool"]>[2]
) => Effect.promise(() => client.callTool({ name, arguments: args }, undefined, options))

layer(server, { timeout: 120_000 })("/mcp", (it) => {
  it.scoped("lists the tools with input/output schemas and read-only annotations", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      expect(client.getServerVersion()?.name).toBe("domain-marketplace")
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((t) => t.name).sort()).toEqual([
        "check_domains",
        "create_purchase_link",
        "get_listing",
        "search_domain",
        "suggest_domains",
        "tld_registration_price",
        "tld_requirements",
        "whois_lookup"
      ])
      for (const t of tools) {
        expect(t.annotations).toMatchObject({
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: true
        })
        expect(t.inputSchema.type).toBe("object")
        expect(t.outputSchema?.type).toBe("object")
        expect(t.description!.length).toBeGreaterThan(40)
      }
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
      expect(byName.search_domain.inputSchema.required).toEqual(["q"])
      expect(Object.keys(byName.search_domain.inputSchema.properties!)).toEqual(["q", "include_alternates"])
      expect(byName.whois_lookup.inputSchema.required).toEqual(["domain"])
      expect((byName.tld_registration_price.inputSchema.properties as any).op.enum).toEqual([
        "register",
        "renew",
        "transfer",
        "restore"
      ])
      expect(byName.tld_requirements.inputSchema.required).toEqual(["tld"])
    }))

  it.scoped("search_domain: the REST rows, one progress notification per row, include_alternates", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      const progress: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = []
      const result = yield* call(client, "search_domain", { q: "taken.com" }, { onprogress: (p) => progress.push(p) })
      expect(result.isError).toBeFalsy()
      const structured = result.structuredContent as any
      expect(structured.query).toBe("taken.com")
      const rest = rowsOf(yield* search("taken.com"))
      expect(structured.results.map((r: any) => r.domain).sort()).toEqual([...rest.keys()].sort())
      expect(structured.results[0].domain).toBe("taken.com")
      for (const row of structured.results) expect(stable(row)).toEqual(stable(rest.get(row.domain)))
      expect(structured.results[0].state).toBe("registered")
      // Progress: one per row, counting up to the total.
      expect(progress.map((p) => p.progress)).toEqual([1, 2, 3])
      expect(progress.every((p) => p.total === 3)).toBe(true)
      expect(progress[0].message).toContain("taken.com")
      // The summary reads as text; the JSON follows.
      expect(textOf(result)).toContain("3 results for taken.com")
      expect(JSON.parse((result.content as any)[1].text)).toEqual(structured)

      const single = yield* call(client, "search_domain", { q: "taken.com", include_alternates: false })
      expect((single.structuredContent as any).results.map((r: any) => r.domain)).toEqual(["taken.com"])
    }))

  it.scoped("tld_registration_price and tld_requirements answer what their REST endpoints answer", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      const price = yield* call(client, "tld_registration_price", { tld: "com" })
      const rest = yield* get("/api/pricing/tld?tld=com&op=register")
      expect(price.structuredContent).toEqual(rest.json)
      expect(textOf(price)).toContain(".com register")
      const renew = yield* call(client, "tld_registration_price", { tld: ".COM", op: "renew" })
      expect(renew.structuredContent).toEqual((yield* get("/api/pricing/tld?tld=com&op=renew")).json)

      const requirements = yield* call(client, "tld_requirements", { tld: "io" })
      expect(requirements.isError).toBeFalsy()
      expect(requirements.structuredContent).toEqual((yield* get("/api/tlds/io/metadata")).json)
    }))

  it.scoped("bad arguments are tool errors with the reason; an unknown tool is JSON-RPC -32602", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      const missing = yield* call(client, "search_domain", {})
      expect(missing.isError).toBe(true)
      expect(textOf(missing)).toMatch(/^invalid_arguments: .*q/s)
      const wrongType = yield* call(client, "tld_registration_price", { tld: "com", op: "buy" })
      expect(wrongType.isError).toBe(true)
      expect(textOf(wrongType)).toContain("invalid_arguments")
      const extra = yield* call(client, "tld_requirements", { tld: "com", evil: true })
      expect(extra.isError).toBe(true)
      const invalidDomain = yield* call(client, "search_domain", { q: "not a domain" })
      expect(invalidDomain.isError).toBe(true)
      expect(textOf(invalidDomain)).toMatch(/^invalid_domain: /)
      const badTld = yield* call(client, "tld_requirements", { tld: "no such tld!" })
      expect(textOf(badTld)).toMatch(/^invalid_tld: /)
      const unknownTld = yield* call(client, "tld_requirements", { tld: "doesnotexist" })
      expect(textOf(unknownTld)).toMatch(/^tld_not_found: /)

      const error = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "buy_domain", arguments: {} })))
      expect(error.error).toBeInstanceOf(McpError)
      expect((error.error as McpError).code).toBe(ErrorCode.InvalidParams)
      expect((error.error as McpError).message).toContain("Unknown tool: buy_domain")
    }))

  it.scoped("a pricing:read token unmasks marketplace prices exactly as on REST; anonymous calls see them masked", () =>
    Effect.gen(function*() {
      yield* listed
      const token = yield* accessToken(["pricing:read"])
      const anonymous = yield* connect()
      const masked = ((yield* call(anonymous, "search_domain", { q: "onsale.io", include_alternates: false }))
        .structuredContent as any).results[0]
      expect(masked.state).toBe("for_sale")
      expect(masked.price).toEqual({ bin: null, floor: null, currency: "USD" })

      const withToken = yield* connect({ token })
      const unmasked = ((yield* call(withToken, "search_domain", { q: "onsale.io", include_alternates: false }))
        .structuredContent as any).results[0]
      expect(unmasked.price).toEqual({ bin: 5000, floor: 3000, currency: "USD" })
      const rest = rowsOf(yield* search("onsale.io", { authorization: `Bearer ${token}` })).get("onsale.io")
      expect(stable(unmasked)).toEqual(stable(rest))
    }))

  it.scoped("a tool call spends its REST endpoint's counter, per IP as the edge counts, with or without a token", () =>
    Effect.gen(function*() {
      const token = yield* accessToken(["pricing:read"])
      const withToken = yield* connect({ token })
      const remaining = (reply: { readonly headers: Headers }) => Number(reply.headers.get("ratelimit-remaining"))
      yield* inOneWindow()
      const before = remaining(yield* get("/api/pricing/tld?tld=com"))
      const priced = yield* call(withToken, "tld_registration_price", { tld: "com" })
      expect(priced.isError).toBeFalsy()
      yield* call(withToken, "tld_registration_price", { tld: "no such tld!" })
      // Two tool calls (the refused one counted too, as a REST request with bad input is) and this request.
      expect(remaining(yield* get("/api/pricing/tld?tld=com"))).toBe(before - 3)
    }))

  it.effect("an invalid token gets 401 with the MCP resource metadata to discover the authorization server", () =>
    Effect.gen(function*() {
      const url = yield* mcpUrl
      const server = yield* TestServer.TestServer
      const reply = yield* Effect.promise(() =>
        fetchReply(url.toString(), {
          method: "POST",
          headers: {
            authorization: "Bearer not-a-token",
            accept: "application/json, text/event-stream",
            "content-type": "application/json"
          },
          body: { jsonrpc: "2.0", id: 1, method: "tools/list" }
        })
      )
      expect(reply.status).toBe(401)
      expect(reply.headers.get("www-authenticate")).toContain(
        `resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource/mcp"`
      )
      expect(reply.json.error.code).toBe("invalid_token")
      const metadata = yield* get("/.well-known/oauth-protected-resource/mcp")
      expect(metadata.json.resource).toBe(`${server.baseUrl}/mcp`)
      expect(metadata.json.authorization_servers).toEqual([server.baseUrl])
      expect(metadata.json.resource_documentation).toBe(`${server.baseUrl}/docs/agents.md`)
      // Not JSON: the JSON-RPC parse error, not a 500; an oversized body: 413.
      const rpc = (body: string) =>
        Effect.promise(() =>
          fetchReply(url.toString(), {
            method: "POST",
            headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
            body
          })
        )
      const garbled = yield* rpc("{not json")
      expect(garbled.status).toBe(400)
      expect(garbled.json.error.code).toBe(-32700)
      // (The service answers before reading the rest, so the client may see the reset, or undici its closed socket.)
      const oversized = yield* Effect.either(Effect.tryPromise(() =>
        fetchReply(url.toString(), {
          method: "POST",
          headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(1_100_000) } })
        })
      ))
      if (oversized._tag === "Right") expect(oversized.right.status).toBe(413)
      else expect(String((oversized.left.error as any)?.cause?.code)).toMatch(/ECONNRESET|EPIPE|UND_ERR_SOCKET/)
      // No server-initiated stream, no session to delete: stateless.
      expect((yield* get("/mcp")).status).toBe(405)
    }))

  it.scoped("the SDK client's own OAuth flow (401 → discovery → registration → PKCE → token) unmasks prices", () =>
    Effect.gen(function*() {
      yield* listed
      const url = yield* mcpUrl
      const user = yield* createTestUser()
      const cookie = yield* signIn(user)
      let code: string | undefined
      const store: Record<string, any> = { tokens: { access_token: "expired-or-bogus", token_type: "Bearer" } }
      const provider: OAuthClientProvider = {
        redirectUrl: "http://127.0.0.1/callback",
        clientMetadata: {
          redirect_uris: ["http://127.0.0.1/callback"],
          client_name: "MCP test agent",
          token_endpoint_auth_method: "none",
          scope: "pricing:read"
        },
        clientInformation: () => store.client,
        saveClientInformation: (info) => void (store.client = info),
        tokens: () => store.tokens,
        saveTokens: (tokens) => void (store.tokens = tokens),
        saveCodeVerifier: (v) => void (store.verifier = v),
        codeVerifier: () => store.verifier,
        // The user approves on the consent page (as the browser would).
        redirectToAuthorization: async (authorizationUrl) => {
          const page = await fetchReply(authorizationUrl.toString(), { headers: { cookie } })
          const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1]
          if (csrf === undefined) throw new Error(`no consent page: ${page.status} ${page.text.slice(0, 200)}`)
          const decision = await fetchReply(authorizationUrl.toString(), {
            method: "POST",
            headers: { cookie, "content-type": "application/x-www-form-urlencoded", origin: url.origin },
            body: new URLSearchParams({ csrf, action: "approve" }).toString()
          })
          code = new URL(decision.headers.get("location")!).searchParams.get("code") ?? undefined
        }
      }
      const transport = new StreamableHTTPClientTransport(url, { authProvider: provider })
      const first = new Client({ name: "oauth-agent", version: "1.0.0" })
      const refused = yield* Effect.flip(Effect.tryPromise(() => first.connect(transport)))
      expect(refused.error).toBeInstanceOf(UnauthorizedError)
      expect(store.client?.client_id).toMatch(/.+/)
      expect(code).toBeDefined()
      yield* Effect.promise(() => transport.finishAuth(code!))
      expect(store.tokens.access_token).not.toBe("expired-or-bogus")
      expect(store.tokens.scope).toBe("pricing:read")

      const client = new Client({ name: "oauth-agent", version: "1.0.0" })
      yield* Effect.acquireRelease(
        Effect.promise(() => client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))),
        () => Effect.promise(() => client.close())
      )
      const row =
        ((yield* call(client, "search_domain", { q: "onsale.io", include_alternates: false })).structuredContent as any)
          .results[0]
      expect(row.price).toEqual({ bin: 5000, floor: 3000, currency: "USD" })
    }))

  it.scoped("resources (docs overview, auth) and the find-a-domain prompt", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      const server = yield* TestServer.TestServer
      const { resources } = yield* Effect.promise(() => client.listResources())
      expect(resources.map((r) => r.name)).toEqual(["overview", "auth"])
      const overview = yield* Effect.promise(() => client.readResource({ uri: `${server.baseUrl}/docs/agents.md` }))
      expect((overview.contents[0] as any).text).toContain("/mcp")
      const { prompts } = yield* Effect.promise(() => client.listPrompts())
      expect(prompts.map((p) => p.name)).toEqual(["find_domain"])
      const prompt = yield* Effect.promise(() =>
        client.getPrompt({ name: "find_domain", arguments: { idea: "a bakery in Lyon" } })
      )
      expect((prompt.messages[0].content as any).text).toContain("a bakery in Lyon")
      expect((prompt.messages[0].content as any).text).toContain("search_domain")
    }))

  // Last: spends the per-IP WHOIS quota.
  it.scoped("whois_lookup answers the REST lookup and shares its daily cap with REST", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      const viaMcp = yield* call(client, "whois_lookup", { domain: "whois-one.com" })
      expect(viaMcp.isError).toBeFalsy()
      const viaRest = yield* post("/api/tools/whois", { domain: "whois-one.com" })
      expect(viaRest.status).toBe(201)
      const structured = viaMcp.structuredContent as any
      expect(structured.lookup.domain).toBe("whois-one.com")
      expect(structured.lookup.result).toEqual(viaRest.json.lookup.result)
      expect(structured.cap).toBe(WHOIS_CAP)
      expect(structured.used).toBe(1)
      expect(viaRest.json.used).toBe(2)
      const bad = yield* call(client, "whois_lookup", { domain: "-bad-" })
      expect(textOf(bad)).toMatch(/^invalid_domain: /)
      expect((yield* post("/api/tools/whois", { domain: "whois-two.com" })).status).toBe(201)
      expect(((yield* call(client, "whois_lookup", { domain: "whois-two.com" })).structuredContent as any).remaining)
        .toBe(0)
      const spent = yield* call(client, "whois_lookup", { domain: "whois-two.com" })
      expect(spent.isError).toBe(true)
      expect(textOf(spent)).toMatch(/^rate_limited: Daily WHOIS quota of 4/)
      expect((yield* post("/api/tools/whois", { domain: "whois-two.com" })).status).toBe(429)
    }))
})
