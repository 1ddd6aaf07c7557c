import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { upsertAdmin } from "../../lib/auth/users";
import { checkSettings } from "../../cli/settings";
import { principalForSession } from "../../lib/auth/session";

// People sign in with email + password (or a token), machines use tokens an admin creates;
// roles and tenant limits hold for both, and cookie-authenticated mutations need our origin.
const BOOT = "auth-bootstrap-token-0123456789";
let t: TestDb;
let R: Record<string, any>;
beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = BOOT;
  process.env.INDEXWRIGHT_SESSION_SECRET = "auth-test-session-secret";
  process.env.LOG_LEVEL = "silent";
  await upsertAdmin(t.pool, "Admin@Example.com", "correct horse battery staple");
  R = {
    signin: await import("../../app/api/auth/signin/route"),
    tokens: await import("../../app/api/v1/admin/tokens/route"),
    token: await import("../../app/api/v1/admin/tokens/[id]/route"),
    users: await import("../../app/api/v1/admin/users/route"),
    user: await import("../../app/api/v1/admin/users/[id]/route"),
    publish: await import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route"),
    docs: await import("../../app/api/v1/documents/route"),
    signout: await import("../../app/api/auth/signout/route"),
  };
});
afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const ctx = (p: object = {}) => ({ params: Promise.resolve(p) });
const req = (method: string, body?: unknown, headers: Record<string, string> = {}) =>
  new Request("http://dash.local/x", {
    method,
    headers: { "content-type": "application/json", host: "dash.local", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const bearer = (tok: string) => ({ authorization: `Bearer ${tok}` });

describe("INDEXWRIGHT_ADMIN_PASSWORD", () => {
  it("never re-enables a disabled account: the password is set, the account stays disabled and cannot sign in", async () => {
    await upsertAdmin(t.pool, "ops-admin@example.com", "first long password");
    await t.pool.query(`UPDATE users SET disabled_at = now() WHERE email = 'ops-admin@example.com'`);
    expect(await upsertAdmin(t.pool, "ops-admin@example.com", "second long password")).toEqual({ disabled: true });
    const { rows } = await t.pool.query(`SELECT disabled_at FROM users WHERE email = 'ops-admin@example.com'`);
    expect(rows[0].disabled_at).not.toBeNull();
    const res = await R.signin.POST(
      req(
        "POST",
        { email: "ops-admin@example.com", password: "second long password" },
        { "x-forwarded-for": "10.0.3.1" },
      ),
      ctx(),
    );
    expect(res.status).toBe(401);
  });

  it("obeys the length rule: start refuses a short one, naming the setting, and nothing is written", async () => {
    expect(() => checkSettings({ INDEXWRIGHT_ADMIN_PASSWORD: "short" })).toThrow(
      /INDEXWRIGHT_ADMIN_PASSWORD must be 12 to 500 characters \(it has 5\)/,
    );
    expect(checkSettings({ INDEXWRIGHT_ADMIN_PASSWORD: "twelve chars" }).cfg).toBeDefined();
    await expect(upsertAdmin(t.pool, "short@example.com", "short")).rejects.toThrow(/12 to 500 characters/);
    expect((await t.pool.query(`SELECT 1 FROM users WHERE email = 'short@example.com'`)).rowCount).toBe(0);
  });
});

describe("sign-in", () => {
  it("email + password gives an httpOnly SameSite session cookie for the user's role", async () => {
    const res = await R.signin.POST(
      req("POST", { email: "admin@example.com", password: "correct horse battery staple" }),
      ctx(),
    );
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const value = /iw_session=([^;]+)/.exec(cookie)![1];
    expect(await principalForSession(t.pool, value)).toEqual({
      subject: "user:admin@example.com",
      kind: "person",
      role: "admin",
      tenants: null,
      principals: ["user:admin@example.com"],
      capabilities: [],
    });
    // The cookie is an opaque random id; the database keeps only its hash.
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await t.pool.query(`SELECT id_hash, method FROM sessions`);
    expect(stored.rows.map((r) => r.id_hash)).not.toContain(value);
    expect(stored.rows.some((r) => r.method === "password")).toBe(true);
  });

  it("behind a TLS-terminating proxy (X-Forwarded-Proto: https) the cookie is Secure", async () => {
    const res = await R.signin.POST(
      req("POST", { token: BOOT }, { "x-forwarded-for": "10.0.0.9", "x-forwarded-proto": "https" }),
      ctx(),
    );
    expect(res.headers.get("set-cookie")).toMatch(/; Secure/);
    const plain = await R.signin.POST(req("POST", { token: BOOT }, { "x-forwarded-for": "10.0.0.10" }), ctx());
    expect(plain.headers.get("set-cookie")).not.toMatch(/Secure/);
  });

  it("over TLS the cookie is __Host-iw_session (Secure, Path=/, no Domain), only that name is read there, and plain http keeps iw_session", async () => {
    const tls = { "x-forwarded-proto": "https" };
    const res = await R.signin.POST(req("POST", { token: BOOT }, { "x-forwarded-for": "10.0.0.11", ...tls }), ctx());
    const set = res.headers.get("set-cookie")!;
    expect(set).toMatch(/^__Host-iw_session=[A-Za-z0-9_-]{43}; Path=\/;/);
    expect(set).toMatch(/; Secure/);
    expect(set).not.toMatch(/Domain=/i);
    const value = /^__Host-iw_session=([^;]+)/.exec(set)![1];
    const list = (headers: Record<string, string>) => R.docs.GET(req("GET", undefined, headers), ctx());
    expect((await list({ cookie: `__Host-iw_session=${value}`, ...tls })).status).toBe(200);
    // A plain-named cookie, which a sibling subdomain or an http response could have planted, is not a session over TLS.
    expect((await list({ cookie: `iw_session=${value}`, ...tls })).status).toBe(401);
    const plain = await R.signin.POST(req("POST", { token: BOOT }, { "x-forwarded-for": "10.0.0.12" }), ctx());
    const plainValue = /^iw_session=([^;]+)/.exec(plain.headers.get("set-cookie")!)![1];
    expect((await list({ cookie: `iw_session=${plainValue}` })).status).toBe(200);
    const out = await R.signout.POST(
      req("POST", undefined, { cookie: `__Host-iw_session=${value}`, origin: "https://dash.local", ...tls }),
      ctx(),
    );
    expect(out.headers.get("set-cookie")).toMatch(/^__Host-iw_session=; Path=\/;.*Max-Age=0.*; Secure/);
    expect((await list({ cookie: `__Host-iw_session=${value}`, ...tls })).status).toBe(401);
  });

  it("a wrong password is 401, and repeated failures are throttled", async () => {
    const h = { "x-forwarded-for": "10.9.9.9" };
    for (let i = 0; i < 5; i++) {
      const r = await R.signin.POST(req("POST", { email: "admin@example.com", password: `wrong-${i}` }, h), ctx());
      expect(r.status).toBe(401);
    }
    const blocked = await R.signin.POST(
      req("POST", { email: "admin@example.com", password: "correct horse battery staple" }, h),
      ctx(),
    );
    expect(blocked.status).toBe(429);
  });

  it("cookie-authenticated mutations from another origin are rejected", async () => {
    const res = await R.signin.POST(req("POST", { token: BOOT }, { "x-forwarded-for": "10.1.1.1" }), ctx());
    const cookie = /iw_session=([^;]+)/.exec(res.headers.get("set-cookie")!)![1];
    const body = { title: "x", contentType: "text/plain", content: "hello" };
    const cross = await R.publish.POST(
      req("POST", body, { cookie: `iw_session=${cookie}`, origin: "http://evil.example" }),
      ctx({ tenant: "a", key: "k" }),
    );
    expect(cross.status).toBe(403);
    const same = await R.publish.POST(
      req("POST", body, { cookie: `iw_session=${cookie}`, origin: "http://dash.local" }),
      ctx({ tenant: "a", key: "k" }),
    );
    expect(same.status).toBe(202);
  });
});

describe("admin: tokens and users", () => {
  it("creates a tenant-limited viewer token that can read only its tenant and write nothing; revoking it locks it out", async () => {
    const created = await R.tokens.POST(
      req("POST", { name: "reporting", role: "viewer", tenants: ["a"] }, bearer(BOOT)),
      ctx(),
    );
    expect(created.status).toBe(201);
    const { id, token } = await created.json();
    expect(token).toMatch(/^iw_/);
    const listed = await (await R.tokens.GET(req("GET", undefined, bearer(BOOT)), ctx())).json();
    expect(JSON.stringify(listed)).not.toContain(token);
    const docs = await (await R.docs.GET(req("GET", undefined, bearer(token)), ctx())).json();
    expect(docs.items.every((d: any) => d.tenant === "a")).toBe(true);
    const write = await R.publish.POST(
      req("POST", { title: "x", contentType: "text/plain", content: "x" }, bearer(token)),
      ctx({ tenant: "a", key: "z" }),
    );
    expect(write.status).toBe(403);
    const admin = await R.tokens.GET(req("GET", undefined, bearer(token)), ctx());
    expect(admin.status).toBe(403);
    expect((await R.token.DELETE(req("DELETE", undefined, bearer(BOOT)), ctx({ id }))).status).toBe(200);
    expect((await R.docs.GET(req("GET", undefined, bearer(token)), ctx())).status).toBe(401);
  });

  it("creates, disables and re-enables a user; duplicate emails are 409; weak passwords 400", async () => {
    const weak = await R.users.POST(
      req("POST", { email: "op@example.com", password: "short", role: "operator", tenants: ["*"] }, bearer(BOOT)),
      ctx(),
    );
    expect(weak.status).toBe(400);
    const u = await R.users.POST(
      req(
        "POST",
        { email: "op@example.com", password: "a long enough password", role: "operator", tenants: ["*"] },
        bearer(BOOT),
      ),
      ctx(),
    );
    expect(u.status).toBe(201);
    const { id } = await u.json();
    expect(
      (
        await R.users.POST(
          req(
            "POST",
            { email: "OP@example.com", password: "a long enough password", role: "viewer", tenants: ["*"] },
            bearer(BOOT),
          ),
          ctx(),
        )
      ).status,
    ).toBe(409);
    const signin = (ip: string) =>
      R.signin.POST(
        req("POST", { email: "op@example.com", password: "a long enough password" }, { "x-forwarded-for": ip }),
        ctx(),
      );
    expect((await signin("10.2.0.1")).status).toBe(200);
    await R.user.PATCH(req("PATCH", { disabled: true }, bearer(BOOT)), ctx({ id }));
    expect((await signin("10.2.0.2")).status).toBe(401);
    await R.user.PATCH(req("PATCH", { disabled: false, role: "viewer" }, bearer(BOOT)), ctx({ id }));
    const again = await signin("10.2.0.3");
    expect((await again.json()).role).toBe("viewer");
    const audit = await t.pool.query(`SELECT action FROM audit_log WHERE target_type IN ('user', 'token') ORDER BY id`);
    expect(audit.rows.map((r) => r.action)).toEqual([
      "token.create",
      "token.revoke",
      "user.create",
      "user.update",
      "user.update",
    ]);
  });
});

describe("hostile sign-in requests", () => {
  it("oversized, malformed, empty and over-specified bodies get stable codes and open no session", async () => {
    const before = (await t.pool.query(`SELECT count(*)::int AS n FROM sessions`)).rows[0].n;
    const raw = (body: string, headers: Record<string, string> = {}) =>
      R.signin.POST(
        new Request("http://dash.local/x", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            host: "dash.local",
            "x-forwarded-for": "10.66.0.1",
            ...headers,
          },
          body,
        }),
        ctx(),
      );
    const cases: [Response, number, string][] = [
      [await raw(JSON.stringify({ token: "x".repeat(20_000) })), 413, "PAYLOAD_TOO_LARGE"],
      [await raw('{"token": '), 400, "INVALID_JSON"],
      [await raw(""), 400, "INVALID_JSON"],
      [await raw(JSON.stringify({ token: BOOT, role: "admin" })), 400, "VALIDATION_FAILED"],
      [await raw(JSON.stringify({ email: "not-an-email", password: "x" })), 400, "VALIDATION_FAILED"],
      [await raw(JSON.stringify([BOOT])), 400, "VALIDATION_FAILED"],
      [await raw(JSON.stringify({ token: BOOT }), { origin: "http://evil.example" }), 403, "ORIGIN_MISMATCH"],
      // Sandboxed frames send "Origin: null": refused like any foreign origin, not a 500.
      [await raw(JSON.stringify({ token: BOOT }), { origin: "null" }), 403, "ORIGIN_MISMATCH"],
    ];
    for (const [res, status, code] of cases) {
      expect(res.status).toBe(status);
      expect((await res.json()).error.code).toBe(code);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM sessions`)).rows[0].n).toBe(before);
  });
});

describe("sessions live in the database", () => {
  const cookieOf = (res: Response) => /iw_session=([^;]+)/.exec(res.headers.get("set-cookie")!)![1];
  const asCookie = (c: string) => ({ cookie: `iw_session=${c}` });
  const docsWith = async (c: string) => (await R.docs.GET(req("GET", undefined, asCookie(c)), ctx())).status;

  it("signing out ends the session on the server, so a copied cookie stops working", async () => {
    const c = cookieOf(await R.signin.POST(req("POST", { token: BOOT }, { "x-forwarded-for": "10.3.0.1" }), ctx()));
    expect(await docsWith(c)).toBe(200);
    const out = await R.signout.POST(req("POST", undefined, asCookie(c)), ctx());
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    expect(await docsWith(c)).toBe(401);
  });

  it("disabling a person ends at once their password session, their person token, and the session opened with that token", async () => {
    const u = await (
      await R.users.POST(
        req(
          "POST",
          { email: "leaver@example.com", password: "a long enough password", role: "viewer", tenants: ["*"] },
          bearer(BOOT),
        ),
        ctx(),
      )
    ).json();
    const session = cookieOf(
      await R.signin.POST(
        req(
          "POST",
          { email: "leaver@example.com", password: "a long enough password" },
          { "x-forwarded-for": "10.4.1.1" },
        ),
        ctx(),
      ),
    );
    const tok = (
      await (
        await R.tokens.POST(
          req(
            "POST",
            { name: "leaver-laptop", role: "viewer", tenants: ["*"], kind: "person", userId: u.id },
            bearer(BOOT),
          ),
          ctx(),
        )
      ).json()
    ).token;
    const viaToken = cookieOf(
      await R.signin.POST(req("POST", { token: tok }, { "x-forwarded-for": "10.4.1.2" }), ctx()),
    );
    const withToken = async () => (await R.docs.GET(req("GET", undefined, bearer(tok)), ctx())).status;
    expect([await docsWith(session), await docsWith(viaToken), await withToken()]).toEqual([200, 200, 200]);
    const r = await (await R.user.PATCH(req("PATCH", { disabled: true }, bearer(BOOT)), ctx({ id: u.id }))).json();
    expect(r.sessionsEnded).toBe(2);
    expect([await docsWith(session), await docsWith(viaToken), await withToken()]).toEqual([401, 401, 401]);
  });

  it("forged, malformed and unknown cookies are 401", async () => {
    for (const c of ["x", "a".repeat(43), "../../etc", "a.b.c", "%E0%A4%A", "%", "é".repeat(5000)])
      expect(await docsWith(c)).toBe(401);
  });

  it("a role change applies to open sessions at once; disabling the user or resetting the password ends them", async () => {
    const u = await (
      await R.users.POST(
        req(
          "POST",
          { email: "live@example.com", password: "a long enough password", role: "operator", tenants: ["*"] },
          bearer(BOOT),
        ),
        ctx(),
      )
    ).json();
    const signin = async (ip: string) =>
      cookieOf(
        await R.signin.POST(
          req("POST", { email: "live@example.com", password: "a long enough password" }, { "x-forwarded-for": ip }),
          ctx(),
        ),
      );
    const c1 = await signin("10.4.0.1");
    const c2 = await signin("10.4.0.2");
    expect((await principalForSession(t.pool, c1))!.role).toBe("operator");
    await R.user.PATCH(req("PATCH", { role: "viewer", tenants: ["a"] }, bearer(BOOT)), ctx({ id: u.id }));
    expect(await principalForSession(t.pool, c1)).toEqual({
      subject: "user:live@example.com",
      kind: "person",
      role: "viewer",
      tenants: ["a"],
      principals: ["user:live@example.com"],
      capabilities: [],
    });
    const listed = (await (await R.users.GET(req("GET", undefined, bearer(BOOT)), ctx())).json()).items.find(
      (x: any) => x.id === u.id,
    );
    expect(listed.activeSessions).toBe(2);

    const disabled = await (
      await R.user.PATCH(req("PATCH", { disabled: true }, bearer(BOOT)), ctx({ id: u.id }))
    ).json();
    expect(disabled.sessionsEnded).toBe(2);
    expect(await docsWith(c1)).toBe(401);
    // Enabling the account again does not bring the ended sessions back.
    await R.user.PATCH(req("PATCH", { disabled: false }, bearer(BOOT)), ctx({ id: u.id }));
    expect(await docsWith(c2)).toBe(401);

    const c3 = await signin("10.4.0.3");
    expect(await docsWith(c3)).toBe(200);
    const reset = await (
      await R.user.PATCH(req("PATCH", { password: "another long password" }, bearer(BOOT)), ctx({ id: u.id }))
    ).json();
    expect(reset.sessionsEnded).toBe(1);
    expect(await docsWith(c3)).toBe(401);
  });

  it("'sign out everywhere' ends every session of a user and is audited", async () => {
    const u = await (
      await R.users.POST(
        req(
          "POST",
          { email: "roam@example.com", password: "a long enough password", role: "viewer", tenants: ["*"] },
          bearer(BOOT),
        ),
        ctx(),
      )
    ).json();
    const c = cookieOf(
      await R.signin.POST(
        req(
          "POST",
          { email: "roam@example.com", password: "a long enough password" },
          { "x-forwarded-for": "10.5.0.1" },
        ),
        ctx(),
      ),
    );
    const res = await (await R.user.PATCH(req("PATCH", { signOut: true }, bearer(BOOT)), ctx({ id: u.id }))).json();
    expect(res.sessionsEnded).toBe(1);
    expect(await docsWith(c)).toBe(401);
    const a = await t.pool.query(`SELECT detail FROM audit_log WHERE action = 'user.update' AND target_id = $1`, [
      u.id,
    ]);
    expect(a.rows[0].detail.sessionsEnded).toBe(1);
  });

  it("revoking a token ends the dashboard sessions opened with it", async () => {
    const { id, token } = await (
      await R.tokens.POST(req("POST", { name: "ops-laptop", role: "operator", tenants: ["*"] }, bearer(BOOT)), ctx())
    ).json();
    const c = cookieOf(await R.signin.POST(req("POST", { token }, { "x-forwarded-for": "10.6.0.1" }), ctx()));
    expect(await principalForSession(t.pool, c)).toEqual({
      subject: "token:ops-laptop",
      kind: "application",
      role: "operator",
      tenants: null,
      principals: [],
      capabilities: [],
      mintedByUserId: null,
    });
    await R.token.DELETE(req("DELETE", undefined, bearer(BOOT)), ctx({ id }));
    expect(await docsWith(c)).toBe(401);
  });

  it("sessions opened with the bootstrap token end when the bootstrap token changes", async () => {
    const c = cookieOf(await R.signin.POST(req("POST", { token: BOOT }, { "x-forwarded-for": "10.7.0.1" }), ctx()));
    expect(await docsWith(c)).toBe(200);
    process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = "a-different-bootstrap-token-0000";
    try {
      expect(await docsWith(c)).toBe(401);
    } finally {
      process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = BOOT;
    }
    expect(await docsWith(c)).toBe(200);
  });

  it("an expired session is refused", async () => {
    const c = cookieOf(await R.signin.POST(req("POST", { token: BOOT }, { "x-forwarded-for": "10.8.0.1" }), ctx()));
    await t.pool.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE bootstrap_hash IS NOT NULL`);
    expect(await docsWith(c)).toBe(401);
  });
});
