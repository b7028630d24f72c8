/**
 * The signed-in portfolio and bulk domain operations (docs/portfolio.md), session cookie only:
 *
 *   GET  /api/domains                    the owner's domains and their registrar state
 *   POST /api/domains/bulk/{op}          one operation on 1–1,000 owned domains
 *   GET  /api/domains/bulk/{bulkOpId}    progress of an asynchronous bulk operation (owner only)
 *   GET  /api/carts/{cartId}             a renew/restore cart and each item's outcome (owner only)
 *
 * Writes check Origin (SessionAuth): a cross-site page cannot act with the owner's cookie.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { BULK_OPS, MAX_BULK_DOMAINS } from "../domain/BulkRules.js"
import { SessionAuth } from "../identity/Session.js"
import { documentedAt } from "../platform/http/ApiAnnotations.js"
import { errorWire } from "../platform/http/Errors.js"
import { payloadJsonSchema } from "./BulkPayloads.js"
import {
  BulkOpNotFound,
  CartNotFound,
  CheckoutUnavailable,
  DomainsNotOwned,
  InvalidBulkDomains,
  InvalidBulkPayload,
  ItemsRefused,
  PriceUnavailable,
  RegistrarUnavailable
} from "./Errors.js"

export const PortfolioDomain = Schema.Struct({
  domain: Schema.String.annotations({ description: "A-label form", examples: ["example.com"] }),
  domain_unicode: Schema.optional(Schema.String).annotations({ description: "U-label form, when it differs" }),
  locked: Schema.Boolean.annotations({ description: "Transfer lock (clientTransferProhibited) held" }),
  autoRenew: Schema.Boolean,
  nameservers: Schema.Array(Schema.String).annotations({ examples: [["ns1.example.net", "ns2.example.net"]] }),
  folder: Schema.NullOr(Schema.String),
  contactsHandle: Schema.NullOr(Schema.String).annotations({
    description: "Registrant contact handle at the registrar"
  }),
  expiresAt: Schema.String.annotations({ description: "RFC 3339 UTC", examples: ["2027-03-14T09:26:53.000Z"] })
}).annotations({ identifier: "PortfolioDomain" })

export class PortfolioList extends Schema.Class<PortfolioList>("PortfolioList")({
  domains: Schema.Array(PortfolioDomain),
  count: Schema.Int.annotations({ examples: [1] })
}) {}

export const BulkOpParam = Schema.Literal(...BULK_OPS).annotations({ description: "The operation" })

export class BulkRequest extends Schema.Class<BulkRequest>("BulkRequest")({
  domains: Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(MAX_BULK_DOMAINS)).annotations({
    description: "1 to 1,000 owned domains (normalised to A-labels and de-duplicated)",
    examples: [["example.com", "example.net"]]
  }),
  // Decoded by the op's own schema in the service (the op is in the path); every shape is documented here.
  payload: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ jsonSchema: payloadJsonSchema })
  ).annotations({
    description: "Op-specific: setNameservers {nameservers: [2–13 host names]}; setFolder {folder: string|null}; " +
      "setContacts {contacts: handle}; setAutoRenew {autoRenew: boolean}; renew {years}; restore {reason?}; lock/unlock {}"
  }),
  options: Schema.optional(Schema.Struct({
    skip_on_error: Schema.optional(Schema.Boolean).annotations({
      description: "Default true: unowned or failing items are skipped and reported instead of stopping the rest"
    }),
    dry_run: Schema.optional(Schema.Boolean).annotations({
      description: "Default false: validate everything, change nothing"
    })
  }))
}) {}

const Skipped = Schema.Array(Schema.Struct({ domain: Schema.String, error: Schema.String })).annotations({
  examples: [[{ domain: "example.org", error: "not_owned" }]],
  description: "Items left out, with skip_on_error: `not_owned`; renew/restore also `not_needed`, " +
    "`restore_required`, `past_restore_window`, `renewal_limit`, `expiry_unknown`, a registrar refusal, `price_unavailable: …`"
})

export class BulkAccepted extends Schema.Class<BulkAccepted>("BulkAccepted")({
  bulkOpId: Schema.NullOr(Schema.String).annotations({
    description: "`bulk_…`; null on a dry run (nothing was stored)",
    examples: ["bulk_01jd3k9x0a1b2c3d4e5f6g7h8j"]
  }),
  total: Schema.Int.annotations({ examples: [2] }),
  op: Schema.String.annotations({ examples: ["lock"] }),
  skipped: Schema.optional(Skipped),
  dryRun: Schema.optional(Schema.Boolean)
}) {}

export class BulkUpdated extends Schema.Class<BulkUpdated>("BulkUpdated")({
  updated: Schema.Boolean,
  count: Schema.Int,
  failed: Schema.optional(Skipped),
  skipped: Schema.optional(Skipped),
  dryRun: Schema.optional(Schema.Boolean)
}) {}

export class BulkCart extends Schema.Class<BulkCart>("BulkCart")({
  addedToCart: Schema.Boolean,
  cartId: Schema.optional(Schema.NullOr(Schema.String)).annotations({
    description: "`cart_…`, read it with GET /api/carts/{cartId}; null on a dry run"
  }),
  bulkOpId: Schema.optional(Schema.NullOr(Schema.String)).annotations({
    description: "`bulk_…`, its status (GET /api/domains/bulk/{bulkOpId}) names the cart; null on a dry run"
  }),
  cartItemIds: Schema.Array(Schema.String),
  totalCents: Schema.Int,
  checkoutPath: Schema.NullOr(Schema.String).annotations({
    description: "`/checkout?pt=…`, the hosted checkout of the whole cart; null on a dry run"
  }),
  skipped: Schema.optional(Skipped),
  dryRun: Schema.optional(Schema.Boolean)
}) {}

export class BulkStatus extends Schema.Class<BulkStatus>("BulkStatus")({
  bulkOpId: Schema.String.annotations({ examples: ["bulk_01jd3k9x0a1b2c3d4e5f6g7h8j"] }),
  op: Schema.String.annotations({ examples: ["lock"] }),
  status: Schema.Literal("queued", "running", "done"),
  total: Schema.Int.annotations({ examples: [2] }),
  succeeded: Schema.Int.annotations({ examples: [2] }),
  failed: Schema.Int.annotations({ examples: [0] }),
  items: Schema.Array(Schema.Struct({
    domain: Schema.String.annotations({ examples: ["example.com"] }),
    status: Schema.Literal("queued", "running", "succeeded", "failed"),
    error: Schema.NullOr(Schema.String)
  })),
  skipped: Skipped,
  createdAt: Schema.String.annotations({ examples: ["2026-01-09T14:02:11.000Z"] }),
  finishedAt: Schema.NullOr(Schema.String),
  cart_id: Schema.optional(Schema.NullOr(Schema.String)).annotations({
    description: "renew/restore: the op's cart (`cart_…`, GET /api/carts/{cartId}); its items follow the cart's"
  })
}) {}

export const CartItemView = Schema.Struct({
  domain: Schema.String.annotations({ examples: ["example.com"] }),
  op: Schema.Literal("renew", "restore"),
  amount_cents: Schema.Int.annotations({ examples: [1299] }),
  status: Schema.Literal("pending", "done", "failed", "refunded"),
  error: Schema.optional(Schema.String).annotations({ description: "Why the registrar refused it" }),
  refund_id: Schema.optional(Schema.String).annotations({ description: "`rf_…`, when its amount was refunded" })
}).annotations({ identifier: "CartItem" })

export class CartView extends Schema.Class<CartView>("Cart")({
  id: Schema.String.annotations({ examples: ["cart_01jd3k9x0a1b2c3d4e5f6g7h8j"] }),
  status: Schema.Literal("open", "paid", "done").annotations({
    description: "open: awaiting payment; paid: its items are running; done: every item ran (or was refunded)"
  }),
  total_cents: Schema.Int.annotations({ examples: [1299] }),
  currency: Schema.String.annotations({ examples: ["USD"] }),
  items: Schema.Array(CartItemView),
  created_at: Schema.String.annotations({ examples: ["2026-01-09T14:02:11.000Z"] }),
  paid_at: Schema.NullOr(Schema.String)
}) {}

export class PortfolioApi extends HttpApiGroup.make("portfolio")
  .add(
    HttpApiEndpoint.get("list", "/api/domains")
      .addSuccess(PortfolioList)
      .annotate(OpenApi.Summary, "The signed-in owner's domains")
      .annotate(
        OpenApi.Description,
        "Lock, auto-renew, nameservers, folder, contacts handle and expiry of every owned domain. 401 `not_signed_in` without a session."
      )
      .pipe(documentedAt("/docs/portfolio.md"))
  )
  .add(
    HttpApiEndpoint.post("bulk", "/api/domains/bulk/:op")
      .setPath(Schema.Struct({ op: BulkOpParam }))
      .setPayload(BulkRequest)
      .addSuccess(Schema.Union(BulkAccepted, BulkUpdated, BulkCart))
      .addError(errorWire(InvalidBulkPayload))
      .addError(errorWire(InvalidBulkDomains))
      .addError(errorWire(DomainsNotOwned))
      .addError(errorWire(PriceUnavailable))
      .addError(errorWire(ItemsRefused))
      .addError(errorWire(RegistrarUnavailable))
      .addError(errorWire(CheckoutUnavailable))
      .annotate(OpenApi.Summary, "Apply one operation to up to 1,000 owned domains")
      .annotate(
        OpenApi.Description,
        "lock, unlock, setNameservers, setFolder, setContacts → `{bulkOpId, total, op}` (a durable job; track it with GET /api/domains/bulk/{bulkOpId}); " +
          "setAutoRenew → `{updated, count}` at once; renew, restore → `{addedToCart, cartItemIds, totalCents, checkoutPath}` (one cart, one hosted checkout). " +
          "Ownership of every domain is checked first: 403 `forbidden` listing the unowned ones (`details.unowned`), unless `options.skip_on_error` (default true) skips and reports them. " +
          "renew/restore refuse, dry run or live, each item that cannot run (`not_needed`, `past_restore_window`, `renewal_limit`, …) before the cart: " +
          "with skip_on_error they are listed in `skipped`, else (or when none is left) 422 `items_refused` with `details.refused`. " +
          "`options.dry_run` validates everything and changes nothing (`dryRun: true`). 400 names the failing field. Cookie writes from another site's page: 403 `origin_refused`."
      )
      .pipe(documentedAt("/docs/portfolio.md#bulk-operations"))
  )
  .add(
    HttpApiEndpoint.get("bulkStatus", "/api/domains/bulk/:bulkOpId")
      .setPath(Schema.Struct({ bulkOpId: Schema.String }))
      .addSuccess(BulkStatus)
      .addError(errorWire(BulkOpNotFound))
      .annotate(OpenApi.Summary, "Progress of a bulk operation")
      .annotate(
        OpenApi.Description,
        "`status` queued → running → done, counts, and every item's status and error. Another user's id is 404."
      )
      .pipe(documentedAt("/docs/portfolio.md#tracking"))
  )
  .add(
    HttpApiEndpoint.get("cart", "/api/carts/:cartId")
      .setPath(Schema.Struct({ cartId: Schema.String }))
      .addSuccess(CartView)
      .addError(errorWire(CartNotFound))
      .annotate(OpenApi.Summary, "A renew/restore cart and each item's outcome")
      .annotate(
        OpenApi.Description,
        "Items are pending until the cart is paid and the registrar answered; an item the registrar refused after payment is refunded " +
          "automatically (`refunded`, `refund_id`). Another user's cart is 404."
      )
      .pipe(documentedAt("/docs/portfolio.md#carts"))
  )
  .middleware(SessionAuth)
  .annotate(OpenApi.Title, "Portfolio")
  .annotate(OpenApi.Description, "The signed-in owner's domains and bulk operations (session cookie)")
{}
