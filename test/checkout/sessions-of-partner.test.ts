/**
 * The checkout's list of a partner's own sessions (src/checkout/Repo.ts `ofPartner`, behind
 * Checkout.sessionsOf and the console's /console/checkout-sessions): one partner and environment
 * only, never a marketplace or cart session, newest first, a page before an id. Over the test
 * server's database; the console's pages test the service and its door through HTTP.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CheckoutRepo, type NewSession } from "../../src/checkout/Repo.js"
import { makeId } from "../../src/platform/Ids.js"
import { createPartner } from "../support/PartnerKit.js"
import * as TestServer from "../support/TestServer.js"

const session = (over: Partial<NewSession>): NewSession => ({
  id: makeId("cs"),
  kind: "partner",
  partnerId: null,
  credentialId: null,
  environment: "sandbox",
  listingId: null,
  domain: "listed.com",
  priceCents: 10_000,
  currency: "USD",
  reference: null,
  returnUrl: null,
  cancelUrl: null,
  buyerEmail: null,
  referral: null,
  cart: null,
  expiresAt: new Date(Date.now() + 3_600_000),
  ...over
})

layer(TestServer.layer())("checkout sessions of a partner", (it) => {
  it.effect("one partner and environment, its own sessions only, newest first, paged by id", () =>
    Effect.gen(function*() {
      const repo = yield* Effect.provide(CheckoutRepo, CheckoutRepo.Live)
      const a = yield* createPartner({ scopes: ["embed"] })
      const b = yield* createPartner({ scopes: ["embed"] })
      const mine: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const s = session({ partnerId: a.partner_id, domain: `mine-${i}.com` })
        yield* repo.insert(s)
        mine.push(s.id)
      }
      yield* repo.insert(session({ partnerId: a.partner_id, environment: "live" }))
      yield* repo.insert(session({ partnerId: b.partner_id }))
      yield* repo.insert(session({ kind: "marketplace", partnerId: a.partner_id }))

      const owner = { partnerId: a.partner_id, environment: "sandbox" as const }
      const all = yield* repo.ofPartner(owner, null, 10)
      expect(all.map((s) => s.id)).toEqual([...mine].reverse())
      const first = yield* repo.ofPartner(owner, null, 2)
      expect(first.map((s) => s.id)).toEqual([mine[2], mine[1]])
      expect((yield* repo.ofPartner(owner, first[1]!.id, 2)).map((s) => s.id)).toEqual([mine[0]])
      expect(yield* repo.ofPartner({ partnerId: a.partner_id, environment: "live" }, null, 10)).toHaveLength(1)
      expect(yield* repo.ofPartner({ partnerId: "ptn_nobody", environment: "sandbox" }, null, 10)).toEqual([])
    }))
})
