/**
 * Who may do what in a partner's console (CONTRACT "Storefront and consoles"): four roles, three
 * rights. Pure; the members and keys services check it on every call, the pages only hide buttons.
 *
 *   right          owner  developer  finance  viewer
 *   view             ✓        ✓         ✓        ✓
 *   manageKeys       ✓        ✓
 *   manageMembers    ✓
 */
export const ROLES = ["owner", "developer", "finance", "viewer"] as const
export type Role = typeof ROLES[number]

export type ConsoleRight = "view" | "manageKeys" | "manageMembers"

const RIGHTS: Readonly<Record<Role, ReadonlyArray<ConsoleRight>>> = {
  owner: ["view", "manageKeys", "manageMembers"],
  developer: ["view", "manageKeys"],
  finance: ["view"],
  viewer: ["view"]
}

export const isRole = (s: string): s is Role => (ROLES as ReadonlyArray<string>).includes(s)

export const may = (role: Role, right: ConsoleRight): boolean => RIGHTS[role].includes(right)
