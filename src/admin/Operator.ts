/**
 * Who is acting on /api/admin: the person behind a named operator token, or "admin-token" for the
 * shared ADMIN_TOKEN (id null), with the caller's address. The admin middleware provides it; the
 * audit log (src/audit/) records it with each action.
 */
import { Context } from "effect"

export interface OperatorIdentity {
  /** The operator token's id (`opt_…`); null for the shared ADMIN_TOKEN. */
  readonly id: string | null
  /** The person's name, or "admin-token". */
  readonly name: string
  /** The caller's IP (through TRUST_PROXY hops). */
  readonly ip: string | null
}

export class CurrentOperator extends Context.Tag("CurrentOperator")<CurrentOperator, OperatorIdentity>() {}

/** The actor the shared ADMIN_TOKEN is recorded as (existing scripts and docs keep working). */
export const ADMIN_TOKEN_ACTOR = "admin-token"
