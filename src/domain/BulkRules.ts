/**
 * Pure rules of bulk domain operations (docs/portfolio.md): which operations exist and how each
 * runs, the domain list (1–1,000 names, UTS-46 normalised, de-duplicated in first-seen order),
 * nameserver host names, folder names and contact handles.
 *
 * The contract a reader must keep: a list that passes `normalizeDomainList` holds each A-label
 * once, so "each item applied once" starts here.
 */
import { Either } from "effect"
import { parseDomainName } from "./DomainName.js"

export const BULK_OPS = [
  "lock",
  "unlock",
  "setNameservers",
  "setFolder",
  "setContacts",
  "setAutoRenew",
  "renew",
  "restore"
] as const
export type BulkOp = typeof BULK_OPS[number]

/** Fanned out as a durable job, tracked with GET /api/domains/bulk/{id}. */
export const JOB_OPS = ["lock", "unlock", "setNameservers", "setFolder", "setContacts"] as const
export type JobOp = typeof JOB_OPS[number]
/** Priced into one cart for one checkout. */
export const CART_OPS = ["renew", "restore"] as const
export type CartOp = typeof CART_OPS[number]

export const isJobOp = (s: string): s is JobOp => (JOB_OPS as ReadonlyArray<string>).includes(s)

export const MAX_BULK_DOMAINS = 1000
export const MIN_NAMESERVERS = 2
export const MAX_NAMESERVERS = 13

export interface InvalidEntry {
  readonly index: number
  readonly input: string
  readonly message: string
}

/** Normalises every name to its A-label; keeps the first occurrence of each. */
export const normalizeDomainList = (
  inputs: ReadonlyArray<string>
): { readonly domains: ReadonlyArray<string>; readonly invalid: ReadonlyArray<InvalidEntry> } => {
  const seen = new Set<string>()
  const domains: Array<string> = []
  const invalid: Array<InvalidEntry> = []
  inputs.forEach((input, index) => {
    Either.match(parseDomainName(input), {
      onLeft: (e) => invalid.push({ index, input, message: e.message }),
      onRight: (name) => {
        if (name.subdomain !== "") {
          invalid.push({
            index,
            input,
            message: `"${name.ascii}" is a subdomain; bulk operations act on registered names (${name.registrable})`
          })
        } else if (!seen.has(name.ascii)) {
          seen.add(name.ascii)
          domains.push(name.ascii)
        }
      }
    })
  })
  return { domains, invalid }
}

/** A nameserver host name (A-label, lowercase, at least two labels), or the reason it is not one. */
export const parseHostName = (input: string): Either.Either<string, string> =>
  Either.match(parseDomainName(input), {
    onLeft: (e) => Either.left(`"${input.slice(0, 100)}" is not a host name: ${e.message}`),
    onRight: (name) => Either.right(name.ascii)
  })

/**
 * Folder names: 1–64 characters of letters, digits, space, `_`, `-`, `.`; starting with a letter
 * or digit, no trailing space. `null` clears the folder.
 */
const FOLDER = /^[\p{L}\p{N}][\p{L}\p{N} _.-]{0,63}$/u
export const folderNameProblem = (name: string): string | undefined => {
  if (name.length === 0) return "a folder name must not be empty (send null to clear the folder)"
  if ([...name].length > 64) return "a folder name has at most 64 characters"
  if (!FOLDER.test(name.normalize("NFC"))) {
    return "a folder name starts with a letter or digit and holds only letters, digits, spaces, _ - and ."
  }
  if (name.endsWith(" ")) return "a folder name must not end with a space"
  return undefined
}

/** Registrar contact handles: 3–40 characters of letters, digits, `_`, `-`, `.`. */
const HANDLE = /^[A-Za-z0-9][A-Za-z0-9_.-]{2,39}$/
export const isContactHandle = (handle: string): boolean => HANDLE.test(handle)

// --- Cart items (renew, restore): what each needs, refused before any cart is made ---------

const DAY_MS = 86_400_000
/** After expiry a name renews as usual for this long (the registry's auto-renew grace). */
export const RENEW_GRACE_DAYS = 30
/** …then sits in redemption, restorable, until this many days after expiry; then it is gone. */
export const RESTORE_WINDOW_DAYS = 60
/** Registries refuse to hold a registration more than ten years ahead. */
export const MAX_REGISTRATION_YEARS = 10

/**
 * Why a cart item cannot run, as the wire names it. The same rule refuses the item in a dry run
 * and in the live run (before the cart), so the owner is never charged for it.
 */
export const CART_REFUSALS = [
  "not_needed",
  "restore_required",
  "past_restore_window",
  "renewal_limit",
  "expiry_unknown"
] as const
export type CartRefusal = typeof CART_REFUSALS[number]

export const CART_REFUSAL_MESSAGES: Readonly<Record<CartRefusal, string>> = {
  not_needed: "the domain has not expired or is still in its renewal grace period: renew it instead of restoring",
  restore_required: "the domain is in its redemption period: restore it (a restore includes a renewal)",
  past_restore_window: `the domain expired more than ${RESTORE_WINDOW_DAYS} days ago and can no longer be restored`,
  renewal_limit: `the new expiry would be more than ${MAX_REGISTRATION_YEARS} years ahead`,
  expiry_unknown: "the registrar did not tell the domain's expiry"
}

/** Where a name stands on `now`, from its expiry. */
export type ExpiryPhase = "active" | "grace" | "redemption" | "gone"

export const expiryPhase = (expiresAt: Date, now: Date): ExpiryPhase => {
  const since = now.getTime() - expiresAt.getTime()
  if (since < 0) return "active"
  if (since <= RENEW_GRACE_DAYS * DAY_MS) return "grace"
  if (since <= RESTORE_WINDOW_DAYS * DAY_MS) return "redemption"
  return "gone"
}

/** Adds whole years in UTC (29 February → 1 March, as `Date` does). */
export const addYears = (d: Date, years: number): Date => {
  const next = new Date(d.getTime())
  next.setUTCFullYear(next.getUTCFullYear() + years)
  return next
}

/**
 * Whether a renew of `years` or a restore can run for a name expiring at `expiresAt`, on `now`:
 * undefined when it can, else the refusal.
 *
 *   phase       renew                       restore
 *   active      ok unless renewal_limit     not_needed
 *   grace       ok unless renewal_limit     not_needed
 *   redemption  restore_required            ok
 *   gone        past_restore_window         past_restore_window
 */
export const cartItemRefusal = (
  item: { readonly op: CartOp; readonly years: number; readonly expiresAt: Date | null },
  now: Date
): CartRefusal | undefined => {
  if (item.expiresAt === null) return "expiry_unknown"
  const phase = expiryPhase(item.expiresAt, now)
  if (phase === "gone") return "past_restore_window"
  if (item.op === "restore") return phase === "redemption" ? undefined : "not_needed"
  if (phase === "redemption") return "restore_required"
  return addYears(item.expiresAt, item.years).getTime() > addYears(now, MAX_REGISTRATION_YEARS).getTime()
    ? "renewal_limit"
    : undefined
}
