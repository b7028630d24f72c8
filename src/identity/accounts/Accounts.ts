/**
 * Accounts and sign-in sessions (never sees HTTP).
 *
 * - Users: e-mail (unique, case-insensitive) + scrypt password hash; the domains they own.
 * - Sessions: a random 256-bit session token goes into the cookie; only its SHA-256 is stored,
 *   with an expiry (SESSION_TTL). Any replica resolves any session: the state is in PostgreSQL.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Context, Data, Duration, Effect, Either, Layer, Option } from "effect"
import { parseDomainName } from "../../domain/DomainName.js"
import { AppConfig } from "../../platform/Config.js"
import { makeId } from "../../platform/Ids.js"
import { hashPassword, randomSecret, sha256Hex, verifyPassword } from "../Crypto.js"
import { makeAccountsRepo } from "./Repo.js"

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

export class AccountError extends Data.TaggedError("AccountError")<{
  readonly code: "invalid_email" | "weak_password" | "email_taken" | "invalid_domain" | "domain_taken" | "user_not_found"
  readonly message: string
}> {}

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/
export const MIN_PASSWORD_LENGTH = 8

export const normalizeEmail = (email: string) => email.trim().toLowerCase()

export const isPlausibleEmail = (email: string) => email.length <= 254 && EMAIL.test(email)

export interface CreateUserInput {
  readonly email: string
  readonly password: string
  readonly domains?: ReadonlyArray<string>
}

/** Normalises owned domains to their A-label form; fails on the first invalid one. */
const normalizeDomains = (domains: ReadonlyArray<string>) =>
  Effect.forEach(domains.map((d) => d.trim()).filter((d) => d !== ""), (d) =>
    Either.match(parseDomainName(d), {
      onLeft: (e) => Effect.fail(new AccountError({ code: "invalid_domain", message: `"${d}": ${e.message}` })),
      onRight: (name) => Effect.succeed(name.ascii)
    })).pipe(Effect.map((ds) => [...new Set(ds)]))

/**
 * Creates a user (and records the domains they own). The same code path serves the CLI
 * (`user create`) and test fixtures, which hold only a SqlClient.
 */
export const createUser = (input: CreateUserInput) =>
  Effect.gen(function*() {
    const repo = yield* makeAccountsRepo
    const email = normalizeEmail(input.email)
    if (!isPlausibleEmail(email)) return yield* new AccountError({ code: "invalid_email", message: `"${input.email}" is not an e-mail address` })
    if (input.password.length < MIN_PASSWORD_LENGTH) {
      return yield* new AccountError({ code: "weak_password", message: `The password must have at least ${MIN_PASSWORD_LENGTH} characters` })
    }
    const domains = yield* normalizeDomains(input.domains ?? [])
    const passwordHash = yield* hashPassword(input.password)
    const id = makeId("usr")
    return yield* repo.sql.withTransaction(
      Effect.gen(function*() {
        const row = yield* repo.insertUser({ id, email, password_hash: passwordHash })
        if (row === undefined) return yield* new AccountError({ code: "email_taken", message: `A user with e-mail ${email} already exists` })
        const taken = yield* repo.domainsOwnedByOthers(id, domains)
        if (taken.length > 0) {
          return yield* new AccountError({ code: "domain_taken", message: `Already owned by another user: ${taken.join(", ")}` })
        }
        yield* repo.addDomains(id, domains)
        return { user: { id: row.id, email: row.email, createdAt: row.created_at } satisfies User, domains }
      })
    )
  })

/** Records more domains as owned by the user with this e-mail (`user add-domains`). */
export const addDomainsToUser = (input: { readonly email: string; readonly domains: ReadonlyArray<string> }) =>
  Effect.gen(function*() {
    const repo = yield* makeAccountsRepo
    const row = yield* repo.userByEmail(normalizeEmail(input.email))
    if (row === undefined) return yield* new AccountError({ code: "user_not_found", message: `No user with e-mail ${input.email}` })
    const domains = yield* normalizeDomains(input.domains)
    return yield* repo.sql.withTransaction(
      Effect.gen(function*() {
        const taken = yield* repo.domainsOwnedByOthers(row.id, domains)
        if (taken.length > 0) {
          return yield* new AccountError({ code: "domain_taken", message: `Already owned by another user: ${taken.join(", ")}` })
        }
        yield* repo.addDomains(row.id, domains)
        return { user: { id: row.id, email: row.email, createdAt: row.created_at } satisfies User, domains }
      })
    )
  })

const make = Effect.gen(function*() {
  const repo = yield* makeAccountsRepo
  const config = yield* AppConfig
  const sessionTtl = Duration.toMillis(config.identity.sessionTtl)
  const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

  return {
    createUser: (input: CreateUserInput) => createUser(input).pipe(Effect.provideService(SqlClient.SqlClient, repo.sql)),

    addDomains: (input: { readonly email: string; readonly domains: ReadonlyArray<string> }) =>
      addDomainsToUser(input).pipe(Effect.provideService(SqlClient.SqlClient, repo.sql)),

    /** The user for these credentials, or None. Unknown e-mail and wrong password cost the same. */
    authenticate: (email: string, password: string): Effect.Effect<Option.Option<User>, SqlError> =>
      Effect.gen(function*() {
        const row = yield* repo.userByEmail(normalizeEmail(email))
        const ok = yield* verifyPassword(password, row?.password_hash)
        return ok && row !== undefined ? Option.some({ id: row.id, email: row.email, createdAt: row.created_at }) : Option.none()
      }),

    userById: (id: string) =>
      Effect.map(repo.userById(id), (row) => Option.fromNullable(row).pipe(Option.map((r): User => ({ id: r.id, email: r.email, createdAt: r.created_at })))),

    /** Starts a session; the returned token goes into the cookie and is never stored. */
    createSession: (userId: string) =>
      Effect.gen(function*() {
        const token = randomSecret()
        const expiresAt = new Date((yield* Clock.currentTimeMillis) + sessionTtl)
        yield* repo.insertSession({ token_hash: sha256Hex(token), id: makeId("ses"), user_id: userId, expires_at: expiresAt })
        return { token, expiresAt }
      }),

    resolveSession: (token: string): Effect.Effect<Option.Option<Session>, SqlError> =>
      Effect.gen(function*() {
        if (token.length < 16 || token.length > 256) return Option.none()
        const row = yield* repo.sessionByHash(sha256Hex(token), yield* now)
        return row === undefined
          ? Option.none()
          : Option.some({ id: row.id, expiresAt: row.expires_at, user: { id: row.user_id, email: row.email, createdAt: row.user_created_at } })
      }),

    endSession: (token: string) => repo.deleteSession(sha256Hex(token)),

    domainsOf: (userId: string) => repo.domainsOf(userId),

    deleteExpiredSessions: Effect.flatMap(now, repo.deleteExpiredSessions)
  }
})

export class Accounts extends Context.Tag("app/Accounts")<Accounts, Effect.Effect.Success<typeof make>>() {
  static readonly Live = Layer.effect(Accounts, make)
}
