/** The audit capability as one layer: the service (owner of `audit_log`) and its admin handler. */
import { Layer } from "effect"
import { AuditLog } from "./AuditLog.js"
import { AdminAuditHttpLive } from "./Http.js"

export const AuditLive = AdminAuditHttpLive.pipe(Layer.provideMerge(AuditLog.Default))
