/** The notifications log as one layer: its service and its handler. */
import { Layer } from "effect"
import { NotificationsHttpLive } from "./Http.js"
import { Notifications } from "./Notifications.js"

export const NotificationsLive = NotificationsHttpLive.pipe(Layer.provideMerge(Notifications.Default))
