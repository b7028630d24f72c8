import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

/**
 * Test files that run isolated, each in a fresh worker:
 * - those that drive @effect/vitest's TestClock (`TestClock.adjust`): in a worker shared with the
 *   service's test files, their fibers found the live clock where the TestClock should be
 *   ("testClock.adjust is not a function"), a leak between files not yet traced;
 * - those that serve their own small HttpApi with `HttpApiBuilder.serve` on the in-memory server:
 *   run after another such file in the same worker, the second served the first file's app (its
 *   requests answered 404 "No route" with the first file's request id), some state of
 *   HttpApiBuilder shared within a process, not yet traced either.
 */
const isolatedFiles = [
  "test/availability/rules.test.ts",
  "test/platform/jobs/janitor.test.ts",
  "test/platform/http/domain-error.test.ts",
  "test/platform/http/rate-limit-edge.test.ts"
]

/**
 * Groups of test files whose outcome does not depend on the database, which `TEST_LEAVE_OUT`
 * (comma-separated group names) leaves out of a run. `.ci/run` runs the suite on both databases
 * side by side, and these groups in its PostgreSQL pass only (every other file on both):
 * - `browser`: what Chromium checks (markup as it renders, islands, keyboard journeys, axe); the
 *   queries behind those pages run on both databases in the in-process page and API tests;
 * - `toolbox`: what a partner or an operator is handed (the production build and its runtimes, the
 *   packed SDK, the Postman collection, a client generated from the OpenAPI document), checked
 *   against a service whose database is incidental.
 * A plain `npm test` runs them all; `TEST_LEAVE_OUT=browser npm test` leaves out the browser.
 */
const databaseIndependent: Record<string, ReadonlyArray<string>> = {
  browser: ["test/**/*-browser.test.ts", "test/storefront/storefront-a11y.test.ts"],
  toolbox: [
    "test/app/build.test.ts",
    "test/app/openapi-client.test.ts",
    "test/partner/sdk.test.ts",
    "test/partner/sdk-operations.test.ts"
  ]
}

const leftOut = (process.env.TEST_LEAVE_OUT ?? "").split(",").map((g) => g.trim()).filter((g) => g !== "")
  .flatMap((group) => {
    const files = databaseIndependent[group]
    if (files === undefined) {
      throw new Error(`TEST_LEAVE_OUT: unknown group "${group}" (${Object.keys(databaseIndependent).join(", ")})`)
    }
    return files
  })

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // A worker keeps its loaded modules from one test file to the next instead of loading the
    // service's ~1,900 modules again for each of 140 files (the embedded pass's collect time went
    // from 587 s to 42 s, the pass from 30 to 13.5 min). Every file still builds its own servers
    // and databases; what the files share is code, not state. (`isolate` inside a project is not
    // read for the forks pool: it is set here, and undone for the isolated files below.)
    poolOptions: { forks: { isolate: false } },
    // Vitest's default on a 2-core machine is one worker (cores - 1), which runs the files one
    // after another while most of their time is spent waiting on servers, child processes and
    // timers. At least two workers overlap those waits; each file still has its own server and
    // database (a random database name on the server, its own data directory when embedded).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    minWorkers: 1,
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "service",
          include: ["test/**/*.test.ts"],
          exclude: [...isolatedFiles, ...leftOut],
          // The production build, once per run: the tests that start the service or the CLI as a
          // process run it (test/support/BuiltApp.ts).
          globalSetup: ["test/support/globalSetup.ts"]
        }
      },
      {
        extends: true,
        // Threads, not forks: the forks pool reads `isolate` only at the root (above), so a forks
        // project here would share its worker's modules after all.
        test: { name: "isolated", include: isolatedFiles, pool: "threads", isolate: true }
      }
    ]
  }
})
