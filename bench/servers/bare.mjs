// Floor 1: bare node:http answering the pricing JSON (what the machine can do at all).
import { createServer } from "node:http"
const body = JSON.stringify({ tld: "com", op: "transfer", priceCents: 1099 })
createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"))
