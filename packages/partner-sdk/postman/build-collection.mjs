// Writes partner-api.postman_collection.json from signing.js and the request list below.
// Run: node packages/partner-sdk/postman/build-collection.mjs
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const here = Path.dirname(fileURLToPath(import.meta.url))
const script = Fs.readFileSync(Path.join(here, "signing.js"), "utf8").split("\n")

const request = (name, method, path, query = [], body) => ({
  name,
  request: {
    method,
    header: body ? [{ key: "Content-Type", value: "application/json" }] : [],
    url: {
      raw: `{{baseUrl}}${path}${query.length ? "?" + query.map(([k, v]) => `${k}=${v}`).join("&") : ""}`,
      host: ["{{baseUrl}}"],
      path: path.split("/").filter(Boolean),
      query: query.map(([key, value]) => ({ key, value }))
    },
    ...(body ? { body: { mode: "raw", raw: JSON.stringify(body, null, 2), options: { raw: { language: "json" } } } } : {})
  }
})

const collection = {
  info: {
    name: "Domain marketplace — Partner API",
    description: "Every request is signed by the collection's pre-request script (X-Service-* headers, scheme v1). Set baseUrl, keyId and secret.",
    schema: "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
  },
  variable: [
    { key: "baseUrl", value: "http://localhost:3000" },
    { key: "keyId", value: "pk_sandbox_…" },
    { key: "secret", value: "sk_…" }
  ],
  event: [{ listen: "prerequest", script: { type: "text/javascript", exec: script } }],
  item: [
    request("Search", "GET", "/api/partner/v1/domains/search", [["q", "coffee"]]),
    request("Domain", "GET", "/api/partner/v1/domains/coffee.com"),
    request("Availability", "GET", "/api/partner/v1/availability", [["domain", "coffee.com"]]),
    request("Pricing", "GET", "/api/partner/v1/pricing", [["domain", "coffee.com"]]),
    request("Create quote", "POST", "/api/partner/v1/quotes", [], { domain: "coffee.com" }),
    request("Create order", "POST", "/api/partner/v1/orders", [], {
      domain: "coffee.com",
      expected_price: 240000,
      currency: "USD",
      external_payment_ref: "pay_123",
      buyer: { email: "buyer@example.org" }
    }),
    request("List orders", "GET", "/api/partner/v1/orders", [["limit", "25"]]),
    request("Events", "GET", "/api/partner/v1/events", [["limit", "50"]]),
    request("Register webhook", "PUT", "/api/partner/webhooks", [], { url: "https://example.org/hooks" })
  ]
}
Fs.writeFileSync(Path.join(here, "partner-api.postman_collection.json"), JSON.stringify(collection, null, 2) + "\n")
console.log("partner-api.postman_collection.json written")
