// Role checks for the UI. The server enforces every one of these; the UI only hides or disables
// what the signed-in role could not do anyway.
import type { Role } from "@/lib/domain/constants";

const RANK: Record<Role, number> = { viewer: 0, maintainer: 1, operator: 2, admin: 3 };

export function roleAtLeast(role: Role, min: Role): boolean {
  return (RANK[role] ?? -1) >= RANK[min];
}

/** The lowest role allowed to do each dashboard action (mirrors the API routes). */
export const REQUIRED_ROLE = {
  reindex: "maintainer",
  deleteDocument: "maintainer",
  rollback: "operator",
  unpin: "operator",
  retryTask: "operator",
  forceDone: "operator",
  bulkRetry: "operator",
  viewAudit: "operator",
  /** Index spaces: operators read them (to choose a migration's target); admins create, change and retire them. */
  viewSpaces: "operator",
  manageSpaces: "admin",
  /** Start, switch, switch back, abort and finish a tenant's index-space migration. */
  migrate: "operator",
  manageAccess: "admin",
} as const satisfies Record<string, Role>;

export type GuardedAction = keyof typeof REQUIRED_ROLE;

export function can(role: Role, action: GuardedAction): boolean {
  return roleAtLeast(role, REQUIRED_ROLE[action]);
}
