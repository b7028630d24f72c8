/**
 * The MCP protocol server of one HTTP request (stateless Streamable HTTP): the four tools, the
 * docs resources and the "find me a domain" prompt, over the official SDK's `Server`.
 *
 * Contract: a tool call never becomes a JSON-RPC error unless the tool is unknown (-32602, as the
 * spec names it); bad arguments, quotas and missing data are `isError: true` results with the
 * reason; a defect is an `isError` result too (logged), never a 500.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Cause, Effect, Exit, Runtime } from "effect"
import { INSTRUCTIONS, PROMPT, RESOURCE_PAGES, SERVER_NAME, SERVER_TITLE, toolList } from "./Catalog.js"
import type { DocPage } from "./Docs.js"
import type { Caller } from "./Tool.js"
import { toolNamed } from "./Tools.js"

export interface ProtocolOptions {
  readonly version: string
  readonly baseUrl: string
  readonly docs: ReadonlyArray<DocPage>
  /** Who calls (one HTTP request: one caller); progress is bound per tool call. */
  readonly caller: Omit<Caller, "progress">
  /** Extra cancellation of a call (a `notifications/cancelled` that reached another request). */
  readonly signalFor: (
    requestId: string | number,
    own: AbortSignal
  ) => { readonly signal: AbortSignal; readonly release: () => void }
}

/**
 * A failed call: the reason as text, `code: message` first, details as JSON after. (No
 * `structuredContent`: clients validate it against the tool's output schema even on errors.)
 */
const errorResult = (code: string, message: string, details?: unknown): CallToolResult => ({
  isError: true,
  content: [{
    type: "text",
    text: details === undefined ? `${code}: ${message}` : `${code}: ${message}\n${JSON.stringify(details)}`
  }]
})

export const makeProtocolServer = <R>(runtime: Runtime.Runtime<R>, options: ProtocolOptions) => {
  const server = new Server(
    { name: SERVER_NAME, title: SERVER_TITLE, version: options.version },
    { capabilities: { tools: { listChanged: false }, resources: {}, prompts: {} }, instructions: INSTRUCTIONS }
  )
  const runExit = Runtime.runPromiseExit(runtime)

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = toolNamed(request.params.name)
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`)
    const token = request.params._meta?.progressToken
    const caller: Caller = {
      ...options.caller,
      progress: token === undefined
        ? () => Effect.void
        : (progress, total, message) =>
          Effect.promise(() =>
            extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress, total, message }
            })
              .catch(() => undefined)
          )
    }
    const { release, signal } = options.signalFor(extra.requestId, extra.signal)
    try {
      const exit = await runExit(tool.call(request.params.arguments ?? {}, caller) as Effect.Effect<never, never, R>, {
        signal
      })
      if (Exit.isSuccess(exit)) {
        const { structured, summary } = exit.value as { structured: Record<string, unknown>; summary: string }
        return {
          content: [{ type: "text", text: summary }, { type: "text", text: JSON.stringify(structured) }],
          structuredContent: structured
        } satisfies CallToolResult
      }
      const failure = Cause.failureOption(exit.cause)
      if (failure._tag === "Some") {
        const f = failure.value as { code: string; message: string; details?: unknown }
        return errorResult(f.code, f.message, f.details)
      }
      if (Cause.isInterruptedOnly(exit.cause)) return errorResult("cancelled", "The call was cancelled")
      await runExit(
        Effect.logError("MCP tool call failed unexpectedly", exit.cause).pipe(
          Effect.annotateLogs({ tool: tool.name })
        ) as Effect.Effect<void, never, R>
      )
      return errorResult("internal_error", "Unexpected error; retry with exponential back-off")
    } finally {
      release()
    }
  })

  const pages = RESOURCE_PAGES.flatMap((r) => {
    const doc = options.docs.find((d) => d.name === r.page)
    return doc === undefined ? [] : [{ ...r, uri: `${options.baseUrl}/docs/${r.page}.md`, doc }]
  })

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: pages.map((p) => ({
      uri: p.uri,
      name: p.name,
      title: p.title,
      description: p.doc.summary,
      mimeType: "text/markdown"
    }))
  }))

  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const page = pages.find((p) => p.uri === request.params.uri)
    if (page === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`)
    return { contents: [{ uri: page.uri, mimeType: "text/markdown", text: page.doc.markdown }] }
  })

  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [PROMPT] }))

  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    if (request.params.name !== PROMPT.name) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`)
    }
    const idea = request.params.arguments?.idea?.trim()
    if (!idea) throw new McpError(ErrorCode.InvalidParams, "The argument idea is required")
    const budget = request.params.arguments?.budget?.trim()
    const text = [
      `Find me a domain for ${idea}.`,
      "Brainstorm 5 to 10 short, memorable names (prefer .com, then fitting TLDs).",
      "Check each with the search_domain tool (include_alternates: true) and keep those whose state is available, premium or for_sale.",
      "For the best candidates, give the first-year price (tld_registration_price for standard names; the row's price for premium and for-sale names)",
      "and anything tld_requirements says the registrant must satisfy.",
      budget ? `Stay within a first-year budget of ${budget} USD.` : "",
      "Answer with a short ranked list: domain, state, price, and one line on why it fits."
    ].filter((l) => l !== "").join("\n")
    return {
      description: `Domain ideas for ${idea}`,
      messages: [{ role: "user" as const, content: { type: "text" as const, text } }]
    }
  })

  return server
}
