import { randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { ROLES, TENANT_PATTERN } from "../domain/constants";
import { hashToken } from "../auth/authenticate";
import { hashPassword } from "../auth/password";
import { endSessionsOf } from "../auth/session";
import { oidcSettings } from "../auth/oidc";
import { ApiError } from "../http/errors";
import { withTransaction } from "../db/pool";

export const newTokenBody = z.object({ name: z.string().trim().min(1).max(100), role: z.enum(ROLES), tenants: z.array(z.string().regex(TENANT_PATTERN)).max(100).optional() }).strict();
export const newUserBody = z
  .object({ email: z.string().trim().email().max(320), password: z.string().min(12).max(500).optional(), role: z.enum(ROLES), tenants: z.array(z.string().regex(TENANT_PATTERN)).max(100).optional() })
  .strict();
export const patchUserBody = z
  .object({ role: z.enum(ROLES).optional(), tenants: z.array(z.string().regex(TENANT_PATTERN)).max(100).optional(), disabled: z.boolean().optional(), password: z.string().min(12).max(500).optional(), signOut: z.literal(true).optional() })
  .strict();

async function audit(tx: pg.PoolClient, actor: string, action: string, targetType: string, targetId: string, detail: unknown) {
  await tx.query(`INSERT INTO audit_log (actor, action, target_type, target_id, detail) VALUES ($1, $2, $3, $4, $5)`, [actor, action, targetType, targetId, JSON.stringify(detail)]);
}

export async function listTokens(pool: pg.Pool) {
  const { rows } = await pool.query(`SELECT id, name, role, tenants, created_by, created_at, last_used_at, revoked_at FROM api_tokens ORDER BY created_at DESC LIMIT 500`);
  return rows.map((r) => ({ id: r.id, name: r.name, role: r.role, tenants: r.tenants, createdBy: r.created_by, createdAt: r.created_at.toISOString(), lastUsedAt: r.last_used_at?.toISOString() ?? null, revokedAt: r.revoked_at?.toISOString() ?? null }));
}

/** Returns the secret once; only its hash is stored. */
export async function createToken(pool: pg.Pool, actor: string, b: z.infer<typeof newTokenBody>) {
  const token = `iw_${randomBytes(24).toString("base64url")}`;
  const id = randomUUID();
  await withTransaction(pool, async (tx) => {
    await tx.query(`INSERT INTO api_tokens (id, name, token_hash, role, tenants, created_by) VALUES ($1, $2, $3, $4, $5, $6)`, [id, b.name, hashToken(token), b.role, b.tenants ?? [], actor]);
    await audit(tx, actor, "token.create", "token", id, { name: b.name, role: b.role, tenants: b.tenants ?? [] });
  });
  return { id, name: b.name, role: b.role, tenants: b.tenants ?? [], token };
}

export async function revokeToken(pool: pg.Pool, actor: string, id: string) {
  return withTransaction(pool, async (tx) => {
    const r = await tx.query(`UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id`, [id]);
    if (!r.rows[0]) throw new ApiError(404, "NOT_FOUND", "token not found");
    const sessionsEnded = await endSessionsOf(tx, { tokenId: id });
    await audit(tx, actor, "token.revoke", "token", id, { sessionsEnded });
    return { id, revoked: true };
  });
}

export async function listUsers(pool: pg.Pool) {
  const { rows } = await pool.query(
    `SELECT u.id, u.email, u.role, u.tenants, u.created_at, u.disabled_at, u.oidc_issuer,
            (SELECT count(*)::int FROM sessions s WHERE s.user_id = u.id AND s.revoked_at IS NULL AND s.expires_at > now()) AS active_sessions
       FROM users u ORDER BY u.email LIMIT 1000`,
  );
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    tenants: r.tenants,
    createdAt: r.created_at.toISOString(),
    disabledAt: r.disabled_at?.toISOString() ?? null,
    sso: r.oidc_issuer !== null,
    activeSessions: r.active_sessions as number,
  }));
}

export async function createUser(pool: pg.Pool, actor: string, b: z.infer<typeof newUserBody>) {
  const id = randomUUID();
  // Without a password the person can only come in through single sign-on, so one must be set up.
  if (b.password === undefined && !oidcSettings()) throw new ApiError(400, "PASSWORD_REQUIRED", "a password is required unless single sign-on (OIDC_*) is configured");
  const hash = b.password === undefined ? null : await hashPassword(b.password);
  return withTransaction(pool, async (tx) => {
    const r = await tx.query(`INSERT INTO users (id, email, password_hash, role, tenants) VALUES ($1, lower($2), $3, $4, $5) ON CONFLICT (email) DO NOTHING RETURNING id`, [id, b.email, hash, b.role, b.tenants ?? []]);
    if (!r.rows[0]) throw new ApiError(409, "EMAIL_TAKEN", "a user with that email exists");
    await audit(tx, actor, "user.create", "user", id, { email: b.email.toLowerCase(), role: b.role, password: hash !== null });
    return { id, email: b.email.toLowerCase(), role: b.role, tenants: b.tenants ?? [] };
  });
}

export async function updateUser(pool: pg.Pool, actor: string, id: string, b: z.infer<typeof patchUserBody>) {
  const hash = b.password ? await hashPassword(b.password) : null;
  return withTransaction(pool, async (tx) => {
    const r = await tx.query(
      `UPDATE users SET role = coalesce($2, role), tenants = coalesce($3, tenants),
              disabled_at = CASE WHEN $4::boolean IS NULL THEN disabled_at WHEN $4 THEN coalesce(disabled_at, now()) ELSE NULL END,
              password_hash = coalesce($5, password_hash)
        WHERE id = $1 RETURNING id, email, role, tenants, disabled_at`,
      [id, b.role ?? null, b.tenants ?? null, b.disabled ?? null, hash],
    );
    if (!r.rows[0]) throw new ApiError(404, "NOT_FOUND", "user not found");
    // Role and tenant changes apply to open sessions on their next request; these end them.
    const sessionsEnded = b.disabled || hash || b.signOut ? await endSessionsOf(tx, { userId: id }) : 0;
    await audit(tx, actor, "user.update", "user", id, { role: b.role, tenants: b.tenants, disabled: b.disabled, passwordChanged: Boolean(hash), sessionsEnded });
    const u = r.rows[0];
    return { id: u.id, email: u.email, role: u.role, tenants: u.tenants, disabledAt: u.disabled_at?.toISOString() ?? null, sessionsEnded };
  });
}
