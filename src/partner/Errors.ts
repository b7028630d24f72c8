/**
 * Partner-wide domain errors (platform/Errors.ts): what can go wrong with the credential's
 * partner account itself, whichever capability asks. One tag, one class in the whole Api: the
 * ledger's payouts and the referral links both answer `NotAnAffiliate` with this class.
 */
import { DomainError } from "../platform/Errors.js"

/** The credential's partner is not an affiliate account. */
export class NotAnAffiliate extends DomainError<NotAnAffiliate>()("NotAnAffiliate", {
  code: "forbidden",
  status: 403,
  description:
    "The credential's partner is not an affiliate account (the operator creates one with `partner create --affiliate`)"
}) {}
