/**
 * The account's notifications log: other capabilities `notify` a user (inside their own
 * transaction when they pass one), the user reads the log. Contract: a notice with the same
 * `key` is written once, however often its writer retries.
 */
import { Effect } from "effect"
import { makeId } from "../platform/Ids.js"
import { NotificationList } from "./Api.js"
import { NotificationsRepo } from "./Repo.js"

export interface Notice {
  readonly userId: string
  readonly kind: string
  readonly subject: string
  readonly message: string
  /** Natural key, e.g. `cart:<id>:completed`. */
  readonly key: string
}

const make = Effect.gen(function*() {
  const repo = yield* NotificationsRepo
  return {
    notify: (n: Notice) =>
      repo.insert({
        id: makeId("ntf"),
        user_id: n.userId,
        kind: n.kind,
        subject: n.subject,
        message: n.message,
        dedupe_key: n.key
      }),
    /**
     * A notice to an e-mail address (an offer's buyer, who may have no account), logged under that
     * address. Development has no mail relay: this log is the mailbox (`byEmail`).
     */
    notifyEmail: (n: Omit<Notice, "userId"> & { readonly email: string }) =>
      repo.insert({
        id: makeId("ntf"),
        user_id: null,
        email: n.email,
        kind: n.kind,
        subject: n.subject,
        message: n.message,
        dedupe_key: n.key
      }),
    byEmail: repo.byEmail,
    list: (userId: string) =>
      Effect.map(repo.latest(userId), (rows) =>
        new NotificationList({
          notifications: rows.map((r) => ({
            id: r.id,
            kind: r.kind,
            subject: r.subject,
            message: r.message,
            created_at: r.created_at.toISOString()
          }))
        }))
  }
})

export class Notifications extends Effect.Service<Notifications>()("app/Notifications", {
  effect: make,
  dependencies: [NotificationsRepo.Default]
}) {
  /** Kept for the existing wiring (test/portfolio/cart.test.ts). */
  static readonly Live = Notifications.Default
}
