/**
 * What the MCP server offers, without the SDK: its name, instructions, tools, resources and
 * prompt, and the protocol version it speaks. Discovery (server card, llms.txt) reads these at
 * start-up; the SDK itself (and zod under it) loads with the first `/mcp` request (mcp/Http.ts).
 */
import { TOOL_ANNOTATIONS } from "./Tool.js"
import { TOOLS } from "./Tools.js"

/** The MCP revision the bundled SDK speaks (its LATEST_PROTOCOL_VERSION; a test keeps them equal). */
export const PROTOCOL_VERSION = "2025-11-25"

export const SERVER_NAME = "domain-marketplace"
export const SERVER_TITLE = "Domain Marketplace"

export const INSTRUCTIONS =
  "Domain search, WHOIS and TLD pricing/requirements of the Domain Marketplace. All tools are read-only. " +
  "Use search_domain for availability and prices (marketplace prices need a bearer token with scope pricing:read), " +
  "tld_registration_price and tld_requirements before registering, whois_lookup for who holds a taken name (daily quota), " +
  "check_domains for up to 50 names at once, suggest_domains for names from a description, get_listing for a name for sale, " +
  "and create_purchase_link to give the person the buy page of a listed name (no tool ever pays: the person does, on that page)."

/** The resources: the agents' guide (overview) and the authorization guide. */
export const RESOURCE_PAGES = [
  { page: "agents", name: "overview", title: "Agent guide: tools, auth, quotas" },
  { page: "identity", name: "auth", title: "Sign-in and OAuth 2.1 (bearer tokens, pricing:read)" }
] as const

export const PROMPT = {
  name: "find_domain",
  title: "Find me a domain",
  description: "Brainstorm names for an idea and check which can be had, with prices",
  arguments: [
    { name: "idea", description: "What the domain is for, e.g. \"a bakery in Lyon\"", required: true },
    { name: "budget", description: "Optional budget in USD for the first year", required: false }
  ]
} as const

export const toolList = () =>
  TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
    annotations: { title: t.title, ...TOOL_ANNOTATIONS }
  }))
