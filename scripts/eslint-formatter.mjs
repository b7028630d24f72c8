/**
 * ESLint formatter for `npm run lint`: ESLint's own "stylish" report, except that formatting
 * warnings (@effect/dprint at "warn", for the files whose formatting is still pending) are counted
 * in one line instead of printed one by one; thousands of them would bury the findings that matter.
 * Formatting errors are printed like any other error.
 */
import { ESLint } from "eslint"

const FORMAT = "@effect/dprint"

export default async function format(results, context) {
  let pending = 0
  const files = new Set()
  const shown = results.map((result) => {
    const messages = result.messages.filter((m) => {
      const hide = m.ruleId === FORMAT && m.severity === 1
      if (hide) {
        pending++
        files.add(result.filePath)
      }
      return !hide
    })
    const count = (severity, fixable) =>
      messages.filter((m) => m.severity === severity && (!fixable || m.fix !== undefined)).length
    return {
      ...result,
      messages,
      errorCount: count(2, false),
      warningCount: count(1, false),
      fixableErrorCount: count(2, true),
      fixableWarningCount: count(1, true)
    }
  })
  const stylish = await new ESLint().loadFormatter("stylish")
  const report = await stylish.format(shown, context)
  const summary = pending === 0
    ? ""
    : `\n${pending} formatting warnings in ${files.size} files (not yet formatted; \`npm run lint:fix\` formats them)\n`
  return report + summary
}
