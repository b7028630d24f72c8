/**
 * A partner's referral links and analytics as its members see them (docs/consoles.md#links,
 * docs/consoles.md#analytics), on the Referrals service the signed API uses (`POST/GET
 * /api/partner/v1/links`, `GET /api/partner/v1/analytics`): the same link rules, codes, counts and
 * report windows. Every member may look; owners and developers create links (`manageLinks`),
 * checked here, not in the pages. Only the environments the operators granted the partner with the
 * scope the API asks for (`refer` for links, `report` for analytics) are offered and accepted, and
 * the service itself refuses a partner that is not an affiliate account: the console never widens
 * what a partner may do.
 *
 * Contract: a member acts as the partner in one environment (`ReferralCaller`), with no key: the
 * caller's `credentialId` names the member, which only binds page cursors (the console reads the
 * first page only). Lives in referrals/, not
 * partner/members/, because referrals already depends on the partner slice.
 */
import { Effect, Option } from "effect"
import type { LinkKind, Product } from "../domain/Referral.js"
import type { PartnerEnvironment, Scope } from "../partner/Auth.js"
import { Credentials } from "../partner/Credentials.js"
import { ScopeNotGranted } from "../partner/members/Errors.js"
import { PartnerKeys } from "../partner/members/Keys.js"
import { Members } from "../partner/members/Members.js"
import { InvalidReportQuery } from "./Errors.js"
import { type ReferralCaller, Referrals } from "./Referrals.js"

/** How many links the console lists (newest first); the API pages through all of them. */
export const CONSOLE_LINKS = 50

/** The longest analytics window the console draws (the API allows MAX_WINDOW_DAYS). */
export const CONSOLE_WINDOW_DAYS = 92

export interface LinkInput {
  readonly kind: LinkKind
  readonly domain?: string | undefined
  readonly product?: Product | undefined
  readonly campaign?: string | undefined
}

const make = Effect.gen(function*() {
  const members = yield* Members
  const keys = yield* PartnerKeys
  const credentials = yield* Credentials
  const referrals = yield* Referrals

  /** The environments whose `scope` the partner was granted, sandbox first. */
  const environmentsOf = (partnerId: string, scope: Scope) =>
    Effect.map(
      keys.grants(partnerId),
      (g): ReadonlyArray<PartnerEnvironment> =>
        g.scopes.has(scope) ? (["sandbox", "live"] as const).filter((e) => g.environments.has(e)) : []
    )

  const affiliateOf = (partnerId: string) =>
    Effect.map(credentials.showPartner(partnerId), Option.match({ onNone: () => false, onSome: (p) => p.affiliate }))

  /** The partner in one environment, as the Referrals service knows a caller. */
  const identity = (
    userId: string,
    partnerId: string,
    environment: PartnerEnvironment,
    affiliate: boolean
  ): ReferralCaller => ({ partnerId, credentialId: `member:${userId}`, environment, affiliate })

  /** The member's right, the environments granted with `scope`, the one asked for (else the first). */
  const scoped = (
    userId: string,
    partnerId: string,
    scope: Scope,
    asked: PartnerEnvironment | undefined,
    right: "view" | "manageLinks"
  ) =>
    Effect.gen(function*() {
      const membership = yield* members.require(userId, partnerId, right)
      const environments = yield* environmentsOf(partnerId, scope)
      const environment = asked !== undefined && environments.includes(asked) ? asked : environments[0]
      const affiliate = yield* affiliateOf(partnerId)
      return { membership, environments, environment: environment ?? null, affiliate }
    })

  return {
    /** The newest links of the environment with their counts (none granted, or no affiliate: no links). */
    links: (userId: string, partnerId: string, asked: PartnerEnvironment | undefined) =>
      Effect.gen(function*() {
        const seen = yield* scoped(userId, partnerId, "refer", asked, "view")
        if (seen.environment === null || !seen.affiliate) return { ...seen, links: [] }
        const page = yield* referrals.listLinks(
          identity(userId, partnerId, seen.environment, seen.affiliate),
          undefined,
          CONSOLE_LINKS
        )
        return { ...seen, links: page.links }
      }),

    /** A new link in a granted environment (owner, developer); the Referrals service checks its fields. */
    createLink: (userId: string, partnerId: string, environment: PartnerEnvironment, input: LinkInput) =>
      Effect.gen(function*() {
        const seen = yield* scoped(userId, partnerId, "refer", environment, "manageLinks")
        if (seen.environment !== environment) {
          return yield* new ScopeNotGranted({
            message: `This partner has no referral links in ${environment}; ask the operators`
          })
        }
        return yield* referrals.createLink(identity(userId, partnerId, environment, seen.affiliate), input)
      }),

    /** The funnel by day over `from`–`to` (the API's window rules, at most CONSOLE_WINDOW_DAYS here). */
    analytics: (
      userId: string,
      partnerId: string,
      asked: PartnerEnvironment | undefined,
      window: { readonly from?: string | undefined; readonly to?: string | undefined }
    ) =>
      Effect.gen(function*() {
        const seen = yield* scoped(userId, partnerId, "report", asked, "view")
        if (seen.environment === null || !seen.affiliate) return { ...seen, report: null }
        const report = yield* referrals.analytics(
          identity(userId, partnerId, seen.environment, seen.affiliate),
          window
        )
        if (report.series.length > CONSOLE_WINDOW_DAYS) {
          const message = `the window is ${report.series.length} days; at most ${CONSOLE_WINDOW_DAYS} here`
          return yield* new InvalidReportQuery({ message: `from: ${message}`, details: [{ path: ["from"], message }] })
        }
        return { ...seen, report }
      })
  }
})

export class MemberReferrals extends Effect.Service<MemberReferrals>()("app/MemberReferrals", { effect: make }) {}
