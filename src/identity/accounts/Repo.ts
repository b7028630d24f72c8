/**
 * SQL for accounts: users and sign-in sessions (the domains a user owns are portfolio's rows,
 * reached through the `OwnedDomains` port). Rows are decoded by their schema; a
 * database failure is a defect here, once (`transaction` too), so the service sees only data.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { transactionOf } from "../../platform/db/SqlTransaction.js"

export const UserRow = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  password_hash: Schema.String,
  role: Schema.Literal("member", "operator"),
  created_at: Schema.DateFromSelf
})
export type UserRow = typeof UserRow.Type

export const SessionRow = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  expires_at: Schema.DateFromSelf,
  email: Schema.String,
  user_created_at: Schema.DateFromSelf
})
export type SessionRow = typeof SessionRow.Type

const NewUser = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  password_hash: Schema.String,
  role: Schema.Literal("member", "operator")
})
const NewSession = Schema.Struct({
  token_hash: Schema.String,
  id: Schema.String,
  user_id: Schema.String,
  expires_at: Schema.DateFromSelf
})

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = sql`id, email, password_hash, role, created_at`

  const userByEmail = SqlSchema.findOne({
    Request: Schema.String,
    Result: UserRow,
    execute: (email) => sql`select ${columns} from users where lower(email) = lower(${email})`
  })
  /** None when the e-mail is taken. */
  const insertUser = SqlSchema.findOne({
    Request: NewUser,
    Result: UserRow,
    execute: (row) => sql`insert into users ${sql.insert(row)} on conflict do nothing returning ${columns}`
  })
  const userById = SqlSchema.findOne({
    Request: Schema.String,
    Result: UserRow,
    execute: (id) => sql`select ${columns} from users where id = ${id}`
  })
  const insertSession = SqlSchema.void({
    Request: NewSession,
    execute: (row) => sql`insert into sessions ${sql.insert(row)}`
  })
  const sessionByHash = SqlSchema.findOne({
    Request: Schema.Struct({ tokenHash: Schema.String, now: Schema.DateFromSelf }),
    Result: SessionRow,
    execute: ({ now, tokenHash }) =>
      sql`
        select s.id, s.user_id, s.expires_at, u.email, u.created_at as user_created_at
        from sessions s join users u on u.id = s.user_id
        where s.token_hash = ${tokenHash} and s.expires_at > ${now}`
  })
  const deleteSession = SqlSchema.void({
    Request: Schema.String,
    execute: (tokenHash) => sql`delete from sessions where token_hash = ${tokenHash}`
  })
  const deleteExpiredSessions = SqlSchema.void({
    Request: Schema.DateFromSelf,
    execute: (now) => sql`delete from sessions where expires_at < ${now}`
  })

  return {
    /** Runs `effect` in one transaction; a failed BEGIN/COMMIT is a defect, `effect`'s own errors stay. */
    transaction: transactionOf(sql),
    userByEmail: (email: string) => Effect.orDie(userByEmail(email)),
    userById: (id: string) => Effect.orDie(userById(id)),
    insertUser: (row: typeof NewUser.Type) => Effect.orDie(insertUser(row)),
    insertSession: (row: typeof NewSession.Type) => Effect.orDie(insertSession(row)),
    sessionByHash: (tokenHash: string, now: Date) => Effect.orDie(sessionByHash({ tokenHash, now })),
    deleteSession: (tokenHash: string) => Effect.orDie(deleteSession(tokenHash)),
    deleteExpiredSessions: (now: Date) => Effect.orDie(deleteExpiredSessions(now))
  }
})

export class AccountsRepo extends Effect.Service<AccountsRepo>()("app/AccountsRepo", { effect: make }) {}
