/**
 * Partners and their signing credentials.
 *
 * - key id `pk_<environment>_<random>` (public, sent in X-Service-Key-Id);
 * - secret `sk_<random>`: returned once at creation/rotation, stored AES-256-GCM sealed with a key
 *   derived from SERVICE_SECRET, never logged;
 * - environment (live | sandbox) selects the inventory; scopes gate the endpoints; an inactive
 *   (revoked) credential is refused with 403 `credential_not_active`.
 */
import { Context, Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { makeId } from "../platform/Ids.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import type { PartnerEnvironment, Scope } from "./Auth.js"
import { type CredentialRow, PartnerRepo } from "./Repo.js"

const SEAL_PURPOSE = "partner-credential-secret"

export interface IssuedCredential {
  readonly partner_id: string
  readonly key_id: string
  readonly secret: string
  readonly environment: PartnerEnvironment
  readonly scopes: ReadonlyArray<Scope>
}

export interface ResolvedCredential {
  readonly row: CredentialRow
  readonly secret: string
}

const newKeyId = (env: PartnerEnvironment) => `pk_${env}_${randomBytes(12).toString("hex")}`
const newSecret = () => `sk_${randomBytes(32).toString("base64url")}`

const make = Effect.gen(function*() {
  const repo = yield* PartnerRepo
  const secrets = yield* ServiceSecret
  // Decrypted secrets by sealed value: the sealed text changes whenever the secret does.
  const opened = new Map<string, string>()

  const issue = (partnerId: string, environment: PartnerEnvironment, scopes: ReadonlyArray<Scope>) =>
    Effect.gen(function*() {
      const keyId = newKeyId(environment)
      const secret = newSecret()
      yield* repo.insertCredential({
        id: makeId("pcr"),
        partnerId,
        keyId,
        secretSealed: secrets.encrypt(SEAL_PURPOSE, secret),
        environment,
        scopes
      })
      return { partner_id: partnerId, key_id: keyId, secret, environment, scopes } satisfies IssuedCredential
    })

  return {
    createPartner: (input: {
      readonly name: string
      readonly environment: PartnerEnvironment
      readonly scopes: ReadonlyArray<Scope>
      readonly affiliate: boolean
      /** Basis points of each sale the partner keeps (default 1000 = 10 %); frozen on each order. */
      readonly commissionBps?: number | undefined
    }) =>
      Effect.gen(function*() {
        const partnerId = makeId("ptn")
        yield* repo.insertPartner({ id: partnerId, name: input.name, affiliate: input.affiliate, commissionBps: input.commissionBps ?? 1000 })
        return yield* issue(partnerId, input.environment, input.scopes)
      }),

    /** A further credential for an existing partner (e.g. a live key next to the sandbox one). */
    addCredential: (partnerId: string, environment: PartnerEnvironment, scopes: ReadonlyArray<Scope>) =>
      Effect.gen(function*() {
        if (!(yield* repo.partnerExists(partnerId))) return Option.none<IssuedCredential>()
        return Option.some(yield* issue(partnerId, environment, scopes))
      }),

    revoke: (keyId: string) => repo.deactivate(keyId),

    /** New key id and secret with the same partner, environment and scopes; the old one is revoked. */
    rotate: (keyId: string) =>
      Effect.gen(function*() {
        const found = yield* repo.findCredential(keyId)
        if (Option.isNone(found)) return Option.none<IssuedCredential>()
        const issued = yield* issue(found.value.partner_id, found.value.environment, found.value.scopes)
        yield* repo.deactivate(keyId)
        return Option.some(issued)
      }),

    /** The credential and its plaintext secret, for signature verification. */
    resolve: (keyId: string) =>
      Effect.map(repo.findCredential(keyId), (row) =>
        Option.flatMap(row, (r) => {
          let secret = opened.get(r.secret_sealed)
          if (secret === undefined) {
            const o = secrets.decrypt(SEAL_PURPOSE, r.secret_sealed)
            if (Option.isNone(o)) return Option.none()
            secret = o.value
            if (opened.size > 10_000) opened.clear()
            opened.set(r.secret_sealed, secret)
          }
          return Option.some<ResolvedCredential>({ row: r, secret })
        })),

    /** Partners with their credentials, newest first (operator view; no secrets). */
    listPartners: (limit: number) => repo.listPartners(limit),
    /** Changes the rate for orders recorded from now on (recorded orders keep theirs). */
    setCommission: (partnerId: string, bps: number) => repo.setCommission(partnerId, bps),
    showPartner: (partnerId: string) => Effect.map(repo.listPartners(1, partnerId), (rows) => Option.fromNullable(rows[0])),
    rememberNonce: repo.rememberNonce,
    purgeNonces: repo.purgeNonces
  }
})

export class Credentials extends Context.Tag("app/PartnerCredentials")<Credentials, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(Credentials, make).pipe(Layer.provide(PartnerRepo.Live))
}
