/** The signed-in owner's portfolio: their domains and the registrar state we keep for each. */
import { Effect } from "effect"
import { toUnicode } from "../domain/DomainName.js"
import { PortfolioList } from "./Api.js"
import { PortfolioRepo } from "./Repo.js"

const make = Effect.gen(function*() {
  const repo = yield* PortfolioRepo
  return {
    list: (userId: string) =>
      Effect.map(repo.domainsOf(userId), (rows) =>
        new PortfolioList({
          count: rows.length,
          domains: rows.map((r) => {
            const unicode = toUnicode(r.domain)
            return {
              domain: r.domain,
              ...(unicode !== r.domain ? { domain_unicode: unicode } : {}),
              locked: r.locked,
              autoRenew: r.auto_renew,
              nameservers: r.nameservers,
              folder: r.folder,
              contactsHandle: r.contacts_handle,
              expiresAt: r.expires_at.toISOString()
            }
          })
        }))
  }
})

export class Portfolio extends Effect.Service<Portfolio>()("app/Portfolio", { effect: make }) {
  /** Kept for the existing wiring (src/portfolio/Layer.ts). */
  static readonly Live = Portfolio.Default
}
