/**
 * `user create --password-stdin`: the password comes from stdin (never argv, so never in `ps`),
 * signs in; a duplicate e-mail is a conflict (exit 4, one plain line); no password source is a
 * usage error (exit 2).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { runCli, runCliWithStdin } from "../support/cli.js"
import { fetchReply } from "../support/http.js"
import * as TestServer from "../support/TestServer.js"

layer(Layer.empty, { timeout: 120_000 })("user create CLI", (it) => {
  it.scoped("--password-stdin reads the password from stdin; a duplicate e-mail exits 4 with one line", () =>
    Effect.gen(function*() {
      const databaseUrl = yield* TestServer.sharedDatabaseUrl
      const server = yield* Layer.build(TestServer.layer({}, { databaseUrl }))
      const { baseUrl } = server.unsafeMap.get(TestServer.TestServer.key) as TestServer.TestServerShape
      const args = ["user", "create", "--email", "stdin@example.test", "--password-stdin"]

      const created = yield* runCliWithStdin(databaseUrl, [...args, "--json"], "a secret from stdin\n")
      expect(created.code, created.stderr).toBe(0)
      expect(JSON.parse(created.stdout).email).toBe("stdin@example.test")
      const login = yield* Effect.promise(() =>
        fetchReply(`${baseUrl}/api/auth/login`, {
          method: "POST",
          body: { email: "stdin@example.test", password: "a secret from stdin" }
        })
      )
      expect(login.status).toBe(200)

      const duplicate = yield* runCliWithStdin(databaseUrl, args, "another password\n")
      expect(duplicate.code).toBe(4)
      expect(duplicate.stderr.trim().split("\n")).toEqual(["A user with e-mail stdin@example.test already exists"])

      const none = yield* runCli(databaseUrl, ["user", "create", "--email", "none@example.test"])
      expect(none.code).toBe(2)
      expect(none.stderr).toContain("--password-stdin")
    }))
})
