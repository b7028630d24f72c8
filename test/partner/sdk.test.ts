/**
 * The installable partner SDK (packages/partner-sdk), used the way a partner would: packed with
 * `npm pack`, installed from the tarball into a separate project (no Effect, no repository code),
 * type-checked there, and run against a real server: search, a quote and an order (a retried
 * order is recorded once), cursor iteration, events, an issued webhook secret and a delivery
 * verified with `verifyWebhook`. Retries honour Retry-After with a fresh nonce and one
 * Idempotency-Key, against a loopback server that fails first. Its canonical query matches the
 * server's for any input (property test). Every operation's method, the README example and the
 * Postman collection (run by newman): test/partner/sdk-operations.test.ts.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { canonicalQuery as sdkCanonicalQuery, signRequest as sdkSign } from "../../packages/partner-sdk/src/index.js"
import { canonicalQuery, canonicalString, EMPTY_BODY_SHA256, verifySignature } from "../../src/domain/PartnerSigning.js"
import { createPartner, seedListings } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"
import { webhookReceiver } from "../support/WebhookReceiver.js"

const root = Path.resolve(import.meta.dirname, "../..")
const sdkDir = Path.join(root, "packages/partner-sdk")
const project = Fs.mkdtempSync(Path.join(Os.tmpdir(), "sdk-project-"))

const run = (cmd: string, args: ReadonlyArray<string>, cwd: string) =>
  new Promise<string>((resolve, reject) =>
    execFile(
      cmd,
      [...args],
      { cwd, env: { ...process.env, npm_config_update_notifier: "false" } },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${cmd} ${args.join(" ")} failed:\n${stdout}${stderr}`)) : resolve(stdout)
    )
  )

const PROGRAM =
  `import { PartnerApiError, PartnerClient, verifyWebhook, type Order } from "@domain-marketplace/partner-sdk"
const client = new PartnerClient({ baseUrl: "http://127.0.0.1:1", keyId: "pk_sandbox_x", secret: "sk_x" })
export const ids = async (): Promise<Array<string>> => {
  const out: Array<string> = []
  for await (const order of client.orders({ status: "SETTLED" })) out.push(order.public_id)
  return out
}
export const check = (e: unknown): string | undefined => (e instanceof PartnerApiError ? e.code : undefined)
export const first = (o: Order): number => o.sale_price_cents
export const verify = verifyWebhook
`

// npm pack (its prepack compiles the SDK) → a separate project installs the tarball offline.
type Sdk = typeof import("../../packages/partner-sdk/src/index.js")
let installed: Promise<Sdk> | undefined
const installSdk = () => (installed ??= (async () => {
  const packed = await run("npm", ["pack", "--json", "--pack-destination", project], sdkDir)
  const tarball = Path.join(project, JSON.parse(packed)[0].filename)
  Fs.writeFileSync(
    Path.join(project, "package.json"),
    JSON.stringify({ name: "partner-app", private: true, type: "module" })
  )
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], project)
  Fs.writeFileSync(Path.join(project, "app.ts"), PROGRAM)
  Fs.writeFileSync(
    Path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2022",
        lib: ["ES2022", "DOM"],
        noEmit: true,
        skipLibCheck: false,
        types: []
      },
      files: ["app.ts"]
    })
  )
  const entry = Path.join(project, "node_modules/@domain-marketplace/partner-sdk/dist/index.js")
  return (await import(pathToFileURL(entry).href)) as Sdk
})())

describe("the partner SDK package", () => {
  it(
    "installs from its packed tarball with no dependencies, and a partner's TypeScript program type-checks against it",
    async () => {
      await installSdk()
      const manifest = JSON.parse(
        Fs.readFileSync(Path.join(project, "node_modules/@domain-marketplace/partner-sdk/package.json"), "utf8")
      )
      expect(manifest.dependencies ?? {}).toEqual({})
      expect(Fs.existsSync(Path.join(project, "node_modules/effect"))).toBe(false)
      await run(process.execPath, [Path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], project)
    },
    300_000
  )

  it("its canonical query and signature agree with the server's for any query", () => {
    return fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 6 }), async (pairs) => {
        const raw = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")
        expect(sdkCanonicalQuery(raw)).toBe(canonicalQuery(raw))
        const headers = await sdkSign({ keyId: "pk_x", secret: "sk_secret" }, {
          method: "GET",
          url: `/api/partner/v1/orders?${raw}`
        })
        const canonical = canonicalString({
          method: "GET",
          path: "/api/partner/v1/orders",
          query: raw,
          timestamp: headers["x-service-timestamp"],
          nonce: headers["x-service-nonce"],
          bodySha256: EMPTY_BODY_SHA256
        })
        expect(verifySignature("sk_secret", canonical, headers["x-service-signature"])).toBe(true)
      }),
      { numRuns: 200 }
    )
  })

  it("retries 503 and 429 honouring Retry-After, signing each attempt afresh, with one Idempotency-Key", async () => {
    const sdk = await installSdk()
    const seen: Array<Http.IncomingHttpHeaders> = []
    const server = Http.createServer((req, res) => {
      seen.push(req.headers)
      req.resume()
      req.on("end", () => {
        if (seen.length === 1) {
          return res.writeHead(503, { "retry-after": "1", "content-type": "application/json" }).end(
            `{"error":{"code":"unavailable","message":"later"}}`
          )
        }
        if (seen.length === 2) return res.writeHead(429, { "retry-after": "1" }).end()
        res.writeHead(201, { "content-type": "application/json" }).end(`{"public_id":"ord_1"}`)
      })
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    try {
      const client = new sdk.PartnerClient({
        baseUrl: `http://127.0.0.1:${(server.address() as any).port}`,
        keyId: "pk_sandbox_x",
        secret: "sk_x"
      })
      const started = Date.now()
      const order = await client.createOrder({
        domain: "a.com",
        expected_price: 1,
        currency: "USD",
        external_payment_ref: "p",
        buyer: { email: "a@b.co" }
      })
      expect(order).toEqual({ public_id: "ord_1" })
      expect(seen).toHaveLength(3)
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900)
      expect(new Set(seen.map((h) => h["x-service-nonce"])).size).toBe(3)
      expect(new Set(seen.map((h) => h["idempotency-key"])).size).toBe(1)
      expect(seen[0]["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/)
    } finally {
      server.close()
    }
  }, 60_000)
})

layer(TestServer.layer({ OUTBOUND_ALLOW_LOOPBACK: "true", WEBHOOK_POLL_INTERVAL: "100 millis" }), { timeout: 300_000 })(
  "the partner SDK against the service",
  (it) => {
    it.scoped("search, quote, an order retried with its key recorded once, every page of orders, events, and a verified webhook", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer.TestServer
        const sdk = yield* Effect.promise(installSdk)
        const domains = ["sdkcoffee.com", "sdkcoffee.net", "sdkcoffee.org", "sdkcoffee.io"]
        yield* seedListings(domains.map((domain) => ({ domain, bin: 2500 })))
        const cred = yield* createPartner({ scopes: ["search", "buy", "webhook"] })
        const client = new sdk.PartnerClient({ baseUrl, keyId: cred.key_id, secret: cred.secret })
        const receiver = yield* webhookReceiver()
        const endpoint = yield* Effect.promise(() => client.registerWebhook({ url: receiver.url }))
        expect(endpoint.secret).toMatch(/^whsec_/)

        const found = yield* Effect.promise(() => client.search("sdkcoffee"))
        expect(found.results.map((r: any) => r.domain)).toContain("sdkcoffee.com")
        expect((yield* Effect.promise(() => client.availability("sdkcoffee.com"))).price_cents).toBe(2500)
        const quote = yield* Effect.promise(() => client.createQuote("sdkcoffee.com"))
        const order = {
          domain: "sdkcoffee.com",
          expected_price: 2500,
          currency: "USD",
          external_payment_ref: "pay-1",
          buyer: { email: "b@example.org" },
          quote_id: quote.quote_id
        }
        const a = yield* Effect.promise(() => client.createOrder(order, { idempotencyKey: "sdk-order-1" }))
        const b = yield* Effect.promise(() => client.createOrder(order, { idempotencyKey: "sdk-order-1" }))
        expect(b.public_id).toBe(a.public_id)
        const { quote_id: _quote, ...unquoted } = order
        for (const domain of domains.slice(1)) {
          yield* Effect.promise(() =>
            client.createOrder({ ...unquoted, domain, external_payment_ref: `pay-${domain}` })
          )
        }
        const listed: Array<string> = []
        const paged = new sdk.PartnerClient({ baseUrl, keyId: cred.key_id, secret: cred.secret })
        const original = paged.listOrders.bind(paged)
        let pages = 0
        paged.listOrders = (filter: any) => (pages++, original({ ...filter, limit: 2 }))
        for (
          const o of yield* Effect.promise(async () => {
            const out: Array<any> = []
            for await (const x of paged.orders()) out.push(x)
            return out
          })
        ) listed.push(o.domain)
        expect(listed.sort()).toEqual([...domains].sort())
        expect(pages).toBeGreaterThanOrEqual(2)

        const error = yield* Effect.promise(() =>
          client.getOrder("ord_doesnotexist").then(() => undefined, (e: unknown) => e)
        )
        expect(error).toBeInstanceOf(sdk.PartnerApiError)
        expect((error as any).status).toBe(404)
        expect((error as any).requestId).toMatch(/^req_/)

        const events: Array<any> = []
        yield* Effect.promise(async () => {
          for await (const e of client.events()) events.push(e)
        })
        expect(events.filter((e) => e.type === "order.recorded")).toHaveLength(4)

        const [delivery] = yield* receiver.waitFor(1, 30_000)
        const verified = yield* Effect.promise(() =>
          sdk.verifyWebhook({ secret: endpoint.secret!, body: delivery.body, headers: delivery.headers as any })
        )
        expect(verified).toMatchObject({ ok: true, scheme: "standard-webhooks" })
        const tampered = yield* Effect.promise(() =>
          sdk.verifyWebhook({
            secret: endpoint.secret!,
            body: delivery.body.replace("order", "0rder"),
            headers: delivery.headers as any
          })
        )
        expect(tampered.ok).toBe(false)
        const late = yield* Effect.promise(() =>
          sdk.verifyWebhook({
            secret: endpoint.secret!,
            body: delivery.body,
            headers: delivery.headers as any,
            now: Date.now() + 600_000
          })
        )
        expect(late).toMatchObject({ ok: false })
      }))
  }
)
