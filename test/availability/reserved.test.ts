/** The reserved/blocked list, managed with the operator CLI, as the search stream sees it. */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { runCli } from "../support/cli.js"
import * as DelayedRdap from "../support/DelayedRdap.js"
import { rowsOf, search } from "../support/ndjson.js"
import * as TestServer from "../support/TestServer.js"

const server = Layer.unwrapScoped(
  Effect.gen(function*() {
    const rdap = yield* DelayedRdap.start({ io: {}, com: {} })
    const databaseUrl = yield* TestServer.sharedDatabaseUrl
    return TestServer.layer({ RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl, ALTERNATE_TLDS: "com" }, { databaseUrl })
  })
)

const cli = (args: ReadonlyArray<string>) => Effect.flatMap(TestServer.TestServer, (s) => runCli(s.databaseUrl!, args))

layer(server, { timeout: 180_000 })("reserved names", (it) => {
  it.effect(
    "reserved add/list/remove: a blocked label is refused under every TLD until removed",
    () =>
      Effect.gen(function*() {
        const before = rowsOf(yield* search("acmebrand.io"))
        expect(before.get("acmebrand.io").state).toBe("available")

        const added = yield* cli(["reserved", "add", "AcmeBrand.*", "--reason", "trademark dispute 42", "--json"])
        expect(added.code, added.stderr).toBe(0)
        expect(JSON.parse(added.stdout)).toEqual({
          pattern: "acmebrand.*",
          kind: "blocked",
          reason: "trademark dispute 42"
        })

        const blocked = rowsOf(yield* search("acmebrand.io"))
        for (const domain of ["acmebrand.io", "acmebrand.com"]) {
          expect(blocked.get(domain)).toMatchObject({
            state: "reserved",
            state_label: "Blocked",
            available: false,
            price: null,
            meta: { source: "reserved_list", reason: "blocked: trademark dispute 42" }
          })
        }

        const listed = yield* cli(["reserved", "list", "--json"])
        const patterns = JSON.parse(listed.stdout).reserved.map((r: any) => r.pattern)
        expect(patterns).toContain("acmebrand.*")
        expect(patterns).toContain("*.test")

        const bad = yield* cli(["reserved", "add", "www.acme.com", "--reason", "x"])
        expect(bad.code).toBe(1)
        expect(bad.stderr).toContain("did you mean acme.com")

        const removed = yield* cli(["reserved", "remove", "acmebrand.*"])
        expect(removed.code, removed.stderr).toBe(0)
        expect(rowsOf(yield* search("acmebrand.io")).get("acmebrand.io").state).toBe("available")
        const again = yield* cli(["reserved", "remove", "acmebrand.*"])
        expect(again.code).toBe(1)
      }),
    240_000
  )
})
