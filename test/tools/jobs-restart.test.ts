/**
 * A tool job survives the death of its worker's process: replica A (a real OS process) claims a
 * site-check and is SIGKILLed mid-job; replica B, on the same database, claims it once the lease
 * lapses and finishes it — once.
 */
import { it } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { expect } from "vitest"
import { fetchReply } from "../support/http.js"
import { startServiceProcess } from "../support/ServiceProcess.js"
import * as TestServer from "../support/TestServer.js"

it.scopedLive(
  "a job whose worker process was killed mid-job completes once on another replica",
  () =>
    Effect.gen(function*() {
      // The target: hangs on the first request (replica A is then mid-job), answers the next.
      const hits: Array<number> = []
      const site = yield* Effect.acquireRelease(
        Effect.async<Http.Server>((resume) => {
          const server = Http.createServer((_req, res) => {
            hits.push(Date.now())
            if (hits.length === 1) return
            res.writeHead(200, { "content-type": "text/html" })
            res.end("<title>Back</title>")
          })
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) =>
          Effect.async<void>((resume) => {
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      )
      const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/page`
      const databaseUrl = yield* TestServer.sharedDatabaseUrl
      const env = {
        DATABASE_URL: databaseUrl,
        OUTBOUND_ALLOW_LOOPBACK: "true",
        JOB_LEASE: "2 seconds",
        RDAP_MODE: "sandbox",
        LOG_LEVEL: "warn"
      }

      const a = yield* startServiceProcess(env)
      const accepted = yield* Effect.promise(() =>
        fetchReply(`${a.baseUrl}/api/tools/site-check`, { method: "POST", body: { url } })
      )
      expect(accepted.status).toBe(202)
      const statusPath = accepted.headers.get("location")!
      for (let i = 0; i < 200 && hits.length === 0; i++) yield* Effect.sleep("50 millis")
      expect(hits.length).toBe(1)
      const running = yield* Effect.promise(() => fetchReply(`${a.baseUrl}${statusPath}`))
      expect([running.json.status, running.json.attempts]).toEqual(["running", 1])
      a.child.kill("SIGKILL")
      yield* Effect.async<void>((resume) => {
        if (a.child.exitCode !== null || a.child.signalCode !== null) return resume(Effect.void)
        a.child.once("exit", () => resume(Effect.void))
      }) // startServiceProcess's release waits for "exit" unless exitCode is set, which a signal
       // death leaves null: mark the process as gone so the scope can close.
      ;(a.child as { exitCode: number | null }).exitCode = 137

      // Replica B on the same database.
      const b = yield* startServiceProcess(env)
      const baseUrl = b.baseUrl
      let final: any
      for (let i = 0; i < 300; i++) {
        final = (yield* Effect.promise(() => fetchReply(`${baseUrl}${statusPath}`))).json
        if (final.status === "done" || final.status === "failed") break
        yield* Effect.sleep("100 millis")
      }
      expect(final.status).toBe("done")
      expect(final.attempts).toBe(2)
      expect(final.result).toMatchObject({ reachable: true, status: 200, title: "Back", final_url: url })
      // Finished once: the target saw A's request and B's, and nothing after.
      yield* Effect.sleep("500 millis")
      expect(hits.length).toBe(2)
    }),
  120_000
)
