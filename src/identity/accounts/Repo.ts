/** SQL for accounts: users, owned domains, sign-in sessions. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface UserRow {
  readonly id: string
  readonly email: string
  readonly password_hash: string
  readonly created_at: Date
}

export interface SessionRow {
  readonly id: string
  readonly user_id: string
  readonly expires_at: Date
  readonly email: string
  readonly user_created_at: Date
}

export const makeAccountsRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return {
    sql,
    userByEmail: (email: string) =>
      sql<UserRow>`select id, email, password_hash, created_at from users where lower(email) = lower(${email})`.pipe(
        Effect.map((rows) => rows[0])
      ),

    userById: (id: string) =>
      sql<UserRow>`select id, email, password_hash, created_at from users where id = ${id}`.pipe(Effect.map((rows) => rows[0])),

    insertUser: (row: { id: string; email: string; password_hash: string }) =>
      sql<UserRow>`insert into users ${sql.insert(row)} on conflict do nothing returning id, email, password_hash, created_at`.pipe(
        Effect.map((rows) => rows[0])
      ),

    /** Domains already owned by someone else. */
    domainsOwnedByOthers: (userId: string, domains: ReadonlyArray<string>) =>
      domains.length === 0
        ? Effect.succeed([] as Array<string>)
        : sql<{ domain: string }>`select domain from user_domains where domain in ${sql.in(domains)} and user_id <> ${userId}`.pipe(
          Effect.map((rows) => rows.map((r) => r.domain))
        ),

    addDomains: (userId: string, domains: ReadonlyArray<string>) =>
      domains.length === 0
        ? Effect.void
        : sql`insert into user_domains ${sql.insert(domains.map((domain) => ({ domain, user_id: userId })))}
              on conflict (domain) do nothing`.pipe(Effect.asVoid),

    domainsOf: (userId: string) =>
      sql<{ domain: string }>`select domain from user_domains where user_id = ${userId} order by domain`.pipe(
        Effect.map((rows) => rows.map((r) => r.domain))
      ),

    insertSession: (row: { token_hash: string; id: string; user_id: string; expires_at: Date }) =>
      sql`insert into sessions ${sql.insert(row)}`.pipe(Effect.asVoid),

    sessionByHash: (tokenHash: string, now: Date) =>
      sql<SessionRow>`
        select s.id, s.user_id, s.expires_at, u.email, u.created_at as user_created_at
        from sessions s join users u on u.id = s.user_id
        where s.token_hash = ${tokenHash} and s.expires_at > ${now}`.pipe(Effect.map((rows) => rows[0])),

    deleteSession: (tokenHash: string) => sql`delete from sessions where token_hash = ${tokenHash}`.pipe(Effect.asVoid),

    deleteExpiredSessions: (now: Date) => sql`delete from sessions where expires_at < ${now}`.pipe(Effect.asVoid)
  }
})
