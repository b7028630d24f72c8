/**
 * What kind of deployment this is: production (`NODE_ENV=production`) or not, and whether it is
 * declared a test deployment (`TEST_MODE=true`).
 *
 * CONTRACT: production never runs on a stand-in that fakes money or durability — the sandbox
 * payment and payout providers (fake cards sell live inventory) and the embedded database — unless
 * TEST_MODE=true says it is a test deployment, and then every page says "Test mode"
 * (./TestModeBanner.ts). A setting refused here is a configuration error: one line naming it, exit
 * 78 (./StartupRefusal.ts).
 */
import { Config, ConfigError, Either } from "effect"

export interface Deployment {
  readonly production: boolean
  readonly testMode: boolean
}

export const deploymentConfig: Config.Config<Deployment> = Config.all({
  production: Config.string("NODE_ENV").pipe(Config.withDefault("development"), Config.map((e) => e === "production")),
  testMode: Config.boolean("TEST_MODE").pipe(Config.withDefault(false))
})

/** Whether a stand-in is refused in this deployment. */
export const refusesStandIns = (d: Deployment) => d.production && !d.testMode

/** The one refusal, e.g. "PAYMENT_PROVIDER=sandbox takes fake cards: … or TEST_MODE=true …". */
export const standInRefusal = (setting: string, why: string, instead: string) =>
  `${setting} ${why}, so it is refused when NODE_ENV=production: ${instead}, or set TEST_MODE=true for a test deployment`

/**
 * `config`, refused in production (unless TEST_MODE=true) when its value is `standIn` — the
 * default included: production must choose the real thing explicitly.
 */
export const realInProduction = <A extends string>(
  name: string,
  config: Config.Config<A>,
  standIn: A,
  why: string,
  instead: string
): Config.Config<A> =>
  Config.zip(config, deploymentConfig).pipe(
    Config.mapOrFail(([value, deployment]) =>
      value === standIn && refusesStandIns(deployment)
        ? Either.left(ConfigError.InvalidData([name], standInRefusal(`${name}=${standIn}`, why, instead)))
        : Either.right(value)
    )
  )
