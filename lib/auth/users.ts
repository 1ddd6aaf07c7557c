import { randomUUID } from "node:crypto";
import type pg from "pg";
import { hashPassword, verifyPassword } from "./password";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./schemas";
import { personPrincipal } from "./principal";
import type { Identity } from "./session";
import type { Role } from "../domain/constants";

export const DEFAULT_ADMIN_EMAIL = "admin@localhost";

/** INDEXWRIGHT_ADMIN_PASSWORD obeys the rule the admin API applies to every password. */
export function checkAdminPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new Error(
      `INDEXWRIGHT_ADMIN_PASSWORD must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters (it has ${password.length})`,
    );
  }
}

/**
 * Creates the bootstrap admin, or resets its password and role when it exists. A disabled account
 * stays disabled: disabling is an admin's decision in the dashboard, and a setting read at every
 * start must not undo it (it re-enabled the account on each restart before). Says which it found.
 */
export async function upsertAdmin(pool: pg.Pool, email: string, password: string): Promise<{ disabled: boolean }> {
  checkAdminPassword(password);
  const hash = await hashPassword(password);
  const { rows } = await pool.query<{ disabled: boolean }>(
    `INSERT INTO users (id, email, password_hash, role, tenants) VALUES ($1, lower($2), $3, 'admin', ARRAY['*'])
     ON CONFLICT (email) DO UPDATE SET password_hash = EXCLUDED.password_hash, role = 'admin', tenants = ARRAY['*']
     RETURNING disabled_at IS NOT NULL AS disabled`,
    [randomUUID(), email, hash],
  );
  return rows[0];
}

export async function hasUser(pool: pg.Pool, email: string): Promise<boolean> {
  return (await pool.query(`SELECT 1 FROM users WHERE email = lower($1)`, [email])).rowCount === 1;
}

/**
 * The one spelling of an email used both to find the account and to key its sign-in throttle, so
 * the two always mean the same account. (PostgreSQL's lower() and JavaScript's toLowerCase() fold
 * some characters differently, e.g. "İ", which let other spellings of one account escape its count.)
 */
export function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** `address`: the caller's address (its throttle bucket), so one caller cannot fill the hashing gate. */
export async function identityForPassword(
  pool: pg.Pool,
  email: string,
  password: string,
  address?: string,
): Promise<Identity | null> {
  const u = (
    await pool.query<{
      id: string;
      email: string;
      password_hash: string | null;
      role: Role;
      tenants: string[];
      groups: string[];
    }>(
      `SELECT id, email, password_hash, role, tenants, groups || sso_groups AS groups FROM users WHERE email = $1 AND disabled_at IS NULL`,
      [normalEmail(email)],
    )
  ).rows[0];
  const { ok, needsRehash } = await verifyPassword(password, u?.password_hash ?? null, [
    `account:${normalEmail(email)}`,
    ...(address ? [`address:${address}`] : []),
  ]);
  if (!u || !ok) return null;
  if (needsRehash) await rehash(pool, u.id, u.password_hash!, password);
  return { principal: personPrincipal(u.email, u.role, u.tenants, u.groups), owner: { kind: "user", userId: u.id } };
}

/**
 * Stores a hash at the current setting for a password that just matched an older, weaker one. Only
 * if the row still holds that old hash: a password changed in the meantime wins.
 */
export async function rehash(pool: pg.Pool, userId: string, oldHash: string, password: string): Promise<boolean> {
  const hash = await hashPassword(password);
  const r = await pool.query(`UPDATE users SET password_hash = $3 WHERE id = $1 AND password_hash = $2`, [
    userId,
    oldHash,
    hash,
  ]);
  return r.rowCount === 1;
}
