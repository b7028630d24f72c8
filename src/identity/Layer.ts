/**
 * The identity capability as one layer: accounts, sessions, API keys and the OAuth server, their
 * handlers, and the HttpApi middleware other capabilities' groups use (optional bearer, API key,
 * session). Merged by src/app/Layers.ts only.
 */
import { Layer } from "effect"
import { Accounts } from "./accounts/Accounts.js"
import { AuthHttpLive } from "./accounts/Http.js"
import { ApiKeyStore } from "./apikeys/ApiKeyStore.js"
import { ApiKeyAuthLive } from "./ApiKeysLive.js"
import { OptionalBearerLive } from "./Bearer.js"
import { OAuthHttpLive } from "./oauth/Http.js"
import { OAuth } from "./oauth/OAuth.js"
import { SessionAuthLive } from "./Session.js"

export const IdentityLive = Layer.mergeAll(AuthHttpLive, OAuthHttpLive).pipe(
  Layer.provideMerge(Layer.mergeAll(OptionalBearerLive, ApiKeyAuthLive, SessionAuthLive)),
  Layer.provideMerge(Layer.mergeAll(Accounts.Default, OAuth.Default, ApiKeyStore.Default))
)
