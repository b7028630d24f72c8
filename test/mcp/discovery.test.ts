/**
 * What agents read: the MCP server card, /llms.txt and /llms-full.txt (from the OpenAPI document
 * and docs/), each docs page as Markdown (every docs link of /api/v1 resolves), and the MCP
 * Inspector's CLI mode listing and calling the tools.
 */
import { expect, layer } from "@effect/vitest"
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { get } from "../support/http.js"
import { serverAtBaseUrl } from "../support/identity.js"
import { connect, inspector } from "../support/mcp.js"
import * as TestServer from "../support/TestServer.js"

/** The operator's and developers' pages: in the repository and the image, never served. */
const internalPages = ["architecture", "operations"]
const docsPages = Fs.readdirSync("docs").filter((f) => f.endsWith(".md")).map((f) => f.slice(0, -3))
  .filter((page) => !internalPages.includes(page))

layer(serverAtBaseUrl(), { timeout: 120_000 })("agent discovery", (it) => {
  it.scoped("the server card names the endpoint, auth and the same tools as tools/list", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.TestServer
      const reply = yield* get("/.well-known/mcp/server-card.json")
      expect(reply.status).toBe(200)
      const card = reply.json
      // The card names the revision the bundled SDK speaks (the SDK itself loads with the first /mcp call).
      expect(card.protocolVersion).toBe(LATEST_PROTOCOL_VERSION)
      expect(card.serverInfo).toMatchObject({ name: "domain-marketplace", version: "1.3.0" })
      expect(card.transport).toEqual({ type: "streamable-http", endpoint: `${server.baseUrl}/mcp` })
      expect(card.authentication).toMatchObject({
        required: false,
        protectedResourceMetadata: `${server.baseUrl}/.well-known/oauth-protected-resource/mcp`,
        scopes: ["pricing:read"]
      })
      const client = yield* connect()
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(card.tools).toEqual(JSON.parse(JSON.stringify(tools)))
      expect(card.prompts.map((p: any) => p.name)).toEqual(["find_domain"])
    }))

  it.effect("/llms.txt lists every docs page and every public operation of the OpenAPI document; /llms-full.txt has the pages' text", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.TestServer
      const llms = yield* get("/llms.txt")
      expect(llms.status).toBe(200)
      expect(llms.headers.get("content-type")).toMatch(/^text\/plain/)
      expect(llms.text).toMatch(/^# Domain Marketplace API\n\n> /)
      expect(llms.text).toContain(`${server.baseUrl}/mcp`)
      for (const page of docsPages) expect(llms.text).toContain(`(${server.baseUrl}/docs/${page}.md)`)
      const spec = (yield* get("/api/openapi.json")).json
      for (const [path, item] of Object.entries<any>(spec.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          if (/admin|system/i.test(op.tags?.[0] ?? "")) continue
          expect(llms.text).toContain(`- ${method.toUpperCase()} ${path}`)
        }
      }
      expect(llms.text).not.toContain("/api/admin/")

      const full = yield* get("/llms-full.txt")
      expect(full.status).toBe(200)
      expect(full.text.startsWith(llms.text)).toBe(true)
      expect(full.text).toContain(Fs.readFileSync("docs/search.md", "utf8").trim())
      expect(full.text).toContain(Fs.readFileSync("docs/agents.md", "utf8").trim())
    }))

  it.effect("every docs page is served as Markdown, so every docs link of /api/v1 resolves; unknown pages are a typed 404", () =>
    Effect.gen(function*() {
      for (const page of docsPages) {
        const reply = yield* get(`/docs/${page}.md`)
        expect(reply.status).toBe(200)
        expect(reply.headers.get("content-type")).toBe("text/markdown; charset=utf-8")
        expect(reply.text).toBe(Fs.readFileSync(`docs/${page}.md`, "utf8"))
      }
      const index = (yield* get("/api/v1")).json
      const links = index.operations.map((o: any) => o.docs).filter((d: unknown): d is string => typeof d === "string")
      expect(links.length).toBeGreaterThan(5)
      for (const link of new Set(links.map((l: string) => new URL(l).pathname))) {
        expect((yield* get(link as string)).status, link as string).toBe(200)
      }
      for (const page of internalPages) {
        expect(Fs.existsSync(`docs/${page}.md`)).toBe(true)
        expect((yield* get(`/docs/${page}.md`)).status, page).toBe(404)
        expect((yield* get("/llms.txt")).text).not.toContain(`/docs/${page}.md`)
        expect((yield* get("/llms-full.txt")).text).not.toContain(
          Fs.readFileSync(`docs/${page}.md`, "utf8").split("\n")[0]
        )
      }
      for (const bad of ["/docs/nope.md", "/docs/search", "/docs/..%2Fpackage.json", "/docs/.env.md"]) {
        const reply = yield* get(bad)
        expect(reply.status, bad).toBe(404)
        expect(reply.json.error.code).toBe("not_found")
      }
      // The interactive docs are still there.
      expect((yield* get("/docs")).status).toBe(200)
    }))

  it.effect("the MCP Inspector (--cli) lists the tools and calls them", () =>
    Effect.gen(function*() {
      const listed = yield* inspector(["--method", "tools/list"])
      expect(listed.tools.map((t: any) => t.name).sort()).toEqual([
        "check_domains",
        "create_purchase_link",
        "get_listing",
        "search_domain",
        "suggest_domains",
        "tld_registration_price",
        "tld_requirements",
        "whois_lookup"
      ])
      const called = yield* inspector([
        "--method",
        "tools/call",
        "--tool-name",
        "tld_registration_price",
        "--tool-arg",
        "tld=com"
      ])
      expect(called.isError).toBeFalsy()
      expect(called.structuredContent).toEqual((yield* get("/api/pricing/tld?tld=com&op=register")).json)
      const suggested = yield* inspector([
        "--method",
        "tools/call",
        "--tool-name",
        "suggest_domains",
        "--tool-arg",
        "description=inspector bakery",
        "--tool-arg",
        "limit=2"
      ])
      expect(suggested.isError).toBeFalsy()
      expect(suggested.structuredContent.suggestions).toHaveLength(2)
    }))
})
