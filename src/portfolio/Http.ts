/** Handlers of the portfolio endpoints: decode → one service call → encode. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { CurrentUser } from "../identity/Session.js"
import { Bulk } from "./Bulk.js"
import { Portfolio } from "./Portfolio.js"

export const PortfolioHttpLive = HttpApiBuilder.group(Api, "portfolio", (handlers) =>
  Effect.gen(function*() {
    const portfolio = yield* Portfolio
    const bulk = yield* Bulk
    return handlers
      .handle("list", () => Effect.flatMap(CurrentUser, (user) => portfolio.list(user.id)))
      .handle("bulk", ({ path, payload }) => Effect.flatMap(CurrentUser, (user) => bulk.bulk(user, path.op, payload)))
      .handle("bulkStatus", ({ path }) => Effect.flatMap(CurrentUser, (user) => bulk.status(path.bulkOpId, user.id)))
      .handle("cart", ({ path }) => Effect.flatMap(CurrentUser, (user) => bulk.cart(path.cartId, user.id)))
  }))
