/**
 * Who may do what in a partner's console (CONTRACT "Storefront and consoles"): four roles, five
 * rights. Pure; the members, keys, webhooks and referral links services check it on every call,
 * the pages only hide buttons.
 *
 *   right            owner  developer  finance  viewer
 *   view               ✓        ✓         ✓        ✓
 *   manageKeys         ✓        ✓
 *   manageWebhooks     ✓        ✓
 *   manageLinks        ✓        ✓
 *   manageMembers      ✓
 */
export const ROLES = ["owner", "developer", "finance", "viewer"] as const
export type Role = typeof ROLES[number]

export type ConsoleRight = "view" | "manageKeys" | "manageWebhooks" | "manageLinks" | "manageMembers"

const RIGHTS: Readonly<Record<Role, ReadonlyArray<ConsoleRight>>> = {
  owner: ["view", "manageKeys", "manageWebhooks", "manageLinks", "manageMembers"],
  developer: ["view", "manageKeys", "manageWebhooks", "manageLinks"],
  finance: ["view"],
  viewer: ["view"]
}

export const isRole = (s: string): s is Role => (ROLES as ReadonlyArray<string>).includes(s)

export const may = (role: Role, right: ConsoleRight): boolean => RIGHTS[role].includes(right)
