/**
 * A repository's transaction: `effect` runs in one SQL transaction, and a failed BEGIN/COMMIT/
 * ROLLBACK is a defect like every other database failure of a repository (which turns its own
 * statements' `SqlError` into defects), so `effect`'s domain errors pass through unchanged.
 */
import type { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"

export const transactionOf =
  (sql: SqlClient.SqlClient) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError>, R> =>
    Effect.catchAll(
      sql.withTransaction(effect),
      (e) => (e instanceof SqlError ? Effect.die(e) : Effect.fail(e as Exclude<E, SqlError>))
    )
