/**
 * The map of docs/architecture.md, checked on the source: no module imports another in a cycle,
 * nor does a capability or a capability's sub-slice (partner/orders ↔ partner/ledger: a port),
 * `platform/` and `domain/` import no capability (and `domain/` no I/O), capability layers are
 * merged only in `app/`, and the handlers return what their schemas encode (no `unsafeJson`
 * outside platform/http/SchemaResponse.ts), a domain name is parsed only in domain/ and the one
 * input schema, no `as any` outside a named seam, and no file over 400 lines. Reads the files;
 * starts nothing.
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

/** Every relative import, `import type` included: a slice that names another's types depends on it. */
const allImportsOf = (file: string, text: string): Array<string> =>
  [...text.matchAll(/^(?:import|export)\s+[^"';]*?from\s+"(\.[^"]+)"/gm)].map((m) =>
    Path.normalize(Path.join(Path.dirname(file), m[1]!)).replace(/\.js$/, ".ts")
  )

/** Cycles of a directed graph given as edges "a → b" (each cycle once per starting node on it). */
const cyclesOf = (edges: Map<string, Set<string>>): Array<string> => {
  const state = new Map<string, "open" | "done">()
  const cycles: Array<string> = []
  const visit = (node: string, path: Array<string>) => {
    if (state.get(node) === "done") return
    if (state.get(node) === "open") {
      cycles.push([...path.slice(path.indexOf(node)), node].join(" → "))
      return
    }
    state.set(node, "open")
    for (const next of edges.get(node) ?? []) visit(next, [...path, node])
    state.set(node, "done")
  }
  for (const node of edges.keys()) visit(node, [])
  return cycles
}

/**
 * The dependency graph between units of the source, type imports included, `unitOf` naming a
 * file's unit (undefined: not part of the check). Each edge lists the imports that make it.
 */
const unitGraph = (unitOf: (file: string) => string | undefined) => {
  const edges = new Map<string, Set<string>>()
  const because = new Map<string, Array<string>>()
  for (const [file, text] of sources) {
    const from = unitOf(file)
    if (from === undefined) continue
    for (const target of allImportsOf(file, text)) {
      const to = unitOf(target)
      if (to === undefined || to === from) continue
      edges.set(from, (edges.get(from) ?? new Set()).add(to))
      because.set(`${from} → ${to}`, [...(because.get(`${from} → ${to}`) ?? []), `${file} → ${target}`])
    }
  }
  return { edges, because }
}

/** A cycle, with the imports behind each of its steps, so a failure says what to move. */
const explain = (because: Map<string, Array<string>>) => (cycle: string) => {
  const nodes = cycle.split(" → ")
  return [
    cycle,
    ...nodes.slice(1).map((to, i) => `  ${nodes[i]} → ${to}: ${because.get(`${nodes[i]} → ${to}`)?.join(", ")}`)
  ]
    .join("\n")
}

describe("architecture", () => {
  it("has the modules it should (the checks below see the source)", () => {
    expect(sources.size).toBeGreaterThan(200)
    expect(graph.get(Path.join("app", "Layers.ts"))?.length).toBeGreaterThan(10)
  })

  it("no module imports another in a cycle", () => {
    expect(cyclesOf(new Map([...graph].map(([file, imports]) => [file, new Set(imports)])))).toEqual([])
  })

  it("no capability depends on another in a cycle (type imports included)", () => {
    // app/ and the entry points compose everything, so they are outside the check.
    const { because, edges } = unitGraph((file) =>
      file.includes(Path.sep) && top(file) !== "app" ? top(file) : undefined
    )
    expect(edges.size).toBeGreaterThan(10)
    expect(cyclesOf(edges).map(explain(because))).toEqual([])
  })

  it("no sub-slice of a capability (partner/orders, partner/ledger, …) depends on a sibling in a cycle", () => {
    // A capability's root files are its shared kernel (Auth.ts, Errors.ts) and its composition
    // (Layer.ts, Cli.ts), which import every sub-slice: the check is between the sub-slices.
    // Data folders (catalogue/data, market/data) are inputs of their capability, not slices.
    const { because, edges } = unitGraph((file) => {
      const parts = file.split(Path.sep)
      return parts.length >= 3 && parts[0] !== "app" && parts[1] !== "data" ? `${parts[0]}/${parts[1]}` : undefined
    })
    expect(edges.get("partner/orders")?.has("partner/ledger")).toBe(true)
    expect(cyclesOf(edges).map(explain(because))).toEqual([])
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

  it("answers are encoded by schemas: unsafeJson only inside platform/http/SchemaResponse.ts", () => {
    const users = [...sources].filter(([file, text]) =>
      text.includes("unsafeJson(") && file !== Path.join("platform", "http", "SchemaResponse.ts")
    ).map(([file]) => file)
    expect(users).toEqual([])
  })

  it("a domain name is parsed in domain/ and, from a caller, in platform/http/DomainInput.ts only", () => {
    // Everywhere else a caller's name goes through DomainInput.ts (its one wording, its wires) and
    // a name the code builds through a domain/DomainName.ts helper (candidate, parseTld, suffixOf).
    const allowedFiles = [Path.join("platform", "http", "DomainInput.ts")]
    const allowedFolders = ["domain"]
    const parsing = [...sources].filter(([file, text]) =>
      text.includes("parseDomainName(") && !allowedFiles.includes(file) && !allowedFolders.includes(top(file))
    ).map(([file]) => file)
    expect(parsing).toEqual([])
  })

  it("no `as any` outside a named seam (`// seam: <why>` on the same line)", () => {
    // A seam is where the types cannot follow the code (a library's private field, a class
    // factory's Self); everywhere else a real type, a typed helper (platform/db/SqlArray.ts) or
    // `Predicate.hasProperty` says what the value is.
    const offending = [...sources].flatMap(([file, text]) =>
      text.split("\n").flatMap((line, i) =>
        /\bas any\b/.test(line) && !/\/\/ seam: \S/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []
      )
    )
    expect(offending).toEqual([])
  })

  it("no source file is over 400 lines (a reader takes a module in at one sitting)", () => {
    const long = [...sources].flatMap(([file, text]) => {
      const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0)
      return lines > 400 ? [`${file}: ${lines} lines`] : []
    })
    expect(long).toEqual([])
  })

  it("platform/ is in rooms: at most 8 files at its top level, every other file in a room", () => {
    const platform = [...sources.keys()].filter((file) => top(file) === "platform")
    const atTop = platform.filter((file) => file.split(Path.sep).length === 2)
    const rooms = new Set(platform.filter((file) => file.split(Path.sep).length === 3).map((f) => f.split(Path.sep)[1]))
    expect(atTop.length).toBeLessThanOrEqual(8)
    expect([...rooms].sort()).toEqual(["db", "http", "jobs", "observability", "openapi", "outbound", "security"])
  })

  it("handlers count no rate limit: the request guard enforces each endpoint's `rateLimited` annotation", () => {
    const counting = [...sources].filter(([file, text]) =>
      Path.basename(file) === "Http.ts" && /\b(enforceWith|RateLimiter)\b|\.consume\(/.test(text)
    ).map(([file]) => file)
    expect(counting).toEqual([])
  })

  it("test/ mirrors src/: every test folder is a source folder's (support/ and docs/ aside)", () => {
    const testRoot = Path.join(root, "test")
    const folders = (dir: string): Array<string> =>
      Fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).flatMap((e) => {
        const path = Path.join(dir, e.name)
        return [Path.relative(testRoot, path), ...folders(path)]
      })
    const strays = folders(testRoot).filter((folder) =>
      !["support", "docs"].includes(folder.split(Path.sep)[0]!) && !Fs.existsSync(Path.join(src, folder))
    )
    expect(strays).toEqual([])
  })
})
