/**
 * Accounts and sign-in sessions (never sees HTTP).
 *
 * - Users: e-mail (unique, case-insensitive) + scrypt password hash; the domains they own.
 * - Sessions: a random 256-bit session token goes into the cookie; only its SHA-256 is stored,
 *   with an expiry (SESSION_TTL). Any replica resolves any session: the state is in PostgreSQL.
 */
import type { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Option } from "effect"
import { parseDomainInputWith } from "../../platform/http/DomainInput.js"
import { makeId } from "../../platform/Ids.js"
import {
  hashPassword,
  PASSWORD_HASH_COST,
  randomSecret,
  sha256Hex,
  verifyPassword
} from "../../platform/security/Crypto.js"
import { IdentityConfig } from "../Settings.js"
import {
  DomainTaken,
  EmailTaken,
  InvalidCredentials,
  InvalidEmail,
  InvalidOwnedDomain,
  NotAnOperator,
  UserNotFound,
  WeakPassword
} from "./Errors.js"
import { OwnedDomains } from "./OwnedDomains.js"
import { AccountsRepo, type UserRow } from "./Repo.js"

export interface User {
  readonly id: string
  readonly email: string
  readonly createdAt: Date
}

export interface Session {
  readonly id: string
  readonly user: User
  readonly expiresAt: Date
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/
export const MIN_PASSWORD_LENGTH = 8

export const normalizeEmail = (email: string) => email.trim().toLowerCase()

export const isPlausibleEmail = (email: string) => email.length <= 254 && EMAIL.test(email)

/** An account's role: every account is a member; an operator also uses the operator console (/ops). */
export const ACCOUNT_ROLES = ["member", "operator"] as const
export type AccountRole = typeof ACCOUNT_ROLES[number]

export interface CreateUserInput {
  readonly email: string
  readonly password: string
  readonly domains?: ReadonlyArray<string>
  readonly role?: AccountRole
}

/** Normalises owned domains to their A-label form; fails on the first invalid one. */
const normalizeDomains = (domains: ReadonlyArray<string>) =>
  Effect.forEach(domains.map((d) => d.trim()).filter((d) => d !== ""), (d) =>
    Effect.map(
      parseDomainInputWith(d, (e) => new InvalidOwnedDomain({ message: `"${d}": ${e.message}` })),
      (name) => name.ascii
    )).pipe(Effect.map((ds) => [...new Set(ds)]))

const toUser = (row: UserRow): User => ({ id: row.id, email: row.email, createdAt: row.created_at })

/** An account whose role lets it act as an operator. */
export interface OperatorAccount extends User {
  readonly role: "operator"
}

const domainsTaken = (taken: ReadonlyArray<string>) =>
  new DomainTaken({ message: `Already owned by another user: ${taken.join(", ")}` })

const createUserWith = (input: CreateUserInput, passwordHashCost: number) =>
  Effect.gen(function*() {
    const repo = yield* AccountsRepo
    const owned = yield* OwnedDomains
    const email = normalizeEmail(input.email)
    if (!isPlausibleEmail(email)) {
      return yield* new InvalidEmail({ message: `"${input.email}" is not an e-mail address` })
    }
    if (input.password.length < MIN_PASSWORD_LENGTH) {
      return yield* new WeakPassword({ message: `The password must have at least ${MIN_PASSWORD_LENGTH} characters` })
    }
    const domains = yield* normalizeDomains(input.domains ?? [])
    const passwordHash = yield* hashPassword(input.password, passwordHashCost)
    const id = makeId("usr")
    return yield* repo.transaction(
      Effect.gen(function*() {
        const row = yield* repo.insertUser({ id, email, password_hash: passwordHash, role: input.role ?? "member" })
        if (Option.isNone(row)) return yield* new EmailTaken({ message: `A user with e-mail ${email} already exists` })
        const taken = yield* owned.ownedByOthers(id, domains)
        if (taken.length > 0) return yield* domainsTaken(taken)
        yield* owned.add(id, domains)
        return { user: toUser(row.value), role: row.value.role, domains }
      })
    )
  })

const addDomainsWith = (input: { readonly email: string; readonly domains: ReadonlyArray<string> }) =>
  Effect.gen(function*() {
    const repo = yield* AccountsRepo
    const owned = yield* OwnedDomains
    const row = yield* repo.userByEmail(normalizeEmail(input.email))
    if (Option.isNone(row)) return yield* new UserNotFound({ message: `No user with e-mail ${input.email}` })
    const user = row.value
    const domains = yield* normalizeDomains(input.domains)
    return yield* repo.transaction(
      Effect.gen(function*() {
        const taken = yield* owned.ownedByOthers(user.id, domains)
        if (taken.length > 0) return yield* domainsTaken(taken)
        yield* owned.add(user.id, domains)
        return { user: toUser(user), domains }
      })
    )
  })

/**
 * Creates a user (and records the domains they own). The same code path serves the CLI
 * (`user create`) and test fixtures, which hold a SqlClient and the `OwnedDomains` port
 * (portfolio's `OwnedDomainsLive`).
 */
export const createUser = (input: CreateUserInput, passwordHashCost = PASSWORD_HASH_COST): Effect.Effect<
  Effect.Effect.Success<ReturnType<typeof createUserWith>>,
  Effect.Effect.Error<ReturnType<typeof createUserWith>>,
  SqlClient.SqlClient | OwnedDomains
> => createUserWith(input, passwordHashCost).pipe(Effect.provide(AccountsRepo.Default))

const make = Effect.gen(function*() {
  const repo = yield* AccountsRepo
  const owned = yield* OwnedDomains
  const identitySettings = yield* IdentityConfig
  const sessionTtl = Duration.toMillis(identitySettings.sessionTtl)
  const passwordHashCost = identitySettings.passwordHashCost
  const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

  return {
    createUser: (input: CreateUserInput) =>
      createUserWith(input, passwordHashCost).pipe(
        Effect.provideService(AccountsRepo, repo),
        Effect.provideService(OwnedDomains, owned)
      ),

    /** Records more domains as owned by the user with this e-mail (`user add-domains`). */
    addDomains: (input: { readonly email: string; readonly domains: ReadonlyArray<string> }) =>
      addDomainsWith(input).pipe(Effect.provideService(AccountsRepo, repo), Effect.provideService(OwnedDomains, owned)),

    /**
     * Checks the credentials and starts a session; the returned token goes into the cookie and is
     * never stored. Unknown e-mail and wrong password cost the same and fail the same.
     */
    signIn: (
      email: string,
      password: string
    ): Effect.Effect<{ user: User; token: string; expiresAt: Date }, InvalidCredentials> =>
      Effect.gen(function*() {
        const row = Option.getOrUndefined(yield* repo.userByEmail(normalizeEmail(email)))
        const ok = yield* verifyPassword(password, row?.password_hash, passwordHashCost)
        if (!ok || row === undefined) return yield* new InvalidCredentials({ message: "Wrong e-mail or password" })
        const token = randomSecret()
        const expiresAt = new Date((yield* Clock.currentTimeMillis) + sessionTtl)
        yield* repo.insertSession({
          token_hash: sha256Hex(token),
          id: makeId("ses"),
          user_id: row.id,
          expires_at: expiresAt
        })
        return { user: toUser(row), token, expiresAt }
      }),

    resolveSession: (token: string): Effect.Effect<Option.Option<Session>> =>
      token.length < 16 || token.length > 256
        ? Effect.succeed(Option.none())
        : Effect.map(
          Effect.flatMap(now, (at) => repo.sessionByHash(sha256Hex(token), at)),
          Option.map((row): Session => ({
            id: row.id,
            expiresAt: row.expires_at,
            user: { id: row.user_id, email: row.email, createdAt: row.user_created_at }
          }))
        ),

    endSession: (token: string) => repo.deleteSession(sha256Hex(token)),

    domainsOf: (userId: string) => owned.of(userId),

    /**
     * The account, when its role is `operator` (read now, not from the session: a role taken away
     * stops the next request); else NotAnOperator. Every operator-console page and action asks.
     */
    requireOperator: (userId: string): Effect.Effect<OperatorAccount, NotAnOperator> =>
      Effect.flatMap(repo.userById(userId), (row) =>
        Option.isSome(row) && row.value.role === "operator"
          ? Effect.succeed({ ...toUser(row.value), role: "operator" as const })
          : Effect.fail(
            new NotAnOperator({ message: "This page is for operators; your account has no operator role." })
          )),

    deleteExpiredSessions: Effect.flatMap(now, repo.deleteExpiredSessions)
  }
})

/** Needs the `OwnedDomains` port (portfolio's rows), provided by src/app/Layers.ts. */
export class Accounts extends Effect.Service<Accounts>()("app/Accounts", {
  effect: make,
  dependencies: [AccountsRepo.Default]
}) {}
