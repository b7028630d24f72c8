// ESLint for the service: the Effect repositories' formatting (dprint through @effect/eslint-plugin,
// with their settings) and the recommended JS/TS rules, minus the ones that only add noise here.
// Every finding of a rule left on is meant to be a real problem; each rule turned off says why.
// `npm run lint` checks, `npm run lint:fix` formats and applies the safe fixes.
import * as effectEslint from "@effect/eslint-plugin"
import js from "@eslint/js"
import { defineConfig } from "eslint/config"
import globals from "globals"
import tseslint from "typescript-eslint"

export default defineConfig(
  {
    ignores: ["**/dist", "**/node_modules", "bench/.build", "bench/results", "test-results", ".data", "packages"]
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  effectEslint.configs.dprint,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }],
      // Unused bindings are dead code; a leading underscore marks one kept on purpose.
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        varsIgnorePattern: "^_",
        caughtErrorsIgnorePattern: "^_"
      }],
      // `cond ? a() : b()` and `x && f()` as statements are a style, not a mistake; a bare expression
      // that does nothing is still reported.
      "@typescript-eslint/no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true }],
      // Off, as in the Effect repositories: the remaining `any`s are deliberate escape hatches
      // (`Schema.Schema<A, any>`, `sql.insert(rows as any)`, Node internals), and the untyped test
      // bodies go away with typed `HttpApiClient` tests, which tsc then checks (issue 11, item 5).
      "@typescript-eslint/no-explicit-any": "off",
      // Off, as in the Effect repositories: `Effect.gen(function*() { ... })` without a `yield*` is
      // legitimate (a service whose construction needs nothing).
      "require-yield": "off",
      // Off: the control characters in our regular expressions are deliberate (`/^[\x00-\x7f]*$/` is
      // the ASCII test of a search query); an accidental one is not a risk this code base has.
      "no-control-regex": "off"
    }
  },
  {
    // The service imports modules, not package barrels: `import { HttpApiBuilder } from
    // "@effect/platform"` loads every module of the package, among them the Scalar and Swagger UI
    // bundles as strings (14 MB of live heap at idle; bench/results/NOTES.md, memory). Type-only
    // imports are erased and stay allowed.
    files: ["src/**/*.ts"],
    rules: {
      "@effect/no-import-from-barrel-package": ["error", {
        packageNames: ["@effect/platform", "@effect/platform-node", "@effect/sql", "@effect/sql-pg", "@effect/cli"]
      }]
    }
  },
  {
    // Type-aware rules for promises only (Effect values are checked by @effect/language-service):
    // a promise nobody awaits is a test that asserts nothing or an error nobody sees.
    files: ["**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error"
    }
  }
)
