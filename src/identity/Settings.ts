/**
 * Accounts, sessions and the OAuth 2.1 authorization server settings (docs/identity.md).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | SESSION_TTL | 14 days | lifetime of a sign-in session |
 * | OAUTH_CODE_TTL | 60 seconds | authorization codes (single use) |
 * | OAUTH_ACCESS_TOKEN_TTL | 30 minutes | access tokens |
 * | OAUTH_REFRESH_TOKEN_TTL | 30 days | refresh tokens (rotated on every use) |
 * | PASSWORD_HASH_COST | 15 | log2 N of scrypt for new password hashes, 10–17; at least 15 in production (the tests use 10) |
 */
import { Config, Context, Duration, Layer } from "effect"
import { durationSetting } from "../platform/DurationSetting.js"
import { PASSWORD_HASH_COST, PASSWORD_HASH_COSTS } from "../platform/security/Crypto.js"

export interface IdentitySettings {
  readonly sessionTtl: Duration.Duration
  readonly codeTtl: Duration.Duration
  readonly accessTokenTtl: Duration.Duration
  readonly refreshTokenTtl: Duration.Duration
  /** log2 N of scrypt for new password hashes (src/platform/security/Crypto.ts). */
  readonly passwordHashCost: number
}

/** 10–17 (2^17 is 128 MiB a hash), and never below the default in production: a cheaper hash is for tests only. */
const passwordHashCost = Config.all({
  cost: Config.integer("PASSWORD_HASH_COST").pipe(Config.withDefault(PASSWORD_HASH_COST)),
  production: Config.string("NODE_ENV").pipe(
    Config.withDefault("development"),
    Config.map((env) => env === "production")
  )
}).pipe(
  Config.validate({
    message:
      `PASSWORD_HASH_COST must be ${PASSWORD_HASH_COSTS.least} to ${PASSWORD_HASH_COSTS.most}, and at least ${PASSWORD_HASH_COST} when NODE_ENV=production`,
    validation: ({ cost, production }) =>
      cost >= (production ? PASSWORD_HASH_COST : PASSWORD_HASH_COSTS.least) && cost <= PASSWORD_HASH_COSTS.most
  }),
  Config.map(({ cost }) => cost)
)

export const identityConfig: Config.Config<IdentitySettings> = Config.all({
  sessionTtl: durationSetting("SESSION_TTL", Duration.days(14)),
  codeTtl: durationSetting("OAUTH_CODE_TTL", Duration.seconds(60)),
  accessTokenTtl: durationSetting("OAUTH_ACCESS_TOKEN_TTL", Duration.minutes(30)),
  refreshTokenTtl: durationSetting("OAUTH_REFRESH_TOKEN_TTL", Duration.days(30)),
  passwordHashCost
})

export class IdentityConfig extends Context.Tag("identity/IdentityConfig")<IdentityConfig, IdentitySettings>() {
  static readonly Live = Layer.effect(IdentityConfig, identityConfig)
}
