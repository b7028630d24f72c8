/**
 * The production build of this test run (built once by test/support/globalSetup.ts): the entries
 * a test starts as a process, as `node` arguments.
 */
import * as Path from "node:path"
import { inject } from "vitest"

/** The build's directory (`dist/` in it; packages resolve from the checkout's node_modules above it). */
export const builtApp = (): string => inject("builtApp")

/** `node dist/main.js`: the service. */
export const mainEntry = (): ReadonlyArray<string> => [Path.join(builtApp(), "dist", "main.js")]

/** `node dist/cli.js`: the operator CLI. */
export const cliEntry = (): ReadonlyArray<string> => [Path.join(builtApp(), "dist", "cli.js")]
