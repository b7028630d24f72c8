/**
 * SQL of the lookup capability: stored lookups. A database failure is a defect here, once.
 * (The WHOIS quota's counters belong to the rate limiter: platform/http/RateLimit.ts `peek`.)
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { LookupRecordSchema } from "./Record.js"

const NewLookup = Schema.Struct({
  id: Schema.String,
  domain: Schema.String,
  result: LookupRecordSchema,
  createdAt: Schema.DateFromSelf
})

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const insert = SqlSchema.void({
    Request: NewLookup,
    execute: (row) =>
      sql`insert into lookups (id, domain, result, raw_source, created_at)
          values (${row.id}, ${row.domain}, ${JSON.stringify(row.result)}, ${row.result.raw_source}, ${row.createdAt})`
  })
  return {
    insert: (row: typeof NewLookup.Type) => Effect.orDie(insert(row))
  }
})

export class LookupRepo extends Effect.Service<LookupRepo>()("app/LookupRepo", { effect: make }) {}
