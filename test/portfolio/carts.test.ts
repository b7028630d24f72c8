/**
 * Carts through HTTP against the real server and the sandbox registrar (docs/portfolio.md#carts,
 * docs/money.md#carts): a bulk renew/restore refuses, dry run or live, exactly the items that
 * cannot run (a restore nobody needs, a restore past its window, a renewal beyond the registry's
 * limit) before any cart is made; a paid cart posts one ledger transaction; an item that still
 * fails after payment is refunded (provider and ledger); the owner reads the cart, the bulk
 * status names it and the outcome is in the account's notifications log; `ledger verify` stays clean.
 *
 * Sandbox registrar names: `redemption-…` expired 40 days ago (restorable), `expired-…` 90 days
 * ago (past the window), `rejected-…` refused by the registrar after payment; others expire in a year.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CARDS, payWith, ptOf } from "../support/CheckoutKit.js"
import { request, typedError } from "../support/http.js"
import { createTestUser, signIn } from "../support/identity.js"
import * as TestServer from "../support/TestServer.js"

const ADMIN = { authorization: `Bearer ${TestServer.baseEnv.ADMIN_TOKEN}` }

const owner = (domains: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const user = yield* createTestUser({ domains })
    const cookie = yield* signIn(user)
    return { user, cookie }
  })

const bulk = (op: string, body: unknown, cookie: string) =>
  request(`/api/domains/bulk/${op}`, { method: "POST", body, headers: { cookie } })

const restorePrice = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ tld: string; price_cents: string }>`
    select tld, price_cents from tld_prices where op = 'restore' and tld in ('com', 'org')`
  return new Map(rows.map((r) => [r.tld, Number(r.price_cents)]))
})

/** Polls the cart until no item is pending. */
const waitCart = (id: string, cookie: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 300; i++) {
      const reply = yield* request(`/api/carts/${id}`, { headers: { cookie } })
      expect(reply.status, reply.text).toBe(200)
      if (reply.json.status === "done") return reply.json
      yield* Effect.sleep("100 millis")
    }
    throw new Error(`cart ${id} not done`)
  })

const verifyLedger = Effect.gen(function*() {
  const verify = yield* request("/api/admin/ledger/verify", { headers: ADMIN })
  expect(verify.status).toBe(200)
  expect(verify.json.problems).toEqual([])
  expect(verify.json.ok).toBe(true)
})

layer(TestServer.layer({ RATE_LIMITS: JSON.stringify({ auth_login: 1000, auth_login_account: 1000 }) }), {
  timeout: 240_000
})("carts", (it) => {
  it.effect("the issue's repro: a restore past its window and one nobody needs are refused, dry run and live, before any cart", () =>
    Effect.gen(function*() {
      const { cookie, user } = yield* owner(["expired-old.com", "gamma.org"])
      const body = { domains: ["expired-old.com", "gamma.org"], options: { dry_run: true } }
      const dry = yield* bulk("restore", body, cookie)
      expect(dry.status, dry.text).toBe(422)
      expect(typedError(dry).code).toBe("items_refused")
      expect(dry.json.error.details.refused).toEqual([
        { domain: "expired-old.com", error: "past_restore_window" },
        { domain: "gamma.org", error: "not_needed" }
      ])
      const live = yield* bulk("restore", { domains: ["expired-old.com", "gamma.org"] }, cookie)
      expect(live.status, live.text).toBe(422)
      expect(live.json.error.details).toEqual(dry.json.error.details)
      const sql = yield* SqlClient.SqlClient
      const carts = yield* sql<{ n: string }>`select count(*) as n from carts where user_id = ${user.id}`
      expect(Number(carts[0].n)).toBe(0)
    }))

  it.effect("a dry run refuses per item what the live run refuses; the live cart holds only what can run", () =>
    Effect.gen(function*() {
      const { cookie } = yield* owner(["redemption-mix.com", "active-mix.org", "expired-mix.com"])
      const prices = yield* restorePrice
      const domains = ["redemption-mix.com", "active-mix.org", "expired-mix.com"]
      const refused = [
        { domain: "active-mix.org", error: "not_needed" },
        { domain: "expired-mix.com", error: "past_restore_window" }
      ]
      const dry = yield* bulk("restore", { domains, options: { dry_run: true } }, cookie)
      expect(dry.status, dry.text).toBe(200)
      expect(dry.json).toMatchObject({ dryRun: true, addedToCart: false, totalCents: prices.get("com") })
      expect(dry.json.skipped).toEqual(refused)

      // skip_on_error false: one refusal stops everything, as with an unowned name.
      const strict = yield* bulk("restore", { domains, options: { skip_on_error: false } }, cookie)
      expect(strict.status, strict.text).toBe(422)
      expect(strict.json.error.details.refused).toEqual(refused)

      const live = yield* bulk("restore", { domains }, cookie)
      expect(live.status, live.text).toBe(200)
      expect(live.json).toMatchObject({ addedToCart: true, totalCents: prices.get("com"), skipped: refused })
      expect(live.json.cartItemIds).toHaveLength(1)
      expect(live.json.cartId).toMatch(/^cart_/)

      const paid = yield* payWith(ptOf(live.json.checkoutPath), CARDS.ok)
      expect(paid.status).toBeLessThan(400)
      const cart = yield* waitCart(live.json.cartId, cookie)
      expect(cart).toMatchObject({
        id: live.json.cartId,
        status: "done",
        total_cents: prices.get("com"),
        currency: "USD",
        items: [{ domain: "redemption-mix.com", op: "restore", amount_cents: prices.get("com"), status: "done" }]
      })
      expect(Date.parse(cart.paid_at)).toBeGreaterThanOrEqual(Date.parse(cart.created_at))
      yield* verifyLedger
    }))

  it.effect("renewals beyond the registry's ten years are refused per item", () =>
    Effect.gen(function*() {
      const { cookie } = yield* owner(["ten-years.com"])
      const dry = yield* bulk("renew", {
        domains: ["ten-years.com"],
        payload: { years: 10 },
        options: { dry_run: true }
      }, cookie)
      expect(dry.status, dry.text).toBe(422)
      expect(dry.json.error.details.refused).toEqual([{ domain: "ten-years.com", error: "renewal_limit" }])
    }))

  it.effect("a paid cart is in the books; an item failing after payment is refunded; the owner sees it all", () =>
    Effect.gen(function*() {
      const { cookie, user } = yield* owner(["keep-renew.com", "rejected-renew.com"])
      const sql = yield* SqlClient.SqlClient
      const live = yield* bulk("renew", { domains: ["keep-renew.com", "rejected-renew.com"] }, cookie)
      expect(live.status, live.text).toBe(200)
      const cartId: string = live.json.cartId
      const bulkOpId: string = live.json.bulkOpId
      expect(bulkOpId).toMatch(/^bulk_/)

      // Not paid yet: open, items pending, nothing in the books.
      const open = yield* request(`/api/carts/${cartId}`, { headers: { cookie } })
      expect(open.status, open.text).toBe(200)
      expect(open.json).toMatchObject({ status: "open", paid_at: null })
      expect(open.json.items.map((i: any) => i.status)).toEqual(["pending", "pending"])

      const paid = yield* payWith(ptOf(live.json.checkoutPath), CARDS.ok)
      expect(paid.status).toBeLessThan(400)
      const cart = yield* waitCart(cartId, cookie)
      const total = live.json.totalCents as number
      expect(cart.total_cents).toBe(total)
      const kept = cart.items.find((i: any) => i.domain === "keep-renew.com")
      const failed = cart.items.find((i: any) => i.domain === "rejected-renew.com")
      expect(kept).toMatchObject({ op: "renew", status: "done" })
      expect(failed).toMatchObject({ op: "renew", status: "refunded" })
      expect(failed.refund_id).toMatch(/^rf_/)
      expect(failed.error).toMatch(/rejected/)
      expect(kept.amount_cents + failed.amount_cents).toBe(total)

      // The books: the payment once, the failed item's reversal once; verify clean.
      const txs = yield* sql<{ natural_key: string; kind: string; cash: string }>`
        select t.natural_key, t.kind,
               (select sum(amount_cents) from ledger_entries e where e.transaction_id = t.id and e.account = 'buyer_payments') as cash
        from ledger_transactions t where t.natural_key like ${`cart:${cartId}:%`} order by t.created_at, t.natural_key`
      expect(txs.map((t) => [t.kind, Number(t.cash)])).toEqual([
        ["recorded", total],
        ["reversed", -failed.amount_cents]
      ])
      yield* verifyLedger

      // The bulk status names the cart; its items follow the cart's.
      const status = yield* request(`/api/domains/bulk/${bulkOpId}`, { headers: { cookie } })
      expect(status.status, status.text).toBe(200)
      expect(status.json).toMatchObject({ bulkOpId, op: "renew", status: "done", cart_id: cartId, total: 2 })
      expect(status.json.succeeded).toBe(1)
      expect(status.json.failed).toBe(1)

      // The notifications log names the outcome.
      const log = yield* request("/api/account/notifications", { headers: { cookie } })
      expect(log.status, log.text).toBe(200)
      const note = log.json.notifications.find((n: any) => n.subject === cartId)
      expect(note).toMatchObject({ kind: "cart.completed" })
      expect(note.message).toContain("rejected-renew.com")
      expect(note.message).toContain(failed.refund_id)

      // Another user: the cart does not exist.
      const other = yield* owner(["other-owner.com"])
      const foreign = yield* request(`/api/carts/${cartId}`, { headers: { cookie: other.cookie } })
      expect(foreign.status).toBe(404)
      const none = yield* request(`/api/carts/cart_nope`, { headers: { cookie } })
      expect(none.status).toBe(404)
      expect(user.id).not.toBe(other.user.id)
    }))

  it.effect("a cart whose every item fails is refunded whole: the session is refunded and the books net to zero", () =>
    Effect.gen(function*() {
      const { cookie } = yield* owner(["rejected-solo.com"])
      const sql = yield* SqlClient.SqlClient
      const live = yield* bulk("renew", { domains: ["rejected-solo.com"] }, cookie)
      expect(live.status, live.text).toBe(200)
      const cartId: string = live.json.cartId
      yield* payWith(ptOf(live.json.checkoutPath), CARDS.ok)
      const cart = yield* waitCart(cartId, cookie)
      expect(cart.items).toMatchObject([{ domain: "rejected-solo.com", status: "refunded" }])
      const session = yield* sql<{ status: string }>`select status from checkout_sessions where cart_id = ${cartId}`
      expect(session[0].status).toBe("refunded")
      const cash = yield* sql<{ n: string }>`
        select coalesce(sum(e.amount_cents), 0) as n from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
        where t.natural_key like ${`cart:${cartId}:%`} and e.account = 'buyer_payments'`
      expect(Number(cash[0].n)).toBe(0)
      yield* verifyLedger
    }))
})
