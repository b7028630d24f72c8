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
import { durationSetting } from "../platform/DurationSetting.js"

export interface IdentitySettings {
  readonly sessionTtl: Duration.Duration
  readonly codeTtl: Duration.Duration
  readonly accessTokenTtl: Duration.Duration
  readonly refreshTokenTtl: Duration.Duration
}

export const identityConfig: Config.Config<IdentitySettings> = Config.all({
  sessionTtl: durationSetting("SESSION_TTL", Duration.days(14)),
  codeTtl: durationSetting("OAUTH_CODE_TTL", Duration.seconds(60)),
  accessTokenTtl: durationSetting("OAUTH_ACCESS_TOKEN_TTL", Duration.minutes(30)),
  refreshTokenTtl: durationSetting("OAUTH_REFRESH_TOKEN_TTL", Duration.days(30))
})

export class IdentityConfig extends Context.Tag("identity/IdentityConfig")<IdentityConfig, IdentitySettings>() {
  static readonly Live = Layer.effect(IdentityConfig, identityConfig)
}
