/** Handlers of the notifications log: decode → one service call → encode. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { CurrentUser } from "../identity/Session.js"
import { Notifications } from "./Notifications.js"

export const NotificationsHttpLive = HttpApiBuilder.group(Api, "notifications", (handlers) =>
  Effect.gen(function*() {
    const notifications = yield* Notifications
    return handlers.handle("list", () => Effect.flatMap(CurrentUser, (user) => notifications.list(user.id)))
  }))
