/**
 * The official MCP SDK client against the TestServer's `/mcp`: `connect()` gives a connected
 * client (closed with the test's scope), anonymous or with a bearer token. `inspector(args)` runs
 * the MCP Inspector's CLI mode against it, as docs/agents.md tells a person to.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions
} from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as Path from "node:path"
import * as TestServer from "./TestServer.js"

export const mcpUrl = Effect.map(TestServer.TestServer, (s) => new URL(`${s.baseUrl}/mcp`))

/** A client connected over Streamable HTTP; closed when the scope closes. */
export const connect = (
  options: { readonly token?: string; readonly transport?: StreamableHTTPClientTransportOptions } = {}
) =>
  Effect.gen(function*() {
    const url = yield* mcpUrl
    const transport = new StreamableHTTPClientTransport(url, {
      ...options.transport,
      ...(options.token !== undefined ? { requestInit: { headers: { authorization: `Bearer ${options.token}` } } } : {})
    })
    const client = new Client({ name: "test-client", version: "1.0.0" })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(transport)),
      () => Effect.promise(() => client.close().catch(() => undefined))
    )
    return client
  })

/** The text of a tool result's first content block. */
export const textOf = (result: Record<string, unknown>): string => {
  const content = result.content as ReadonlyArray<{ type: string; text?: string }> | undefined
  return content?.[0]?.text ?? ""
}

const INSPECTOR = Path.resolve("node_modules/@modelcontextprotocol/inspector/cli/build/cli.js")

/** The Inspector in CLI mode against the test server; its stdout parsed as JSON. */
export const inspector = (args: ReadonlyArray<string>) =>
  Effect.flatMap(TestServer.TestServer, (server) =>
    Effect.async<any>((resume) => {
      execFile(
        process.execPath,
        [INSPECTOR, "--cli", `${server.baseUrl}/mcp`, "--transport", "http", ...args],
        { timeout: 60_000, env: { ...process.env, NO_COLOR: "1" } },
        (error, stdout, stderr) => {
          if (error) return resume(Effect.dieMessage(`inspector failed: ${error.message}\n${stderr}`))
          resume(Effect.succeed(JSON.parse(stdout.slice(stdout.indexOf("{")))))
        }
      )
    }))
