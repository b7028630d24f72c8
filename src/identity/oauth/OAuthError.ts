/**
 * OAuth's failure: the RFC 6749 / 7591 error code and its description, OAuth's own vocabulary,
 * which its endpoints answer as `{error, error_description}` (the status follows from the code at
 * the edge: `invalid_client` is 401, every other 400).
 */
import { Data } from "effect"

export class OAuthError extends Data.TaggedError("OAuthError")<{
  readonly error: string
  readonly description: string
}> {}

export const oauthError = (error: string, description: string) => new OAuthError({ error, description })
