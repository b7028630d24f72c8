/**
 * The user-facing Markdown pages of `docs/` (not INTERNAL_PAGES), read once at start-up (served at `/docs/<page>.md`, as MCP
 * resources, and in `/llms.txt` / `/llms-full.txt`). The build copies them into `dist/docs/`
 * (scripts/build.mjs), so every build finds them beside itself, wherever it runs.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const here = Path.dirname(fileURLToPath(import.meta.url))
/** `docs/` beside `src/` (tsx), or `dist/docs/` in a build (which runs as `dist/src/mcp/Docs.js`). */
export const docsDir = Path.resolve(here, "../../docs")

export interface DocPage {
  /** File name without `.md`, e.g. `search`. */
  readonly name: string
  readonly title: string
  /** The first paragraph after the title, on one line. */
  readonly summary: string
  readonly markdown: string
}

const PAGE_NAME = /^[a-z0-9][a-z0-9-]*$/

/**
 * Pages for the operator and this service's developers (the code map, deployment and secrets):
 * they ship in the repository and the image but are never served, nor listed to agents.
 */
export const INTERNAL_PAGES: ReadonlySet<string> = new Set(["architecture", "operations"])

const parse = (name: string, markdown: string): DocPage => {
  const lines = markdown.split("\n")
  const titleLine = lines.find((l) => l.startsWith("# "))
  const title = titleLine !== undefined ? titleLine.slice(2).trim() : name
  const start = titleLine !== undefined ? lines.indexOf(titleLine) + 1 : 0
  const paragraph: Array<string> = []
  for (const line of lines.slice(start)) {
    if (line.trim() === "") {
      if (paragraph.length > 0) break
      continue
    }
    if (line.startsWith("#") || line.startsWith("|") || line.startsWith("```")) {
      if (paragraph.length > 0) break
      continue
    }
    paragraph.push(line.trim())
  }
  return { name, title, summary: paragraph.join(" "), markdown }
}

/** The pages, agents' guide first, then alphabetical. */
export const loadDocs = (dir: string = docsDir): ReadonlyArray<DocPage> => {
  let files: Array<string>
  try {
    files = Fs.readdirSync(dir).filter((f) =>
      f.endsWith(".md") && PAGE_NAME.test(f.slice(0, -3)) && !INTERNAL_PAGES.has(f.slice(0, -3))
    )
  } catch {
    return []
  }
  return files
    .map((f) => parse(f.slice(0, -3), Fs.readFileSync(Path.join(dir, f), "utf8")))
    .sort((a, b) => (a.name === "agents" ? -1 : b.name === "agents" ? 1 : a.name.localeCompare(b.name)))
}
