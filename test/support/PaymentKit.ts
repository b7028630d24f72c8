/**
 * The payment provider layer's record of a captured payment, for tests that write a
 * service-collected sale the way the checkout does without driving the checkout: the paid
 * `checkout_sessions` row naming the order. `ledger verify` reconciles these records with the
 * ledger's cash (`buyer_payments`), so a sale booked without its payment is a verify failure.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export const capturedPayment = (input: {
  readonly orderId: string
  readonly environment: "live" | "sandbox"
  readonly cents: number
  readonly domain?: string
  readonly kind?: "partner" | "marketplace" | "cart"
}) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const id = `cs_${input.orderId.replace(/^ord_/, "")}`
    return Effect.as(
      sql`
        insert into checkout_sessions (id, kind, partner_id, environment, domain, price_cents, currency, status, provider,
          payment_ref, order_id, expires_at, paid_at)
        values (${id}, ${input.kind ?? "marketplace"}, 'ptn_marketplace', ${input.environment}, ${input.domain ?? null},
          ${input.cents}, 'USD', 'paid', 'sandbox', ${`pi_sbx_${id.slice(3)}_1_ok`}, ${
        input.kind === "cart" ? null : input.orderId
      }, now() + interval '7 days', now())`,
      id
    )
  }).pipe(Effect.orDie)
