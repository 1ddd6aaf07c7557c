// A small OpenID Connect provider for tests: real HTTP, real RS256-signed ID tokens, PKCE (S256),
// state and nonce passed through, client_secret_basic/post. Used by the vitest integration test
// (startFakeOidc) and mounted under /oidc by the Playwright fake-services server.
//
// Its sign-in page is a form: email (required), and for tests "sub" and "email_verified".
// The subject defaults to a stable hash of the email, as a real provider keeps one per person.

import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT, exportJWK, generateKeyPair, type JWK } from "jose";

export interface FakeOidcOptions {
  clientId: string;
  /** When set, the token endpoint requires it (Basic or form); unset = a public client. */
  clientSecret?: string;
}

type Identity = { sub: string; email: string; email_verified: boolean; groups?: string[] };
type Grant = {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce?: string;
  identity: Identity;
  exp: number;
};
type Route = {
  method: "GET" | "POST";
  path: string;
  handle: (req: http.IncomingMessage, res: http.ServerResponse, issuer: string) => Promise<void>;
};

export interface FakeOidc {
  /** Routes relative to the issuer's path, for mounting on another server. */
  readonly routes: Route[];
  /** Token requests answered with an ID token. */
  readonly tokensIssued: number;
  /** Every identity an ID token was issued for, in order. */
  readonly issued: Identity[];
}

const b64url = (buf: Buffer) => buf.toString("base64url");
export const subjectFor = (email: string) =>
  `fake|${createHash("sha256").update(email.toLowerCase()).digest("hex").slice(0, 16)}`;

async function body(req: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

function send(res: http.ServerResponse, status: number, payload: unknown, type = "application/json") {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function createFakeOidc(opts: FakeOidcOptions): Promise<FakeOidc> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "fake-1", alg: "RS256", use: "sig" };
  const grants = new Map<string, Grant>();
  const issued: Identity[] = [];

  const authorizeParams = [
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "nonce",
    "code_challenge",
    "code_challenge_method",
  ];

  const routes: Route[] = [
    {
      method: "GET",
      path: "/.well-known/openid-configuration",
      handle: async (_req, res, issuer) =>
        send(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ["code"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
          scopes_supported: ["openid", "email", "profile"],
          authorization_response_iss_parameter_supported: true,
        }),
    },
    { method: "GET", path: "/jwks", handle: async (_req, res) => send(res, 200, { keys: [jwk] }) },
    {
      method: "GET",
      path: "/authorize",
      handle: async (req, res) => {
        const q = new URL(req.url ?? "/", "http://x").searchParams;
        const problem =
          q.get("client_id") !== opts.clientId
            ? "unknown client_id"
            : q.get("response_type") !== "code"
              ? "response_type must be code"
              : !q.get("redirect_uri")
                ? "redirect_uri is required"
                : q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")
                  ? "PKCE S256 is required"
                  : !(q.get("scope") ?? "").split(" ").includes("openid")
                    ? "scope must include openid"
                    : null;
        if (problem)
          return send(
            res,
            400,
            `<!doctype html><title>Fake IdP error</title><p>${esc(problem)}</p>`,
            "text/html; charset=utf-8",
          );
        const hidden = authorizeParams
          .map((k) => `<input type="hidden" name="${k}" value="${esc(q.get(k) ?? "")}">`)
          .join("");
        send(
          res,
          200,
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fake identity provider</title></head><body>
<main><h1>Fake identity provider</h1><form method="post" action="authorize">${hidden}
<label for="email">Email</label> <input id="email" name="email" type="email" autocomplete="off" value="${esc(q.get("login_hint") ?? "")}">
<input type="hidden" name="email_verified" value="true">
<button type="submit" name="decision" value="allow">Continue</button>
<button type="submit" name="decision" value="deny">Deny</button></form></main></body></html>`,
          "text/html; charset=utf-8",
        );
      },
    },
    {
      method: "POST",
      path: "/authorize",
      handle: async (req, res, issuer) => {
        const f = await body(req);
        const redirect = new URL(f.get("redirect_uri") ?? "");
        if (f.get("client_id") !== opts.clientId) return send(res, 400, { error: "invalid_client" });
        const state = f.get("state");
        if (state) redirect.searchParams.set("state", state);
        redirect.searchParams.set("iss", issuer);
        const email = (f.get("email") ?? "").trim().toLowerCase();
        if (f.get("decision") === "deny" || !email) {
          redirect.searchParams.set("error", "access_denied");
          redirect.searchParams.set("error_description", "The user declined");
        } else {
          const code = b64url(randomBytes(24));
          grants.set(code, {
            clientId: opts.clientId,
            redirectUri: f.get("redirect_uri")!,
            challenge: f.get("code_challenge") ?? "",
            nonce: f.get("nonce") || undefined,
            identity: {
              sub: f.get("sub") || subjectFor(email),
              email,
              email_verified: f.get("email_verified") !== "false",
              // For tests: a comma list becomes a "groups" claim, as many providers send one.
              ...(f.has("groups") ? { groups: f.get("groups")!.split(",").filter(Boolean) } : {}),
            },
            exp: Date.now() + 60_000,
          });
          redirect.searchParams.set("code", code);
        }
        res.writeHead(302, { location: redirect.href, "cache-control": "no-store" });
        res.end();
      },
    },
    {
      method: "POST",
      path: "/token",
      handle: async (req, res, issuer) => {
        const f = await body(req);
        let clientId = f.get("client_id");
        let secret = f.get("client_secret");
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
        if (basic) {
          const [id, s] = Buffer.from(basic[1], "base64")
            .toString("utf8")
            .split(":")
            .map((x) => decodeURIComponent(x.replace(/\+/g, " ")));
          clientId = id;
          secret = s;
        }
        if (clientId !== opts.clientId || (opts.clientSecret !== undefined && secret !== opts.clientSecret))
          return send(res, 401, { error: "invalid_client" });
        if (f.get("grant_type") !== "authorization_code") return send(res, 400, { error: "unsupported_grant_type" });
        const code = f.get("code") ?? "";
        const g = grants.get(code);
        grants.delete(code); // codes are single-use
        if (!g || g.exp < Date.now() || g.clientId !== clientId)
          return send(res, 400, { error: "invalid_grant", error_description: "unknown, used or expired code" });
        if (f.get("redirect_uri") !== g.redirectUri)
          return send(res, 400, {
            error: "invalid_grant",
            error_description: "redirect_uri differs from the authorization request",
          });
        const verifier = f.get("code_verifier") ?? "";
        if (b64url(createHash("sha256").update(verifier).digest()) !== g.challenge)
          return send(res, 400, { error: "invalid_grant", error_description: "PKCE verification failed" });
        const now = Math.floor(Date.now() / 1000);
        const idToken = await new SignJWT({
          email: g.identity.email,
          email_verified: g.identity.email_verified,
          ...(g.identity.groups ? { groups: g.identity.groups } : {}),
          ...(g.nonce ? { nonce: g.nonce } : {}),
        })
          .setProtectedHeader({ alg: "RS256", kid: jwk.kid })
          .setIssuer(issuer)
          .setAudience(opts.clientId)
          .setSubject(g.identity.sub)
          .setIssuedAt(now)
          .setExpirationTime(now + 300)
          .sign(privateKey);
        issued.push(g.identity);
        send(res, 200, {
          access_token: b64url(randomBytes(24)),
          token_type: "Bearer",
          expires_in: 300,
          id_token: idToken,
          scope: "openid email profile",
        });
      },
    },
  ];

  return {
    routes,
    get tokensIssued() {
      return issued.length;
    },
    issued,
  };
}

export interface RunningFakeOidc extends FakeOidc {
  readonly issuer: string;
  close(): Promise<void>;
}

/** A standalone provider on 127.0.0.1 with a random port; the issuer is http://127.0.0.1:<port>/idp. */
export async function startFakeOidc(opts: FakeOidcOptions): Promise<RunningFakeOidc> {
  const fake = await createFakeOidc(opts);
  let issuer = "";
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const route = path.startsWith("/idp/")
      ? fake.routes.find((r) => r.method === req.method && `/idp${r.path}` === path)
      : undefined;
    if (!route) return send(res, 404, { error: "not_found" });
    route.handle(req, res, issuer).catch((err) => send(res, 500, { error: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/idp`;
  return Object.assign(fake, {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
