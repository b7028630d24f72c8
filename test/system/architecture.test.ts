/**
 * The map of docs/architecture.md, checked on the source: no module imports another in a cycle,
 * `platform/` and `domain/` import no capability (and `domain/` no I/O), capability layers are
 * merged only in `app/`, and the handlers return what their schemas encode (no `unsafeJson`
 * outside platform/SchemaResponse.ts). Reads the files; starts nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"

const root = Path.join(import.meta.dirname, "..", "..")
const src = Path.join(root, "src")

const files = (dir: string): Array<string> =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(Path.join(dir, e.name)) : e.name.endsWith(".ts") ? [Path.join(dir, e.name)] : []
  )

const sources = new Map(files(src).map((f) => [Path.relative(src, f), Fs.readFileSync(f, "utf8")]))

/** Relative imports that load a module at run time (`import type` is erased). */
const importsOf = (file: string, text: string): Array<string> =>
  [...text.matchAll(/^(?:import|export)\s+(?!type\s)[^"';]*?from\s+"(\.[^"]+)"/gm)].map((m) =>
    Path.normalize(Path.join(Path.dirname(file), m[1]!)).replace(/\.js$/, ".ts")
  )

const graph = new Map([...sources].map(([file, text]) => [file, importsOf(file, text)]))
const top = (file: string) => file.split(Path.sep)[0]!

describe("architecture", () => {
  it("has the modules it should (the checks below see the source)", () => {
    expect(sources.size).toBeGreaterThan(200)
    expect(graph.get(Path.join("app", "Layers.ts"))?.length).toBeGreaterThan(10)
  })

  it("no module imports another in a cycle", () => {
    const state = new Map<string, "open" | "done">()
    const cycles: Array<string> = []
    const visit = (file: string, path: Array<string>) => {
      if (state.get(file) === "done") return
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].join(" → "))
        return
      }
      state.set(file, "open")
      for (const next of graph.get(file) ?? []) visit(next, [...path, file])
      state.set(file, "done")
    }
    for (const file of graph.keys()) visit(file, [])
    expect(cycles).toEqual([])
  })

  it("platform/ and domain/ import no capability; domain/ does no I/O", () => {
    const offending: Array<string> = []
    for (const [file, imports] of graph) {
      const layer = top(file)
      if (layer !== "platform" && layer !== "domain") continue
      for (const target of imports) {
        const allowed = layer === "domain" ? ["domain"] : ["platform", "domain"]
        if (!allowed.includes(top(target))) offending.push(`${file} → ${target}`)
      }
    }
    for (const [file, text] of sources) {
      if (
        top(file) === "domain" && /from "(node:(fs|net|http|https|dns)|@effect\/sql|@effect\/platform\/Http)/.test(text)
      ) {
        offending.push(`${file} does I/O`)
      }
    }
    expect(offending).toEqual([])
  })

  it("capability layers are merged only in app/ (a capability provides its own services only)", () => {
    const offending: Array<string> = []
    for (const [file, text] of sources) {
      // app/ and the entry points (src/main.ts, src/cli.ts) are where layers are put together.
      if (top(file) === "app" || !file.includes(Path.sep)) continue
      for (const m of text.matchAll(/import \{([^}]*)\} from "(\.[^"]+)"/g)) {
        const target = Path.normalize(Path.join(Path.dirname(file), m[2]!))
        if (top(target) === top(file) || top(target) === "platform") continue
        const layers = m[1]!.split(",").map((s) => s.trim()).filter((n) => /Live$/.test(n))
        for (const name of layers) offending.push(`${file} imports ${name} from ${m[2]}`)
      }
    }
    expect(offending).toEqual([])
  })

  it("answers are encoded by schemas: unsafeJson only inside platform/SchemaResponse.ts", () => {
    const users = [...sources].filter(([file, text]) =>
      text.includes("unsafeJson(") && file !== Path.join("platform", "SchemaResponse.ts")
    ).map(([file]) => file)
    expect(users).toEqual([])
  })
})
