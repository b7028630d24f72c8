/**
 * The console's section pages as the services answer them for one person and partner: each view
 * asks the partner slice (which checks membership and role) and fills the page with a fresh CSRF
 * token bound to the session. Shared by the pages' GETs and by a refused post's page.
 */
import { Clock, Effect } from "effect"
import type { PartnerKeys } from "../partner/members/Keys.js"
import type { Members, Membership } from "../partner/members/Members.js"
import { may } from "../partner/members/Roles.js"
import type { makeAccountForms } from "../storefront/AccountForms.js"
import type { StorePage } from "../storefront/Layout.js"
import { keysPage } from "./KeyPages.js"
import { membersPage } from "./MemberPages.js"
import { overviewPage } from "./Pages.js"

/** The signed-in person as the session gives them. */
export interface Session {
  readonly id: string
  readonly user: { readonly id: string; readonly email: string }
}

interface Message {
  readonly error?: string
  readonly notice?: string
}

export const makeViews = (
  members: Members,
  keys: PartnerKeys,
  forms: ReturnType<typeof makeAccountForms>
) => {
  const csrfOf = (session: Session) =>
    Effect.map(Clock.currentTimeMillis, (now) => forms.token({ sessionId: session.id }, now))

  return {
    overview: (session: Session, others: ReadonlyArray<Membership>, partnerId: string) =>
      Effect.gen(function*() {
        const listed = yield* keys.list(session.user.id, partnerId)
        const people = yield* members.members(session.user.id, partnerId)
        return overviewPage(listed.membership, others, listed.keys, people.members.length)
      }),

    keys: (session: Session, others: ReadonlyArray<Membership>, partnerId: string, message: Message = {}) =>
      Effect.gen(function*() {
        const listed = yield* keys.list(session.user.id, partnerId)
        const grants = yield* keys.grants(partnerId)
        return keysPage({
          membership: listed.membership,
          others,
          keys: listed.keys,
          canManage: may(listed.membership.role, "manageKeys"),
          grants: { scopes: [...grants.scopes].sort(), environments: [...grants.environments].sort() },
          csrf: yield* csrfOf(session),
          ...message
        }) satisfies StorePage
      }),

    members: (session: Session, others: ReadonlyArray<Membership>, partnerId: string, message: Message = {}) =>
      Effect.gen(function*() {
        const listed = yield* members.members(session.user.id, partnerId)
        return membersPage({
          membership: listed.membership,
          others,
          members: listed.members,
          invitations: listed.invitations,
          canManage: may(listed.membership.role, "manageMembers"),
          csrf: yield* csrfOf(session),
          ...message
        }) satisfies StorePage
      })
  }
}
