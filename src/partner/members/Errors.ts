/**
 * What can go wrong in a partner's console (platform/http/Errors.ts `DomainError`): the pages map
 * each to its status; a person who is not a member of a partner learns nothing about it (404).
 */
import { DomainError } from "../../platform/http/Errors.js"

/** The person is not a member of this partner, or there is no such partner: the same answer. */
export class NotAMember extends DomainError<NotAMember>()("NotAMember", {
  code: "not_found",
  status: 404,
  description: "No such partner among the signed-in person's"
}) {}

/** The member's role does not allow the action (finance and viewer only look). */
export class RoleRefused extends DomainError<RoleRefused>()("RoleRefused", {
  code: "forbidden",
  status: 403,
  description: "The member's role does not allow this action"
}) {}

/** The invitation is unknown, already used or expired. */
export class InvitationUnusable extends DomainError<InvitationUnusable>()("InvitationUnusable", {
  code: "invitation_unusable",
  status: 410,
  description: "The invitation link is unknown, already used or expired"
}) {}

/** The invitation was sent to another e-mail address than the signed-in person's. */
export class InvitationForAnother extends DomainError<InvitationForAnother>()("InvitationForAnother", {
  code: "forbidden",
  status: 403,
  description: "The invitation is for another e-mail address"
}) {}

/** No such credential of this partner. */
export class KeyNotFound extends DomainError<KeyNotFound>()("KeyNotFound", {
  code: "not_found",
  status: 404,
  description: "No such active key of this partner"
}) {}

/** A key asked for a scope or environment the operator never granted the partner. */
export class ScopeNotGranted extends DomainError<ScopeNotGranted>()("ScopeNotGranted", {
  code: "validation_error",
  status: 400,
  description: "A scope or environment the partner was not granted"
}) {}

/** Removing the member would leave the partner without an owner. */
export class LastOwner extends DomainError<LastOwner>()("LastOwner", {
  code: "conflict",
  status: 409,
  description: "A partner keeps at least one owner"
}) {}

/** No partner with this id (the operator's invite). */
export class UnknownPartner extends DomainError<UnknownPartner>()("UnknownPartner", {
  code: "not_found",
  status: 404,
  description: "No such partner"
}) {}
