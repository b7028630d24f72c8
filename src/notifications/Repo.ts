/** SQL of the notifications log (`account_notifications`, migration 0231). */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"

export const NotificationRow = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  subject: Schema.String,
  message: Schema.String,
  created_at: Schema.DateFromSelf
})

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const latest = SqlSchema.findAll({
    Request: Schema.String,
    Result: NotificationRow,
    execute: (userId) =>
      sql`select id, kind, subject, message, created_at from account_notifications
          where user_id = ${userId} order by id desc limit 100`
  })
  const byEmail = SqlSchema.findAll({
    Request: Schema.String,
    Result: NotificationRow,
    execute: (email) =>
      sql`select id, kind, subject, message, created_at from account_notifications
          where lower(email) = lower(${email}) order by id desc limit 100`
  })
  return {
    /** Appends a notice once per `dedupe_key` (a retried job writes it once). */
    insert: (row: {
      id: string
      user_id: string | null
      email?: string
      kind: string
      subject: string
      message: string
      dedupe_key: string
    }) =>
      Effect.orDie(
        Effect.asVoid(sql`insert into account_notifications ${sql.insert(row)} on conflict (dedupe_key) do nothing`)
      ),
    latest: (userId: string) => Effect.orDie(latest(userId)),
    /** The notices sent to an e-mail address, newest first (the development mailbox). */
    byEmail: (email: string) => Effect.orDie(byEmail(email))
  }
})

export class NotificationsRepo extends Effect.Service<NotificationsRepo>()("app/NotificationsRepo", { effect: make }) {}
