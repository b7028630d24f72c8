/**
 * What can go wrong with one operation of a batch before it runs, as domain errors
 * (platform/http/Errors.ts). They fail only their operation: each is encoded into that operation's
 * result (`status` + the typed error envelope), never into the batch's own answer.
 */
import { DomainError } from "../platform/http/Errors.js"

export class UnknownOperation extends DomainError<UnknownOperation>()("UnknownOperation", {
  code: "unknown_operation",
  status: 400,
  description: "No batch operation of that name (see GET /api/batch)"
}) {
  static of(op: string) {
    return new UnknownOperation({ message: `Unknown operation "${op}"; see GET /api/batch for the list` })
  }
}

export class InvalidParams extends DomainError<InvalidParams>()("InvalidParams", {
  code: "invalid_params",
  status: 400,
  description: "An operation's params cannot be used at all (a value that is not a scalar)"
}) {}
