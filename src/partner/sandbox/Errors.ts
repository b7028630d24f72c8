/** The one thing that goes wrong with every sandbox helper: a live credential called it. */
import { DomainError } from "../../platform/http/Errors.js"

export class SandboxOnly extends DomainError<SandboxOnly>()("SandboxOnly", {
  code: "forbidden",
  status: 403,
  description: "The sandbox helpers are available to sandbox credentials only"
}) {
  static of() {
    return new SandboxOnly({ message: "advance is available to sandbox credentials only" })
  }
}
