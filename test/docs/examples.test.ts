/**
 * The curl examples of docs/*.md, run against a real server: every self-contained example (no
 * shell variables, pipes or placeholders) is executed with the documented command line. None may
 * answer 5xx; a documented error code must be the code answered; a documented JSON answer must
 * agree on every scalar it shows (strings with "…" are elisions, arrays and `*_at` times are not
 * compared).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as TestServer from "../support/TestServer.js"

export interface DocExample {
  readonly file: string
  readonly command: string
  readonly documented: string
}

/** Self-contained curl commands of a markdown text, each with the answer written under it. */
export const examplesOf = (file: string, text: string): Array<DocExample> => {
  const blocks = [...text.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1],
    body: m[2],
    end: m.index! + m[0].length
  }))
  const out: Array<DocExample> = []
  blocks.forEach((block, i) => {
    if (block.lang !== "sh" && block.lang !== "bash") return
    const lines = block.body.replace(/\\\n\s*/g, " ").split("\n")
    lines.forEach((line, j) => {
      const command = line.trim()
      if (!command.startsWith("curl ")) return
      if (/[$|`<>]|…|\s-i\b|--include/.test(command)) return
      if (!/localhost:3000/.test(command)) return
      // A body that goes on over several lines without `\` is not one shell line.
      if ((command.match(/'/g) ?? []).length % 2 !== 0) return
      // The answer: the following lines of the same block, else a json block right after it.
      const rest = lines.slice(j + 1).filter((l) => l.trim() !== "" && !l.trim().startsWith("#"))
      let documented = rest.length > 0 && !rest[0].trim().startsWith("curl") ? rest[0] : ""
      const next = blocks[i + 1]
      if (
        documented === "" && next !== undefined && next.lang === "json" &&
        text.slice(block.end, text.indexOf("```", block.end)).trim() === ""
      ) {
        documented = next.body
      }
      out.push({ file, command, documented })
    })
  })
  return out
}

const docsDir = Path.resolve(import.meta.dirname, "../../docs")
const examples = Fs.readdirSync(docsDir).filter((f) => f.endsWith(".md")).flatMap((f) =>
  examplesOf(f, Fs.readFileSync(Path.join(docsDir, f), "utf8"))
)

const run = (command: string, baseUrl: string) =>
  Effect.promise(() =>
    new Promise<{ status: number; body: string }>((resolve) => {
      const line = command
        .replace(/https?:\/\/localhost:3000/g, baseUrl)
        .replace(/(^|\s)localhost:3000/g, `$1${baseUrl}`)
        .replace(/^curl /, "curl -s -w '\\n%{http_code}' --max-time 60 ")
      execFile("sh", ["-c", line], { maxBuffer: 10_000_000 }, (_err, stdout) => {
        const cut = stdout.lastIndexOf("\n")
        resolve({ status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) })
      })
    })
  )

/** Every scalar the documented value shows, compared with the answer. */
const agree = (documented: unknown, actual: unknown, path: string, problems: Array<string>) => {
  if (Array.isArray(documented) || documented === undefined) return
  if (documented !== null && typeof documented === "object") {
    if (actual === null || typeof actual !== "object") {
      return void problems.push(`${path}: documented an object, got ${JSON.stringify(actual)}`)
    }
    for (const [k, v] of Object.entries(documented)) {
      // Per request or per installation: ids, times, messages, the DNS resolver configured.
      if (k === "request_id" || k.endsWith("_at") || k === "id" || k === "message" || k === "resolver") continue
      agree(v, (actual as Record<string, unknown>)[k], `${path}.${k}`, problems)
    }
    return
  }
  if (typeof documented === "string" && (documented.includes("…") || /^\d{4}-\d\d-\d\dT/.test(documented))) return
  if (documented !== actual) {
    problems.push(`${path}: documented ${JSON.stringify(documented)}, got ${JSON.stringify(actual)}`)
  }
}

layer(TestServer.layer({ DEMO_LISTINGS: "true", RDAP_MODE: "sandbox" }), { timeout: 300_000 })(
  "docs/*.md examples",
  (it) => {
    it("the docs have self-contained examples to run", () => {
      expect(examples.length).toBeGreaterThan(10)
      expect(examples.map((e) => e.command)).toContainEqual(expect.stringContaining("/api/tools/appraise"))
      expect(examples.map((e) => e.command)).toContainEqual(expect.stringContaining("/api/market/listings?q=harbor"))
    })

    it.effect("every example answers as documented", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.TestServer
        const problems: Array<string> = []
        for (const example of examples) {
          const where = `${example.file}: ${example.command}`
          const reply = yield* run(example.command, server.baseUrl)
          if (!(reply.status >= 200 && reply.status < 500)) {
            problems.push(`${where}: status ${reply.status}`)
            continue
          }
          let documented: unknown
          try {
            documented = JSON.parse(example.documented.trim())
          } catch {
            const code = /"code":"([a-z_]+)"/.exec(example.documented)?.[1]
            if (code !== undefined && !reply.body.includes(`"code":"${code}"`)) {
              problems.push(`${where}: documented code ${code}, got ${reply.body.slice(0, 200)}`)
            }
            continue
          }
          let actual: unknown
          try {
            actual = JSON.parse(reply.body)
          } catch {
            problems.push(`${where}: documented JSON, got ${reply.body.slice(0, 200)}`)
            continue
          }
          const found: Array<string> = []
          agree(documented, actual, "", found)
          for (const p of found) problems.push(`${where}: ${p}`)
        }
        expect(problems).toEqual([])
      }))
  }
)
