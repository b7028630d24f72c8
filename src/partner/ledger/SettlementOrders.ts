/**
 * What the settlement run needs from the orders slice, as a port the ledger owns: the ledger
 * decides when an order is settled and writes the money; the orders slice moves its own rows,
 * timeline and events. Implemented in src/partner/orders/SettlementOrders.ts and provided by
 * src/partner/Layer.ts, so the ledger imports nothing of the orders slice (orders → ledger only:
 * an order's sale is posted through `Books.recordSale`).
 */
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { OrderStatus } from "../../domain/OrderState.js"
import type { OrderMoney } from "./Books.js"
import type { Group } from "./Repo.js"

/** A TRANSFER_COMPLETED order claimed by a settlement run: what its statement line and postings read. */
export interface DueOrder extends OrderMoney {
  readonly domain: string
  readonly status: OrderStatus
  readonly created_at: Date
}

export interface DueSelection extends Group {
  /** Orders whose transfer completed at or before this instant. */
  readonly cutoff: Date
  /** Only this order (sandbox advance), if it is due. */
  readonly onlyId?: string | undefined
}

export class SettlementOrders extends Context.Tag("app/SettlementOrders")<SettlementOrders, {
  /** Partner, environment and currency groups holding orders due at `cutoff`. */
  readonly dueGroups: (cutoff: Date) => Effect.Effect<ReadonlyArray<Group>>
  /**
   * Moves the group's due orders to SETTLED and returns them, skipping rows another transaction
   * holds (`for update skip locked`, the status check in the same UPDATE): an order is claimed
   * by one run only. Runs in the caller's transaction.
   */
  readonly claimDue: (selection: DueSelection) => Effect.Effect<ReadonlyArray<DueOrder>>
  /**
   * Records one claim's orders (all of `group`) as settled: their `order.settled` events and
   * timeline rows. Caller's transaction.
   */
  readonly recordSettled: (group: Group, orders: ReadonlyArray<DueOrder>, actor: string) => Effect.Effect<void>
  /** One order, whatever its status (the sandbox advance settles it when it is due). */
  readonly find: (orderId: string) => Effect.Effect<Option.Option<DueOrder>>
}>() {}
