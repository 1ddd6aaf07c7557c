import "server-only";
import { createHash, randomBytes } from "node:crypto";
import type pg from "pg";
import {
  bootstrapPrincipal,
  personPrincipal,
  tokenPrincipal,
  tokenRowColumns,
  type Principal,
  type TokenRow,
} from "./principal";
import { ROLES, type Role } from "../domain/constants";
import { isHttps } from "../http/origin";
import { currentBootstrapHash } from "./bootstrap";
import { oidcSettings } from "../config";

export const SESSION_COOKIE = "iw_session";
/**
 * The name over TLS. Browsers accept a `__Host-` cookie only when it is Secure, for Path=/ and
 * without a Domain, so a sibling subdomain or a plain-http response cannot plant or overwrite it
 * (session fixation). Over plain http (localhost) the prefix could not be set at all, so the plain
 * name stays there; over TLS only the prefixed name is read.
 */
export const SECURE_SESSION_COOKIE = "__Host-iw_session";

export function sessionCookieName(https: boolean): string {
  return https ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

/** Who a session acts for. Its role and tenants are read live from the owner on every request. */
export type SessionOwner =
  { kind: "user"; userId: string } | { kind: "token"; tokenId: string } | { kind: "bootstrap" };
export type SessionMethod = "password" | "token" | "oidc";
/** Who signed in, and the owner their session records. */
export type Identity = { principal: Principal; owner: SessionOwner };

const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;
const sha256 = (v: string) => createHash("sha256").update(v).digest("hex");

/**
 * Seconds a new session lasts, from its start (absolute, not sliding). An SSO session ends after
 * OIDC_SESSION_MAX_SECONDS so the provider is asked again and what it says about groups, or the
 * person, reaches us at least that often.
 */
export function sessionLifetime(method: SessionMethod): number {
  if (method !== "oidc") return SESSION_TTL_SECONDS;
  return Math.min(SESSION_TTL_SECONDS, oidcSettings()?.sessionMaxSeconds ?? SESSION_TTL_SECONDS);
}

/** How recent a person's last SSO sign-in must be for their tokens to carry its groups: an SSO session's own lifetime. */
export function ssoGroupsWindow(): number {
  return sessionLifetime("oidc");
}

/** Stores a new session and returns the cookie value (the only copy of the session id). */
export async function openSession(
  pool: pg.Pool,
  owner: SessionOwner,
  method: SessionMethod,
  userAgent: string | null,
): Promise<string> {
  const id = randomBytes(32).toString("base64url");
  const boot = owner.kind === "bootstrap" ? await currentBootstrapHash(pool) : null;
  if (owner.kind === "bootstrap" && !boot) throw new Error("no bootstrap token is configured");
  await pool.query(
    `INSERT INTO sessions (id_hash, user_id, token_id, bootstrap_hash, method, expires_at, user_agent)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6), $7)`,
    [
      sha256(id),
      owner.kind === "user" ? owner.userId : null,
      owner.kind === "token" ? owner.tokenId : null,
      boot,
      method,
      sessionLifetime(method),
      userAgent?.slice(0, 300) ?? null,
    ],
  );
  // Sign-ins are rare, so they pay for sweeping sessions that ended long ago.
  await pool.query(`DELETE FROM sessions WHERE expires_at < now() - interval '7 days'`);
  return id;
}

type Row = Partial<TokenRow> & {
  bootstrap_hash: string | null;
  session_user_id: string | null;
  email: string | null;
  person_role: Role | null;
  person_tenants: string[] | null;
  person_groups: string[] | null;
  token_id: string | null;
};

/**
 * The principal behind a session cookie, or null when the session is unknown, expired, signed out,
 * or its owner was disabled or revoked. last_seen_at is written at most once a minute.
 *
 * Raw pg on purpose: this runs before every dashboard request, as one statement (lookup, touch and
 * the owner's live role, tenants and groups through three joins). Through Prisma it would be the
 * same SQL as $queryRaw plus the client's per-query work, with nothing typed gained; the rest of
 * session administration (ending sessions) is in ./repository.ts.
 */
export async function principalForSession(pool: pg.Pool, value: string | undefined): Promise<Principal | null> {
  if (!value || !COOKIE_VALUE.test(value)) return null;
  const { rows } = await pool.query<Row>(
    `WITH s AS (SELECT id_hash, user_id, token_id, bootstrap_hash, last_seen_at FROM sessions
                 WHERE id_hash = $1 AND revoked_at IS NULL AND expires_at > now()),
          touched AS (UPDATE sessions SET last_seen_at = now()
                       WHERE id_hash IN (SELECT id_hash FROM s WHERE last_seen_at < now() - interval '1 minute'))
     SELECT s.bootstrap_hash, s.user_id AS session_user_id, p.email, p.role AS person_role, p.tenants AS person_tenants,
            (p.groups || p.sso_groups) AS person_groups, s.token_id, ${tokenRowColumns(ssoGroupsWindow())}
       FROM s
       LEFT JOIN users p ON p.id = s.user_id AND p.disabled_at IS NULL
       LEFT JOIN api_tokens t ON t.id = s.token_id AND t.revoked_at IS NULL
       LEFT JOIN users u ON u.id = t.user_id`,
    [sha256(value)],
  );
  const r = rows[0];
  if (!r) return null;
  // A session opened with a bootstrap token lasts only while that token is the current one.
  if (r.bootstrap_hash) return r.bootstrap_hash === (await currentBootstrapHash(pool)) ? bootstrapPrincipal() : null;
  if (r.session_user_id)
    return r.email && ROLES.includes(r.person_role!)
      ? personPrincipal(r.email, r.person_role!, r.person_tenants, r.person_groups ?? [])
      : null;
  if (r.token_id) return r.name && ROLES.includes(r.role!) ? tokenPrincipal(r as TokenRow) : null;
  return null;
}

export async function endSession(pool: pg.Pool, value: string | undefined): Promise<void> {
  if (!value || !COOKIE_VALUE.test(value)) return;
  await pool.query(`UPDATE sessions SET revoked_at = now() WHERE id_hash = $1 AND revoked_at IS NULL`, [sha256(value)]);
}

export function sessionCookie(value: string, req: Request): string {
  const https = isHttps(req);
  return `${sessionCookieName(https)}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_SECONDS}${https ? "; Secure" : ""}`;
}

export function clearSessionCookie(req: Request): string {
  const https = isHttps(req);
  return `${sessionCookieName(https)}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${https ? "; Secure" : ""}`;
}

/** The session cookie's value under the name this request's scheme uses. */
export function sessionOf(req: Request): string | undefined {
  return cookieValue(req, sessionCookieName(isHttps(req)));
}

export function cookieValue(req: Request, name: string): string | undefined {
  const header = req.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined; // a malformed escape is just "no cookie", not a server error
      }
    }
  }
  return undefined;
}
