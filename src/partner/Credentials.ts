/**
 * Partners and their signing credentials.
 *
 * - key id `pk_<environment>_<random>` (public, sent in X-Service-Key-Id);
 * - secret `sk_<random>`: returned once at creation/rotation, stored AES-256-GCM sealed with a key
 *   derived from SERVICE_SECRET, never logged;
 * - environment (live | sandbox) selects the inventory; scopes gate the endpoints; an inactive
 *   (revoked) credential is refused with 403 `credential_not_active`.
 */
import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { groupCommit } from "../platform/db/GroupCommit.js"
import { makeId } from "../platform/Ids.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import type { PartnerEnvironment, Scope } from "./Auth.js"
import { type AdmissionCount, type CredentialRow, PartnerRepo } from "./Repo.js"

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
  // Known credentials by key id, for signature verification without a round trip. What changes on
  // a credential row (`active` by revoke and rotate, `scopes` by an operator, its partner's
  // suspension) is read again by `admit` on every request, so each change holds at once on every
  // replica; the TTL only bounds memory.
  const known = new Map<string, { readonly until: number; readonly value: ResolvedCredential }>()
  const KNOWN_TTL_MS = 60_000
  const KNOWN_MAX = 10_000

  const open = (r: CredentialRow): Option.Option<ResolvedCredential> => {
    let secret = opened.get(r.secret_sealed)
    if (secret === undefined) {
      const o = secrets.decrypt(SEAL_PURPOSE, r.secret_sealed)
      if (Option.isNone(o)) return Option.none()
      secret = o.value
      if (opened.size > KNOWN_MAX) opened.clear()
      opened.set(r.secret_sealed, secret)
    }
    return Option.some<ResolvedCredential>({ row: r, secret })
  }

  /** Whether each signed request's credential is active, and its nonce new (recorded), one statement per batch. */
  const admitBatch = groupCommit(
    (
      items: ReadonlyArray<
        {
          readonly keyId: string
          readonly nonce: string
          readonly ttlSeconds: number
          readonly count: AdmissionCount | undefined
          readonly ip: string | undefined
        }
      >
    ) => {
      // A pair twice in one batch: the first is answered by the statement, the others are replays.
      const firstOf = new Map<string, number>()
      const unique: Array<
        { keyId: string; nonce: string; count: AdmissionCount | undefined; ip: string | undefined }
      > = []
      const slot = items.map((x) => {
        const k = `${x.keyId}\u0000${x.nonce}`
        const seen = firstOf.get(k)
        if (seen !== undefined) return -1 - seen
        firstOf.set(k, unique.length)
        unique.push({ keyId: x.keyId, nonce: x.nonce, count: x.count, ip: x.ip })
        return unique.length - 1
      })
      const ttl = Math.max(...items.map((x) => x.ttlSeconds))
      return Effect.map(
        repo.admitNonces(unique, ttl),
        (answers) => slot.map((s) => (s >= 0 ? answers[s]! : { ...answers[-1 - s]!, fresh: false, count: undefined }))
      )
    }
  )

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
        yield* repo.insertPartner({
          id: partnerId,
          name: input.name,
          affiliate: input.affiliate,
          commissionBps: input.commissionBps ?? 1000
        })
        return yield* issue(partnerId, input.environment, input.scopes)
      }),

    revoke: (keyId: string) => repo.deactivate(keyId),

    /**
     * New key id and secret with the same partner, environment and scopes. The old one is revoked
     * at once, or with `graceSeconds` keeps working that long (both valid while a deployment
     * switches), then is refused as a revoked one.
     */
    rotate: (keyId: string, graceSeconds = 0) =>
      Effect.gen(function*() {
        const found = yield* repo.findCredential(keyId)
        if (Option.isNone(found) || !found.value.active) return Option.none<IssuedCredential>()
        const issued = yield* issue(found.value.partner_id, found.value.environment, found.value.scopes)
        yield* graceSeconds > 0 ? repo.endAt(keyId, graceSeconds) : repo.deactivate(keyId)
        return Option.some(issued)
      }),

    /** A new credential of an existing partner (its console's "create key"; the caller checks the right to). */
    issue,

    /** A partner's credentials with their last use, newest first (no secrets). */
    keysOf: repo.keysOf,

    /**
     * The credential and its plaintext secret, for signature verification: from memory when seen
     * in the last minute (its `active` flag may be stale there: `admit` is the authority).
     */
    resolve: (keyId: string) =>
      Effect.suspend(() => {
        const now = Date.now()
        const hit = known.get(keyId)
        if (hit !== undefined && hit.until > now) return Effect.succeed(Option.some(hit.value))
        return Effect.map(repo.findCredential(keyId), (row) => {
          const resolved = Option.flatMap(row, open)
          if (Option.isSome(resolved)) {
            if (known.size >= KNOWN_MAX) {
              for (const [k, v] of known) if (v.until <= now || known.size >= KNOWN_MAX) known.delete(k)
            }
            known.set(keyId, { until: now + KNOWN_TTL_MS, value: resolved.value })
          }
          return resolved
        })
      }),

    /**
     * Admits one signed request whose signature is valid: `active` as the database says now, and
     * `fresh` when the nonce was not used before by this credential (then it is recorded, shared
     * by every replica). With a rate-limit window, an admitted request is also counted there and
     * `count` is its ordinal in the window. Concurrent requests share one statement.
     */
    admit: (keyId: string, nonce: string, ttlSeconds: number, count?: AdmissionCount, ip?: string) =>
      admitBatch({ keyId, nonce, ttlSeconds, count, ip }),

    /** Partners with their credentials, newest first (operator view; no secrets). */
    listPartners: (limit: number) => repo.listPartners(limit),
    /**
     * Suspends a partner (`suspended` true) or resumes it: while suspended the signed API admits
     * none of its keys (403 `credential_not_active`); false when there is no such partner.
     */
    setSuspended: repo.setSuspended,
    /** A live key's scopes from now on (they hold at the next request, `admit`); false when there is no active key. */
    setScopes: (keyId: string, scopes: ReadonlyArray<Scope>) =>
      Effect.tap(repo.setScopes(keyId, scopes), () => Effect.sync(() => known.delete(keyId))),
    /** Changes the rate for orders recorded from now on (recorded orders keep theirs). */
    setCommission: (partnerId: string, bps: number) => repo.setCommission(partnerId, bps),
    showPartner: (partnerId: string) =>
      Effect.map(repo.listPartners(1, partnerId), (rows) => Option.fromNullable(rows[0])),
    /** Whether the partner is suspended, as the audit records it before a change; null when there is no such partner. */
    suspensionOf: (partnerId: string) =>
      Effect.map(
        repo.listPartners(1, partnerId),
        (rows) => rows[0] === undefined ? null : { suspended: rows[0].suspended_at !== null }
      ),
    purgeNonces: repo.purgeNonces,
    /** The partner's account at the payout provider (read by the ledger's payout run); none when there is no such partner. */
    payoutAccount: repo.payoutAccount,
    /** Records the partner's payout account; false when there is no such partner. */
    setPayoutAccount: repo.setPayoutAccount
  }
})

export class Credentials extends Effect.Service<Credentials>()("app/PartnerCredentials", {
  effect: make,
  dependencies: [PartnerRepo.Default]
}) {
  /** Kept for the existing wiring (src/partner/Layer.ts, the ledger services and test/support/PartnerKit.ts). */
  static readonly Live = Credentials.Default
}
