/**
 * The OpenAPI document is good enough to generate a client from: `openapi-typescript` turns the
 * served /api/openapi.json into types, a small program calls search, listings and a signed
 * partner endpoint through them, the program type-checks (and a wrong one does not), and then it
 * runs against the server. Plus what generators rely on in the document itself: response headers,
 * Idempotency-Key, error examples by status, servers, the OAuth 2 scheme, open response schemas
 * and the webhooks section.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { promisify } from "node:util"
import ts from "typescript"
import { signRequest } from "../../src/partner-client/index.js"
import { forDeployment } from "../../src/platform/openapi/OpenApiDeployment.js"
import { get } from "../support/http.js"
import { createPartner, seedListings } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const PROGRAM = `
import type { components, paths } from "./schema"

type JsonBody<O> = O extends { requestBody?: { content: { "application/json": infer B } } } ? B : never
type Json<O, S extends number> = O extends { responses: { [K in S]: { content: { "application/json": infer R } } } } ? R : never
export type Signer = (method: string, path: string, body: string | undefined) => Record<string, string>

export async function search(base: string, q: string): Promise<number> {
  const body: JsonBody<paths["/api/domain/search"]["post"]> = { q }
  const res = await fetch(base + "/api/domain/search", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/x-ndjson" },
    body: JSON.stringify(body)
  })
  const lines = (await res.text()).split("\\n").filter((l) => l.length > 0)
  let count = -1
  for (const line of lines) {
    const event = JSON.parse(line) as components["schemas"]["SearchStreamEvent"]
    if (event.kind === "done") count = event.count
  }
  return count
}

export async function listings(base: string): Promise<Array<string>> {
  const query: NonNullable<paths["/api/market/listings"]["get"]["parameters"]["query"]> = { limit: "10" }
  const res = await fetch(base + "/api/market/listings?" + new URLSearchParams(query as Record<string, string>))
  if (res.status !== 200) throw new Error("listings: " + res.status)
  const page: Json<paths["/api/market/listings"]["get"], 200> = await res.json()
  return page.items.map((listing) => listing.domain)
}

export async function buy(base: string, sign: Signer, domain: string, price: number, key: string) {
  const order: JsonBody<paths["/api/partner/v1/orders"]["post"]> = {
    domain, expected_price: price, currency: "USD", external_payment_ref: "pay_1", buyer: { email: "b@example.org" }
  }
  const idempotency: paths["/api/partner/v1/orders"]["post"]["parameters"]["header"] = { "Idempotency-Key": key }
  const path = "/api/partner/v1/orders"
  const body = JSON.stringify(order)
  const res = await fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...idempotency, ...sign("POST", path, body) },
    body
  })
  if (res.status === 201) {
    const created: Json<paths["/api/partner/v1/orders"]["post"], 201> = await res.json()
    return { public_id: created.public_id, status: created.status, replayed: res.headers.get("Idempotent-Replayed") === "true" }
  }
  const error: Json<paths["/api/partner/v1/orders"]["post"], 400 | 409 | 429> = await res.json()
  throw new Error(error.error.code)
}
`

/** Misuses of the generated types that must not compile. */
const WRONG = `
import type { paths } from "./schema"
type JsonBody<O> = O extends { requestBody?: { content: { "application/json": infer B } } } ? B : never
export const order: JsonBody<paths["/api/partner/v1/orders"]["post"]> = { domain: "x.com", expected_price: "12", currency: "USD" }
export const headers: paths["/api/partner/v1/orders"]["post"]["parameters"]["header"] = {}
`

const typeErrors = (dir: string, file: string): Array<string> => {
  const program = ts.createProgram([join(dir, file)], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    skipLibCheck: true
  })
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))
}

const run = promisify(execFile)

layer(TestServer.layer({}))("OpenAPI for client generators", (it) => {
  it.scoped(
    "openapi-typescript generates types a search/listings/partner program compiles against, and the program runs",
    () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer.TestServer
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "openapi-client-"))),
          (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
        )
        const doc = yield* get("/api/openapi.json")
        expect(doc.status).toBe(200)
        writeFileSync(join(dir, "openapi.json"), doc.text)
        const bin = join(process.cwd(), "node_modules", ".bin", "openapi-typescript")
        yield* Effect.promise(() =>
          run(bin, [join(dir, "openapi.json"), "-o", join(dir, "schema.ts")], { timeout: 120_000 })
        )
        writeFileSync(join(dir, "program.ts"), PROGRAM)
        writeFileSync(join(dir, "wrong.ts"), WRONG)
        expect(typeErrors(dir, "program.ts")).toEqual([])
        const wrong = typeErrors(dir, "wrong.ts").join("\n")
        expect(wrong).toContain("Type 'string' is not assignable to type 'number'")
        expect(wrong).toContain("Idempotency-Key")

        // The program, compiled, against the server.
        const js = ts.transpileModule(PROGRAM, {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 }
        })
        writeFileSync(join(dir, "program.mjs"), js.outputText)
        const client: any = yield* Effect.promise(() => import(pathToFileURL(join(dir, "program.mjs")).href))
        expect(yield* Effect.promise(() => client.search(baseUrl, "generated-client.com"))).toBeGreaterThanOrEqual(1)
        expect(Array.isArray(yield* Effect.promise(() => client.listings(baseUrl)))).toBe(true)
        const cred = yield* createPartner({ scopes: ["search", "buy"] })
        yield* seedListings([{ domain: "generated-client.com", bin: 900 }])
        const sign = (method: string, path: string, body: string | undefined) =>
          signRequest({ keyId: cred.key_id, secret: cred.secret }, { method, url: path, body })
        const key = crypto.randomUUID()
        const first: any = yield* Effect.promise(() => client.buy(baseUrl, sign, "generated-client.com", 900, key))
        expect(first).toMatchObject({ replayed: false })
        const again = yield* Effect.promise(() => client.buy(baseUrl, sign, "generated-client.com", 900, key))
        expect(again).toEqual({ ...first, replayed: true })
      }),
    { timeout: 180_000 }
  )

  it.effect("the document declares headers, Idempotency-Key, status-true error examples, servers, OAuth 2 with PKCE, open responses and webhooks", () =>
    Effect.gen(function*() {
      const doc = (yield* get("/api/openapi.json")).json
      const ops = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
        Object.entries<any>(item).map(([method, op]) => ({ id: `${method.toUpperCase()} ${path}`, op }))
      )
      expect(ops.length).toBeGreaterThanOrEqual(40)
      // 1. Response headers.
      for (const { id, op } of ops) {
        for (const [status, response] of Object.entries<any>(op.responses)) {
          expect(response.headers?.["X-Request-Id"], `${id} ${status}`).toBeDefined()
          if (status === "429" || status === "503") {
            expect(response.headers["Retry-After"], `${id} ${status}`).toBeDefined()
          }
          if (status === "202" && id.includes("/api/tools/")) {
            expect(response.headers.Location, `${id} ${status}`).toBeDefined()
          }
          if (op.responses["429"] !== undefined) {
            for (const h of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"]) {
              expect(response.headers[h], `${id} ${status} ${h}`).toBeDefined()
            }
          }
        }
      }
      const createOrder = doc.paths["/api/partner/v1/orders"].post
      expect(createOrder.parameters).toContainEqual(
        expect.objectContaining({ name: "Idempotency-Key", in: "header", required: true })
      )
      expect(createOrder.responses["201"].headers["Idempotent-Replayed"]).toBeDefined()
      expect(doc.paths["/api/tools/whois"].post.parameters).toContainEqual(
        expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false })
      )
      // 2. Error examples say the codes the response really sends: a domain error's own code,
      // else the status's usual one; several errors at one status, one named example each.
      const codes = (op: any, status: string) => {
        const json = op.responses[status].content["application/json"]
        return json.example !== undefined
          ? [json.example.error.code]
          : Object.entries<any>(json.examples ?? {}).map(([name, e]) => {
            expect(e.value.error.code).toBe(name)
            return name
          })
      }
      const metadata = doc.paths["/api/tlds/{tld}/metadata"].get
      expect(codes(metadata, "400").sort()).toEqual(["invalid_tld", "validation_error"])
      expect(codes(metadata, "404")).toEqual(["tld_not_found"])
      expect(codes(metadata, "429")).toEqual(["rate_limited"])
      expect(codes(doc.paths["/api/tools/whois"].post, "401")).toEqual(["unauthorized"])
      expect(codes(createOrder, "401")).toEqual(["invalid_signature"])
      // No typed error response goes without an example (the legacy and OAuth shapes have none).
      const resolve = (schema: any): any =>
        schema?.$ref !== undefined ? doc.components.schemas[schema.$ref.split("/").pop()] : schema
      const typed = (schema: any): boolean => {
        const resolved = resolve(schema)
        const alternatives = resolved?.anyOf ?? resolved?.oneOf
        if (Array.isArray(alternatives)) return alternatives.some(typed)
        return resolved?.properties?.error?.properties?.request_id !== undefined
      }
      let checked = 0
      for (const [path, item] of Object.entries<any>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
            const json = response.content?.["application/json"]
            // `default`: the catch-all a redirect-only operation declares for the linters, not a typed error of its own.
            if (status.startsWith("2") || status === "default" || json === undefined || !typed(json.schema)) continue
            expect(json.example ?? json.examples, `${method} ${path} ${status}`).toBeDefined()
            checked++
          }
        }
      }
      expect(checked).toBeGreaterThan(100)
      // 3. Servers and the OAuth 2 scheme (admin keeps its own bearer token).
      expect(doc.servers).toEqual([
        expect.objectContaining({ url: TestServer.baseEnv.BASE_URL ?? expect.stringMatching(/^http:\/\/localhost:/) })
      ])
      const bearer = doc.components.securitySchemes.bearer
      expect(bearer.type).toBe("oauth2")
      expect(bearer.flows.authorizationCode).toMatchObject({
        authorizationUrl: "/oauth/authorize",
        tokenUrl: "/api/oauth/token"
      })
      expect(Object.keys(bearer.flows.authorizationCode.scopes)).toContain("pricing:read")
      expect(doc.components.securitySchemes.adminToken.type).not.toBe("oauth2")
      // 4. Responses tolerate added fields; request payloads still refuse unknown ones.
      expect(JSON.stringify(doc.components.schemas.PartnerOrder)).not.toContain("additionalProperties")
      expect(JSON.stringify(doc.components.schemas.NotFound)).not.toContain("additionalProperties")
      expect(doc.components.schemas.PartnerOrderRequest.additionalProperties).toBe(false)
      for (const { id, op } of ops) {
        expect(JSON.stringify(op.responses).includes("\"additionalProperties\":false"), id).toBe(false)
      }
      // 6. Success examples: each is decoded with its schema in test/platform/openapi/openapi-examples.test.ts.
      expect(doc.paths["/api/partner/v1/orders"].get.responses["200"].content["application/json"].example.orders)
        .toHaveLength(1)
      // 5. Webhooks and the NDJSON stream's events.
      expect(doc.webhooks.partnerEvent.post.requestBody.content["application/json"].schema.$ref).toBe(
        "#/components/schemas/WebhookEvent"
      )
      expect(doc.components.schemas.WebhookEvent.properties.type.enum).toContain("order.recorded")
      expect(doc.components.schemas.SearchStreamEvent.oneOf).toHaveLength(4)

      // Deployment facts (OpenApiDocumentLive): servers is BASE_URL, configured deprecations are marked.
      const deployed = forDeployment(doc, {
        baseUrl: "https://api.example.test",
        deprecations: {
          "catalogue.getTldPrice": {
            deprecatedAt: new Date("2026-10-01T00:00:00Z"),
            sunsetAt: new Date("2027-03-01T00:00:00Z"),
            link: "https://example.com/m"
          }
        }
      })
      expect(deployed.servers).toEqual([expect.objectContaining({ url: "https://api.example.test" })])
      const deprecated = ops.filter(({ op }) => op.operationId === "catalogue.getTldPrice")
      expect(deprecated).toHaveLength(1)
      const marked = Object.values<any>(deployed.paths).flatMap((item) => Object.values<any>(item)).filter((op) =>
        op.deprecated === true
      )
      expect(marked.map((op) => op.operationId)).toEqual(["catalogue.getTldPrice"])
    }))
})
