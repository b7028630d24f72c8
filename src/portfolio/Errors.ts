/**
 * What can go wrong with a bulk operation, as domain errors (platform/http/Errors.ts): each carries
 * its wire code and status; the endpoints declare them with `errorWire`, the CLI prints the message.
 */
import { DomainError } from "../platform/http/Errors.js"

/** The op's payload is not acceptable (`details: [{field, message, …}]`, `payload.…` fields). */
export class InvalidBulkPayload extends DomainError<InvalidBulkPayload>()("InvalidBulkPayload", {
  code: "invalid_payload",
  status: 400,
  description: "The operation's payload is malformed or not accepted for these domains"
}) {
  static of(field: string, message: string, extra?: object) {
    return new InvalidBulkPayload({ message: `${field}: ${message}`, details: [{ field, message, ...extra }] })
  }
}

/** Some of the listed names are not domain names (`details: [{field, input, message}]`). */
export class InvalidBulkDomains extends DomainError<InvalidBulkDomains>()("InvalidBulkDomains", {
  code: "invalid_domains",
  status: 400,
  description: "A listed domain is not a valid domain name"
}) {}

/** The caller does not own some of the domains and the op may not skip them (`details.unowned`). */
export class DomainsNotOwned extends DomainError<DomainsNotOwned>()("DomainsNotOwned", {
  code: "forbidden",
  status: 403,
  description: "Some of the domains are not the caller's; nothing was changed"
}) {}

/** No renew/restore price for some of the domains (`details.unpriced`). */
export class PriceUnavailable extends DomainError<PriceUnavailable>()("PriceUnavailable", {
  code: "price_unavailable",
  status: 422,
  description: "No renew or restore price is known for some of the domains"
}) {}

export class RegistrarUnavailable extends DomainError<RegistrarUnavailable>()("RegistrarUnavailable", {
  code: "registrar_unavailable",
  status: 503,
  description: "The registrar could not be reached to check the payload"
}) {}

export class CheckoutUnavailable extends DomainError<CheckoutUnavailable>()("CheckoutUnavailable", {
  code: "checkout_unavailable",
  status: 503,
  description: "The hosted checkout is not available right now; the cart was kept"
}) {}

export class BulkOpNotFound extends DomainError<BulkOpNotFound>()("BulkOpNotFound", {
  code: "bulk_op_not_found",
  status: 404,
  description: "No such bulk operation (or another user's)"
}) {}

/**
 * Renew/restore items that cannot run (`details.refused: [{domain, error}]`, error one of
 * `CART_REFUSALS` or a registrar refusal such as `not_found`): every item, or any item with
 * `skip_on_error: false`. Nothing was put in a cart, nothing was charged.
 */
export class ItemsRefused extends DomainError<ItemsRefused>()("ItemsRefused", {
  code: "items_refused",
  status: 422,
  description: "Some renew/restore items cannot run (restore not needed, past the restore window, renewal limit, …)"
}) {}

export class CartNotFound extends DomainError<CartNotFound>()("CartNotFound", {
  code: "cart_not_found",
  status: 404,
  description: "No such cart (or another user's)"
}) {}
