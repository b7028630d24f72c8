/**
 * A partner's signing keys as its members manage them (docs/consoles.md#keys), on Credentials:
 * every member may list them; owners and developers create, rotate and revoke. A key is only ever
 * acted on through its own partner (a key id of another partner is `KeyNotFound`). A new key may
 * carry only the scopes and environments the operator granted the partner (those of its keys so
 * far, or the grant an operator's scope change left): the console never widens what a partner may do.
 *
 * Each state-changing action is one method (create, rotate, revoke), so an audit record can wrap it.
 */
import { Effect, Option } from "effect"
import type { PartnerEnvironment, Scope } from "../Auth.js"
import { Credentials } from "../Credentials.js"
import { KeyNotFound, ScopeNotGranted } from "./Errors.js"
import { Members } from "./Members.js"

/** How long a rotated key keeps working beside its successor. */
export const ROTATION_GRACE_SECONDS = 24 * 3600

const make = Effect.gen(function*() {
  const credentials = yield* Credentials
  const members = yield* Members

  /**
   * The environments the partner's keys were ever given (revoked ones included), and their scopes,
   * or, once an operator has set a key's scopes, the partner's grant from then (`granted_scopes`).
   */
  const granted = (partnerId: string) =>
    Effect.map(credentials.showPartner(partnerId), (partner) => {
      const keys = Option.match(partner, { onNone: () => [], onSome: (p) => p.credentials })
      return {
        scopes: new Set(
          Option.match(Option.flatMapNullable(partner, (p) => p.granted_scopes), {
            onNone: () => keys.flatMap((k) => k.scopes),
            onSome: (grant) => grant
          })
        ),
        environments: new Set(keys.map((k) => k.environment))
      }
    })

  const activeKey = (partnerId: string, keyId: string) =>
    Effect.flatMap(credentials.keysOf(partnerId), (keys) => {
      const key = keys.find((k) => k.key_id === keyId && k.active)
      return key === undefined
        ? new KeyNotFound({ message: "No such active key of this partner" })
        : Effect.succeed(key)
    })

  return {
    /** The partner's keys with their last use, for any member. */
    list: (userId: string, partnerId: string) =>
      Effect.flatMap(
        members.require(userId, partnerId, "view"),
        (membership) => Effect.map(credentials.keysOf(partnerId), (keys) => ({ membership, keys }))
      ),

    /** The scopes and environments a new key may carry. */
    grants: (partnerId: string) => granted(partnerId),

    /** A new key; its secret is in the answer only. */
    create: (userId: string, partnerId: string, environment: PartnerEnvironment, scopes: ReadonlyArray<Scope>) =>
      Effect.gen(function*() {
        yield* members.require(userId, partnerId, "manageKeys")
        const allowed = yield* granted(partnerId)
        if (!allowed.environments.has(environment)) {
          return yield* new ScopeNotGranted({ message: `This partner has no ${environment} access; ask the operators` })
        }
        const extra = scopes.filter((s) => !allowed.scopes.has(s))
        if (scopes.length === 0 || extra.length > 0) {
          return yield* new ScopeNotGranted({
            message: scopes.length === 0
              ? "Choose at least one scope"
              : `Scopes not granted to this partner: ${extra.join(", ")}`
          })
        }
        return yield* credentials.issue(partnerId, environment, [...new Set(scopes)])
      }),

    /** A successor with the same environment and scopes; the old key keeps working for the grace period. */
    rotate: (userId: string, partnerId: string, keyId: string) =>
      Effect.gen(function*() {
        yield* members.require(userId, partnerId, "manageKeys")
        yield* activeKey(partnerId, keyId)
        const issued = yield* credentials.rotate(keyId, ROTATION_GRACE_SECONDS)
        if (Option.isNone(issued)) return yield* new KeyNotFound({ message: "No such active key of this partner" })
        return issued.value
      }),

    /** The key stops working at once (a key in its grace period too). */
    revoke: (userId: string, partnerId: string, keyId: string) =>
      Effect.gen(function*() {
        yield* members.require(userId, partnerId, "manageKeys")
        yield* activeKey(partnerId, keyId)
        yield* credentials.revoke(keyId)
      })
  }
})

export class PartnerKeys extends Effect.Service<PartnerKeys>()("app/PartnerKeys", { effect: make }) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = PartnerKeys.Default
}
