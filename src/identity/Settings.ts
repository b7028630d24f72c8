/**
 * Accounts, sessions and the OAuth 2.1 authorization server settings (docs/identity.md).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | SESSION_TTL | 14 days | lifetime of a sign-in session |
 * | OAUTH_CODE_TTL | 60 seconds | authorization codes (single use) |
 * | OAUTH_ACCESS_TOKEN_TTL | 30 minutes | access tokens |
 * | OAUTH_REFRESH_TOKEN_TTL | 30 days | refresh tokens (rotated on every use) |
 */
import { Config, Context, Duration, Layer } from "effect"

export interface IdentitySettings {
  readonly sessionTtl: Duration.Duration
  readonly codeTtl: Duration.Duration
  readonly accessTokenTtl: Duration.Duration
  readonly refreshTokenTtl: Duration.Duration
}

export const identityConfig: Config.Config<IdentitySettings> = Config.all({
  sessionTtl: Config.duration("SESSION_TTL").pipe(Config.withDefault(Duration.days(14))),
  codeTtl: Config.duration("OAUTH_CODE_TTL").pipe(Config.withDefault(Duration.seconds(60))),
  accessTokenTtl: Config.duration("OAUTH_ACCESS_TOKEN_TTL").pipe(Config.withDefault(Duration.minutes(30))),
  refreshTokenTtl: Config.duration("OAUTH_REFRESH_TOKEN_TTL").pipe(Config.withDefault(Duration.days(30)))
})

export class IdentityConfig extends Context.Tag("identity/IdentityConfig")<IdentityConfig, IdentitySettings>() {
  static readonly Live = Layer.effect(IdentityConfig, identityConfig)
}
