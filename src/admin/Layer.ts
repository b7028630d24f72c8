/** The admin capability as one layer: named operator tokens (owner of `operator_tokens`) and the /api/admin middleware. */
import { Layer } from "effect"
import { AdminAuthLive } from "./Auth.js"
import { OperatorTokens } from "./OperatorTokens.js"

export const AdminLive = AdminAuthLive.pipe(Layer.provideMerge(OperatorTokens.Default))
