/**
 * Handlers of the console's webhooks section (./WebhookApi.ts): the console's door (./Door.ts:
 * session, partner, same origin and token, audit record), then one call of MemberWebhooks, which
 * checks membership, role and the environment's grant before the webhooks service acts → the page.
 * A refusal is the section page again with its status; another partner's is the 404 page. Every
 * write is audited (`console.webhook_*`) with the environment, URL or event, never a secret.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Layer } from "effect"
import { Api } from "../app/Api.js"
import type { PartnerEnvironment } from "../partner/Auth.js"
import type { Membership } from "../partner/members/Members.js"
import { MemberWebhooks } from "../partner/members/MemberWebhooks.js"
import { may } from "../partner/members/Roles.js"
import { seeOther } from "../platform/http/Html.js"
import { CopyIsland } from "../storefront/Island.js"
import { makeDoor, type Refusal } from "./Door.js"
import { askedEnvironment } from "./Lists.js"
import type { Session } from "./Views.js"
import { webhookSecretPage, webhooksPage, webhooksPath } from "./WebhookPages.js"

export const ConsoleWebhookHttpLive = HttpApiBuilder.group(
  Api,
  "consoleWebhookPages",
  (handlers) =>
    Effect.gen(function*() {
      const door = yield* makeDoor
      const { audited, forms, members, page } = door
      const hooks = yield* MemberWebhooks
      const copy = yield* CopyIsland

      const view = (
        session: Session,
        others: ReadonlyArray<Membership>,
        partnerId: string,
        environment: PartnerEnvironment | undefined,
        message: { readonly error?: string; readonly notice?: string } = {}
      ) =>
        Effect.gen(function*() {
          const seen = yield* hooks.view(session.user.id, partnerId, environment)
          return webhooksPage({
            membership: seen.membership,
            others,
            environments: seen.environments,
            environment: seen.environment,
            endpoint: seen.endpoint,
            deliveries: seen.environment === null ? [] : seen.deliveries,
            canManage: may(seen.membership.role, "manageWebhooks"),
            csrf: forms.token({ sessionId: session.id }, yield* Clock.currentTimeMillis),
            ...message
          })
        })

      type Form = { readonly environment?: string | undefined; readonly partner?: string | undefined }
      type Write = (
        session: Session,
        partnerId: string,
        others: ReadonlyArray<Membership>,
        environment: PartnerEnvironment
      ) => Effect.Effect<HttpServerResponse.HttpServerResponse, Refusal>
      const post = (
        request: HttpServerRequest.HttpServerRequest,
        payload: Form & { readonly csrf?: string | undefined },
        act: Write
      ) => {
        const environment = askedEnvironment(payload.environment) ?? "sandbox"
        return door.post(
          "/console/webhooks",
          request,
          payload,
          door.sectionAgain((session, others, partnerId, message) =>
            view(session, others, partnerId, environment, message)
          ),
          (session, partnerId, others) => act(session, partnerId, others, environment)
        )
      }

      /** The new secret's page (for any member: the one who just made it). */
      const secretShown = (
        session: Session,
        others: ReadonlyArray<Membership>,
        partnerId: string,
        environment: PartnerEnvironment,
        issued: { readonly url: string; readonly secret: string }
      ) =>
        Effect.gen(function*() {
          const m = yield* members.require(session.user.id, partnerId, "view")
          return page(webhookSecretPage(m, others, issued, environment), 201, yield* copy.src)
        })

      return handlers
        .handle("webhooksPage", ({ urlParams }) =>
          door.sectionPage("/console/webhooks", urlParams.partner, (session, others, partnerId) =>
            view(session, others, partnerId, askedEnvironment(urlParams.environment))))
        .handle("setWebhookUrl", ({ payload, request }) =>
          post(request, payload, (session, partnerId, others, environment) =>
            Effect.gen(function*() {
              // Recorded without the secret a first endpoint is issued: the environment and URL.
              const set = yield* audited(
                request,
                session,
                { action: "console.webhook_set", target: partnerId, after: (r) => ({ environment, url: r.url }) },
                hooks.setUrl(session.user.id, partnerId, environment, payload.url ?? "")
              )
              return "secret" in set && set.secret !== undefined
                ? yield* secretShown(session, others, partnerId, environment, { url: set.url, secret: set.secret })
                : seeOther(webhooksPath(partnerId, environment))
            })))
        .handle("rotateWebhookSecret", ({ payload, request }) =>
          post(request, payload, (session, partnerId, others, environment) =>
            Effect.gen(function*() {
              const rotated = yield* audited(
                request,
                session,
                {
                  action: "console.webhook_secret_rotate",
                  target: partnerId,
                  after: (r) => ({ environment, url: r.url })
                },
                hooks.rotateSecret(session.user.id, partnerId, environment)
              )
              return yield* secretShown(session, others, partnerId, environment, rotated)
            })))
        .handle("testWebhookPage", ({ payload, request }) =>
          post(request, payload, (session, partnerId, _others, environment) =>
            Effect.as(
              audited(
                request,
                session,
                {
                  action: "console.webhook_test",
                  target: partnerId,
                  after: (r) => ({ environment, event_id: r.event_id })
                },
                hooks.test(session.user.id, partnerId, environment)
              ),
              seeOther(webhooksPath(partnerId, environment))
            )))
        .handle("redeliverWebhookPage", ({ payload, request }) =>
          post(request, payload, (session, partnerId, _others, environment) =>
            Effect.as(
              audited(
                request,
                session,
                {
                  action: "console.webhook_redeliver",
                  target: payload.event_id ?? "",
                  after: (r) => ({ partner_id: partnerId, environment, queued: r.queued })
                },
                hooks.redeliver(session.user.id, partnerId, environment, payload.event_id ?? "")
              ),
              seeOther(webhooksPath(partnerId, environment))
            )))
        .handle("checkWebhookSignature", ({ payload, request }) =>
          // A read: nothing changes, so nothing is audited; the answer is the page's notice.
          post(request, payload, (session, partnerId, others, environment) =>
            Effect.gen(function*() {
              if ((payload.body ?? "") === "") {
                return yield* Effect.fail<Refusal>({ _tag: "BadCheck", message: "Paste the delivery's raw body." })
              }
              const checked = yield* hooks.checkDelivery(session.user.id, partnerId, environment, {
                body: payload.body ?? "",
                serviceSignature: payload.x_service_signature,
                webhookId: payload.webhook_id,
                webhookTimestamp: payload.webhook_timestamp,
                webhookSignature: payload.webhook_signature
              })
              const notice = `X-Service-Signature: ${checked.service}. webhook-signature: ${checked.standard}.` +
                (checked.service === "does not match" || checked.standard === "does not match"
                  ? " Sign the raw body exactly as received (no re-serialised JSON), with the current secret; " +
                    "webhook-signature covers webhook-id.webhook-timestamp.body."
                  : "")
              return page(yield* view(session, others, partnerId, environment, { notice }))
            })))
    })
).pipe(Layer.provide(CopyIsland.Default))
