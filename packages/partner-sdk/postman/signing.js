// Postman collection pre-request script: signs every request for the Partner API (scheme v1).
// Variables baseUrl, keyId and secret come from the active environment or the collection
// (pm.variables resolves both). crypto-js is one of the libraries the Postman sandbox provides
// (its global CryptoJS is deprecated).
const Crypto = require("crypto-js")
const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
const dec = (s) => { try { return decodeURIComponent(s.replace(/\+/g, " ")) } catch (e) { return s } }
const keyId = pm.variables.get("keyId")
const secret = pm.variables.get("secret")
if (!keyId || !secret || /REPLACE_ME/.test(keyId + secret)) {
  throw new Error("Set keyId and secret (environment or collection variables) to your sandbox credential")
}
const url = pm.request.url
const path = "/" + url.path.map((p) => pm.variables.replaceIn(p)).join("/")
const pairs = url.query.all().filter((q) => !q.disabled).map((q) => [
  enc(dec(pm.variables.replaceIn(q.key || ""))),
  enc(dec(pm.variables.replaceIn(q.value || "")))
])
pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
const query = pairs.map((p) => p[0] + "=" + p[1]).join("&")
const body = pm.request.body && pm.request.body.mode === "raw" ? pm.variables.replaceIn(pm.request.body.raw || "") : ""
const timestamp = String(Math.floor(Date.now() / 1000))
const nonce = pm.variables.replaceIn("{{$guid}}")
const canonical = [pm.request.method.toUpperCase(), path, query, timestamp, nonce, Crypto.SHA256(body).toString(Crypto.enc.Hex)].join("\n")
const signature = Crypto.HmacSHA256(canonical, secret).toString(Crypto.enc.Hex)
pm.request.headers.upsert({ key: "X-Service-Key-Id", value: keyId })
pm.request.headers.upsert({ key: "X-Service-Timestamp", value: timestamp })
pm.request.headers.upsert({ key: "X-Service-Nonce", value: nonce })
pm.request.headers.upsert({ key: "X-Service-Signature", value: "v1=" + signature })
if (pm.request.method !== "GET" && !pm.request.headers.has("Idempotency-Key")) {
  pm.request.headers.upsert({ key: "Idempotency-Key", value: pm.variables.replaceIn("{{$guid}}") })
}
