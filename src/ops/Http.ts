/**
 * Handlers of the operator console (./Api.ts): the door (./Door.ts: session, operator role,
 * origin and form token), then the same service calls as the admin API (partner/orders/AdminHttp.ts,
 * fulfilment/Http.ts, partner/brokerage/Http.ts, partner/ledger/Http.ts) and the CLI (offers,
 * partner set-commission), each state-changing one through `door.act` so the audit log records
 * the operator's e-mail and IP → the page, or a 303 back to the queue. The paged lists (payouts,
 * failed cart items, the audit log) read their cursor with the house `pageCursor`; a bad one is
 * the door's 400 page.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { AuditLog } from "../audit/AuditLog.js"
import { CLOSE_OUTCOMES, type CloseOutcome } from "../domain/Brokerage.js"
import { Fulfilment } from "../fulfilment/Fulfilment.js"
import { MAX_OFFER_CENTS } from "../offers/Api.js"
import { type Decision, Offers } from "../offers/Offers.js"
import { Brokerage } from "../partner/brokerage/Brokerage.js"
import { Payouts } from "../partner/ledger/Payouts.js"
import { Receipts } from "../partner/ledger/Receipts.js"
import { Reconcile } from "../partner/ledger/Reconcile.js"
import { MoneyRepo } from "../partner/ledger/Repo.js"
import { Settlement } from "../partner/ledger/Settlement.js"
import { actionOf, ADMIN_ORDER_ACTIONS } from "../partner/orders/AdminApi.js"
import { Orders } from "../partner/orders/Orders.js"
import { seeOther } from "../platform/http/Html.js"
import { pageCursor, PAGED_LISTS } from "../platform/http/PageCursor.js"
import { ServiceSecret } from "../platform/ServiceSecret.js"
import { Bulk } from "../portfolio/Bulk.js"
import { FAILED_ITEM_STATUSES } from "../portfolio/Repo.js"
import { auditPage } from "./AuditPages.js"
import { badInput, makeDoor } from "./Door.js"
import { centsOf, idOf, isOneOf, noteOf, required } from "./Fields.js"
import { moneyPage, payoutsResultPage, receiptPage, settlementResultPage, verifyPage } from "./MoneyPages.js"
import { homePage } from "./Pages.js"
import { brokeragePage, cartsPage, deliveriesPage, offersPage, ordersPage } from "./QueuePages.js"
import { LIMIT, makeQueues } from "./Queues.js"

/**
 * The holder of the console's page cursors: every operator sees the same lists, so an `Older →`
 * link may be passed from one operator to another (the door still asks each for the role).
 */
const OPS_HOLDER = "ops"

/** Payouts per page on /ops/money, under the statements. */
const PAYOUTS_PAGE = 25

export const OpsHttpLive = HttpApiBuilder.group(Api, "opsPages", (handlers) =>
  Effect.gen(function*() {
    const door = yield* makeDoor
    const orders = yield* Orders
    const fulfilment = yield* Fulfilment
    const brokerage = yield* Brokerage
    const offers = yield* Offers
    const settlement = yield* Settlement
    const payouts = yield* Payouts
    const reconcile = yield* Reconcile
    const receipts = yield* Receipts
    const money = yield* MoneyRepo
    const audit = yield* AuditLog
    const bulk = yield* Bulk
    const secrets = yield* ServiceSecret
    const queues = makeQueues({ orders, brokerage, offers, fulfilment, bulk })

    return handlers
      .handle("opsHome", ({ request }) =>
        door.page("/ops", request, (op) => Effect.map(queues.counts, (c) => homePage(op.email, c))))
      .handle("opsOrders", ({ request }) =>
        door.page("/ops/orders", request, (op) =>
          Effect.map(
            Effect.all([queues.held, queues.toTransfer]),
            ([held, toTransfer]) =>
              ordersPage(op.email, op.csrf, held, toTransfer)
          )))
      .handle("moveOrder", ({ payload, request }) =>
        door.post("/ops/orders", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const id = yield* idOf("order_id", payload.order_id)
            const action = payload.action
            if (!isOneOf(ADMIN_ORDER_ACTIONS, action)) {
              return yield* Effect.fail(badInput(`action: one of ${ADMIN_ORDER_ACTIONS.join(", ")}`))
            }
            yield* door.act(
              op,
              { action: `order.${action}`, target: id, before: orders.detail(id) },
              Effect.zipRight(
                orders.move(id, actionOf(action), { actor: op.email, note: noteOf(payload.note) }),
                orders.detail(id)
              )
            )
            return seeOther("/ops/orders")
          })))
      .handle("opsBrokerage", ({ request }) =>
        door.page("/ops/brokerage", request, (op) =>
          Effect.map(queues.openCases, (cases) =>
            brokeragePage(op.email, op.csrf, cases))))
      .handle("advanceCase", ({ payload, request }) =>
        door.post("/ops/brokerage", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const id = yield* idOf("case_id", payload.case_id)
            const priceCents = yield* centsOf("price_cents", payload.price_cents)
            yield* door.act(
              op,
              { action: "brokerage.advance", target: id, before: brokerage.detail(id) },
              Effect.zipRight(
                brokerage.move(id, { _tag: "advance" }, { actor: op.email, priceCents, note: noteOf(payload.note) }),
                brokerage.detail(id)
              )
            )
            return seeOther("/ops/brokerage")
          })))
      .handle("closeCase", ({ payload, request }) =>
        door.post("/ops/brokerage", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const id = yield* idOf("case_id", payload.case_id)
            const outcome = payload.outcome
            if (!isOneOf<CloseOutcome>(CLOSE_OUTCOMES, outcome)) {
              return yield* Effect.fail(badInput(`outcome: one of ${CLOSE_OUTCOMES.join(", ")}`))
            }
            const priceCents = yield* centsOf("price_cents", payload.price_cents)
            yield* door.act(
              op,
              { action: "brokerage.close", target: id, before: brokerage.detail(id) },
              Effect.zipRight(
                brokerage.move(id, { _tag: "close", outcome }, {
                  actor: op.email,
                  priceCents,
                  note: noteOf(payload.note)
                }),
                brokerage.detail(id)
              )
            )
            return seeOther("/ops/brokerage")
          })))
      .handle("opsOffers", ({ request }) =>
        door.page("/ops/offers", request, (op) =>
          Effect.map(queues.pendingOffers, (pending) =>
            offersPage(op.email, op.csrf, pending))))
      .handle("decideOffer", ({ payload, request }) =>
        door.post("/ops/offers", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const id = yield* idOf("offer_id", payload.offer_id)
            const amount = yield* centsOf("amount_cents", payload.amount_cents, MAX_OFFER_CENTS)
            const decision: Decision | undefined = payload.decision === "accept" || payload.decision === "decline"
              ? { _tag: payload.decision }
              : payload.decision === "counter"
              ? { _tag: "counter", amountCents: yield* required("amount_cents (the counter price)", amount) }
              : undefined
            if (decision === undefined) {
              return yield* Effect.fail(badInput("decision: accept, counter or decline"))
            }
            // The buyer's checkout link is a credential of its own: the log keeps the offer, not the link.
            yield* door.act(
              op,
              {
                action: `offer.${decision._tag}`,
                target: id,
                after: (r) =>
                  r.offer
              },
              offers.decide(id, decision)
            )
            return seeOther("/ops/offers")
          })))
      .handle("opsDeliveries", ({ request }) =>
        door.page("/ops/deliveries", request, (op) =>
          Effect.map(queues.failedDeliveries, (failed) =>
            deliveriesPage(op.email, op.csrf, failed))))
      .handle("retryDelivery", ({ payload, request }) =>
        door.post("/ops/deliveries", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const id = yield* idOf("order_id", payload.order_id)
            yield* door.act(
              op,
              { action: "delivery.retry", target: id },
              fulfilment.retry(id, op.email, noteOf(payload.note))
            )
            return seeOther("/ops/deliveries")
          })))
      .handle("markDelivered", ({ payload, request }) =>
        door.post("/ops/deliveries", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const id = yield* idOf("order_id", payload.order_id)
            yield* door.act(
              op,
              { action: "delivery.mark_delivered", target: id },
              fulfilment.markDelivered(id, op.email, noteOf(payload.note))
            )
            return seeOther("/ops/deliveries")
          })))
      .handle("opsCarts", ({ request, urlParams }) =>
        door.page("/ops/carts", request, (op) =>
          Effect.gen(function*() {
            const cursor = pageCursor(secrets, PAGED_LISTS.opsCartItems, OPS_HOLDER, null)
            const page = yield* bulk.failedCartItems(FAILED_ITEM_STATUSES, yield* cursor.read(urlParams.cursor), LIMIT)
            return cartsPage(op.email, page.items, cursor.next(page.items.at(-1)?.id, page.hasMore))
          })))
      .handle("opsMoney", ({ request, urlParams }) =>
        door.page("/ops/money", request, (op) =>
          Effect.gen(function*() {
            const cursor = pageCursor(secrets, PAGED_LISTS.opsPayouts, OPS_HOLDER, null)
            const before = yield* cursor.read(urlParams.cursor)
            const [statements, history] = yield* Effect.all([
              money.statements(null, {}, null, 50),
              payouts.history(before, PAYOUTS_PAGE)
            ], { concurrency: 2 })
            return moneyPage(op.email, op.csrf, statements, {
              payouts: history.payouts,
              older: cursor.next(history.payouts.at(-1)?.id, history.hasMore)
            })
          })))
      .handle("runSettlement", ({ payload, request }) =>
        door.post("/ops/money", request, payload.csrf, (op) =>
          // The run holds a session lock on its own connection and commits statement by statement.
          Effect.map(
            door.act(
              op,
              { action: "settlement.run", target: null, transactional: false },
              settlement.run({ trigger: "ops" })
            ),
            (result) =>
              door.show(settlementResultPage(op.email, result))
          )))
      .handle("runPayouts", ({ payload, request }) =>
        door.post("/ops/money", request, payload.csrf, (op) =>
          Effect.map(
            door.act(op, { action: "payouts.run", target: null, transactional: false }, payouts.run),
            (result) =>
              door.show(payoutsResultPage(op.email, result))
          )))
      .handle("opsVerify", ({ request }) =>
        door.page("/ops/money/verify", request, (op) =>
          Effect.map(reconcile.verify, (v) =>
            verifyPage(op.email, v))))
      .handle("recordReceipt", ({ payload, request }) =>
        door.post("/ops/money", request, payload.csrf, (op) =>
          Effect.gen(function*() {
            const partnerId = yield* idOf("partner_id", payload.partner_id)
            const amountCents = yield* required("amount_cents", yield* centsOf("amount_cents", payload.amount_cents))
            const reference = yield* idOf("reference", payload.reference)
            const environment = payload.environment === "sandbox" ? "sandbox" : "live"
            const result = yield* door.act(
              op,
              { action: "ledger.receipt", target: partnerId },
              receipts.record({ partnerId, environment, amountCents, reference: reference.slice(0, 200) })
            )
            return door.show(receiptPage(op.email, result), 201)
          })))
      .handle("opsAudit", ({ request, urlParams }) =>
        door.page("/ops/audit", request, (op) =>
          Effect.gen(function*() {
            const since = urlParams.since?.trim() || undefined
            const at = since === undefined ? undefined : new Date(since)
            if (at !== undefined && Number.isNaN(at.getTime())) {
              return yield* Effect.fail(badInput("since: an ISO date-time such as 2026-11-28T00:00:00Z"))
            }
            const filters = {
              actor: urlParams.actor?.trim() || undefined,
              action: urlParams.action?.trim() || undefined,
              since
            }
            const cursor = pageCursor(secrets, PAGED_LISTS.opsAudit, OPS_HOLDER, {
              actor: filters.actor ?? null,
              action: filters.action ?? null,
              since: at?.toISOString() ?? null
            })
            const beforeId = yield* cursor.read(urlParams.cursor)
            const rows = yield* audit.list({
              actor: filters.actor,
              action: filters.action,
              since: at,
              beforeId,
              limit: LIMIT + 1
            })
            const entries = rows.slice(0, LIMIT)
            return auditPage(op.email, filters, entries, cursor.next(entries.at(-1)?.id, rows.length > LIMIT))
          })))
  }))
