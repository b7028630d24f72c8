/**
 * A partner's webhook endpoint as its members manage it (docs/consoles.md#webhooks), on the
 * webhooks service the signed API uses (the same URL check, secrets, test events, delivery log and
 * redelivery): every member may look; owners and developers set the URL, rotate the secret,
 * test-fire and redeliver. Only the environments the operators granted the partner with the
 * `webhook` scope (those of its keys so far) are offered and accepted: the console never widens
 * what a partner may do.
 *
 * Each state-changing action is one method (setUrl, rotateSecret, test, redeliver), so an audit
 * record can wrap it.
 */
import { Effect } from "effect"
import type { ReceivedDelivery } from "../../domain/PartnerSigning.js"
import { isId } from "../../platform/Ids.js"
import type { PartnerEnvironment } from "../Auth.js"
import { WebhookEventNotFound } from "../webhooks/Errors.js"
import { Webhooks } from "../webhooks/Webhooks.js"
import { ScopeNotGranted } from "./Errors.js"
import { PartnerKeys } from "./Keys.js"
import { Members } from "./Members.js"
import type { ConsoleRight } from "./Roles.js"

/** How many deliveries the console's log shows (newest first). */
export const CONSOLE_LOG_SIZE = 20

const make = Effect.gen(function*() {
  const members = yield* Members
  const keys = yield* PartnerKeys
  const webhooks = yield* Webhooks

  /** The environments whose webhooks the partner was granted, sandbox first. */
  const environmentsOf = (partnerId: string) =>
    Effect.map(
      keys.grants(partnerId),
      (g): ReadonlyArray<PartnerEnvironment> =>
        g.scopes.has("webhook") ? (["sandbox", "live"] as const).filter((e) => g.environments.has(e)) : []
    )

  /** The member's right, then the environment's grant: the owner of the endpoint to act on. */
  const owner = (userId: string, partnerId: string, environment: PartnerEnvironment, right: ConsoleRight) =>
    Effect.gen(function*() {
      const membership = yield* members.require(userId, partnerId, right)
      if (!(yield* environmentsOf(partnerId)).includes(environment)) {
        return yield* new ScopeNotGranted({
          message: `This partner has no webhooks in ${environment}; ask the operators`
        })
      }
      return { membership, owner: { partnerId, environment } }
    })

  return {
    /**
     * What the console shows: the endpoint (none yet: null) and the latest deliveries with their
     * attempts, in the asked environment (else the first granted one; none granted: null).
     */
    view: (userId: string, partnerId: string, asked: PartnerEnvironment | undefined) =>
      Effect.gen(function*() {
        const membership = yield* members.require(userId, partnerId, "view")
        const environments = yield* environmentsOf(partnerId)
        const environment = asked !== undefined && environments.includes(asked) ? asked : environments[0]
        if (environment === undefined) return { membership, environments, environment: null, endpoint: null }
        const o = { partnerId, environment }
        const endpoint = yield* webhooks.show(o).pipe(
          Effect.catchTag("WebhookEndpointNotFound", () => Effect.succeed(null))
        )
        const log = yield* webhooks.deliveries(o, {}, null, CONSOLE_LOG_SIZE)
        return { membership, environments, environment, endpoint, deliveries: log.deliveries }
      }),

    /** Sets or changes the URL (the API's check); a first endpoint's issued secret is in the answer only. */
    setUrl: (userId: string, partnerId: string, environment: PartnerEnvironment, url: string) =>
      Effect.flatMap(
        owner(userId, partnerId, environment, "manageWebhooks"),
        (o) => webhooks.setUrl(o.owner, url.trim())
      ),

    /** A new signing secret, in the answer only. */
    rotateSecret: (userId: string, partnerId: string, environment: PartnerEnvironment) =>
      Effect.flatMap(owner(userId, partnerId, environment, "manageWebhooks"), (o) => webhooks.rotateSecret(o.owner)),

    /** A signed `webhook.test` event, delivered like every other event. */
    test: (userId: string, partnerId: string, environment: PartnerEnvironment) =>
      Effect.flatMap(owner(userId, partnerId, environment, "manageWebhooks"), (o) => webhooks.test(o.owner)),

    /** Whether a received delivery carries the endpoint's signatures (owners and developers, who hold its secret). */
    checkDelivery: (userId: string, partnerId: string, environment: PartnerEnvironment, received: ReceivedDelivery) =>
      Effect.flatMap(
        owner(userId, partnerId, environment, "manageWebhooks"),
        (o) => webhooks.checkDelivery(o.owner, received)
      ),

    /** One event of the partner's queued again (an event of another partner: not found). */
    redeliver: (userId: string, partnerId: string, environment: PartnerEnvironment, eventId: string) =>
      Effect.flatMap(
        owner(userId, partnerId, environment, "manageWebhooks"),
        (o) =>
          isId("evt", eventId)
            ? webhooks.redeliver(o.owner, { eventId })
            : new WebhookEventNotFound({ message: "No such event of this partner" })
      )
  }
})

export class MemberWebhooks extends Effect.Service<MemberWebhooks>()("app/PartnerMemberWebhooks", { effect: make }) {
  /** Kept for the existing wiring (src/partner/Layer.ts). */
  static readonly Live = MemberWebhooks.Default
}
