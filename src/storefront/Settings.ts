/**
 * Storefront settings, read with `Config` by this capability.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | CONTACT_EMAIL | support@ the host of BASE_URL | the operator's address shown on /contact, /terms and /privacy |
 */
import { Config, Context, Layer, Option } from "effect"

export interface StorefrontSettings {
  /** None: the pages use `support@` the host of BASE_URL (`contactAddress`). */
  readonly contactEmail: Option.Option<string>
}

/** One address, no spaces or angle brackets: it is shown as a `mailto:` link. */
const looksLikeAnAddress = (s: string) => /^[^\s@<>"]{1,64}@[^\s@<>"]{1,253}$/.test(s)

export const storefrontConfig: Config.Config<StorefrontSettings> = Config.all({
  contactEmail: Config.option(
    Config.string("CONTACT_EMAIL").pipe(
      Config.map((s) => s.trim()),
      Config.validate({
        message: "CONTACT_EMAIL must be one e-mail address, e.g. support@example.com",
        validation: looksLikeAnAddress
      })
    )
  )
})

/** The address the pages show: CONTACT_EMAIL, else `support@` the host the service answers at. */
export const contactAddress = (settings: StorefrontSettings, baseUrl: string) =>
  Option.getOrElse(
    settings.contactEmail,
    () => `support@${URL.canParse(baseUrl) ? new URL(baseUrl).hostname : "localhost"}`
  )

export class StorefrontConfig
  extends Context.Tag("storefront/StorefrontConfig")<StorefrontConfig, StorefrontSettings>()
{
  static readonly Live = Layer.effect(StorefrontConfig, storefrontConfig)
}
