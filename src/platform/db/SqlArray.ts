/**
 * A list bound as ONE statement parameter: `unnest(${sqlArray(ids)}::text[])`,
 * `like any(${sqlArray(patterns)}::text[])`. pg sends a JS array as a PostgreSQL array literal;
 * the contract is that the SQL names the element type with its cast (`::text[]`, `::bigint[]`,
 * `::float8[]`), since the literal carries none. Prefer it to `sql.in` for batches: that binds one
 * parameter per element, and a statement takes at most 65535.
 */

/** What an element may be: PostgreSQL parses each from its text (a bigint beyond 2^53 as a string). */
export type SqlArrayElement = string | number | null

/** The list itself: the statement passes it through to pg as one parameter. */
export const sqlArray = (elements: ReadonlyArray<SqlArrayElement>): ReadonlyArray<SqlArrayElement> => elements
