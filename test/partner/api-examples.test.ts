/**
 * The hand-written OpenAPI examples of the partner order operations are valid values of their
 * schemas (refinements included: e-mail, URLs, ISO codes), so the document never shows a request
 * the service would refuse or an answer it could not send.
 */
import { describe, expect, it } from "@effect/vitest"
import { Option, Schema, SchemaAST } from "effect"
import {
  Order,
  OrderDetail,
  OrderPage,
  OrderRequest,
  Quote,
  QuoteRequest,
  Refund,
  RefundRequest
} from "../../src/partner/orders/Api.js"

describe("partner OpenAPI examples", () => {
  it("every example decodes with its schema", () => {
    const schemas = { QuoteRequest, Quote, OrderRequest, Order, OrderDetail, OrderPage, RefundRequest, Refund }
    for (const [name, schema] of Object.entries(schemas)) {
      const examples = Option.getOrUndefined(SchemaAST.getExamplesAnnotation(schema.ast as SchemaAST.Annotated))
      expect(examples?.length, name).toBeGreaterThan(0)
      for (const example of examples ?? []) {
        expect(() => Schema.decodeUnknownSync(schema as Schema.Schema<any, any, never>)(example), name).not.toThrow()
      }
    }
  })
})
