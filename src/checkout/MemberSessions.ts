/**
 * A partner's checkout sessions as its members read them in the console
 * (docs/consoles.md#business): `members.require(…, "view")` first, then the checkout's own list,
 * so a person who is not a member of the partner gets `NotAMember` (the console's 404) and never a
 * row. It lives in the checkout slice, which already depends on the partner services; the members
 * slice (below the checkout) cannot call the checkout without a cycle.
 */
import { Effect } from "effect"
import type { PartnerEnvironment } from "../partner/Auth.js"
import { Members } from "../partner/members/Members.js"
import { Checkout } from "./Checkout.js"

const make = Effect.gen(function*() {
  const members = yield* Members
  const checkout = yield* Checkout
  return {
    /** The partner's sessions in one environment, newest first, a page after `beforeId`. */
    list: (
      userId: string,
      partnerId: string,
      environment: PartnerEnvironment,
      page: { readonly beforeId: string | null; readonly limit: number }
    ) =>
      Effect.gen(function*() {
        const membership = yield* members.require(userId, partnerId, "view")
        const listed = yield* checkout.sessionsOf({ partnerId, environment }, page.beforeId, page.limit)
        const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
        return {
          membership,
          hasMore: listed.hasMore,
          // An open session past its expiry reads `expired`, as GET /checkout-session/{id} answers it.
          sessions: listed.sessions.map((s) => ({
            ...s,
            status: checkout.isExpired(s, now) ? "expired" as const : s.status
          }))
        }
      })
  }
})

export class MemberSessions extends Effect.Service<MemberSessions>()("app/CheckoutMemberSessions", { effect: make }) {
  /** Kept for the existing wiring (src/checkout/Layer.ts). */
  static readonly Live = MemberSessions.Default
}
