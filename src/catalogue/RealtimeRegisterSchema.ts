/** Realtime Register REST API wire shapes (only the fields the service reads). */
import { Schema } from "effect"

export const RtrTldMetadata = Schema.Struct({
  createDomainPeriods: Schema.Array(Schema.Int),
  renewDomainPeriods: Schema.optional(Schema.Array(Schema.Int)),
  autoRenewDomainPeriods: Schema.optional(Schema.Array(Schema.Int)),
  transferDomainPeriods: Schema.optional(Schema.Array(Schema.Int)),
  transferRequiresAuthcode: Schema.optional(Schema.Boolean),
  transferSupportsAuthcode: Schema.optional(Schema.Boolean),
  featuresAvailable: Schema.optional(Schema.Array(Schema.String)),
  premiumSupport: Schema.optional(Schema.String),
  domainSyntax: Schema.optional(Schema.Struct({
    minLength: Schema.optional(Schema.Int),
    maxLength: Schema.optional(Schema.Int),
    idnSupport: Schema.optional(Schema.Boolean)
  })),
  nameservers: Schema.optional(Schema.Struct({
    min: Schema.optional(Schema.Int),
    max: Schema.optional(Schema.Int),
    required: Schema.optional(Schema.Boolean)
  })),
  registrant: Schema.optional(Schema.Struct({
    organizationRequired: Schema.optional(Schema.Boolean),
    organizationAllowed: Schema.optional(Schema.Boolean),
    allowedCountries: Schema.optional(Schema.Array(Schema.String))
  }))
})

export const RtrTldInfo = Schema.Struct({
  provider: Schema.String,
  applicableFor: Schema.Array(Schema.String),
  metadata: RtrTldMetadata
})
export type RtrTldInfo = typeof RtrTldInfo.Type

export const RtrPrice = Schema.Struct({
  product: Schema.String,
  action: Schema.String,
  currency: Schema.String,
  price: Schema.Int
})
export type RtrPrice = typeof RtrPrice.Type

export const RtrPriceList = Schema.Struct({ prices: Schema.Array(RtrPrice) })

export const RtrDomainCheck = Schema.Struct({
  available: Schema.Boolean,
  reason: Schema.optional(Schema.String),
  premium: Schema.optional(Schema.Boolean),
  currency: Schema.optional(Schema.String),
  price: Schema.optional(Schema.Int)
})
export type RtrDomainCheck = typeof RtrDomainCheck.Type

/** `GET /v2/domains/{name}`: the registrar's view of a registered domain (fields we read). */
export const RtrDomainInfo = Schema.Struct({
  domainName: Schema.String,
  status: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  autoRenew: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  ns: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  registrant: Schema.optional(Schema.String),
  expiryDate: Schema.optional(Schema.String)
})
export type RtrDomainInfo = typeof RtrDomainInfo.Type

/** An asynchronous registrar process (`202` answers and `GET /v2/processes/{id}`). */
export const RtrProcess = Schema.Struct({
  id: Schema.Int,
  status: Schema.String,
  message: Schema.optional(Schema.String)
})
export type RtrProcess = typeof RtrProcess.Type

/** `POST /v2/domains/{name}/renew|restore` success: the new expiry. */
export const RtrExpiry = Schema.Struct({ domainName: Schema.optional(Schema.String), expiryDate: Schema.String })

/** Changes of `POST /v2/domains/{name}/update`. */
export interface RtrDomainUpdate {
  /** Client statuses to hold (lock = clientTransferProhibited, clientUpdateProhibited, clientDeleteProhibited). */
  readonly status?: ReadonlyArray<string>
  readonly ns?: ReadonlyArray<string>
  readonly registrant?: string
  readonly autoRenew?: boolean
}

/** `GET /v2/domains/{name}` as read for a transfer out: the EPP authInfo (read only for a delivery). */
export const RtrAuthCode = Schema.Struct({ domainName: Schema.String, authcode: Schema.String })

/**
 * `GET /v2/domains/{name}/transfer`: where a transfer out of our account stands. `none` (nothing
 * asked), `pending` (the gaining side has not finished), `completed` (the name left our account),
 * `failed` (with the registry's reason).
 */
export const RtrTransferStatus = Schema.Struct({
  status: Schema.Literal("none", "pending", "completed", "failed"),
  reason: Schema.optional(Schema.String)
})
export type RtrTransferStatus = typeof RtrTransferStatus.Type
