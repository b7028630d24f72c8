/**
 * The partner kit, generated from the service's OpenAPI document (the one GET /api/openapi.json
 * serves, built here from `src/app/Api.ts` without a server):
 *
 * - `packages/partner-sdk/src/openapi.ts`: the TypeScript types of every Partner API operation
 *   (openapi-typescript over the partner paths only; examples, response headers and error
 *   responses left out), which the SDK's methods are typed with;
 * - `packages/partner-sdk/postman/partner-api.postman_collection.json` and
 *   `partner-api.postman_environment.json`: one request per partner operation, signed by the
 *   pre-request script `postman/signing.js`, in an order that runs top to bottom against a fresh
 *   sandbox credential (each step stores the ids the next ones use).
 *
 * `npm run -s generate:partner-kit` writes them; test/partner/sdk-coverage.test.ts fails when a
 * checked-in file differs from what this produces, or when an operation has no request.
 * Contract: every partner operation needs an entry in REQUESTS below (the generator refuses to
 * run without one), and every value in the collection is ASCII (newman sends them as headers).
 */
import * as OpenApi from "@effect/platform/OpenApi"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import openapiTS, { astToString } from "openapi-typescript"
import { Api } from "../src/app/Api.js"
import { sandboxListings } from "../src/market/data/index.js"

type Json = Record<string, any>

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
export const sdkDir = Path.join(root, "packages/partner-sdk")
export const files = {
  types: Path.join(sdkDir, "src/openapi.ts"),
  collection: Path.join(sdkDir, "postman/partner-api.postman_collection.json"),
  environment: Path.join(sdkDir, "postman/partner-api.postman_environment.json"),
  signing: Path.join(sdkDir, "postman/signing.js")
}

const METHODS = ["get", "put", "post", "delete", "patch"] as const

export const isPartnerPath = (path: string) => path.startsWith("/api/partner/")

export interface PartnerOperation {
  readonly key: string
  readonly method: string
  readonly path: string
  readonly operation: Json
}

/** Every operation of the Partner API in a document, as `METHOD /path` keys. */
export const partnerOperations = (spec: Json): ReadonlyArray<PartnerOperation> =>
  Object.entries<Json>(spec.paths ?? {}).filter(([path]) => isPartnerPath(path)).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((m) => ({
      key: `${m.toUpperCase()} ${path}`,
      method: m.toUpperCase(),
      path,
      operation: item[m]
    }))
  )

/** The document the service serves, minus the deployment facts (servers, deprecations). */
export const serviceDocument = (): Json => OpenApi.fromApi(Api) as Json

const refsIn = (value: unknown, into: Set<string>) => {
  if (Array.isArray(value)) { for (const v of value) refsIn(v, into) }
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") into.add(v.replace("#/components/schemas/", ""))
      else refsIn(v, into)
    }
  }
}

const withoutKeys = (value: unknown, drop: ReadonlySet<string>): unknown =>
  Array.isArray(value)
    ? value.map((v) => withoutKeys(v, drop))
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).filter(([k]) => !drop.has(k)).map(([k, v]) => [k, withoutKeys(v, drop)]))
    : value

/** The partner paths only, with what the SDK's types need: 2xx responses, no examples or headers. */
export const partnerDocument = (spec: Json): Json => {
  const paths: Json = {}
  for (const { method, operation, path } of partnerOperations(spec)) {
    const responses = Object.fromEntries(
      Object.entries<Json>(operation.responses).filter(([status]) => /^2/.test(status)).map((
        [status, r]
      ) => [status, { description: r.description, ...(r.content ? { content: r.content } : {}) }])
    )
    const parameters = (operation.parameters ?? []).filter((p: Json) => p.in !== "header")
    paths[path] ??= {}
    paths[path][method.toLowerCase()] = {
      operationId: operation.operationId,
      summary: operation.summary,
      ...(operation.description ? { description: operation.description } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(operation.requestBody ? { requestBody: operation.requestBody } : {}),
      responses
    }
  }
  const trimmed = withoutKeys(paths, new Set(["example", "examples"])) as Json
  const needed = new Set<string>()
  refsIn(trimmed, needed)
  const all = spec.components?.schemas ?? {}
  for (let grew = true; grew;) {
    grew = false
    for (const name of [...needed]) {
      const before = needed.size
      refsIn(all[name], needed)
      if (needed.size > before) grew = true
    }
  }
  const schemas = Object.fromEntries(
    [...needed].sort().map((name) => [name, withoutKeys(all[name], new Set(["example", "examples"]))])
  )
  return {
    openapi: spec.openapi,
    info: { title: "Partner API", version: spec.info.version },
    paths: trimmed,
    components: { schemas }
  }
}

/** The source of packages/partner-sdk/src/openapi.ts. */
export const sdkTypesSource = async (spec: Json): Promise<string> => {
  const ast = await openapiTS(partnerDocument(spec) as any, { immutable: true, alphabetize: false })
  return [
    "/**",
    " * Generated by `npm run -s generate:partner-kit` (scripts/partner-kit.ts) from the service's",
    ` * OpenAPI document (info.version ${spec.info.version}), Partner API paths only. Do not edit.`,
    " */",
    "/* eslint-disable */",
    astToString(ast).trimEnd(),
    ""
  ].join("\n")
}

// ---------------------------------------------------------------------------------------------
// Postman

/** Sandbox names that exist on every installation (src/market/data: the synthetic inventory). */
const buyable = sandboxListings.filter((l) => l.binPriceCents !== null && !l.locked && l.status === "active")
const [firstName, secondName] = [buyable[0], buyable[1]]

interface RequestSpec {
  /** Query values (`{{var}}` allowed); optional parameters left out are listed, disabled. */
  readonly query?: Record<string, string>
  readonly path?: Record<string, string>
  readonly body?: Json
  /** Postman test script lines (store ids for the next requests, check the status). */
  readonly test?: ReadonlyArray<string>
  readonly note?: string
}

const store = (variable: string, expr: string) => [
  `if (pm.response.code < 300) pm.collectionVariables.set(${JSON.stringify(variable)}, ${expr})`
]
const ok = (status: number) => [
  `pm.test("status ${status}", () => pm.expect(pm.response.code, pm.response.text()).to.equal(${status}))`
]

/**
 * Runner order and sandbox values per operation. The collection runs top to bottom against a
 * fresh sandbox credential with every scope and the affiliate flag: the search picks two
 * buy-now names, the brokerage walk produces a settled sale, so the settlement exists.
 */
const REQUESTS: ReadonlyArray<readonly [string, RequestSpec]> = [
  ["GET /api/partner/v1/domains/search", {
    query: { q: "garden" },
    test: [
      ...ok(200),
      "const buyable = pm.response.json().results.filter((r) => r.available && r.bin_price_cents !== null)",
      "if (buyable[0]) pm.collectionVariables.set(\"domain\", buyable[0].domain)",
      "if (buyable[1]) pm.collectionVariables.set(\"domain2\", buyable[1].domain)",
      "pm.collectionVariables.set(\"brokerage_domain\", \"postman-\" + Date.now() + \".com\")"
    ],
    note: "Stores the first two buy-now results as {{domain}} and {{domain2}}, and a new unlisted name to broker."
  }],
  ["GET /api/partner/v1/domains/{name}", { path: { name: "{{domain}}" }, test: ok(200) }],
  ["GET /api/partner/v1/availability", { query: { domain: "{{domain}}" }, test: ok(200) }],
  ["GET /api/partner/v1/pricing", { query: { domain: "{{domain}}" }, test: ok(200) }],
  ["POST /api/partner/v1/quotes", {
    body: { domain: "{{domain}}" },
    test: [
      ...ok(201),
      ...store("quote_id", "pm.response.json().quote_id"),
      ...store("price_cents", "pm.response.json().price_cents")
    ]
  }],
  ["POST /api/partner/v1/orders", {
    body: {
      domain: "{{domain}}",
      quote_id: "{{quote_id}}",
      expected_price: "{{price_cents}}",
      currency: "USD",
      external_payment_ref: "pay_postman_{{price_cents}}",
      buyer: { email: "buyer@example.org", name: "Sandbox Buyer", country: "US" }
    },
    test: [...ok(201), ...store("order_id", "pm.response.json().public_id")]
  }],
  ["GET /api/partner/v1/orders/{public_id}", { path: { public_id: "{{order_id}}" }, test: ok(200) }],
  ["GET /api/partner/v1/orders", { query: { limit: "25" }, test: ok(200) }],
  ["PUT /api/partner/v1/orders/{public_id}/delivery", {
    path: { public_id: "{{order_id}}" },
    body: { method: "auth_code" },
    test: [
      "pm.test(\"200, or 409 once the delivery started\", () => pm.expect([200, 409]).to.include(pm.response.code))"
    ],
    note: "Say where the name goes before its delivery starts (docs/fulfilment.md); 409 once it has."
  }],
  ["GET /api/partner/v1/orders/{public_id}/delivery/auth-code", {
    path: { public_id: "{{order_id}}" },
    query: { token: "{{auth_code_token}}" },
    test: ["pm.test(\"answered\", () => pm.expect([200, 400, 404, 410]).to.include(pm.response.code))"],
    note: "The token is the retrieve_url's, from a transfer.auth_code_ready event; shown once."
  }],
  ["POST /api/partner/v1/refunds", {
    body: { order_id: "{{order_id}}", reason: "buyer changed their mind" },
    test: ok(201)
  }],
  ["GET /api/partner/v1/brokerage/eligibility", { query: { domain: "{{brokerage_domain}}" }, test: ok(200) }],
  ["POST /api/partner/v1/brokerage", {
    body: {
      domain: "{{brokerage_domain}}",
      tier: "managed",
      buyer_email: "buyer@example.org",
      budget: 500000,
      notes: "Sandbox case from the Postman collection"
    },
    test: [...ok(201), ...store("case_id", "pm.response.json().id")]
  }],
  ["GET /api/partner/v1/brokerage/{id}", { path: { id: "{{case_id}}" }, test: ok(200) }],
  ["GET /api/partner/v1/brokerage", { query: { limit: "25" }, test: ok(200) }],
  ["POST /api/partner/v1/sandbox/brokerage/{id}/advance", {
    path: { id: "{{case_id}}" },
    test: [
      ...ok(200),
      "const c = pm.response.json()",
      "if (c.status !== \"closed_won\") pm.execution.setNextRequest(pm.info.requestName)",
      "else pm.collectionVariables.set(\"brokerage_order_id\", c.order_id)"
    ],
    note:
      "In the runner, repeats until the case is closed_won (5 steps) and stores its order as {{brokerage_order_id}}."
  }],
  ["POST /api/partner/v1/sandbox/orders/{public_id}/advance", {
    path: { public_id: "{{brokerage_order_id}}" },
    test: ok(200),
    note: "The won brokerage sale is TRANSFER_COMPLETED: this step settles it (a statement appears)."
  }],
  ["GET /api/partner/v1/settlements", {
    query: { limit: "25" },
    test: [
      ...ok(200),
      "const s = pm.response.json().settlements[0]",
      "if (s) pm.collectionVariables.set(\"settlement_id\", s.id)"
    ]
  }],
  ["GET /api/partner/v1/settlements/{id}", { path: { id: "{{settlement_id}}" }, test: ok(200) }],
  ["GET /api/partner/v1/settlements/{id}.csv", { path: { id: "{{settlement_id}}" }, test: ok(200) }],
  ["GET /api/partner/v1/transactions", { query: { limit: "25" }, test: ok(200) }],
  ["GET /api/partner/v1/transactions.csv", { query: { payment_model: "brokerage" }, test: ok(200) }],
  ["GET /api/partner/v1/payouts", { query: { limit: "25" }, test: ok(200) }],
  ["GET /api/partner/v1/me/payouts", { query: { limit: "25" }, test: ok(200) }],
  ["POST /api/partner/v1/links", {
    body: { kind: "domain", domain: "{{domain2}}", campaign: "postman" },
    test: [...ok(201), ...store("link_id", "pm.response.json().id")]
  }],
  ["GET /api/partner/v1/links", { query: { limit: "25" }, test: ok(200) }],
  ["GET /api/partner/v1/me/clicks", { query: { link_id: "{{link_id}}" }, test: ok(200) }],
  ["GET /api/partner/v1/me/sales", { query: { limit: "25" }, test: ok(200) }],
  ["GET /api/partner/v1/me/commissions", { query: { limit: "25" }, test: ok(200) }],
  ["GET /api/partner/v1/analytics", { test: ok(200) }],
  ["POST /api/partner/v1/checkout-session", {
    body: {
      domain: "{{domain2}}",
      buyer_email: "buyer@example.org",
      return_url: "https://example.org/thanks",
      cancel_url: "https://example.org/cart",
      reference: "postman-collection"
    },
    test: [...ok(201), ...store("checkout_session_id", "pm.response.json().id")]
  }],
  ["GET /api/partner/v1/checkout-session/{id}", { path: { id: "{{checkout_session_id}}" }, test: ok(200) }],
  ["PUT /api/partner/webhooks", { body: { url: "{{webhookUrl}}" }, test: ok(200) }],
  ["GET /api/partner/webhooks", { test: ok(200) }],
  ["POST /api/partner/webhooks/test", {
    test: [...ok(202), ...store("event_id", "pm.response.json().event_id")]
  }],
  ["GET /api/partner/v1/webhook-deliveries", { query: { limit: "25" }, test: ok(200) }],
  ["POST /api/partner/v1/webhook-deliveries/redeliver", { body: { event_id: "{{event_id}}" }, test: ok(202) }],
  ["GET /api/partner/v1/events", { query: { limit: "50" }, test: ok(200) }],
  ["DELETE /api/partner/webhooks", { test: ok(204) }]
]

const ascii = (s: string) =>
  s.replace(/[\u2026]/g, "...").replace(/[\u2013\u2014]/g, "-").replace(/\u2192/g, "->").replace(
    /[\u2018\u2019]/g,
    "'"
  ).replace(/[\u201C\u201D]/g, "\"").replace(/\u2265/g, ">=").replace(/\u2264/g, "<=").replace(/\u00D7/g, "x")
    .replace(/[^\x00-\x7f]/g, "?")

const sampleBody = (body: Json) =>
  // Numbers given as "{{var}}" are written unquoted, so the body stays valid JSON once replaced.
  JSON.stringify(body, null, 2).replace(/"(\{\{price_cents\}\})"/g, "$1")

export const VARIABLES: ReadonlyArray<readonly [string, string, string]> = [
  ["baseUrl", "http://localhost:3000", "The service origin"],
  ["keyId", "pk_sandbox_REPLACE_ME", "Your sandbox key id (npm run -s cli -- partner create ... --env sandbox)"],
  ["secret", "sk_REPLACE_ME", "Your API secret (shown once when the credential was created)"],
  ["webhookUrl", "https://example.org/hooks", "Where webhooks go (HTTPS; a request bin works)"],
  ["domain", firstName.domain, "A sandbox buy-now name; the Search request stores the first one it finds"],
  ["domain2", secondName.domain, "A second sandbox buy-now name (links, checkout)"],
  [
    "brokerage_domain",
    "postman-example-brokerage.com",
    "An unlisted name to broker; the Search request picks a new one"
  ],
  ["quote_id", "", "Set by Create quote"],
  ["price_cents", String(firstName.binPriceCents), "Set by Create quote"],
  ["order_id", "", "Set by Create order"],
  ["case_id", "", "Set by the brokerage case request"],
  ["brokerage_order_id", "", "Set when the sandbox brokerage walk wins"],
  ["settlement_id", "", "Set by List settlements"],
  ["link_id", "", "Set by Create link"],
  ["checkout_session_id", "", "Set by Create checkout session"],
  ["event_id", "", "Set by Test webhook"]
]

const CREDENTIALS = new Set(["baseUrl", "keyId", "secret", "webhookUrl"])

/** The Postman collection (v2.1) and its environment. */
export const postmanCollection = (spec: Json): { collection: Json; environment: Json } => {
  const operations = new Map(partnerOperations(spec).map((o) => [o.key, o]))
  const missing = [...operations.keys()].filter((k) => !REQUESTS.some(([key]) => key === k))
  if (missing.length > 0) throw new Error(`No Postman request for: ${missing.join(", ")} (add them to REQUESTS)`)
  const stale = REQUESTS.filter(([key]) => !operations.has(key)).map(([key]) => key)
  if (stale.length > 0) throw new Error(`REQUESTS names operations the document does not have: ${stale.join(", ")}`)
  const script = Fs.readFileSync(files.signing, "utf8").trimEnd().split("\n")

  const folders = new Map<string, Array<Json>>()
  for (const [key, r] of REQUESTS) {
    const { method, operation, path } = operations.get(key)!
    const params: ReadonlyArray<Json> = operation.parameters ?? []
    const query = params.filter((p) => p.in === "query").map((p) => {
      const value = r.query?.[p.name]
      return {
        key: p.name,
        value: value ?? "",
        ...(value === undefined ? { disabled: true } : {}),
        ...(p.description ? { description: ascii(p.description) } : {})
      }
    })
    const segments = path.split("/").filter(Boolean).map((s) =>
      s.replace(/\{(\w+)\}/g, (_, name: string) => {
        const value = r.path?.[name]
        if (value === undefined) throw new Error(`${key}: no value for path parameter ${name}`)
        return value
      })
    )
    const active = query.filter((q) => !("disabled" in q))
    const raw = `{{baseUrl}}/${segments.join("/")}${
      active.length > 0 ? `?${active.map((q) => `${q.key}=${q.value}`).join("&")}` : ""
    }`
    const body = operation.requestBody === undefined && r.body === undefined ? undefined : r.body ?? {}
    const tag: string = operation.tags?.[0] ?? "Partner"
    const description = [operation.description, r.note, `operationId: ${operation.operationId}`].filter(Boolean)
      .join("\n\n")
    const item = {
      name: ascii(operation.summary ?? operation.operationId),
      request: {
        method,
        description: ascii(description),
        header: body === undefined ? [] : [{ key: "Content-Type", value: "application/json" }],
        url: { raw, host: ["{{baseUrl}}"], path: segments, ...(query.length > 0 ? { query } : {}) },
        ...(body === undefined ?
          {} :
          { body: { mode: "raw", raw: sampleBody(body), options: { raw: { language: "json" } } } })
      },
      ...(r.test ? { event: [{ listen: "test", script: { type: "text/javascript", exec: [...r.test] } }] } : {})
    }
    const short = tag.replace(/^Partner:\s*/, "")
    const name = ascii(short.charAt(0).toUpperCase() + short.slice(1))
    folders.set(name, [...(folders.get(name) ?? []), item])
  }
  const collection = {
    info: {
      name: "Domain marketplace - Partner API",
      description: ascii(
        `Every Partner API operation (OpenAPI ${spec.info.version}), generated from the service's OpenAPI document by ` +
          "scripts/partner-kit.ts. The collection's pre-request script signs every request (X-Service-* headers, " +
          "scheme v1) and gives writes an Idempotency-Key. Set baseUrl, keyId and secret (environment or collection " +
          "variables). Run it top to bottom against a sandbox credential with every scope and --affiliate: each " +
          "request stores the ids the next ones use."
      ),
      schema: "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
    },
    variable: VARIABLES.map(([key, value, description]) => ({ key, value, description })),
    event: [{ listen: "prerequest", script: { type: "text/javascript", exec: script } }],
    item: [...folders].map(([name, item]) => ({ name, item }))
  }
  const environment = {
    name: "Domain marketplace sandbox",
    values: VARIABLES.filter(([key]) => CREDENTIALS.has(key)).map(([key, value]) => ({
      key,
      value,
      type: key === "secret" ? "secret" : "default",
      enabled: true
    }))
  }
  return { collection, environment }
}

const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n"

/** Every generated file with its expected content. */
export const generate = async (): Promise<ReadonlyArray<readonly [string, string]>> => {
  const spec = serviceDocument()
  const { collection, environment } = postmanCollection(spec)
  return [
    [files.types, await sdkTypesSource(spec)],
    [files.collection, json(collection)],
    [files.environment, json(environment)]
  ]
}

if (process.argv[1] !== undefined && Path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const [file, content] of await generate()) {
    Fs.writeFileSync(file, content)
    console.log(`${Path.relative(root, file)} written`)
  }
}
