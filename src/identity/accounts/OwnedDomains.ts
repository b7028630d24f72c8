/**
 * Which user owns which domain, as a port identity owns: accounts record the domains a new user
 * owns (`user create`, `user add-domains`) and show them on `/api/auth/me`, but the rows live in
 * portfolio's `user_domains`. Implemented in src/portfolio/OwnedDomains.ts (needing only the
 * database) and provided by src/app/Layers.ts, so identity imports nothing of portfolio. Every
 * call runs in the caller's transaction, when there is one.
 */
import type { Effect } from "effect"
import { Context } from "effect"

export class OwnedDomains extends Context.Tag("app/OwnedDomains")<OwnedDomains, {
  /** Those of `domains` already owned by someone other than `userId`. */
  readonly ownedByOthers: (userId: string, domains: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /** Records `domains` as owned by `userId`; a domain already owned is left as it is. */
  readonly add: (userId: string, domains: ReadonlyArray<string>) => Effect.Effect<void>
  /** The user's domains, in name order. */
  readonly of: (userId: string) => Effect.Effect<ReadonlyArray<string>>
}>() {}
