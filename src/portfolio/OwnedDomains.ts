/**
 * Portfolio's side of identity's `OwnedDomains` port (src/identity/accounts/OwnedDomains.ts): the
 * rows of `user_domains` that accounts create and list. Needs only the database, so
 * src/app/Layers.ts provides it below identity. Rows are decoded by their schema; a database
 * failure is a defect here, once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Layer, Schema } from "effect"
import { OwnedDomains } from "../identity/accounts/OwnedDomains.js"

const DomainRow = Schema.Struct({ domain: Schema.String })
const UserDomains = Schema.Struct({ userId: Schema.String, domains: Schema.Array(Schema.String) })

const domainNames = (rows: ReadonlyArray<typeof DomainRow.Type>) => rows.map((r) => r.domain)

export const OwnedDomainsLive = Layer.effect(
  OwnedDomains,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ownedByOthers = SqlSchema.findAll({
      Request: UserDomains,
      Result: DomainRow,
      execute: ({ domains, userId }) =>
        sql`select domain from user_domains where domain in ${sql.in(domains)} and user_id <> ${userId}`
    })
    const add = SqlSchema.void({
      Request: UserDomains,
      execute: ({ domains, userId }) =>
        sql`insert into user_domains ${
          sql.insert(domains.map((domain) => ({ domain, user_id: userId })))
        } on conflict (domain) do nothing`
    })
    const of = SqlSchema.findAll({
      Request: Schema.String,
      Result: DomainRow,
      execute: (userId) => sql`select domain from user_domains where user_id = ${userId} order by domain`
    })
    return OwnedDomains.of({
      ownedByOthers: (userId, domains) =>
        domains.length === 0
          ? Effect.succeed([])
          : Effect.orDie(Effect.map(ownedByOthers({ userId, domains }), domainNames)),
      add: (userId, domains) => domains.length === 0 ? Effect.void : Effect.orDie(add({ userId, domains })),
      of: (userId) => Effect.orDie(Effect.map(of(userId), domainNames))
    })
  })
)
