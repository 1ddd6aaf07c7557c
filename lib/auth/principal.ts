import type { Role } from "../domain/constants";

/** Who is calling: a person's session or a machine token. */
export type Principal = {
  subject: string; // e.g. "token:bootstrap", "token:<id>", "user:<email>"
  role: Role;
  tenants: string[] | null; // null = all tenants
};

/** A principal from stored columns, where an empty tenant list means "all tenants". */
export function principalOf(subject: string, role: Role, tenants: readonly string[] | null): Principal {
  return { subject, role, tenants: tenants && tenants.length ? [...tenants] : null };
}

const RANK: Record<Role, number> = { viewer: 0, maintainer: 1, operator: 2, admin: 3 };

export function hasRole(p: Principal, min: Role): boolean {
  return RANK[p.role] >= RANK[min];
}

export function canSeeTenant(p: Principal, tenant: string): boolean {
  return p.tenants === null || p.tenants.includes(tenant);
}
