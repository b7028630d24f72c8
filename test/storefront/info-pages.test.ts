/**
 * The footer's information pages (docs/storefront.md, Terms, Privacy, Contact): `/terms`,
 * `/privacy` and `/contact` answer 200 HTML in the site layout with their content and the
 * operator's address (CONTACT_EMAIL); every page's footer links to them (not to docs anchors).
 * Without CONTACT_EMAIL the address is `support@` the host of BASE_URL; a malformed one is refused.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option } from "effect"
import { contactAddress, storefrontConfig } from "../../src/storefront/Settings.js"
import { request } from "../support/http.js"
import * as TestServer from "../support/TestServer.js"

const HTML = { accept: "text/html" }

/** The visible text of a page's `<main>` (tags dropped, spaces collapsed). */
const mainText = (html: string) =>
  (/<main[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1] ?? "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim()

layer(TestServer.layer({ CONTACT_EMAIL: "help@shop.example" }), { timeout: 120_000 })("information pages", (it) => {
  it.effect("/terms, /privacy and /contact answer 200 HTML in the layout, each with its content", () =>
    Effect.gen(function*() {
      const expected: Record<string, ReadonlyArray<string>> = {
        "/terms": [
          "Terms of sale",
          "Payments go through our payment provider",
          "card numbers never reach our servers",
          "stays pending until the seller accepts it",
          "help@shop.example"
        ],
        "/privacy": [
          "Privacy",
          "What we keep and why",
          "your e-mail address, name and country",
          "Never the card number",
          "the raw address is not stored",
          "To see, correct or delete what we keep about you, write to help@shop.example"
        ],
        "/contact": ["Contact", "help@shop.example", "the receipt number"]
      }
      for (const [path, phrases] of Object.entries(expected)) {
        const reply = yield* request(path, { headers: HTML })
        expect(reply.status, path).toBe(200)
        expect(reply.headers.get("content-type"), path).toBe("text/html; charset=utf-8")
        expect(reply.headers.get("content-security-policy"), path).toMatch(/script-src 'nonce-/)
        expect(reply.text, path).toContain(`<footer class="site">`)
        expect(reply.text, path).toContain(`<a href="mailto:help@shop.example">help@shop.example</a>`)
        const text = mainText(reply.text)
        for (const phrase of phrases) expect(text, path).toContain(phrase)
      }
    }))

  it.effect("every page's footer links to the pages themselves, no longer to docs anchors", () =>
    Effect.gen(function*() {
      for (const path of ["/", "/terms", "/no-such-page", "/r/no-such-code", "/checkout?pt=x"]) {
        const reply = yield* request(path, { headers: HTML })
        const footer = /<footer class="site">[\s\S]*<\/footer>/.exec(reply.text)?.[0] ?? ""
        expect(footer, path).toContain(`<a href="/terms">Terms</a>`)
        expect(footer, path).toContain(`<a href="/privacy">Privacy</a>`)
        expect(footer, path).toContain(`<a href="/contact">Contact</a>`)
        expect(reply.text, path).not.toContain("storefront.md#terms")
      }
    }))
})

describe("CONTACT_EMAIL", () => {
  const read = (env: Record<string, string>) =>
    Effect.either(Effect.withConfigProvider(storefrontConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

  it.effect("unset: support@ the host the service answers at", () =>
    Effect.gen(function*() {
      const settings = yield* read({})
      expect(Either.isRight(settings) && Option.isNone(settings.right.contactEmail)).toBe(true)
      if (Either.isRight(settings)) {
        expect(contactAddress(settings.right, "https://market.example.net")).toBe("support@market.example.net")
      }
    }))

  it.effect("set: that address; not an address: refused at start-up", () =>
    Effect.gen(function*() {
      const set = yield* read({ CONTACT_EMAIL: " ops@example.org " })
      expect(Either.map(set, (s) => contactAddress(s, "http://localhost:3000"))).toEqual(
        Either.right("ops@example.org")
      )
      for (const bad of ["nobody", "a b@example.org", "<x>@example.org"]) {
        expect(Either.isLeft(yield* read({ CONTACT_EMAIL: bad })), bad).toBe(true)
      }
    }))
})
