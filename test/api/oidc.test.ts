import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { oidcSettings } from "../../lib/config";
import { createTestDb, type TestDb } from "../helpers/db";
import { startFakeOidc, type RunningFakeOidc } from "../helpers/fake-oidc";
import { principalForSession } from "../../lib/auth/session";

// Single sign-on against a real (local) OpenID provider over HTTP: the full authorization code
// flow with PKCE, state and nonce, signed ID tokens, and how identities map to users.
const BOOT = "oidc-bootstrap-token-0123456789";
let t: TestDb;
let idp: RunningFakeOidc;
let R: Record<string, any>;

beforeAll(async () => {
  t = await createTestDb();
  idp = await startFakeOidc({ clientId: "indexwright", clientSecret: "s3cret-client" });
  Object.assign(process.env, {
    DATABASE_URL: t.url,
    INDEXWRIGHT_BOOTSTRAP_TOKEN: BOOT,
    INDEXWRIGHT_SESSION_SECRET: "oidc-test-session-secret",
    LOG_LEVEL: "silent",
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: "indexwright",
    OIDC_CLIENT_SECRET: "s3cret-client",
    OIDC_ALLOW_HTTP: "1",
  });
  R = {
    start: await import("../../app/api/auth/oidc/start/route"),
    callback: await import("../../app/api/auth/oidc/callback/route"),
    users: await import("../../app/api/v1/admin/users/route"),
    user: await import("../../app/api/v1/admin/users/[id]/route"),
  };
});
afterAll(async () => {
  for (const k of [
    "OIDC_ISSUER",
    "OIDC_CLIENT_ID",
    "OIDC_CLIENT_SECRET",
    "OIDC_ALLOW_HTTP",
    "OIDC_DEFAULT_ROLE",
    "OIDC_ALLOWED_DOMAINS",
    "OIDC_LINK_LOCAL_ACCOUNTS",
    "OIDC_SESSION_MAX_SECONDS",
  ])
    delete process.env[k];
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await idp?.close();
  await t?.close();
});
beforeEach(() => {
  delete process.env.OIDC_DEFAULT_ROLE;
  delete process.env.OIDC_ALLOWED_DOMAINS;
  delete process.env.OIDC_LINK_LOCAL_ACCOUNTS;
  delete process.env.OIDC_SESSION_MAX_SECONDS;
});

const ctx = () => ({ params: Promise.resolve({}) });
const dash = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://dash.local${path}`, { headers: { host: "dash.local", ...headers } });
const bearer = { authorization: `Bearer ${BOOT}`, "content-type": "application/json", host: "dash.local" };
const cookieFrom = (res: Response, name: string) =>
  res.headers
    .getSetCookie()
    .map((c) => new RegExp(`^${name}=([^;]*)`).exec(c)?.[1])
    .find((v) => v !== undefined);

/** Start → the provider's form → its redirect back → our callback, as a browser would. */
async function ssoSignIn(email: string, form: Record<string, string> = {}, next = "/documents?state=DEAD") {
  const start = await R.start.GET(dash(`/api/auth/oidc/start?next=${encodeURIComponent(next)}`), ctx());
  expect(start.status).toBe(303);
  const authorize = new URL(start.headers.get("location")!);
  expect(authorize.href.startsWith(`${idp.issuer}/authorize?`)).toBe(true);
  expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorize.searchParams.get("redirect_uri")).toBe("http://dash.local/api/auth/oidc/callback");
  const flow = cookieFrom(start, "iw_oidc")!;
  expect(flow).toBeTruthy();
  const page = await fetch(authorize);
  expect(page.status).toBe(200);
  const approved = await fetch(`${idp.issuer}/authorize`, {
    method: "POST",
    body: new URLSearchParams({ ...Object.fromEntries(authorize.searchParams), email, decision: "allow", ...form }),
    redirect: "manual",
  });
  expect(approved.status).toBe(302);
  const back = approved.headers.get("location")!;
  const res: Response = await R.callback.GET(
    dash(back.replace("http://dash.local", ""), { cookie: `iw_oidc=${flow}` }),
    ctx(),
  );
  return { res, back, flow };
}

/** A person an admin added for single sign-on: no password (a local account with one is linked only where allowed, below). */
async function createUser(email: string, role = "operator", password?: string) {
  const r = await R.users.POST(
    new Request("http://dash.local/x", {
      method: "POST",
      headers: bearer,
      body: JSON.stringify({ email, password, role, tenants: ["*"] }),
    }),
    ctx(),
  );
  expect(r.status).toBe(201);
  return (await r.json()).id as string;
}

describe("SSO session lifetime", () => {
  it("an SSO session ends after OIDC_SESSION_MAX_SECONDS from its start (absolute), so the provider is asked again; password sessions keep 12 hours", async () => {
    const id = await createUser("short-lived@corp.example", "viewer");
    process.env.OIDC_SESSION_MAX_SECONDS = "600";
    const { res } = await ssoSignIn("short-lived@corp.example");
    const cookie = cookieFrom(res, "iw_session")!;
    expect(await principalForSession(t.pool, cookie)).toMatchObject({ subject: "user:short-lived@corp.example" });
    const { rows } = await t.pool.query<{ secs: number }>(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS secs FROM sessions WHERE user_id = $1`,
      [id],
    );
    expect(rows.map((r) => r.secs)).toEqual([600]);
    // Once that much time has passed the session is over, however recently it was used.
    await t.pool.query(
      `UPDATE sessions SET created_at = created_at - interval '601 seconds', expires_at = expires_at - interval '601 seconds', last_seen_at = now() WHERE user_id = $1`,
      [id],
    );
    expect(await principalForSession(t.pool, cookie)).toBeNull();
    expect(() =>
      oidcSettings({ OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: "x", OIDC_SESSION_MAX_SECONDS: "60" }),
    ).toThrow(/OIDC_SESSION_MAX_SECONDS/);
  });
});

describe("person tokens of SSO users", () => {
  it("carry the provider's groups only while the person's last SSO sign-in is within OIDC_SESSION_MAX_SECONDS; admin-assigned groups always", async () => {
    const { identityForToken } = await import("../../lib/auth/authenticate");
    const id = await createUser("tokened@corp.example", "viewer");
    await t.pool.query(`UPDATE users SET groups = ARRAY['wiki-editors'] WHERE id = $1`, [id]);
    process.env.OIDC_GROUPS_CLAIM = "groups";
    process.env.OIDC_SESSION_MAX_SECONDS = "600";
    try {
      await ssoSignIn("tokened@corp.example", { groups: "hr" });
      const { createToken } = await import("../../lib/admin/repository");
      const { bootstrapPrincipal } = await import("../../lib/auth/principal");
      const tok = await createToken(t.pool, bootstrapPrincipal(), {
        name: "tokened-laptop",
        role: "viewer",
        tenants: ["*"],
        kind: "person",
        userId: id,
        capabilities: [],
      } as never);
      expect((await identityForToken(tok.token))!.principal.principals).toEqual([
        "user:tokened@corp.example",
        "group:hr",
        "group:wiki-editors",
      ]);
      // Eleven minutes without an SSO sign-in: the provider may have removed hr since; the token no longer says it.
      await t.pool.query(`UPDATE users SET sso_groups_at = now() - interval '660 seconds' WHERE id = $1`, [id]);
      expect((await identityForToken(tok.token))!.principal.principals).toEqual([
        "user:tokened@corp.example",
        "group:wiki-editors",
      ]);
      // A new SSO sign-in brings what the provider says now.
      await ssoSignIn("tokened@corp.example", { groups: "finance" });
      expect((await identityForToken(tok.token))!.principal.principals).toEqual([
        "user:tokened@corp.example",
        "group:finance",
        "group:wiki-editors",
      ]);
    } finally {
      delete process.env.OIDC_GROUPS_CLAIM;
    }
  });
});

describe("OIDC and existing local accounts", () => {
  it("a first SSO sign-in does not take over an account with a password (the bootstrap admin's included) unless an admin allowed it", async () => {
    const { upsertAdmin } = await import("../../lib/auth/users");
    await upsertAdmin(t.pool, "admin@localhost", "the bootstrap admin's password");
    const local = await createUser("local@corp.example", "admin", "a long enough password");
    const auditBefore = (await t.pool.query(`SELECT count(*)::int AS n FROM audit_log`)).rows[0].n;
    for (const email of ["admin@localhost", "local@corp.example"]) {
      const { res } = await ssoSignIn(email);
      expect(res.headers.get("location")).toBe("/signin?error=OIDC_LINK_NOT_ALLOWED");
      expect(cookieFrom(res, "iw_session")).toBeUndefined();
    }
    expect(
      (
        await t.pool.query(
          `SELECT count(*)::int AS n FROM users WHERE oidc_subject IS NOT NULL AND email IN ('admin@localhost', 'local@corp.example')`,
        )
      ).rows[0].n,
    ).toBe(0);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM audit_log`)).rows[0].n).toBe(auditBefore);

    // Allowed domains say the provider speaks for those addresses: linked there, not elsewhere.
    process.env.OIDC_ALLOWED_DOMAINS = "corp.example";
    expect((await ssoSignIn("local@corp.example")).res.headers.get("location")).toBe("/documents?state=DEAD");
    expect(
      (await t.pool.query(`SELECT oidc_subject FROM users WHERE id = $1`, [local])).rows[0].oidc_subject,
    ).not.toBeNull();
    expect((await ssoSignIn("admin@localhost")).res.headers.get("location")).toBe(
      "/signin?error=OIDC_DOMAIN_NOT_ALLOWED",
    );

    // Or the explicit setting.
    delete process.env.OIDC_ALLOWED_DOMAINS;
    process.env.OIDC_LINK_LOCAL_ACCOUNTS = "1";
    await createUser("second@corp.example", "viewer", "a long enough password");
    expect((await ssoSignIn("second@corp.example")).res.headers.get("location")).toBe("/documents?state=DEAD");
  });
});

describe("OIDC sign-in", () => {
  it("an admin-added user signs in through the provider, lands on the page they asked for, and the identity is bound to them", async () => {
    const id = await createUser("ops@corp.example");
    const { res } = await ssoSignIn("OPS@corp.example");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/documents?state=DEAD");
    expect(cookieFrom(res, "iw_oidc")).toBe(""); // the flow cookie is cleared
    const session = cookieFrom(res, "iw_session")!;
    expect(await principalForSession(t.pool, session)).toEqual({
      subject: "user:ops@corp.example",
      kind: "person",
      role: "operator",
      tenants: null,
      principals: ["user:ops@corp.example"],
      capabilities: [],
    });
    const u = (await t.pool.query(`SELECT oidc_issuer, oidc_subject FROM users WHERE id = $1`, [id])).rows[0];
    expect(u.oidc_issuer).toBe(idp.issuer);
    expect(u.oidc_subject).toMatch(/^fake\|/);
    const s = (await t.pool.query(`SELECT method FROM sessions WHERE user_id = $1`, [id])).rows;
    expect(s).toEqual([{ method: "oidc" }]);
    const audit = await t.pool.query(`SELECT actor, action FROM audit_log WHERE target_id = $1 ORDER BY id`, [id]);
    expect(audit.rows.map((r) => r.action)).toContain("user.sso_link");
  });

  it("without a default role, people with no account are refused and nothing is written", async () => {
    const before = (await t.pool.query(`SELECT count(*)::int AS n FROM users`)).rows[0].n;
    const { res } = await ssoSignIn("stranger@corp.example");
    expect(res.headers.get("location")).toBe("/signin?error=OIDC_NO_ACCOUNT");
    expect(cookieFrom(res, "iw_session")).toBeUndefined();
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM users`)).rows[0].n).toBe(before);
  });

  it("with OIDC_DEFAULT_ROLE, a first sign-in creates the user with that role, once", async () => {
    process.env.OIDC_DEFAULT_ROLE = "viewer";
    const first = await ssoSignIn("newbie@corp.example");
    expect(first.res.status).toBe(303);
    expect(await principalForSession(t.pool, cookieFrom(first.res, "iw_session"))).toMatchObject({
      subject: "user:newbie@corp.example",
      role: "viewer",
    });
    await ssoSignIn("newbie@corp.example");
    const rows = (await t.pool.query(`SELECT password_hash FROM users WHERE email = 'newbie@corp.example'`)).rows;
    expect(rows).toEqual([{ password_hash: null }]); // no password: they can only come in through SSO
    const listed = (
      await (await R.users.GET(new Request("http://dash.local/x", { headers: bearer }), ctx())).json()
    ).items.find((u: any) => u.email === "newbie@corp.example");
    expect(listed).toMatchObject({ sso: true, activeSessions: 2 });
  });

  it("a person created at first sign-in gets no tenants unless OIDC_DEFAULT_TENANTS names them", async () => {
    process.env.OIDC_DEFAULT_ROLE = "viewer";
    delete process.env.OIDC_DEFAULT_TENANTS;
    const none = await ssoSignIn("fresh@corp.example");
    expect(await principalForSession(t.pool, cookieFrom(none.res, "iw_session"))).toMatchObject({
      subject: "user:fresh@corp.example",
      tenants: [],
    });
    process.env.OIDC_DEFAULT_TENANTS = "handbook, wiki";
    const some = await ssoSignIn("fresh2@corp.example");
    expect(await principalForSession(t.pool, cookieFrom(some.res, "iw_session"))).toMatchObject({
      tenants: ["handbook", "wiki"],
    });
    process.env.OIDC_DEFAULT_TENANTS = "*";
    const all = await ssoSignIn("fresh3@corp.example");
    expect(await principalForSession(t.pool, cookieFrom(all.res, "iw_session"))).toMatchObject({ tenants: null });
    delete process.env.OIDC_DEFAULT_TENANTS;
    const { oidcSettings } = await import("../../lib/config");
    expect(() =>
      oidcSettings({ OIDC_ISSUER: "https://idp.example", OIDC_CLIENT_ID: "x", OIDC_DEFAULT_TENANTS: "*,hr" }),
    ).toThrow(/OIDC_DEFAULT_TENANTS/);
    expect(() =>
      oidcSettings({ OIDC_ISSUER: "https://idp.example", OIDC_CLIENT_ID: "x", OIDC_DEFAULT_TENANTS: "Bad Tenant" }),
    ).toThrow(/OIDC_DEFAULT_TENANTS/);
  });

  it("OIDC_GROUPS_CLAIM: the provider's groups become group: principals, replaced at every sign-in; admin-assigned groups stay", async () => {
    const id = await createUser("grouped@corp.example", "viewer");
    await t.pool.query(`UPDATE users SET groups = ARRAY['wiki-editors'] WHERE id = $1`, [id]);
    process.env.OIDC_GROUPS_CLAIM = "groups";
    const first = await ssoSignIn("grouped@corp.example", { groups: "hr,finance,not a group" });
    expect(await principalForSession(t.pool, cookieFrom(first.res, "iw_session"))).toMatchObject({
      principals: ["user:grouped@corp.example", "group:finance", "group:hr", "group:wiki-editors"],
    });
    const second = await ssoSignIn("grouped@corp.example", { groups: "finance" });
    expect(await principalForSession(t.pool, cookieFrom(second.res, "iw_session"))).toMatchObject({
      principals: ["user:grouped@corp.example", "group:finance", "group:wiki-editors"],
    });
    // The older session reads groups live, so it lost hr as well.
    expect((await principalForSession(t.pool, cookieFrom(first.res, "iw_session")))!.principals).not.toContain(
      "group:hr",
    );
    delete process.env.OIDC_GROUPS_CLAIM;
    // Without the setting the claim is ignored and the stored SSO groups are left as they were.
    await ssoSignIn("grouped@corp.example", { groups: "hr" });
    expect((await t.pool.query(`SELECT sso_groups FROM users WHERE id = $1`, [id])).rows[0].sso_groups).toEqual([
      "finance",
    ]);
  });

  it("refuses unverified emails and domains outside OIDC_ALLOWED_DOMAINS", async () => {
    process.env.OIDC_DEFAULT_ROLE = "viewer";
    expect((await ssoSignIn("unverified@corp.example", { email_verified: "false" })).res.headers.get("location")).toBe(
      "/signin?error=OIDC_EMAIL_UNVERIFIED",
    );
    process.env.OIDC_ALLOWED_DOMAINS = "corp.example, other.example";
    expect((await ssoSignIn("someone@elsewhere.example")).res.headers.get("location")).toBe(
      "/signin?error=OIDC_DOMAIN_NOT_ALLOWED",
    );
    expect((await ssoSignIn("someone@other.example")).res.status).toBe(303);
    expect(
      (
        await t.pool.query(
          `SELECT email FROM users WHERE email IN ('unverified@corp.example', 'someone@elsewhere.example')`,
        )
      ).rows,
    ).toEqual([]);
  });

  it("a bound identity keeps its user when the email changes at the provider; another identity cannot take that user's email", async () => {
    await createUser("moves@corp.example", "maintainer");
    const sub = "stable-subject-1";
    await ssoSignIn("moves@corp.example", { sub });
    const renamed = await ssoSignIn("moved-elsewhere@corp.example", { sub });
    expect(await principalForSession(t.pool, cookieFrom(renamed.res, "iw_session"))).toMatchObject({
      subject: "user:moves@corp.example",
      role: "maintainer",
    });
    const impostor = await ssoSignIn("moves@corp.example", { sub: "another-subject" });
    expect(impostor.res.headers.get("location")).toBe("/signin?error=OIDC_IDENTITY_MISMATCH");
  });

  it("a disabled user is refused", async () => {
    const id = await createUser("gone@corp.example");
    await ssoSignIn("gone@corp.example");
    await R.user.PATCH(
      new Request("http://dash.local/x", {
        method: "PATCH",
        headers: bearer,
        body: JSON.stringify({ disabled: true }),
      }),
      { params: Promise.resolve({ id }) },
    );
    expect((await ssoSignIn("gone@corp.example")).res.headers.get("location")).toBe("/signin?error=ACCOUNT_DISABLED");
  });

  it("rejects a missing or forged flow cookie, a flow from another sign-in, a replayed code and a denial", async () => {
    await createUser("careful@corp.example");
    const ok = await ssoSignIn("careful@corp.example");
    expect(ok.res.status).toBe(303);
    const path = ok.back.replace("http://dash.local", "");
    // The same code again (replay): the provider refuses, so do we.
    const replay = await R.callback.GET(dash(path, { cookie: `iw_oidc=${ok.flow}` }), ctx());
    expect(replay.headers.get("location")).toBe("/signin?error=OIDC_PROVIDER_ERROR");
    const noCookie = await R.callback.GET(dash(path), ctx());
    expect(noCookie.headers.get("location")).toBe("/signin?error=OIDC_FLOW_EXPIRED");
    const [body] = ok.flow.split(".");
    const forged = await R.callback.GET(dash(path, { cookie: `iw_oidc=${body}.AAAA` }), ctx());
    expect(forged.headers.get("location")).toBe("/signin?error=OIDC_FLOW_EXPIRED");

    // A fresh code presented with the cookie of a different flow: state does not match.
    const other = await R.start.GET(dash("/api/auth/oidc/start"), ctx());
    const otherFlow = cookieFrom(other, "iw_oidc")!;
    const second = await ssoSignIn("careful@corp.example");
    const crossed = await R.callback.GET(
      dash(second.back.replace("http://dash.local", ""), { cookie: `iw_oidc=${otherFlow}` }),
      ctx(),
    );
    expect(crossed.headers.get("location")).toBe("/signin?error=OIDC_PROVIDER_ERROR");

    const start = await R.start.GET(dash("/api/auth/oidc/start"), ctx());
    const authorize = new URL(start.headers.get("location")!);
    const denied = await fetch(`${idp.issuer}/authorize`, {
      method: "POST",
      body: new URLSearchParams({
        ...Object.fromEntries(authorize.searchParams),
        email: "careful@corp.example",
        decision: "deny",
      }),
      redirect: "manual",
    });
    const res = await R.callback.GET(
      dash(denied.headers.get("location")!.replace("http://dash.local", ""), {
        cookie: `iw_oidc=${cookieFrom(start, "iw_oidc")}`,
      }),
      ctx(),
    );
    expect(res.headers.get("location")).toBe("/signin?error=OIDC_PROVIDER_ERROR");
  });

  it("garbage in the callback (cookie, query, error parameters) ends on the sign-in page with a code, never a 500", async () => {
    const attempts = [
      dash("/api/auth/oidc/callback", { cookie: `iw_oidc=${"A".repeat(4000)}.${"B".repeat(43)}` }),
      dash(`/api/auth/oidc/callback?code=${"x".repeat(5000)}&state=%00%ff`, { cookie: "iw_oidc=%E0%A4%A" }),
      dash("/api/auth/oidc/callback?error=%3Cscript%3E&error_description=%22%3E", { cookie: "iw_oidc=a.b" }),
    ];
    for (const r of attempts) {
      const res = await R.callback.GET(r, ctx());
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toMatch(/^\/signin\?error=[A-Z_]+$/);
    }
    // A valid flow cookie with a provider error: refused with the provider's code, and no session.
    const start = await R.start.GET(dash("/api/auth/oidc/start"), ctx());
    const state = new URL(start.headers.get("location")!).searchParams.get("state");
    const res = await R.callback.GET(
      dash(`/api/auth/oidc/callback?error=server_error&state=${state}`, {
        cookie: `iw_oidc=${cookieFrom(start, "iw_oidc")}`,
      }),
      ctx(),
    );
    expect(res.headers.get("location")).toBe("/signin?error=OIDC_PROVIDER_ERROR");
    expect(cookieFrom(res, "iw_session")).toBeUndefined();
  });

  it("only same-origin paths are followed after sign-in", async () => {
    await createUser("nav@corp.example");
    for (const next of ["https://evil.example/", "//evil.example", "/api/v1/documents"]) {
      expect((await ssoSignIn("nav@corp.example", {}, next)).res.headers.get("location")).toBe("/overview");
    }
  });

  it("an unreachable provider sends people back to the sign-in page with a clear code; without configuration the routes are 404", async () => {
    process.env.OIDC_ISSUER = "http://127.0.0.1:9/nowhere";
    try {
      const res = await R.start.GET(dash("/api/auth/oidc/start?next=/tasks"), ctx());
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/signin?error=OIDC_UNAVAILABLE&next=%2Ftasks");
      delete process.env.OIDC_ISSUER;
      expect((await R.start.GET(dash("/api/auth/oidc/start"), ctx())).status).toBe(404);
      expect((await R.callback.GET(dash("/api/auth/oidc/callback?code=x"), ctx())).status).toBe(404);
    } finally {
      process.env.OIDC_ISSUER = idp.issuer;
    }
  });

  it("misconfiguration is a readable error naming the variable", async () => {
    const { oidcSettings } = await import("../../lib/config");
    expect(() => oidcSettings({ OIDC_ISSUER: "https://idp.example" })).toThrow(/OIDC_CLIENT_ID/);
    expect(() =>
      oidcSettings({ OIDC_ISSUER: "https://idp.example", OIDC_CLIENT_ID: "x", OIDC_DEFAULT_ROLE: "root" }),
    ).toThrow(/OIDC_DEFAULT_ROLE/);
    expect(oidcSettings({})).toBeNull();
  });
});

describe("SSO-only users", () => {
  const post = (body: unknown) =>
    R.users.POST(
      new Request("http://dash.local/x", { method: "POST", headers: bearer, body: JSON.stringify(body) }),
      ctx(),
    );

  it("an admin can add a person without a password when SSO is configured; they sign in through the provider only", async () => {
    const res = await post({ email: "sso-only@corp.example", role: "maintainer", tenants: ["*"] });
    expect(res.status).toBe(201);
    const { res: signedIn } = await ssoSignIn("sso-only@corp.example");
    expect(await principalForSession(t.pool, cookieFrom(signedIn, "iw_session"))).toMatchObject({
      subject: "user:sso-only@corp.example",
      role: "maintainer",
    });
    const { identityForPassword } = await import("../../lib/auth/users");
    expect(await identityForPassword(t.pool, "sso-only@corp.example", "")).toBeNull();
  });

  it("without SSO configured, a password is required (400 PASSWORD_REQUIRED, nothing written)", async () => {
    delete process.env.OIDC_ISSUER;
    try {
      const res = await post({ email: "nopass@corp.example", role: "viewer", tenants: ["*"] });
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe("PASSWORD_REQUIRED");
      expect((await t.pool.query(`SELECT 1 FROM users WHERE email = 'nopass@corp.example'`)).rowCount).toBe(0);
    } finally {
      process.env.OIDC_ISSUER = idp.issuer;
    }
  });
});
