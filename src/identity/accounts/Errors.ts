/**
 * What can go wrong creating users and signing in, named after the problem. Each carries the wire
 * code and status an endpoint answers if it declares it (`.addError(errorWire(InvalidCredentials))`);
 * the CLI prints the message.
 */
import { DomainError } from "../../platform/http/Errors.js"

export class InvalidCredentials extends DomainError<InvalidCredentials>()("InvalidCredentials", {
  code: "invalid_credentials",
  status: 401,
  description: "Unknown e-mail or wrong password (the same answer for both)"
}) {}

export class InvalidEmail extends DomainError<InvalidEmail>()("InvalidEmail", {
  code: "invalid_email",
  status: 400,
  description: "Not an e-mail address"
}) {}

export class WeakPassword extends DomainError<WeakPassword>()("WeakPassword", {
  code: "weak_password",
  status: 400,
  description: "The password is too short"
}) {}

export class InvalidOwnedDomain extends DomainError<InvalidOwnedDomain>()("InvalidOwnedDomain", {
  code: "invalid_domain",
  status: 400,
  description: "An owned domain is not a valid domain name"
}) {}

export class EmailTaken extends DomainError<EmailTaken>()("EmailTaken", {
  code: "email_taken",
  status: 409,
  description: "A user with this e-mail already exists"
}) {}

export class DomainTaken extends DomainError<DomainTaken>()("DomainTaken", {
  code: "domain_taken",
  status: 409,
  description: "The domain is already owned by another user"
}) {}

export class UserNotFound extends DomainError<UserNotFound>()("UserNotFound", {
  code: "user_not_found",
  status: 404,
  description: "No user with this e-mail"
}) {}

export class NotAnOperator extends DomainError<NotAnOperator>()("NotAnOperator", {
  code: "not_an_operator",
  status: 403,
  description: "The signed-in account has no operator role (docs/consoles.md#operator-console)"
}) {}
