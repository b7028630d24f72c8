/**
 * How the service and the CLI refuse a configuration: one plain line on stderr that names the
 * setting (never its value, for secrets), and exit code 78 — EX_CONFIG of sysexits.h, which
 * process supervisors read as "do not restart-loop, fix the configuration".
 *
 * CONTRACT: every refusal is a `ConfigError` (a Settings.ts or platform/Config.ts `Config`), so
 * it stops start-up before any connection and this file is the only place that words it.
 */
import { Cause, Chunk, ConfigError, Option } from "effect"

export const EX_CONFIG = 78

const leaves = (e: ConfigError.ConfigError): Array<string> => {
  switch (e._op) {
    case "And":
    case "Or":
      return [...leaves(e.left), ...leaves(e.right)]
    default: {
      // Our refusals name their variable; Effect's own messages ("Expected … to exist") may not.
      const name = e.path.join("_")
      return [name === "" || e.message.includes(name) ? e.message : `${name}: ${e.message}`]
    }
  }
}

/** The configuration errors of a failed start-up, as one line; None when it failed otherwise. */
export const configRefusal = (cause: Cause.Cause<unknown>): Option.Option<string> => {
  const errors = Chunk.toReadonlyArray(Cause.failures(cause)).filter(ConfigError.isConfigError)
  if (errors.length === 0) return Option.none()
  return Option.some([...new Set(errors.flatMap(leaves))].join("; ").replace(/\s*\n\s*/g, " "))
}
