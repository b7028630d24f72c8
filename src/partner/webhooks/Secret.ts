/**
 * Webhook secrets: issued as Standard Webhooks secrets (`whsec_` + base64 of 32 random bytes),
 * stored sealed with ServiceSecret under one purpose (the only key a reader must keep).
 */
import { randomBytes } from "node:crypto"

/** The ServiceSecret purpose sealing endpoint secrets at rest; changing it orphans every stored secret. */
export const SEAL_PURPOSE = "partner-webhook-secret"

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (what its libraries expect). */
export const issueSecret = () => `whsec_${randomBytes(32).toString("base64")}`

/** Whether a `whsec_` secret is well formed: base64 of at least 16 bytes. */
export const isStandardSecret = (secret: string) => {
  const b64 = secret.slice("whsec_".length)
  return /^[A-Za-z0-9+/]+={0,2}$/.test(b64) && b64.length % 4 === 0 && Buffer.from(b64, "base64").length >= 16
}
