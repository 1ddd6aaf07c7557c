import "server-only";
import { randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";
import type { z } from "zod";
import type { Role } from "../domain/constants";
import { prisma, transaction, iso, Prisma } from "../db/repository";
import { hashToken } from "../auth/authenticate";
import { hashPassword } from "../auth/password";
import { normalEmail } from "../auth/users";
import { oidcSettings } from "../config";
import { endSessionsOf } from "../auth/repository";
import { storedTenants, tenantsOf, tenantsWithin, hasRole, type Principal } from "../auth/principal";
import { DomainError } from "../domain/errors";
import { writeAudit } from "../audit/repository";
import { assertGrantable, atMost, type newTokenBody, type newUserBody, type patchUserBody } from "./accounts";

// Users and API tokens. Every statement here is SQL through Prisma ($queryRaw tagged templates):
// the scope rule is array containment (`<@`), which Prisma's list filters cannot say; the PATCH
// and the person's-token mint lock the user row (FOR UPDATE / FOR SHARE); and times (created_at,
// disabled_at, revoked_at) come from the database clock.

/**
 * Accounts an admin may see and change: every one for an all-tenant admin; for a tenant-limited
 * admin only those whose grant lies within their own tenants (others are "not found" to them).
 * As SQL over a `tenants` column, with the actor's tenants as a parameter (NULL = all).
 */
// An account with no tenants at all is an all-tenant admin's to see and grant: otherwise every
// tenant-limited admin could take over everyone not yet placed (e.g. people created at SSO sign-in).
const IN_SCOPE = (col: string, tenants: string[] | null) =>
  Prisma.sql`(${tenants}::text[] IS NULL OR (NOT ('*' = ANY(${Prisma.raw(col)})) AND cardinality(${Prisma.raw(col)}) > 0 AND ${Prisma.raw(col)} <@ ${tenants}::text[]))`;
/** A token in scope, and for a person's token its owner too (their email is shown with it). */
const TOKEN_IN_SCOPE = (alias: string, tenants: string[] | null) =>
  Prisma.sql`(${IN_SCOPE(`${alias}.tenants`, tenants)} AND (${Prisma.raw(alias)}.user_id IS NULL OR EXISTS (SELECT 1 FROM users o WHERE o.id = ${Prisma.raw(alias)}.user_id AND ${IN_SCOPE("o.tenants", tenants)})))`;

const adminAudit = (actor: string, action: string, targetType: string, targetId: string, detail: unknown) => ({
  actor,
  action,
  targetType,
  targetId,
  detail,
});

type TokenRow = {
  id: string;
  name: string;
  role: string;
  tenants: string[];
  capabilities: string[];
  user_id: string | null;
  user_email: string | null;
  created_by: string | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

export async function listTokens(pool: pg.Pool, actor: Principal) {
  const rows = await prisma(pool).$queryRaw<TokenRow[]>`
    SELECT t.id, t.name, t.role, t.tenants, t.capabilities, t.user_id, u.email AS user_email, t.created_by, t.created_at, t.last_used_at, t.revoked_at
      FROM api_tokens t LEFT JOIN users u ON u.id = t.user_id
     WHERE ${TOKEN_IN_SCOPE("t", actor.tenants)}
     ORDER BY t.created_at DESC LIMIT 500`;
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
    lastUsedAt: iso(r.last_used_at),
    revokedAt: iso(r.revoked_at),
  }));
}

/** Returns the secret once; only its hash is stored. */
export async function createToken(pool: pg.Pool, actor: Principal, b: z.infer<typeof newTokenBody>) {
  assertGrantable(actor, b.role, b.tenants);
  const capabilities = [...new Set(b.capabilities ?? [])];
  if (b.kind === "person" && capabilities.length)
    throw new DomainError(
      "CAPABILITY_NOT_ALLOWED",
      "a person's token acts as that person; capabilities are for application tokens",
    );
  if (capabilities.includes("search:principals") && actor.tenants !== null) {
    // A token that names principals searches as anyone without an audit row per search; a
    // tenant-limited admin could otherwise mint one to skip the audit their own search-as leaves.
    throw new DomainError(
      "GRANT_EXCEEDS_OWN",
      "search:principals lets a token search as anyone unaudited; only an all-tenant admin grants it",
    );
  }
  if (capabilities.includes("metrics:read")) {
    // Metrics are fleet-wide figures, so only an all-tenant admin hands them out, to an all-tenant token.
    if (actor.tenants !== null)
      throw new DomainError(
        "GRANT_EXCEEDS_OWN",
        "metrics:read shows fleet-wide figures; only an all-tenant admin grants it",
      );
    if (tenantsOf(b.tenants) !== null)
      throw new DomainError("CAPABILITY_NOT_ALLOWED", 'metrics:read is for tokens with tenants ["*"]');
  }
  const token = `iw_${randomBytes(24).toString("base64url")}`;
  const id = randomUUID();
  return transaction(pool, async (tx) => {
    if (b.userId) {
      const [u] = await tx.$queryRaw<{ email: string; role: Role; tenants: string[]; disabled: boolean }[]>`
        SELECT email, role, tenants, disabled_at IS NOT NULL AS disabled FROM users WHERE id = ${b.userId}::uuid AND ${IN_SCOPE("tenants", actor.tenants)} FOR SHARE`;
      if (!u) throw new DomainError("NOT_FOUND", "user not found");
      if (u.disabled) throw new DomainError("USER_DISABLED", `${u.email} is disabled`);
      if (!atMost(b.role, u.role))
        throw new DomainError("GRANT_EXCEEDS_OWN", `${u.email} is ${u.role}; their token cannot be ${b.role}`);
      if (!tenantsWithin(tenantsOf(b.tenants), tenantsOf(u.tenants)))
        throw new DomainError("GRANT_EXCEEDS_OWN", `${u.email} does not hold every tenant named`);
    }
    // The person answerable for it: the minting token's person, else the minting person.
    const mintedBy =
      actor.mintedByUserId === undefined && actor.kind === "person" ? actor.subject.replace(/^user:/, "") : null;
    await tx.$executeRaw`INSERT INTO api_tokens (id, name, token_hash, role, tenants, user_id, capabilities, created_by, minted_by_user_id)
      VALUES (${id}::uuid, ${b.name}, ${hashToken(token)}, ${b.role}, ${b.tenants}::text[], ${b.userId ?? null}::uuid, ${capabilities}::text[], ${actor.subject},
              coalesce(${actor.mintedByUserId ?? null}::uuid, (SELECT id FROM users WHERE email = ${mintedBy})))`;
    await writeAudit(
      tx,
      adminAudit(actor.subject, "token.create", "token", id, {
        name: b.name,
        kind: b.kind,
        userId: b.userId ?? null,
        role: b.role,
        tenants: b.tenants,
        capabilities,
      }),
    );
    return {
      id,
      name: b.name,
      kind: b.kind,
      userId: b.userId ?? null,
      role: b.role,
      tenants: b.tenants,
      capabilities,
      token,
    };
  });
}

export async function revokeToken(pool: pg.Pool, actor: Principal, id: string) {
  return transaction(pool, async (tx) => {
    const r = await tx.$queryRaw<
      { id: string }[]
    >`UPDATE api_tokens t SET revoked_at = coalesce(t.revoked_at, now()) WHERE t.id = ${id}::uuid AND ${TOKEN_IN_SCOPE("t", actor.tenants)} RETURNING t.id`;
    if (!r[0]) throw new DomainError("NOT_FOUND", "token not found");
    const sessionsEnded = await endSessionsOf(tx, { tokenId: id });
    await writeAudit(tx, adminAudit(actor.subject, "token.revoke", "token", id, { sessionsEnded }));
    return { id, revoked: true };
  });
}

type UserRow = {
  id: string;
  email: string;
  role: string;
  tenants: string[];
  groups: string[];
  sso_groups: string[];
  created_at: Date;
  disabled_at: Date | null;
  oidc_issuer: string | null;
  active_sessions: number;
};

export async function listUsers(pool: pg.Pool, actor: Principal) {
  const rows = await prisma(pool).$queryRaw<UserRow[]>`
    SELECT u.id, u.email, u.role, u.tenants, u.groups, u.sso_groups, u.created_at, u.disabled_at, u.oidc_issuer,
           (SELECT count(*)::int FROM sessions s WHERE s.user_id = u.id AND s.revoked_at IS NULL AND s.expires_at > now()) AS active_sessions
      FROM users u WHERE ${IN_SCOPE("u.tenants", actor.tenants)} ORDER BY u.email LIMIT 1000`;
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    tenants: r.tenants,
    groups: r.groups,
    ssoGroups: r.sso_groups,
    createdAt: r.created_at.toISOString(),
    disabledAt: iso(r.disabled_at),
    sso: r.oidc_issuer !== null,
    activeSessions: r.active_sessions,
  }));
}

export async function createUser(pool: pg.Pool, actor: Principal, b: z.infer<typeof newUserBody>) {
  assertGrantable(actor, b.role, b.tenants);
  const id = randomUUID();
  // Without a password the person can only come in through single sign-on, so one must be set up.
  if (b.password === undefined && !oidcSettings())
    throw new DomainError("PASSWORD_REQUIRED", "a password is required unless single sign-on (OIDC_*) is configured");
  const hash = b.password === undefined ? null : await hashPassword(b.password);
  return transaction(pool, async (tx) => {
    // ON CONFLICT DO NOTHING rather than a model create: a unique violation would abort the transaction.
    const r = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO users (id, email, password_hash, role, tenants, groups) VALUES (${id}::uuid, ${normalEmail(b.email)}, ${hash}, ${b.role}, ${b.tenants}::text[], ${b.groups ?? []}::text[])
      ON CONFLICT (email) DO NOTHING RETURNING id`;
    if (!r[0]) throw new DomainError("EMAIL_TAKEN", "a user with that email exists");
    await writeAudit(
      tx,
      adminAudit(actor.subject, "user.create", "user", id, {
        email: b.email.toLowerCase(),
        role: b.role,
        tenants: b.tenants,
        groups: b.groups ?? [],
        password: hash !== null,
      }),
    );
    return { id, email: b.email.toLowerCase(), role: b.role, tenants: b.tenants, groups: b.groups ?? [] };
  });
}

export async function updateUser(pool: pg.Pool, actor: Principal, id: string, b: z.infer<typeof patchUserBody>) {
  const grants = b.role !== undefined || b.tenants !== undefined || b.groups !== undefined;
  if (b.role !== undefined || b.tenants !== undefined) {
    // The grant after the change must be one the actor could make; the current one is checked by scope.
    assertGrantable(actor, b.role ?? "viewer", b.tenants ?? storedTenants([]));
  }
  const hash = b.password ? await hashPassword(b.password) : null;
  return transaction(pool, async (tx) => {
    const [before] = await tx.$queryRaw<{ role: Role; tenants: string[]; email: string }[]>`
      SELECT role, tenants, email FROM users WHERE id = ${id}::uuid AND ${IN_SCOPE("tenants", actor.tenants)} FOR UPDATE`;
    if (!before) throw new DomainError("NOT_FOUND", "user not found");
    // Nobody grants themselves: an admin adding a group to their own account would search as that
    // group without the audit row a search-as leaves. Another admin makes such a change.
    // A token answers for the person who minted it, so one minted for the purpose changes nothing.
    const self = (actor.kind === "person" && actor.subject === `user:${before.email}`) || actor.mintedByUserId === id;
    if (grants && self)
      throw new DomainError("SELF_GRANT", "ask another admin to change your own role, tenants or groups");
    if (b.role !== undefined && !hasRole(actor, b.role))
      throw new DomainError("GRANT_EXCEEDS_OWN", `you cannot grant role ${b.role}`);
    const disabled = b.disabled ?? null;
    const [u] = await tx.$queryRaw<
      {
        id: string;
        email: string;
        role: string;
        tenants: string[];
        groups: string[];
        sso_groups: string[];
        disabled_at: Date | null;
      }[]
    >`
      UPDATE users SET role = coalesce(${b.role ?? null}, role), tenants = coalesce(${b.tenants ?? null}::text[], tenants), groups = coalesce(${b.groups ?? null}::text[], groups),
             disabled_at = CASE WHEN ${disabled}::boolean IS NULL THEN disabled_at WHEN ${disabled}::boolean THEN coalesce(disabled_at, now()) ELSE NULL END,
             password_hash = coalesce(${hash}, password_hash)
       WHERE id = ${id}::uuid RETURNING id, email, role, tenants, groups, sso_groups, disabled_at`;
    // Role, tenant and group changes apply to open sessions and personal tokens on their next request; these end sessions.
    const sessionsEnded = b.disabled || hash || b.signOut ? await endSessionsOf(tx, { userId: id }) : 0;
    await writeAudit(
      tx,
      adminAudit(actor.subject, "user.update", "user", id, {
        role: b.role,
        tenants: b.tenants,
        groups: b.groups,
        before: b.role !== undefined || b.tenants !== undefined ? before : undefined,
        disabled: b.disabled,
        passwordChanged: Boolean(hash),
        sessionsEnded,
      }),
    );
    return {
      id: u.id,
      email: u.email,
      role: u.role,
      tenants: u.tenants,
      groups: u.groups,
      ssoGroups: u.sso_groups,
      disabledAt: iso(u.disabled_at),
      sessionsEnded,
    };
  });
}
