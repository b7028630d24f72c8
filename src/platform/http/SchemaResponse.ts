/**
 * JSON answers built outside an HttpApi endpoint (the router's fallbacks, the request guard,
 * `/metrics`, the MCP routes): the body is encoded by its schema, so what goes out is what the
 * schema, and the OpenAPI document or protocol it mirrors, says. Synchronous, for answers made
 * at layer build or in a guard. A value that does not encode is a bug and throws (a defect), as
 * an endpoint's success schema would fail it.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Schema } from "effect"

export const schemaResponse = <A, I>(schema: Schema.Schema<A, I>) => {
  const encode = Schema.encodeSync(schema)
  return (value: A, options?: HttpServerResponse.Options.WithContentType): HttpServerResponse.HttpServerResponse =>
    HttpServerResponse.unsafeJson(encode(value), options)
}
