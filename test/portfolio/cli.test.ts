/**
 * The operator CLI of the portfolio: `user create --domains`, `user add-domains`, and
 * `bulk show <id> --follow` printing a progress line per second until the job is done
 * (against the sandbox registrar, whose calls take 40–120 ms).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { runCli } from "../support/cli.js"
import { fetchReply } from "../support/http.js"
import { sessionCookieOf } from "../support/identity.js"
import * as TestServer from "../support/TestServer.js"

layer(Layer.empty)("portfolio CLI", (it) => {
  it.scoped("user add-domains, then bulk show --follow to done", () =>
    Effect.gen(function*() {
      const databaseUrl = yield* TestServer.sharedDatabaseUrl
      const server = yield* Layer.build(
        TestServer.layer({ REGISTRAR_SANDBOX_LATENCY: "300 millis", REGISTRAR_CONCURRENCY: "2" }, { databaseUrl })
      )
      const { baseUrl } = server.unsafeMap.get(TestServer.TestServer.key) as TestServer.TestServerShape

      const domains = Array.from({ length: 20 }, (_, i) => `cli-bulk-${i}.com`)
      const created = yield* runCli(databaseUrl, [
        "user",
        "create",
        "--email",
        "cli@example.test",
        "--password",
        "long enough pw",
        "--domains",
        ["cli-a.com", ...domains].join(","),
        "--json"
      ])
      expect(created.code, created.stderr).toBe(0)
      const added = yield* runCli(databaseUrl, [
        "user",
        "add-domains",
        "--email",
        "cli@example.test",
        "--domains",
        "CLI-B.com,cli-c.com",
        "--json"
      ])
      expect(added.code, added.stderr).toBe(0)
      expect(JSON.parse(added.stdout).added).toEqual(["cli-b.com", "cli-c.com"])

      const login = yield* Effect.promise(() =>
        fetchReply(`${baseUrl}/api/auth/login`, {
          method: "POST",
          body: { email: "cli@example.test", password: "long enough pw" }
        })
      )
      const cookie = sessionCookieOf(login)!
      const accepted = yield* Effect.promise(() =>
        fetchReply(`${baseUrl}/api/domains/bulk/lock`, {
          method: "POST",
          body: { domains: ["cli-a.com", ...domains, "locked-cli.com"] },
          headers: { cookie }
        })
      )
      expect(accepted.status, accepted.text).toBe(200)
      const id = accepted.json.bulkOpId

      const followed = yield* runCli(databaseUrl, ["bulk", "show", id, "--follow"])
      expect(followed.code, followed.stderr).toBe(0)
      const lines = followed.stdout.trim().split("\n")
      expect(lines.at(-1)).toMatch(new RegExp(`^${id} lock done 21/21 succeeded 21 failed 0$`))
      const shown = yield* runCli(databaseUrl, ["bulk", "show", id, "--json"])
      expect(JSON.parse(shown.stdout)).toMatchObject({
        bulkOpId: id,
        status: "done",
        total: 21,
        succeeded: 21,
        skipped: [{ domain: "locked-cli.com", error: "not_owned" }]
      })
    }), 600_000)
})
