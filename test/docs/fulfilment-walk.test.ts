/**
 * docs/fulfilment.md's sandbox walk, run as written: its shell blocks, with the `signed` helper of
 * docs/partner.md ("Signing from the shell"), in bash against a real server, with a sandbox
 * credential in BASE/KEY/SECRET. `ord_…` stands for the order the walk created last. What the
 * comments under a command show must hold: every `"key":"value"` without an elision is in the
 * answer, an answer shown with an error status is an error (and only then), and a list of event
 * types is what the order's events are (after `events:`, the ones this command added).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import type { IssuedCredential } from "../../src/partner/Credentials.js"
import { createPartner, signed } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const docs = Path.resolve(import.meta.dirname, "../../docs")
const read = (file: string) => Fs.readFileSync(Path.join(docs, file), "utf8")
const shBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1])

/** partner.md's helpers, the first line (`export BASE=… KEY=… SECRET=…`) set for this credential. */
const helpers = (baseUrl: string, cred: IssuedCredential) => {
  const text = read("partner.md")
  const section = text.slice(text.indexOf("### Signing from the shell"))
  const block = shBlocks(section)[0]
  expect(block.split("\n")[0]).toMatch(/^export BASE=\S+ KEY=\S+ SECRET=\S+$/)
  return [`export BASE=${baseUrl} KEY=${cred.key_id} SECRET=${cred.secret}`, ...block.split("\n").slice(1)].join("\n")
}

/** fulfilment.md's sandbox blocks: each command with the comment lines under it. */
const sandboxSteps = () => {
  const text = read("fulfilment.md")
  const section = text.slice(text.indexOf("## Sandbox"), text.indexOf("With a live registrar"))
  return shBlocks(section).map((block) => {
    const steps: Array<{ command: string; shows: Array<string> }> = []
    for (const line of block.split("\n").filter((l) => l.trim() !== "")) {
      if (line.startsWith("#")) steps[steps.length - 1].shows.push(line.replace(/^#\s*/, ""))
      else steps.push({ command: line, shows: [] })
    }
    return steps
  })
}

const bash = (script: string) =>
  Effect.promise(() =>
    new Promise<string>((resolve) =>
      execFile("bash", ["-c", script], { maxBuffer: 10_000_000 }, (_e, stdout, stderr) => resolve(stdout + stderr))
    )
  )

const EVENT_LIST = /^(?:events: )?((?:[a-z_]+\.[a-z_]+(?:, |,$|$))+)/

const typesOf = (cred: IssuedCredential, orderId: string) =>
  Effect.map(
    signed(cred, "GET", "/api/partner/v1/events?limit=100"),
    (r) =>
      (r.json.events as Array<{ type: string; data: any }>)
        .filter((e) => e.data?.order?.public_id === orderId)
        .map((e) => e.type)
  )

/** Runs one block's steps in order, checking what each step's comments show. */
const walk = (steps: ReadonlyArray<{ command: string; shows: Array<string> }>, cred: IssuedCredential, start = "") =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestServer.TestServer
    const prelude = helpers(baseUrl, cred)
    let order = start
    let seen = order === "" ? 0 : (yield* typesOf(cred, order)).length
    for (const { command, shows } of steps) {
      const body = yield* bash(`${prelude}\n${command.replaceAll("ord_…", order)}`)
      if (command.startsWith("sleep")) continue
      const created = /"public_id":"(ord_[^"]+)"/.exec(body)
      if (command.includes("POST /api/partner/v1/orders ") && created) order = created[1]
      const shown = shows.join(" ")
      // An error answer is documented with its status (`409 {"error":…}`); any other is a success.
      const refusal = /^[45]\d\d /.test(shown)
      expect(JSON.parse(body).error === undefined, `${command}\n${body}`).toBe(!refusal)
      for (const [pair] of shown.matchAll(/"[a-z_]+":"[^"…]*"/g)) expect(body, command).toContain(pair)
      const types = yield* typesOf(cred, order)
      const list = shows.map((l) => EVENT_LIST.exec(l.trim())).find((m) => m !== null)
      if (list) {
        const documented = shows.filter((l) => EVENT_LIST.test(l.trim())).join(", ").replace(/events: /g, "")
          .split(/,\s*/).filter((t) => t !== "")
        expect(list[0].startsWith("events:") ? types.slice(seen) : types, command).toEqual(documented)
      }
      seen = types.length
    }
    return order
  })

const [auto, stepped, refused] = sandboxSteps()

layer(TestServer.layer({ DELIVERY_AUTOSTART: "true" }), { timeout: 120_000 })("fulfilment.md, deliveries on", (it) => {
  it.effect("the sandbox walk: the name is delivered by itself, with the events in the order shown", () =>
    Effect.gen(function*() {
      expect(auto.map((s) => s.command.split(" ").slice(0, 3).join(" "))).toEqual([
        "signed POST /api/partner/v1/orders",
        "sleep 5",
        "signed GET \"/api/partner/v1/events?limit=20\""
      ])
      yield* walk(auto, yield* createPartner())
    }))

  it.effect("a refused transfer: failed with its reason, and advance answers 409", () =>
    Effect.gen(function*() {
      yield* walk(refused, yield* createPartner())
    }))
})

layer(TestServer.layer({ DELIVERY_AUTOSTART: "false" }), { timeout: 120_000 })(
  "fulfilment.md, deliveries off",
  (it) => {
    it.effect("stepping through with advance: each step's events, then settled", () =>
      Effect.gen(function*() {
        const cred = yield* createPartner()
        const order = yield* walk(auto.slice(0, 1), cred)
        expect(stepped.filter((s) => s.command.includes("/advance"))).toHaveLength(3)
        yield* walk(stepped, cred, order)
      }))
  }
)
