import { randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { ROLES, TENANT_PATTERN, type Role } from "../domain/constants";
import { hashToken } from "../auth/authenticate";
import { hashPassword } from "../auth/password";
import { endSessionsOf } from "../auth/session";
import { oidcSettings } from "../auth/oidc";
import { ALL_TENANTS, CAPABILITIES, hasRole, storedTenants, tenantsOf, tenantsWithin, type Principal } from "../auth/principal";
import { ApiError } from "../http/errors";
import { noControl, NO_CONTROL } from "../documents/schemas";
import { withTransaction } from "../db/pool";

/** Group names as they appear after `group:` in document ACLs. */
export const GROUP_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;

/**
 * A tenant grant is explicit: `["*"]` for every tenant, or tenant names. An empty list is refused
 * here (it used to mean "all"); shutting someone out is `disabled`, not an empty grant.
 */
export const tenantGrant = z
  .array(z.string().refine((t) => t === ALL_TENANTS || TENANT_PATTERN.test(t), { message: `a tenant name (${TENANT_PATTERN.source}) or "*" for all tenants` }))
  .min(1, { message: 'name the tenants, or ["*"] for all tenants' })
  .max(100)
  .refine((ts) => !ts.includes(ALL_TENANTS) || ts.length === 1, { message: '"*" (all tenants) must stand alone' })
  .transform((ts) => [...new Set(ts)]);
const groups = z.array(z.string().regex(GROUP_PATTERN, { message: `a group name (${GROUP_PATTERN.source})` })).max(100).transform((gs) => [...new Set(gs)].sort());

export const newTokenBody = z
  .object({
    name: z.string().trim().min(1).max(100).refine(noControl, NO_CONTROL),
    role: z.enum(ROLES),
    tenants: tenantGrant,
    kind: z.enum(["application", "person"]).default("application"),
    userId: z.string().uuid().optional(),
    capabilities: z.array(z.enum(CAPABILITIES)).max(CAPABILITIES.length).optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.kind === "person" && !b.userId) ctx.addIssue({ code: "custom", path: ["userId"], message: "a person's token names the user it acts as" });
    if (b.kind === "application" && b.userId) ctx.addIssue({ code: "custom", path: ["userId"], message: "an application token belongs to no user" });
  });
export const newUserBody = z
  .object({ email: z.string().trim().email().max(320), password: z.string().min(12).max(500).optional(), role: z.enum(ROLES), tenants: tenantGrant, groups: groups.optional() })
  .strict();
export const patchUserBody = z
  .object({ role: z.enum(ROLES).optional(), tenants: tenantGrant.optional(), groups: groups.optional(), disabled: z.boolean().optional(), password: z.string().min(12).max(500).optional(), signOut: z.literal(true).optional() })
  .strict();

async function audit(tx: pg.PoolClient, actor: string, action: string, targetType: string, targetId: string, detail: unknown) {
  await tx.query(`INSERT INTO audit_log (actor, action, target_type, target_id, detail) VALUES ($1, $2, $3, $4, $5)`, [actor, action, targetType, targetId, JSON.stringify(detail)]);
}

const RANKS: Role[] = ["viewer", "maintainer", "operator", "admin"];
const atMost = (role: Role, max: Role) => RANKS.indexOf(role) <= RANKS.indexOf(max);

/** Nobody grants more than they hold: a role above their own, or a tenant (or "*") they lack. */
function assertGrantable(actor: Principal, role: Role, tenants: string[]) {
  if (!hasRole(actor, role)) throw new ApiError(403, "GRANT_EXCEEDS_OWN", `you cannot grant role ${role}, above your own (${actor.role})`);
  const grant = tenantsOf(tenants);
  if (!tenantsWithin(grant, actor.tenants)) {
    const missing = grant === null ? "all tenants" : grant.filter((t) => !actor.tenants!.includes(t)).join(", ");
    throw new ApiError(403, "GRANT_EXCEEDS_OWN", `you cannot grant ${missing}: you do not hold ${grant === null ? "them" : "it"}`);
  }
}

/**
 * Accounts an admin may see and change: every one for an all-tenant admin; for a tenant-limited
 * admin only those whose grant lies within their own tenants (others are "not found" to them).
 * As SQL over a `tenants` column, with the actor's tenants as a parameter (NULL = all).
 */
const IN_SCOPE = (col: string, param: string) => `(${param}::text[] IS NULL OR (NOT ('*' = ANY(${col})) AND ${col} <@ ${param}::text[]))`;

export async function listTokens(pool: pg.Pool, actor: Principal) {
  const { rows } = await pool.query(
    `SELECT t.id, t.name, t.role, t.tenants, t.capabilities, t.user_id, u.email AS user_email, t.created_by, t.created_at, t.last_used_at, t.revoked_at
       FROM api_tokens t LEFT JOIN users u ON u.id = t.user_id
      WHERE ${IN_SCOPE("t.tenants", "$1")}
      ORDER BY t.created_at DESC LIMIT 500`,
    [actor.tenants],
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    kind: r.user_id ? ("person" as const) : ("application" as const),
    userId: r.user_id,
    userEmail: r.user_email,
    role: r.role,
    tenants: r.tenants,
    capabilities: r.capabilities,
    createdBy: r.created_by,
    createdAt: r.created_at.toISOString(),
    lastUsedAt: r.last_used_at?.toISOString() ?? null,
    revokedAt: r.revoked_at?.toISOString() ?? null,
  }));
}

/** Returns the secret once; only its hash is stored. */
export async function createToken(pool: pg.Pool, actor: Principal, b: z.infer<typeof newTokenBody>) {
  assertGrantable(actor, b.role, b.tenants);
  const capabilities = [...new Set(b.capabilities ?? [])];
  if (b.kind === "person" && capabilities.length) throw new ApiError(400, "CAPABILITY_NOT_ALLOWED", "a person's token acts as that person; capabilities are for application tokens");
  if (capabilities.includes("metrics:read")) {
    // Metrics are fleet-wide figures, so only an all-tenant admin hands them out, to an all-tenant token.
    if (actor.tenants !== null) throw new ApiError(403, "GRANT_EXCEEDS_OWN", "metrics:read shows fleet-wide figures; only an all-tenant admin grants it");
    if (tenantsOf(b.tenants) !== null) throw new ApiError(400, "CAPABILITY_NOT_ALLOWED", 'metrics:read is for tokens with tenants ["*"]');
  }
  const token = `iw_${randomBytes(24).toString("base64url")}`;
  const id = randomUUID();
  return withTransaction(pool, async (tx) => {
    if (b.userId) {
      const u = (await tx.query<{ email: string; role: Role; tenants: string[]; disabled: boolean }>(
        `SELECT email, role, tenants, disabled_at IS NOT NULL AS disabled FROM users WHERE id = $1 AND ${IN_SCOPE("tenants", "$2")} FOR SHARE`,
        [b.userId, actor.tenants],
      )).rows[0];
      if (!u) throw new ApiError(404, "NOT_FOUND", "user not found");
      if (u.disabled) throw new ApiError(409, "USER_DISABLED", `${u.email} is disabled`);
      if (!atMost(b.role, u.role)) throw new ApiError(403, "GRANT_EXCEEDS_OWN", `${u.email} is ${u.role}; their token cannot be ${b.role}`);
      if (!tenantsWithin(tenantsOf(b.tenants), tenantsOf(u.tenants))) throw new ApiError(403, "GRANT_EXCEEDS_OWN", `${u.email} does not hold every tenant named`);
    }
    await tx.query(`INSERT INTO api_tokens (id, name, token_hash, role, tenants, user_id, capabilities, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
      id, b.name, hashToken(token), b.role, b.tenants, b.userId ?? null, capabilities, actor.subject,
    ]);
    await audit(tx, actor.subject, "token.create", "token", id, { name: b.name, kind: b.kind, userId: b.userId ?? null, role: b.role, tenants: b.tenants, capabilities });
    return { id, name: b.name, kind: b.kind, userId: b.userId ?? null, role: b.role, tenants: b.tenants, capabilities, token };
  });
}

export async function revokeToken(pool: pg.Pool, actor: Principal, id: string) {
  return withTransaction(pool, async (tx) => {
    const r = await tx.query(`UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 AND ${IN_SCOPE("tenants", "$2")} RETURNING id`, [id, actor.tenants]);
    if (!r.rows[0]) throw new ApiError(404, "NOT_FOUND", "token not found");
    const sessionsEnded = await endSessionsOf(tx, { tokenId: id });
    await audit(tx, actor.subject, "token.revoke", "token", id, { sessionsEnded });
    return { id, revoked: true };
  });
}

export async function listUsers(pool: pg.Pool, actor: Principal) {
  const { rows } = await pool.query(
    `SELECT u.id, u.email, u.role, u.tenants, u.groups, u.sso_groups, u.created_at, u.disabled_at, u.oidc_issuer,
            (SELECT count(*)::int FROM sessions s WHERE s.user_id = u.id AND s.revoked_at IS NULL AND s.expires_at > now()) AS active_sessions
       FROM users u WHERE ${IN_SCOPE("u.tenants", "$1")} ORDER BY u.email LIMIT 1000`,
    [actor.tenants],
  );
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    tenants: r.tenants,
    groups: r.groups,
    ssoGroups: r.sso_groups,
    createdAt: r.created_at.toISOString(),
    disabledAt: r.disabled_at?.toISOString() ?? null,
    sso: r.oidc_issuer !== null,
    activeSessions: r.active_sessions as number,
  }));
}

export async function createUser(pool: pg.Pool, actor: Principal, b: z.infer<typeof newUserBody>) {
  assertGrantable(actor, b.role, b.tenants);
  const id = randomUUID();
  // Without a password the person can only come in through single sign-on, so one must be set up.
  if (b.password === undefined && !oidcSettings()) throw new ApiError(400, "PASSWORD_REQUIRED", "a password is required unless single sign-on (OIDC_*) is configured");
  const hash = b.password === undefined ? null : await hashPassword(b.password);
  return withTransaction(pool, async (tx) => {
    const r = await tx.query(`INSERT INTO users (id, email, password_hash, role, tenants, groups) VALUES ($1, lower($2), $3, $4, $5, $6) ON CONFLICT (email) DO NOTHING RETURNING id`, [
      id, b.email, hash, b.role, b.tenants, b.groups ?? [],
    ]);
    if (!r.rows[0]) throw new ApiError(409, "EMAIL_TAKEN", "a user with that email exists");
    await audit(tx, actor.subject, "user.create", "user", id, { email: b.email.toLowerCase(), role: b.role, tenants: b.tenants, groups: b.groups ?? [], password: hash !== null });
    return { id, email: b.email.toLowerCase(), role: b.role, tenants: b.tenants, groups: b.groups ?? [] };
  });
}

export async function updateUser(pool: pg.Pool, actor: Principal, id: string, b: z.infer<typeof patchUserBody>) {
  if (b.role !== undefined || b.tenants !== undefined) {
    // The grant after the change must be one the actor could make; the current one is checked by scope.
    assertGrantable(actor, b.role ?? "viewer", b.tenants ?? storedTenants([]));
  }
  const hash = b.password ? await hashPassword(b.password) : null;
  return withTransaction(pool, async (tx) => {
    const before = (await tx.query<{ role: Role; tenants: string[] }>(`SELECT role, tenants FROM users WHERE id = $1 AND ${IN_SCOPE("tenants", "$2")} FOR UPDATE`, [id, actor.tenants])).rows[0];
    if (!before) throw new ApiError(404, "NOT_FOUND", "user not found");
    if (b.role !== undefined && !hasRole(actor, b.role)) throw new ApiError(403, "GRANT_EXCEEDS_OWN", `you cannot grant role ${b.role}`);
    const r = await tx.query(
      `UPDATE users SET role = coalesce($2, role), tenants = coalesce($3, tenants), groups = coalesce($6, groups),
              disabled_at = CASE WHEN $4::boolean IS NULL THEN disabled_at WHEN $4 THEN coalesce(disabled_at, now()) ELSE NULL END,
              password_hash = coalesce($5, password_hash)
        WHERE id = $1 RETURNING id, email, role, tenants, groups, sso_groups, disabled_at`,
      [id, b.role ?? null, b.tenants ?? null, b.disabled ?? null, hash, b.groups ?? null],
    );
    // Role, tenant and group changes apply to open sessions and personal tokens on their next request; these end sessions.
    const sessionsEnded = b.disabled || hash || b.signOut ? await endSessionsOf(tx, { userId: id }) : 0;
    await audit(tx, actor.subject, "user.update", "user", id, {
      role: b.role,
      tenants: b.tenants,
      groups: b.groups,
      before: b.role !== undefined || b.tenants !== undefined ? before : undefined,
      disabled: b.disabled,
      passwordChanged: Boolean(hash),
      sessionsEnded,
    });
    const u = r.rows[0];
    return { id: u.id, email: u.email, role: u.role, tenants: u.tenants, groups: u.groups, ssoGroups: u.sso_groups, disabledAt: u.disabled_at?.toISOString() ?? null, sessionsEnded };
  });
}
