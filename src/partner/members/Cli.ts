/**
 * The operator's invitation of a partner's member (CONTRACT "Storefront and consoles"):
 *   partner invite --partner ptn_… --email E --role owner|developer|finance|viewer [--json]
 * prints the single-use link (`/console/invite/…`, valid for 7 days); only its hash is stored.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect } from "effect"
import { cliAction } from "../../audit/Actor.js"
import { abort, json, print } from "../../cli/Output.js"
import { isPlausibleEmail } from "../../identity/accounts/Accounts.js"
import { Members } from "./Members.js"
import { ROLES } from "./Roles.js"

const partner = Options.text("partner").pipe(Options.withDescription("The partner's id (ptn_…)"))
const email = Options.text("email").pipe(Options.withDescription("Whom the invitation is for (they sign in with it)"))
const role = Options.choice("role", ROLES).pipe(Options.withDescription("owner, developer, finance or viewer"))

export const inviteCommand = Command.make("invite", { json, partner, email, role }, (o) =>
  Effect.gen(function*() {
    const address = o.email.trim().toLowerCase()
    if (!isPlausibleEmail(address)) return yield* abort("--email must be an e-mail address", "usage")
    const members = yield* Members
    // Recorded without the link: whoever holds it can join the partner.
    const invited = yield* cliAction(
      {
        action: "member.invite",
        target: o.partner.trim(),
        after: (i) => ({ id: i.id, email: i.email, role: i.role, expires_at: i.expires_at })
      },
      members.invite({ partnerId: o.partner.trim(), email: address, role: o.role, invitedBy: "operator" })
    ).pipe(Effect.catchTag("UnknownPartner", (e) => abort(e.message, "not_found")))
    yield* print(
      o.json,
      invited,
      `Invitation for ${invited.email} (${invited.role} of ${invited.partner_id}), single use, until ${invited.expires_at}:\n${invited.url}`
    )
  })).pipe(Command.withDescription("Invite a person to a partner's console with a role (prints the link once)"))
