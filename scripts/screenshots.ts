/**
 * `npm run screenshots`: the storefront's pages as a person sees them, for docs/storefront.md (and
 * the partner and operator consoles, signed in, for docs/consoles.md) —
 * each page on a desktop in the light theme and on a phone (390 px) in the dark one, written to
 * docs/images/<page>-desktop.png and <page>-phone.png.
 *
 * Runs the production build (`scripts/build.mjs` into bench/.build) on an embedded database of its
 * own with the demo listings, and a loopback RDAP stand-in that answers every name "not
 * registered" (bench/servers/rdap-worker.mjs), so nothing leaves 127.0.0.1. Needs /usr/bin/chromium.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Worker } from "node:worker_threads"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { outDir, root, serviceEnv, start } from "../bench/lib.js"
import { CHROMIUM, CHROMIUM_OPTIONS, VIEWPORTS } from "../test/support/Browser.js"

if (!Fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is absent (apt-get install -y chromium)`)

const images = Path.join(root, "docs", "images")
const dist = Path.join(outDir, "screenshots-dist")
const dataDir = Path.join(outDir, "screenshots-data")
Fs.rmSync(dataDir, { recursive: true, force: true })
Fs.mkdirSync(images, { recursive: true })
execFileSync(process.execPath, [Path.join(root, "scripts/build.mjs"), "--out", dist], { stdio: "ignore" })

const rdap = new Worker(new URL("../bench/servers/rdap-worker.mjs", import.meta.url), {
  workerData: { delayMs: 20, tlds: ["com", "net", "org", "io", "ai", "co"] }
})
const rdapBase = await new Promise<string>((resolve) => rdap.once("message", (m: { base: string }) => resolve(m.base)))
const env = {
  ...serviceEnv,
  // The sandbox card and the embedded database are refused in production; the pages are the same.
  NODE_ENV: "development",
  WORKERS: "false",
  DATA_DIR: dataDir,
  RDAP_BOOTSTRAP_URL: `${rdapBase}/dns.json`,
  ALTERNATE_TLDS: "net,org,io",
  DEMO_LISTINGS: "true"
}
const service = await start(Path.join(dist, "main.js"), env)

/** The operator CLI on the service's database (it joins the running service's embedded one). */
const cli = (args: ReadonlyArray<string>, input?: string) =>
  execFileSync(process.execPath, [Path.join(dist, "cli.js"), ...args], {
    cwd: outDir,
    env: { ...process.env, ...env, BASE_URL: service.url },
    input: input ?? "",
    encoding: "utf8"
  })

/** The consoles' people: a partner's owner (invited and accepted in the browser) and an operator. */
const PASSWORD = "screenshots only"
const partner = JSON.parse(
  cli([
    "partner",
    "create",
    "--name",
    "Acme Domains",
    "--env",
    "sandbox",
    "--scopes",
    "search,buy,webhook,refer,report",
    "--affiliate",
    "--json"
  ])
) as { partner_id: string }
const people = { owner: "owner@acme.example", operator: "ops@marketplace.example" } as const
cli(["user", "create", "--email", people.owner, "--password-stdin"], PASSWORD)
cli(["user", "create", "--email", people.operator, "--password-stdin", "--role", "operator"], PASSWORD)
const invitation = JSON.parse(
  cli(["partner", "invite", "--partner", partner.partner_id, "--email", people.owner, "--role", "owner", "--json"])
) as { url: string }

const signIn = async (page: Page, email: string) => {
  await page.goto(`${service.url}/signin`)
  await page.fill("#email", email)
  await page.fill("#password", PASSWORD)
  await Promise.all([page.waitForNavigation(), page.click("main button[type=submit]")])
}

/** A listed demo name: the market's first (its page, its buy page). */
const listings = await (await fetch(`${service.url}/api/market/listings?limit=1`)).json() as {
  items: ReadonlyArray<{ domain: string }>
}
const listed = listings.items[0]?.domain
if (listed === undefined) throw new Error("no demo listing: is DEMO_LISTINGS on?")

/** What each screenshot shows: a path, or steps a person takes. */
const shots: ReadonlyArray<{
  readonly name: string
  readonly open: (page: Page) => Promise<unknown>
  /** Signed in as (a context of its own per person). */
  readonly as?: keyof typeof people
}> = [
  { name: "home", open: (p) => p.goto(`${service.url}/`) },
  {
    name: "search",
    open: async (p) => {
      await p.goto(`${service.url}/`)
      await p.locator("#q").fill("")
      await p.keyboard.type("brightharbor.com", { delay: 30 })
      await p.waitForFunction(() =>
        document.querySelectorAll("#results li[data-domain]").length > 0 &&
        document.querySelectorAll("#results li[data-pending]").length === 0
      )
    }
  },
  { name: "market", open: (p) => p.goto(`${service.url}/market`) },
  { name: "domain", open: (p) => p.goto(`${service.url}/d/${listed}`) },
  { name: "buy", open: (p) => p.goto(`${service.url}/buy/${listed}`) },
  { name: "signin", open: (p) => p.goto(`${service.url}/signin`) },
  { name: "console-keys", as: "owner", open: (p) => p.goto(`${service.url}/console/keys`) },
  { name: "console-webhooks", as: "owner", open: (p) => p.goto(`${service.url}/console/webhooks`) },
  {
    name: "console-links",
    as: "owner",
    open: async (p) => {
      await p.goto(`${service.url}/console/links`)
      await p.fill("#campaign", "newsletter")
      await Promise.all([p.waitForNavigation(), p.click("main form[action='/console/links'] button[type=submit]")])
    }
  },
  {
    name: "console-analytics",
    as: "owner",
    open: async (p) => {
      // A few visits through the link made just before, so the charts have a day to show.
      await p.goto(`${service.url}/console/links`)
      const url = await p.locator("main input[readonly]").first().inputValue()
      for (let i = 0; i < 3; i++) await fetch(url, { redirect: "manual", headers: { "user-agent": `visitor ${i}` } })
      await new Promise((done) => setTimeout(done, 2500))
      await p.goto(`${service.url}/console/analytics`)
      await p.locator("main svg").first().scrollIntoViewIfNeeded()
    }
  },
  { name: "ops", as: "operator", open: (p) => p.goto(`${service.url}/ops`) },
  { name: "ops-money", as: "operator", open: (p) => p.goto(`${service.url}/ops/money`) },
  { name: "ops-partners", as: "operator", open: (p) => p.goto(`${service.url}/ops/partners`) }
]

/** A signed-in context for `who` (the owner accepts the invitation on the first sign-in). */
const signedIn = async (context: BrowserContext, who: keyof typeof people) => {
  const page = await context.newPage()
  await signIn(page, people[who])
  if (who === "owner" && !page.url().includes("/console")) {
    await page.goto(invitation.url)
    const accept = page.locator("main button[type=submit]")
    if (await accept.count() > 0) await Promise.all([page.waitForNavigation(), accept.click()])
  }
  await page.close()
}

const browser = await chromium.launch(CHROMIUM_OPTIONS)
const written: Array<string> = []
for (
  const [device, viewport, colorScheme] of [["desktop", VIEWPORTS.desktop, "light"], [
    "phone",
    VIEWPORTS.phone,
    "dark"
  ]] as const
) {
  const contexts = new Map<string, BrowserContext>()
  const contextFor = async (who: keyof typeof people | undefined) => {
    const key = who ?? "visitor"
    if (!contexts.has(key)) {
      const context = await browser.newContext({ viewport, colorScheme })
      if (who !== undefined) await signedIn(context, who)
      contexts.set(key, context)
    }
    return contexts.get(key)!
  }
  for (const shot of shots) {
    const page = await (await contextFor(shot.as)).newPage()
    await shot.open(page)
    await page.waitForLoadState("networkidle")
    const file = Path.join(images, `${shot.name}-${device}.png`)
    await page.screenshot({ path: file, fullPage: device === "desktop" ? false : true })
    written.push(Path.relative(root, file))
    await page.close()
  }
  for (const context of contexts.values()) await context.close()
}
await browser.close()
await service.stop()
await rdap.terminate()
console.log(`${written.length} screenshots (${listed} as the listed name):\n${written.join("\n")}`)
