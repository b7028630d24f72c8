/**
 * Writes the OpenAPI document the service serves at /api/openapi.json to a file (or stdout), built
 * from the Api definition without starting a server: `tsx scripts/openapi-document.ts out.json`.
 * BASE_URL sets `servers` as it does for the service (default http://localhost:3000).
 */
import * as Fs from "node:fs"
import { Api } from "../src/app/Api.js"
import { publishedDocument } from "../src/platform/openapi/OpenApiDeployment.js"

const baseUrl = (process.env.BASE_URL ?? "http://localhost:3000").replace(/\/+$/, "")
const document = JSON.stringify(publishedDocument(Api, { baseUrl, deprecations: {} }), null, 2)
const out = process.argv[2]
if (out === undefined) process.stdout.write(document + "\n")
else Fs.writeFileSync(out, document + "\n")
