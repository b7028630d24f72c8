/**
 * What agents read before they call: `/.well-known/mcp/server-card.json` (SEP-1649 server card),
 * `/llms.txt` and `/llms-full.txt` (llmstxt.org, built from the OpenAPI document and docs/),
 * and each docs page as Markdown at `/docs/<page>.md`. All built once at start-up, offline.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect, Layer, Schema } from "effect"
import { Api, API_VERSION } from "../app/Api.js"
import { AppConfig } from "../platform/Config.js"
import { schemaResponse } from "../platform/http/SchemaResponse.js"
import { withLiteralPaths } from "../platform/openapi/OpenApiDeployment.js"
import {
  INSTRUCTIONS,
  PROMPT,
  PROTOCOL_VERSION,
  RESOURCE_PAGES,
  SERVER_NAME,
  SERVER_TITLE,
  toolList
} from "./Catalog.js"
import { type DocPage, loadDocs } from "./Docs.js"
import { MCP_PATH, McpRouteLive } from "./Http.js"

const HIDDEN_TAGS = /admin|system/i

interface Operation {
  readonly method: string
  readonly path: string
  readonly summary: string
  readonly tag: string
}

const operationsOf = (spec: OpenApi.OpenAPISpec): ReadonlyArray<Operation> => {
  const out: Array<Operation> = []
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"] as const) {
      const op = (item as Record<string, { summary?: string; tags?: ReadonlyArray<string> } | undefined>)[method]
      if (op === undefined) continue
      const tag = op.tags?.[0] ?? "Other"
      if (HIDDEN_TAGS.test(tag)) continue
      out.push({ method: method.toUpperCase(), path, summary: op.summary ?? "", tag })
    }
  }
  return out
}

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** The SEP-1649 server card, as this server fills it in. */
export const ServerCard = Schema.Struct({
  $schema: Schema.String,
  version: Schema.String,
  protocolVersion: Schema.String,
  serverInfo: Schema.Struct({ name: Schema.String, title: Schema.String, version: Schema.String }),
  description: Schema.String,
  documentationUrl: Schema.String,
  transport: Schema.Struct({ type: Schema.Literal("streamable-http"), endpoint: Schema.String }),
  capabilities: Schema.Struct({
    tools: Schema.Struct({ listChanged: Schema.Boolean }),
    resources: Schema.Struct({}),
    prompts: Schema.Struct({})
  }),
  authentication: Schema.Struct({
    required: Schema.Boolean,
    schemes: Schema.Array(Schema.String),
    protectedResourceMetadata: Schema.String,
    scopes: Schema.Array(Schema.String)
  }),
  tools: Schema.Array(Schema.Struct({
    name: Schema.String,
    title: Schema.String,
    description: Schema.String,
    inputSchema: JsonObject,
    outputSchema: JsonObject,
    annotations: JsonObject
  })),
  resources: Schema.Array(Schema.Struct({
    uri: Schema.String,
    name: Schema.String,
    title: Schema.String,
    mimeType: Schema.String
  })),
  prompts: Schema.Array(Schema.Struct({
    name: Schema.String,
    title: Schema.String,
    description: Schema.String,
    arguments: Schema.Array(
      Schema.Struct({ name: Schema.String, description: Schema.String, required: Schema.Boolean })
    )
  }))
})

export const serverCard = (baseUrl: string): typeof ServerCard.Type => ({
  $schema: "https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json",
  version: "1.0",
  protocolVersion: PROTOCOL_VERSION,
  serverInfo: { name: SERVER_NAME, title: SERVER_TITLE, version: API_VERSION },
  description: INSTRUCTIONS,
  documentationUrl: `${baseUrl}/docs/agents.md`,
  transport: { type: "streamable-http", endpoint: `${baseUrl}${MCP_PATH}` },
  capabilities: { tools: { listChanged: false }, resources: {}, prompts: {} },
  authentication: {
    required: false,
    schemes: ["oauth2"],
    protectedResourceMetadata: `${baseUrl}/.well-known/oauth-protected-resource${MCP_PATH}`,
    scopes: ["pricing:read"]
  },
  tools: toolList(),
  resources: RESOURCE_PAGES.map((r) => ({
    uri: `${baseUrl}/docs/${r.page}.md`,
    name: r.name,
    title: r.title,
    mimeType: "text/markdown"
  })),
  prompts: [PROMPT]
})

export const llmsTxt = (baseUrl: string, docs: ReadonlyArray<DocPage>, operations: ReadonlyArray<Operation>) => {
  const lines = [
    "# Domain Marketplace API",
    "",
    "> Domain search (availability and prices, streamed), WHOIS/RDAP lookups, TLD prices and registration requirements, " +
    "a domain marketplace, free tools, batch calls, and an HMAC-signed Partner API. Public reads need no credentials; " +
    "an OAuth 2.1 bearer token with scope pricing:read unmasks marketplace prices.",
    "",
    `Agents: an MCP server (Streamable HTTP) is at ${baseUrl}${MCP_PATH} with the tools ${
      toolList().map((t) => t.name).join(", ")
    }; ` +
    `server card at ${baseUrl}/.well-known/mcp/server-card.json. OpenAPI 3.1: ${baseUrl}/api/openapi.json.`,
    "",
    "## Docs",
    "",
    ...docs.map((d) => `- [${d.title}](${baseUrl}/docs/${d.name}.md)${d.summary !== "" ? `: ${d.summary}` : ""}`),
    "",
    "## API",
    ""
  ]
  const tags = [...new Set(operations.map((o) => o.tag))]
  for (const tag of tags) {
    lines.push(`### ${tag}`, "")
    for (const o of operations.filter((x) => x.tag === tag)) {
      lines.push(`- ${o.method} ${o.path}${o.summary !== "" ? `: ${o.summary}` : ""}`)
    }
    lines.push("")
  }
  lines.push(
    "## Optional",
    "",
    `- [OpenAPI document](${baseUrl}/api/openapi.json)`,
    `- [Full text of the docs](${baseUrl}/llms-full.txt)`,
    ""
  )
  return lines.join("\n")
}

export const llmsFullTxt = (baseUrl: string, docs: ReadonlyArray<DocPage>, operations: ReadonlyArray<Operation>) =>
  [
    llmsTxt(baseUrl, docs, operations),
    ...docs.map((d) => `\n---\n\n<!-- ${baseUrl}/docs/${d.name}.md -->\n\n${d.markdown.trim()}\n`)
  ].join("")

const PAGE = /^([a-z0-9][a-z0-9-]*)\.md$/

export const DiscoveryRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const docs = loadDocs()
    const cache = { "cache-control": "public, max-age=300" }
    const text = (body: string, contentType: string) => HttpServerResponse.text(body, { contentType, headers: cache })
    const card = schemaResponse(ServerCard)(serverCard(config.baseUrl), { headers: cache })
    // The document as served: the bulk operations under their literal paths (OpenApiDeployment.ts).
    // Built on first request, then kept: start-up does not pay for the document.
    const operations = yield* Effect.cached(
      Effect.sync(() => operationsOf(withLiteralPaths(OpenApi.fromApi(Api)) as OpenApi.OpenAPISpec))
    )
    const llms = yield* Effect.cached(
      Effect.map(operations, (ops) => text(llmsTxt(config.baseUrl, docs, ops), "text/plain; charset=utf-8"))
    )
    const llmsFull = yield* Effect.cached(
      Effect.map(operations, (ops) => text(llmsFullTxt(config.baseUrl, docs, ops), "text/plain; charset=utf-8"))
    )
    const pages = new Map(docs.map((d) => [d.name, text(d.markdown, "text/markdown; charset=utf-8")]))

    yield* router.get("/.well-known/mcp/server-card.json", Effect.succeed(card))
    yield* router.get("/llms.txt", llms)
    yield* router.get("/llms-full.txt", llmsFull)
    // An unknown page is the router's typed 404 (ApiErrorsLive), like any unknown path.
    yield* router.get(
      "/docs/:page",
      Effect.gen(function*() {
        const { page } = yield* HttpRouter.params
        const name = PAGE.exec(page ?? "")?.[1]
        const found = name !== undefined ? pages.get(name) : undefined
        if (found !== undefined) return found
        return yield* new HttpServerError.RouteNotFound({ request: yield* HttpServerRequest.HttpServerRequest })
      })
    )
  })
)

/** `/mcp` and the discovery routes, mounted beside the HttpApi (see app/Server.ts). */
export const McpHttpLive = Layer.mergeAll(McpRouteLive, DiscoveryRoutesLive)
