/** Sandbox helpers: move a sandbox order to its next status, firing the real webhooks. */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { documentedAt } from "../../platform/ApiAnnotations.js"
import { Conflict, errorWire, InternalError, NotFound } from "../../platform/Errors.js"
import { PartnerAuth, requiresScope } from "../Auth.js"
import { OrderDetail } from "../orders/Api.js"
import { SandboxOnly } from "./Errors.js"

export class PartnerSandboxApi extends HttpApiGroup.make("partnerSandbox")
  .add(
    HttpApiEndpoint.post("advance")`/api/partner/v1/sandbox/orders/${HttpApiSchema.param("public_id", Schema.String)}/advance`
      .addSuccess(OrderDetail)
      .addError(NotFound)
      .addError(Conflict)
      .addError(errorWire(SandboxOnly))
      .annotate(OpenApi.Summary, "Sandbox only: perform the order's next admin step")
      .annotate(
        OpenApi.Description,
        "MANUAL_REVIEW → EXTERNALLY_PAID → TRANSFER_IN_PROGRESS → TRANSFER_COMPLETED → SETTLED, each with its event and webhook. 409 at the end; 403 for live credentials."
      )
      .pipe(requiresScope("buy"), documentedAt("/docs/partner.md#sandbox"))
  )
  .middleware(PartnerAuth)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Partner: sandbox")
{}
