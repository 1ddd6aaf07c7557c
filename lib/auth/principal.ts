import type { Role } from "../domain/constants";

/** Powers an application token may be minted with; a person never holds one. */
export const CAPABILITIES = ["search:principals", "metrics:read"] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** The stored grant that means every tenant; it must stand alone in its list. */
export const ALL_TENANTS = "*";

/** Who is calling: a person (their session or their personal token) or an application's token. */
export type Principal = {
  subject: string; // "user:<email>", "token:<name>", "token:bootstrap"
  kind: "person" | "application";
  role: Role;
  tenants: string[] | null; // null = all tenants (granted explicitly as ["*"])
  /** The ACL principals the caller is: a person's `user:<email>` and `group:<name>`s; none for an application. */
  principals: string[];
  capabilities: Capability[];
  /**
   * A token's answerable person: the user who minted it, directly or through other tokens (null:
   * the bootstrap token, or unknown; absent for a session). Nobody grants themselves, through a
   * token either, a personal token minted for someone else included.
   */
  mintedByUserId?: string | null;
};

/** Stored grant → principal tenants: ["*"] is every tenant, any other list (empty too) is literal. */
export function tenantsOf(stored: readonly string[] | null | undefined): string[] | null {
  if (!stored) return [];
  return stored.includes(ALL_TENANTS) ? null : [...stored];
}

/** Principal tenants → the stored grant. */
export function storedTenants(tenants: readonly string[] | null): string[] {
  return tenants === null ? [ALL_TENANTS] : [...tenants];
}

/** The ACL principals of a person. */
export function personPrincipals(email: string, groups: readonly string[]): string[] {
  return [`user:${email}`, ...[...new Set(groups)].sort().map((g) => `group:${g}`)];
}

export function personPrincipal(
  email: string,
  role: Role,
  tenants: readonly string[] | null,
  groups: readonly string[] = [],
): Principal {
  return {
    subject: `user:${email}`,
    kind: "person",
    role,
    tenants: tenantsOf(tenants),
    principals: personPrincipals(email, groups),
    capabilities: [],
  };
}

export function applicationPrincipal(
  name: string,
  role: Role,
  tenants: readonly string[] | null,
  capabilities: readonly string[] = [],
): Principal {
  return {
    subject: `token:${name}`,
    kind: "application",
    role,
    tenants: tenantsOf(tenants),
    principals: [],
    capabilities: CAPABILITIES.filter((c) => capabilities.includes(c)),
  };
}

/** The configured bootstrap token: an all-tenant admin application with every capability. */
export function bootstrapPrincipal(): Principal {
  return applicationPrincipal("bootstrap", "admin", [ALL_TENANTS], CAPABILITIES);
}

const RANK: Record<Role, number> = { viewer: 0, maintainer: 1, operator: 2, admin: 3 };

export function hasRole(p: Principal, min: Role): boolean {
  return RANK[p.role] >= RANK[min];
}

export function lowerRole(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}

/** Tenants both grants allow (null = all). */
export function intersectTenants(a: string[] | null, b: string[] | null): string[] | null {
  if (a === null) return b === null ? null : [...b];
  if (b === null) return [...a];
  return a.filter((t) => b.includes(t));
}

/** Whether grant `inner` is within `outer` (null = all tenants). */
export function tenantsWithin(inner: string[] | null, outer: string[] | null): boolean {
  if (outer === null) return true;
  if (inner === null) return false;
  return inner.every((t) => outer.includes(t));
}

export function canSeeTenant(p: Principal, tenant: string): boolean {
  return p.tenants === null || p.tenants.includes(tenant);
}

export function isAllTenants(p: Principal): boolean {
  return p.tenants === null;
}

export function hasCapability(p: Principal, c: Capability): boolean {
  return p.capabilities.includes(c);
}

/** A stored token with its owner's columns (NULL for an application token). */
export type TokenRow = {
  name: string;
  role: Role;
  tenants: string[];
  capabilities: string[];
  user_id: string | null;
  user_email: string | null;
  user_role: Role | null;
  user_tenants: string[] | null;
  user_groups: string[] | null;
  user_disabled: boolean | null;
  minted_by_user_id: string | null;
};

/**
 * A person's token acts as that person and never above them: the lower role, the common tenants,
 * their principals, read live so a demotion or disablement applies on the next request. Null when
 * the owner is gone or disabled.
 */
export function tokenPrincipal(t: TokenRow): Principal | null {
  if (t.user_id === null)
    return { ...applicationPrincipal(t.name, t.role, t.tenants, t.capabilities), mintedByUserId: t.minted_by_user_id };
  if (!t.user_email || !t.user_role || t.user_disabled) return null;
  const p = personPrincipal(t.user_email, lowerRole(t.role, t.user_role), null, t.user_groups ?? []);
  p.tenants = intersectTenants(tenantsOf(t.tenants), tenantsOf(t.user_tenants));
  // An admin may mint a person's token for someone else: it still answers for the admin. One with
  // no known minter (the bootstrap token's) answers for its owner.
  p.mintedByUserId = t.minted_by_user_id ?? t.user_id;
  return p;
}

/** SQL select list for TokenRow, given api_tokens aliased t and users aliased u (LEFT JOIN u ON u.id = t.user_id). */
/**
 * The columns tokenPrincipal reads. A person token carries its person's SSO groups only while the
 * provider told us them within `ssoWindowSeconds` (their last SSO sign-in): a token is not a
 * sign-in, so groups the provider removed would otherwise live on for the token's whole life.
 */
export function tokenRowColumns(ssoWindowSeconds: number): string {
  const secs = Math.max(0, Math.floor(ssoWindowSeconds));
  return `t.name, t.role, t.tenants, t.capabilities, t.user_id, u.email AS user_email, u.role AS user_role,
  u.tenants AS user_tenants,
  (u.groups || CASE WHEN u.sso_groups_at > now() - make_interval(secs => ${secs}) THEN u.sso_groups ELSE '{}'::text[] END) AS user_groups,
  (u.disabled_at IS NOT NULL) AS user_disabled, t.minted_by_user_id`;
}
