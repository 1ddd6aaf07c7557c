import "server-only";
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import type pg from "pg";
import * as oidc from "openid-client";
import type { SessionOwner } from "./session";
import { isHttps, publicOrigin } from "../http/origin";
import { withTransaction } from "../db/pool";
import { auditDetailJson } from "../audit/repository";
import { oidcSettings, setting, type OidcSettings } from "../config";

/**
 * Single sign-on through any OpenID Connect provider (authorization code flow with PKCE, state and
 * nonce, via openid-client). Configured by environment; absent configuration means the sign-in page
 * shows no SSO button and the routes answer 404. Its settings are parsed by lib/config.ts.
 */

/** For pages: a bad configuration just hides SSO there (`npm start` refuses it, naming the variable). */
export function ssoIfConfigured(): OidcSettings | null {
  try {
    return oidcSettings();
  } catch {
    return null;
  }
}

// Discovery once per process and settings; a failed discovery is retried on the next sign-in.
let cached: { key: string; config: Promise<oidc.Configuration> } | null = null;
function providerConfig(s: OidcSettings): Promise<oidc.Configuration> {
  const key = `${s.issuer}|${s.clientId}|${s.clientSecret ?? ""}|${s.allowHttp}`;
  if (cached?.key !== key) {
    const config = oidc
      .discovery(
        new URL(s.issuer),
        s.clientId,
        undefined,
        s.clientSecret ? oidc.ClientSecretBasic(s.clientSecret) : oidc.None(),
        {
          execute: s.allowHttp ? [oidc.allowInsecureRequests] : [],
          timeout: 10,
        },
      )
      .catch((err) => {
        cached = null;
        throw err;
      });
    cached = { key, config };
  }
  return cached.config;
}

export const OIDC_COOKIE = "iw_oidc";
const FLOW_TTL_SECONDS = 10 * 60;
const CALLBACK_PATH = "/api/auth/oidc/callback";

/** Where the provider sends people back: the public URL when set, else the URL the request came to. */
export function callbackUrl(s: OidcSettings, req: Request): string {
  const base = s.publicUrl ?? publicOrigin(req);
  return `${base}${CALLBACK_PATH}`;
}

type Flow = { state: string; nonce: string; verifier: string; next: string; exp: number };

function flowSecret(): string {
  const s = setting("INDEXWRIGHT_SESSION_SECRET") ?? setting("INDEXWRIGHT_BOOTSTRAP_TOKEN");
  if (!s) throw new Error("INDEXWRIGHT_SESSION_SECRET is not set");
  return s;
}
const mac = (body: string) => createHmac("sha256", flowSecret()).update(`oidc-flow.${body}`).digest("base64url");

function sealFlow(f: Flow): string {
  const body = Buffer.from(JSON.stringify(f)).toString("base64url");
  return `${body}.${mac(body)}`;
}

function openFlow(value: string | undefined, now = Date.now()): Flow | null {
  if (!value) return null;
  const dot = value.lastIndexOf(".");
  if (dot <= 0) return null;
  const body = value.slice(0, dot);
  const a = Buffer.from(value.slice(dot + 1));
  const b = Buffer.from(mac(body));
  if (a.length !== b.length || !timingSafeEqual(a, b)) return null;
  try {
    const f = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Flow;
    return typeof f.exp === "number" && f.exp * 1000 > now ? f : null;
  } catch {
    return null;
  }
}

/** Starts a sign-in: the provider URL to redirect to, and the cookie that carries state, nonce and PKCE verifier. */
export async function beginSignIn(
  s: OidcSettings,
  req: Request,
  next: string,
): Promise<{ location: string; cookie: string }> {
  const config = await providerConfig(s);
  const flow: Flow = {
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    verifier: oidc.randomPKCECodeVerifier(),
    next,
    exp: Math.floor(Date.now() / 1000) + FLOW_TTL_SECONDS,
  };
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(s, req),
    scope: s.scopes,
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: "S256",
    state: flow.state,
    nonce: flow.nonce,
  });
  const secure = callbackUrl(s, req).startsWith("https:") || isHttps(req) ? "; Secure" : "";
  // SameSite=Lax: the provider's redirect back is a top-level GET, which Lax cookies accompany.
  return {
    location: url.href,
    cookie: `${OIDC_COOKIE}=${sealFlow(flow)}; Path=/api/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${FLOW_TTL_SECONDS}${secure}`,
  };
}

export const CLEAR_OIDC_COOKIE = `${OIDC_COOKIE}=; Path=/api/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=0`;

/** Stable codes the sign-in page explains; the URL carries only the code. */
export const OIDC_ERRORS = {
  OIDC_UNAVAILABLE: "The identity provider could not be reached. Try again, or sign in another way.",
  OIDC_FLOW_EXPIRED: "The sign-in took too long or was started in another browser. Try again.",
  OIDC_PROVIDER_ERROR: "The identity provider did not sign you in.",
  OIDC_EMAIL_UNVERIFIED: "Your identity provider did not confirm your email address.",
  OIDC_DOMAIN_NOT_ALLOWED: "Accounts from your email domain cannot sign in here.",
  OIDC_NO_ACCOUNT: "There is no Indexwright account for your email. Ask an admin to add you.",
  OIDC_IDENTITY_MISMATCH: "This account is linked to a different single sign-on identity.",
  OIDC_LINK_NOT_ALLOWED:
    "An account with a password already uses your email here, and it is not set up for single sign-on. Sign in with its password, or ask an admin.",
  ACCOUNT_DISABLED: "Your account is disabled. Ask an admin to enable it.",
} as const;
export type OidcErrorCode = keyof typeof OIDC_ERRORS;

export class OidcSignInError extends Error {
  constructor(
    readonly code: OidcErrorCode,
    detail?: string,
  ) {
    super(detail ?? OIDC_ERRORS[code]);
  }
}

export type Claims = { iss: string; sub: string; email?: string; email_verified?: boolean; groups?: string[] };

const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;

/** The groups claim as a list: an array of strings or one string; names that could not be ACL entries are dropped. */
export function groupsFromClaim(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : [value];
  return [...new Set(list.filter((g): g is string => typeof g === "string" && GROUP_NAME.test(g)))]
    .sort()
    .slice(0, 200);
}

/** Completes a sign-in from the provider's redirect: verifies state, PKCE, nonce and the ID token. */
export async function finishSignIn(
  s: OidcSettings,
  req: Request,
  flowCookie: string | undefined,
): Promise<{ claims: Claims; next: string }> {
  const flow = openFlow(flowCookie);
  if (!flow) throw new OidcSignInError("OIDC_FLOW_EXPIRED");
  const incoming = new URL(req.url);
  if (incoming.searchParams.has("error")) {
    throw new OidcSignInError(
      "OIDC_PROVIDER_ERROR",
      `provider answered ${incoming.searchParams.get("error")}: ${incoming.searchParams.get("error_description") ?? ""}`.trim(),
    );
  }
  const config = await providerConfig(s);
  // The token request must name the same redirect_uri the flow started with, whatever host the
  // request reached us under.
  const current = new URL(callbackUrl(s, req));
  current.search = incoming.search;
  let tokens;
  try {
    tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    throw new OidcSignInError("OIDC_PROVIDER_ERROR", err instanceof Error ? err.message : String(err));
  }
  const c = tokens.claims();
  if (!c) throw new OidcSignInError("OIDC_PROVIDER_ERROR", "no ID token");
  return {
    claims: {
      iss: c.iss,
      sub: c.sub,
      email: typeof c.email === "string" ? c.email.toLowerCase() : undefined,
      email_verified: c.email_verified === true,
      groups: s.groupsClaim ? (groupsFromClaim(c[s.groupsClaim]) ?? []) : undefined,
    },
    next: flow.next,
  };
}

/**
 * The user an SSO identity signs in as. Bound by (issuer, subject) after the first sign-in; the first
 * time, a verified email finds the account an admin created, or a new one is made with the default role.
 */
export async function userForClaims(
  pool: pg.Pool,
  s: OidcSettings,
  c: Claims,
): Promise<{ owner: SessionOwner; email: string; created: boolean }> {
  return withTransaction(pool, async (client) => {
    const bound = await client.query<{ id: string; email: string; disabled_at: Date | null }>(
      `SELECT id, email, disabled_at FROM users WHERE oidc_issuer = $1 AND oidc_subject = $2 FOR UPDATE`,
      [c.iss, c.sub],
    );
    let user = bound.rows[0];
    let created = false;
    if (!user) {
      if (!c.email || !c.email_verified) throw new OidcSignInError("OIDC_EMAIL_UNVERIFIED");
      const domain = c.email.split("@").pop() ?? "";
      if (s.allowedDomains.length && !s.allowedDomains.includes(domain))
        throw new OidcSignInError("OIDC_DOMAIN_NOT_ALLOWED");
      const byEmail = await client.query<{
        id: string;
        email: string;
        disabled_at: Date | null;
        oidc_subject: string | null;
        has_password: boolean;
      }>(
        `SELECT id, email, disabled_at, oidc_subject, password_hash IS NOT NULL AS has_password FROM users WHERE email = $1 FOR UPDATE`,
        [c.email],
      );
      if (byEmail.rows[0]) {
        if (byEmail.rows[0].oidc_subject !== null) throw new OidcSignInError("OIDC_IDENTITY_MISMATCH");
        // An account with a password is a local account (the bootstrap admin's among them): binding
        // it to whoever the provider vouches for under that email hands the account over, so only
        // where an admin said the provider speaks for those addresses (OIDC_LINK_LOCAL_ACCOUNTS, or
        // the email's domain among OIDC_ALLOWED_DOMAINS). An account an admin added without a
        // password exists to be claimed through SSO and is linked as before.
        if (byEmail.rows[0].has_password && !s.linkLocalAccounts && !s.allowedDomains.includes(domain))
          throw new OidcSignInError("OIDC_LINK_NOT_ALLOWED");
        user = byEmail.rows[0];
        await client.query(`UPDATE users SET oidc_issuer = $2, oidc_subject = $3 WHERE id = $1`, [
          user.id,
          c.iss,
          c.sub,
        ]);
        await audit(client, user.id, "user.sso_link", { email: user.email, issuer: c.iss });
      } else {
        if (!s.defaultRole) throw new OidcSignInError("OIDC_NO_ACCOUNT");
        const id = randomUUID();
        await client.query(
          `INSERT INTO users (id, email, role, tenants, oidc_issuer, oidc_subject) VALUES ($1, $2, $3, $4, $5, $6)`,
          [id, c.email, s.defaultRole, s.defaultTenants, c.iss, c.sub],
        );
        await audit(client, id, "user.create", {
          email: c.email,
          role: s.defaultRole,
          tenants: s.defaultTenants,
          via: "oidc",
          issuer: c.iss,
        });
        user = { id, email: c.email, disabled_at: null };
        created = true;
      }
    }
    if (user.disabled_at) throw new OidcSignInError("ACCOUNT_DISABLED");
    // The provider is the source of truth for SSO groups: what it says now replaces what it said before.
    // sso_groups_at: person tokens carry these groups only while this sign-in is recent (lib/auth/principal.ts tokenRowColumns).
    if (c.groups !== undefined)
      await client.query(`UPDATE users SET sso_groups = $2, sso_groups_at = now() WHERE id = $1`, [user.id, c.groups]);
    return { owner: { kind: "user", userId: user.id } as SessionOwner, email: user.email, created };
  });
}

async function audit(client: pg.PoolClient, userId: string, action: string, detail: unknown) {
  await client.query(
    `INSERT INTO audit_log (actor, action, target_type, target_id, detail) VALUES ('sso', $1, 'user', $2, $3)`,
    [action, userId, auditDetailJson(detail)],
  );
}
