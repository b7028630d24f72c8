/**
 * The authorization page in a real browser (headless Chromium via playwright-core): sign in
 * through the form, allow on the consent screen, land on the client's redirect URI with a code
 * that exchanges for tokens. Skipped, with a message, where /usr/bin/chromium is absent
 * (`apt-get install -y chromium`; .ci/run installs it).
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { hasChromium, launch, warnIfNoChromium } from "../support/Browser.js"
import {
  authorizeQuery,
  createTestUser,
  pkcePair,
  registerClient,
  serverAtBaseUrl,
  tokenRequest
} from "../support/identity.js"
import { TestServer } from "../support/TestServer.js"

warnIfNoChromium("consent-browser")

/** The client's redirect URI: a loopback server recording what the browser lands on. */
const callbackServer = Effect.acquireRelease(
  Effect.async<{ url: string; hits: Array<URL> }>((resume) => {
    const hits: Array<URL> = []
    const server = createServer((req, res) => {
      hits.push(new URL(req.url!, "http://127.0.0.1"))
      res.writeHead(200, { "content-type": "text/html" }).end(
        "<!doctype html><title>client</title><p>Back at the client.</p>"
      )
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed(Object.assign({ url: `http://127.0.0.1:${port}/callback`, hits }, { server })))
    })
  }),
  (s) => Effect.promise(() => new Promise<void>((resolve) => (s as any).server.close(() => resolve())))
)

describe.skipIf(!hasChromium)("consent page in headless Chromium", () => {
  layer(serverAtBaseUrl(), { timeout: 120_000 })("authorize", (it) => {
    it.scoped("sign in, allow, land on the redirect URI with code, state and iss; the code exchanges for tokens", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const user = yield* createTestUser()
        const callback = yield* callbackServer
        const browser = yield* launch
        const clientId = yield* registerClient([callback.url], "Browser Test App")
        const { challenge, verifier } = pkcePair()
        const authorizeUrl = `${baseUrl}/oauth/authorize?${
          authorizeQuery({
            clientId,
            challenge,
            redirectUri: callback.url,
            state: "browser-state",
            scopes: ["pricing:read"]
          })
        }`

        const landed = yield* Effect.promise(async () => {
          const page = await browser.newPage()
          await page.goto(authorizeUrl)
          expect(await page.textContent("h1")).toContain("Sign in")
          expect(await page.textContent("main")).toContain("Browser Test App")
          await page.fill("#email", user.email)
          await page.fill("#password", user.password)
          await page.click("button[type=submit]")
          await page.waitForSelector("button[value=approve]")
          expect(await page.textContent("h1")).toBe("Authorize Browser Test App")
          expect(await page.textContent("main")).toContain("pricing:read")
          await Promise.all([
            page.waitForURL((u) => u.href.startsWith(callback.url)),
            page.click("button[value=approve]")
          ])
          expect(await page.textContent("p")).toBe("Back at the client.")
          return new URL(page.url())
        })

        expect(`${landed.origin}${landed.pathname}`).toBe(callback.url)
        expect(landed.searchParams.get("state")).toBe("browser-state")
        expect(landed.searchParams.get("iss")).toBe(baseUrl)
        const code = landed.searchParams.get("code")!
        expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(callback.hits.filter((h) => h.pathname === "/callback").map((h) => h.searchParams.get("code"))).toEqual([
          code
        ])

        const tokens = (yield* tokenRequest({
          grant_type: "authorization_code",
          client_id: clientId,
          code,
          redirect_uri: callback.url,
          code_verifier: verifier
        })).json
        expect(tokens.token_type).toBe("Bearer")
        expect(tokens.scope).toBe("pricing:read")
      }))

    it.scoped("deny lands on the redirect URI with error=access_denied", () =>
      Effect.gen(function*() {
        const { baseUrl } = yield* TestServer
        const user = yield* createTestUser()
        const callback = yield* callbackServer
        const browser = yield* launch
        const clientId = yield* registerClient([callback.url], "Denied App")
        const authorizeUrl = `${baseUrl}/oauth/authorize?${
          authorizeQuery({ clientId, challenge: pkcePair().challenge, redirectUri: callback.url, state: "d" })
        }`
        const landed = yield* Effect.promise(async () => {
          const page = await browser.newPage()
          await page.goto(authorizeUrl)
          await page.fill("#email", user.email)
          await page.fill("#password", user.password)
          await page.click("button[type=submit]")
          await page.waitForSelector("button[value=approve]")
          await Promise.all([page.waitForURL((u) => u.href.startsWith(callback.url)), page.click("button[value=deny]")])
          return new URL(page.url())
        })
        expect(landed.searchParams.get("error")).toBe("access_denied")
        expect(landed.searchParams.get("state")).toBe("d")
        expect(landed.searchParams.get("code")).toBeNull()
      }))
  })
})
