/** Sandbox helpers: move a sandbox order to its next status, firing the real webhooks. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { documentedAt } from "../../platform/http/ApiAnnotations.js"
import { errorWire, InternalError } from "../../platform/http/Errors.js"
import { PartnerAuth, requiresScope } from "../Auth.js"
import { OrderDetail } from "../orders/Api.js"
import { OrderMoveNotAllowed, OrderNotFound } from "../orders/Errors.js"
import { SandboxOnly } from "./Errors.js"

export class PartnerSandboxApi extends HttpApiGroup.make("partnerSandbox")
  .add(
    HttpApiEndpoint.post("advance")`/api/partner/v1/sandbox/orders/${
      HttpApiSchema.param("public_id", Schema.String)
    }/advance`
      .addSuccess(OrderDetail)
      .addError(errorWire(OrderNotFound))
      .addError(errorWire(OrderMoveNotAllowed))
      .addError(errorWire(SandboxOnly))
      .annotate(OpenApi.Summary, "Sandbox only: perform the order's next admin step")
      .annotate(
        OpenApi.Description,
        "MANUAL_REVIEW → EXTERNALLY_PAID → TRANSFER_IN_PROGRESS → TRANSFER_COMPLETED → SETTLED, each with its event and webhook. While the name is being delivered, each call runs the delivery's next step at once (transfer.requested, transfer.auth_code_ready or transfer.pending, then transfer.completed; the sandbox registrar completes a transfer when advanced). 409 at the end, and after a delivery failed for good (an operator decides); 403 for live credentials."
      )
      .pipe(requiresScope("buy"), documentedAt("/docs/partner.md#sandbox"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: sandbox")
  .annotate(
    OpenApi.Description,
    "Sandbox-only controls for testing an integration: drive sandbox orders through their states"
  )
{}
