import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The production build, once per run: the tests that start the service or the CLI as a
    // process run it (test/support/BuiltApp.ts).
    globalSetup: ["test/support/globalSetup.ts"],
    // Every test file boots its own server and database; give them room on 2 cores.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default on a 2-core machine is one worker (cores - 1), which runs the files one
    // after another while most of their time is spent waiting on servers, child processes and
    // timers. At least two workers overlap those waits; each file still has its own server and
    // database (a random database name on the server, its own data directory when embedded).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    minWorkers: 1,
    reporters: ["default"]
  }
})
