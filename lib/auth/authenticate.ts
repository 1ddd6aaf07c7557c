import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import { getPool } from "../db/pool";
import { currentBootstrapHash } from "./bootstrap";
import { DomainError } from "../domain/errors";
import { assertSameOrigin } from "../http/origin";
import { noteSubject } from "../http/request-context";
import { principalForSession, sessionOf, ssoGroupsWindow, type Identity } from "./session";
import {
  hasRole,
  hasCapability,
  canSeeTenant,
  bootstrapPrincipal,
  tokenPrincipal,
  tokenRowColumns,
  type Principal,
  type TokenRow,
} from "./principal";
import type { Role } from "../domain/constants";
import type { RouteRule } from "../http/routes";
import { keyParam, tenantParam } from "../documents/schemas";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Resolves a bearer token (bootstrap or stored) to a principal and the owner a session would record. */
export async function identityForToken(token: string): Promise<Identity | null> {
  // Configured, or rotated or revoked through the API (./bootstrap.ts): compared as hashes, since a rotated token is kept only as one.
  const bootstrap = await currentBootstrapHash(getPool());
  if (bootstrap && safeEqual(hashToken(token), bootstrap))
    return { principal: bootstrapPrincipal(), owner: { kind: "bootstrap" } };
  const { rows } = await getPool().query<TokenRow & { id: string }>(
    // last_used_at is written at most once a minute per token, not on every request.
    `WITH t AS (SELECT * FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL),
          touched AS (UPDATE api_tokens SET last_used_at = now()
                       WHERE id IN (SELECT id FROM t WHERE last_used_at IS NULL OR last_used_at < now() - interval '1 minute'))
     SELECT t.id, ${tokenRowColumns(ssoGroupsWindow())} FROM t LEFT JOIN users u ON u.id = t.user_id`,
    [hashToken(token)],
  );
  const t = rows[0];
  const principal = t ? tokenPrincipal(t) : null;
  if (!t || !principal) return null;
  return { principal, owner: { kind: "token", tokenId: t.id } };
}

/**
 * Bearer token for machines, session cookie for people. Cookie-authenticated mutations
 * must come from our own origin (CSRF); bearer requests carry no ambient credentials.
 */
export async function authenticate(
  req: Request,
  opts: { role?: Role; tenant?: string; fleet?: boolean } = {},
): Promise<Principal> {
  let principal: Principal | null = null;
  const auth = req.headers.get("authorization");
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) throw new DomainError("UNAUTHORIZED", "Authorization must be 'Bearer <token>'");
    principal = (await identityForToken(m[1]))?.principal ?? null;
    if (!principal) throw new DomainError("UNAUTHORIZED", "invalid or revoked token");
  } else {
    principal = await principalForSession(getPool(), sessionOf(req));
    if (!principal) throw new DomainError("UNAUTHORIZED", "sign in or send a bearer token");
    if (req.method !== "GET" && req.method !== "HEAD") assertSameOrigin(req, true);
  }
  // The request log names who called, refused or not.
  noteSubject(principal.subject);
  if (opts.role && !hasRole(principal, opts.role))
    throw new DomainError("FORBIDDEN", `requires role ${opts.role} or higher`);
  if (opts.tenant && !canSeeTenant(principal, opts.tenant))
    throw new DomainError("FORBIDDEN", `no access to tenant ${opts.tenant}`);
  // Fleet figures (workers, every tenant's backlog) describe other tenants' work.
  if (opts.fleet && principal.tenants !== null)
    throw new DomainError("FLEET_SCOPE_REQUIRED", "fleet-wide figures are for all-tenant accounts");
  return principal;
}

/**
 * Applies a route table row (lib/http/routes.ts) to a request: the caller must hold the row's role
 * (or its capability), the `[tenant]` it names, or an all-tenant grant for fleet rows. A row's
 * document segments are validated first, so a malformed tenant or key is a 400 for anyone.
 */
export async function authorize(
  req: Request,
  rule: RouteRule,
  params: Record<string, string | undefined>,
): Promise<Principal> {
  let tenant: string | undefined;
  if (rule.scope === "tenant-param") {
    tenant = tenantParam.parse(params.tenant);
    if (params.key !== undefined) keyParam.parse(params.key);
  }
  const principal = await authenticate(req, {
    role: rule.capability ? undefined : rule.role,
    tenant,
    fleet: rule.scope === "fleet",
  });
  if (rule.capability && !hasCapability(principal, rule.capability) && !hasRole(principal, rule.role!)) {
    throw new DomainError("FORBIDDEN", `requires role ${rule.role} or a token with ${rule.capability}`);
  }
  return principal;
}
