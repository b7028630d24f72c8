/**
 * The agent tools: the public operations' records (../operations/Operation.ts), each declared
 * beside its service, offered as MCP tools (./Tool.ts `toolOf`): the public reads and
 * `create_purchase_link`, which never pays or reserves anything.
 *
 * Contract: a tool never re-enters the service through HTTP, and a tool failure (bad input,
 * quota, no data) is a `ToolFailure` with the REST error's code and message, never a defect.
 */
import type { Effect } from "effect"
import { tldRegistrationPrice, tldRequirements } from "../catalogue/Operations.js"
import { createPurchaseLink } from "../checkout/Operations.js"
import { whoisLookup } from "../lookup/Operations.js"
import { getListing } from "../market/Operations.js"
import { checkDomains, searchDomain } from "../search/Operations.js"
import { suggestDomains } from "../tools/Operations.js"
import { toolOf } from "./Tool.js"

export const TOOLS = [
  toolOf(searchDomain),
  toolOf(whoisLookup),
  toolOf(tldRegistrationPrice),
  toolOf(tldRequirements),
  toolOf(checkDomains),
  toolOf(suggestDomains),
  toolOf(getListing),
  toolOf(createPurchaseLink)
]

/** The services the tools call. */
export type ToolServices = Effect.Effect.Context<ReturnType<typeof TOOLS[number]["call"]>>

export const toolNamed = (name: string) => TOOLS.find((t) => t.name === name)
