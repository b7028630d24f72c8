/**
 * `/mcp`'s acting tools through the real endpoint (the SDK client, JSON-RPC over Streamable HTTP):
 * check_domains (rows equal to the search stream's, progress, 1–50 names), suggest_domains (the
 * domain-suggest result), get_listing (the REST listing), create_purchase_link (the buy page, the
 * sandbox's for a sandbox-only name, refused for a name not listed), and bad input as tool errors.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect, Layer } from "effect"
import * as DelayedRdap from "../support/DelayedRdap.js"
import { get, post } from "../support/http.js"
import { serverAtBaseUrl } from "../support/identity.js"
import { connect, inspector, textOf } from "../support/mcp.js"
import { rowsOf, search } from "../support/ndjson.js"
import * as TestServer from "../support/TestServer.js"

const server = Layer.unwrapScoped(
  Effect.map(
    DelayedRdap.start({ com: { registered: ["taken.com"] }, net: {}, io: {} }),
    (rdap) => serverAtBaseUrl({ RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl, ALTERNATE_TLDS: "net,io" })
  )
)

const listed = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql`insert into listings (id, environment, domain, domain_unicode, tld, label, bin_price_cents, floor_price_cents)
      values ('lst_tb_live', 'live', 'toolboxsale.io', 'toolboxsale.io', 'io', 'toolboxsale', 500000, 300000),
             ('lst_tb_sbx', 'sandbox', 'toolboxsandbox.io', 'toolboxsandbox.io', 'io', 'toolboxsandbox', 10000, null)
      on conflict do nothing`
).pipe(Effect.orDie)

const call = (
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options?: Parameters<Client["callTool"]>[2]
) => Effect.promise(() => client.callTool({ name, arguments: args }, undefined, options))

/** A row without what differs between two checks of the same name (timing, cache). */
const stable = (row: any) => {
  const { cached: _c, meta, ...rest } = row
  return { ...rest, meta: { source: meta.source } }
}

layer(server, { timeout: 120_000 })("/mcp toolbox", (it) => {
  it.scoped("the new tools are listed, read-only, with object schemas", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      const { tools } = yield* Effect.promise(() => client.listTools())
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
      for (const name of ["check_domains", "suggest_domains", "get_listing", "create_purchase_link"]) {
        expect(byName[name]?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
        expect(byName[name]?.inputSchema.type).toBe("object")
        expect(byName[name]?.outputSchema?.type).toBe("object")
      }
      expect(byName.check_domains?.inputSchema.properties?.domains).toMatchObject({ minItems: 1, maxItems: 50 })
    }))

  it.scoped("check_domains: one search-stream row per distinct name, in order, with progress", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      const progress: Array<{ progress: number; total?: number | undefined }> = []
      const result = yield* call(client, "check_domains", { domains: ["free-one.io", "taken.com", "TAKEN.com"] }, {
        onprogress: (p) => progress.push(p)
      })
      expect(result.isError).toBeFalsy()
      const rows = (result.structuredContent as any).results
      expect(rows.map((r: any) => r.domain)).toEqual(["free-one.io", "taken.com"])
      expect(progress.map((p) => p.progress)).toEqual([1, 2])
      expect(progress.every((p) => p.total === 2)).toBe(true)
      const rest = rowsOf(yield* search("taken.com"))
      expect(stable(rows[1])).toEqual(stable(rest.get("taken.com")))
      expect(textOf(result)).toContain("taken.com")
    }))

  it.scoped("check_domains through the MCP Inspector, with docs/agents.md's way of passing a list", () =>
    Effect.gen(function*() {
      const called = yield* inspector([
        "--method",
        "tools/call",
        "--tool-name",
        "check_domains",
        "--tool-arg",
        `domains=["free-two.io","taken.com"]`
      ])
      expect(called.isError).toBeFalsy()
      expect(called.structuredContent.results.map((r: any) => [r.domain, r.available])).toEqual([
        ["free-two.io", true],
        ["taken.com", false]
      ])
    }))

  it.scoped("suggest_domains answers what POST /api/tools/domain-suggest answers", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      const result = yield* call(client, "suggest_domains", {
        description: "tiny bakery",
        tlds: ["com", "io"],
        limit: 4
      })
      expect(result.isError).toBeFalsy()
      const rest = yield* post("/api/tools/domain-suggest", { keywords: "tiny bakery", tlds: ["com", "io"], limit: 4 })
      expect(rest.status).toBe(200)
      expect(result.structuredContent).toEqual(rest.json.result)
      expect((result.structuredContent as any).suggestions).toHaveLength(4)
    }))

  it.scoped("get_listing answers the REST listing; create_purchase_link gives the buy page, never for a name not listed", () =>
    Effect.gen(function*() {
      yield* listed
      const { baseUrl } = yield* TestServer.TestServer
      const client = yield* connect()
      const listing = yield* call(client, "get_listing", { domain: "toolboxsale.io" })
      expect(listing.isError).toBeFalsy()
      expect(listing.structuredContent).toEqual((yield* get("/api/market/listings/toolboxsale.io")).json)

      const live = yield* call(client, "create_purchase_link", { domain: "ToolboxSale.io" })
      expect(live.isError).toBeFalsy()
      expect(live.structuredContent).toEqual({ url: `${baseUrl}/buy/toolboxsale.io` })
      expect((yield* get("/buy/toolboxsale.io")).status).toBe(200)
      const sandbox = yield* call(client, "create_purchase_link", { domain: "toolboxsandbox.io" })
      expect(sandbox.structuredContent).toEqual({ url: `${baseUrl}/buy/toolboxsandbox.io?env=sandbox` })

      const notListed = yield* call(client, "create_purchase_link", { domain: "not-listed-here.com" })
      expect(notListed.isError).toBe(true)
      expect(textOf(notListed)).toMatch(/^listing_not_found: /)
      const noListing = yield* call(client, "get_listing", { domain: "toolboxsandbox.io" })
      expect(textOf(noListing)).toMatch(/^listing_not_found: /)
    }))

  it.scoped("bad input is a typed tool error, never a protocol error or a 500", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, RegExp]> = [
        ["check_domains", { domains: [] }, /^invalid_arguments: /],
        ["check_domains", { domains: Array.from({ length: 51 }, (_, i) => `n${i}.com`) }, /^invalid_arguments: /],
        ["check_domains", { domains: ["ok.com", "not a domain"] }, /^invalid_domain: domains\[1\]/],
        ["check_domains", { domains: "ok.com" }, /^invalid_arguments: /],
        ["suggest_domains", {}, /^invalid_arguments: .*description/s],
        ["suggest_domains", { description: "!!! ???" }, /^invalid_keywords: /],
        ["suggest_domains", { description: "cafe", limit: 100 }, /^invalid_arguments: /],
        ["get_listing", { domain: "not a domain" }, /^invalid_domain: /],
        ["create_purchase_link", { domain: "" }, /^invalid_arguments: /],
        ["create_purchase_link", { domain: "x.com", pay: true }, /^invalid_arguments: /]
      ]
      for (const [name, args, expected] of cases) {
        const result = yield* call(client, name, args)
        expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
        expect(textOf(result), `${name} ${JSON.stringify(args)}`).toMatch(expected)
      }
    }))
})
