/**
 * What can go wrong with a free tool, as domain errors (platform/http/Errors.ts): each carries its wire
 * code and status; the tool endpoints declare them with `errorWire`. A name that is not a domain
 * name is the shared `InvalidDomain` (platform/http/DomainInput.ts).
 */
import { DomainError } from "../platform/http/Errors.js"

/** domain-suggest: the keywords hold no letter or digit to build a name from. */
export class InvalidKeywords extends DomainError<InvalidKeywords>()("InvalidKeywords", {
  code: "invalid_keywords",
  status: 400,
  description: "The keywords hold no letters or digits to build names from"
}) {
  static of() {
    return new InvalidKeywords({ message: "keywords: no letters or digits to build names from" })
  }
}

/** site-check: the url is not an http(s) URL. */
export class InvalidUrl extends DomainError<InvalidUrl>()("InvalidUrl", {
  code: "invalid_url",
  status: 400,
  description: "Not an http or https URL"
}) {
  static of() {
    return new InvalidUrl({ message: "url: an http or https URL is required" })
  }
}

/** No tool has that slug. */
export class UnknownTool extends DomainError<UnknownTool>()("UnknownTool", {
  code: "unknown_tool",
  status: 404,
  description: "No tool of that name"
}) {
  static of(slug: string) {
    return new UnknownTool({ message: `No tool named "${slug.slice(0, 100)}"` })
  }
}

/** The job id is not a `job_…` id. */
export class InvalidJobId extends DomainError<InvalidJobId>()("InvalidJobId", {
  code: "invalid_job_id",
  status: 400,
  description: "Not a job id (job_ followed by 26 base32 characters)"
}) {
  static of() {
    return new InvalidJobId({ message: "jobId: expected job_ followed by 26 base32 characters" })
  }
}

/** No such job of that tool (expired, another tool's, or an inline tool, which has none). */
export class ToolJobNotFound extends DomainError<ToolJobNotFound>()("ToolJobNotFound", {
  code: "job_not_found",
  status: 404,
  description: "No such job of that tool (it may have expired)"
}) {
  static of(slug: string, jobId: string) {
    return new ToolJobNotFound({ message: `No ${slug} job ${jobId} (it may have expired)` })
  }
  static inline(slug: string) {
    return new ToolJobNotFound({ message: `${slug} answers inline; it has no jobs` })
  }
}
