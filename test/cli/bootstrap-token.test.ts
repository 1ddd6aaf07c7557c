import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDb, type TestDb } from "../helpers/db";
import type { ApiServer } from "./api-server";

// The bootstrap token rotated and revoked: through the admin API and `token rotate-bootstrap`
// (bin/indexwright.mjs in a child process, as a user runs it) against a real HTTP server.

const BOOT = "bootstrap-rotation-token-0123456789";
const ROOT = path.resolve(import.meta.dirname, "../..");
const BIN = path.join(ROOT, "bin/indexwright.mjs");

let t: TestDb;
let server: ApiServer;
let dataDir: string;

type Run = { code: number | null; stdout: string; stderr: string };
function cli(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: dataDir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        INDEXWRIGHT_URL: server.url,
        LOG_LEVEL: "silent",
        ...env,
      } as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const api = (p: string, token: string, init: RequestInit = {}) =>
  fetch(server.url + p, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
  });
const signIn = async (token: string) => {
  const r = await fetch(server.url + "/api/auth/signin", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });
  return /iw_session=([^;]+)/.exec(r.headers.get("set-cookie") ?? "")![1];
};
const withSession = (cookie: string) =>
  fetch(server.url + "/api/v1/tenants", { headers: { cookie: `iw_session=${cookie}` } });

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = BOOT;
  process.env.INDEXWRIGHT_SESSION_SECRET = "bootstrap-rotation-session-secret";
  process.env.LOG_LEVEL = "silent";
  dataDir = mkdtempSync(path.join(tmpdir(), "iw-boot-"));
  const { startApiServer } = await import("./api-server");
  server = await startApiServer();
});
afterAll(async () => {
  await server?.close();
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("bootstrap token rotation and revocation", () => {
  it("only an all-tenant admin may rotate or revoke it: a tenant-limited admin gets 403 FLEET_SCOPE_REQUIRED and nothing changes", async () => {
    const minted = await (
      await api("/api/v1/admin/tokens", BOOT, {
        method: "POST",
        body: JSON.stringify({ name: "own-admin", role: "admin", tenants: ["own"] }),
      })
    ).json();
    for (const [method, p] of [
      ["POST", "/api/v1/admin/bootstrap-token/rotate"],
      ["DELETE", "/api/v1/admin/bootstrap-token"],
    ]) {
      const r = await api(p, minted.token, { method });
      expect(r.status).toBe(403);
      expect((await r.json()).error.code).toBe("FLEET_SCOPE_REQUIRED");
    }
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM bootstrap_token`)).rows[0].n).toBe(0);
    expect((await api("/api/v1/tenants", BOOT)).status).toBe(200);
  });

  it("`token rotate-bootstrap` replaces the data directory's token file (0600), prints no token, and the old token and its sessions stop at once", async () => {
    const file = path.join(dataDir, "bootstrap-token");
    writeFileSync(file, BOOT + "\n", { mode: 0o644 });
    const oldSession = await signIn(BOOT);
    expect((await withSession(oldSession)).status).toBe(200);

    const r = await cli({ INDEXWRIGHT_DATA_DIR: dataDir }, "token", "rotate-bootstrap");
    expect(r.code, r.stderr).toBe(0);
    const fresh = readFileSync(file, "utf8").trim();
    expect(fresh).not.toBe(BOOT);
    expect(fresh.length).toBeGreaterThanOrEqual(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(r.stdout).not.toContain(fresh);
    expect(r.stdout).toContain("1 session(s)");

    expect((await api("/api/v1/tenants", BOOT)).status).toBe(401);
    expect((await withSession(oldSession)).status).toBe(401);
    expect((await api("/api/v1/tenants", fresh)).status).toBe(200);
    const session = await signIn(fresh);
    expect((await withSession(session)).status).toBe(200);

    const audit = (
      await t.pool.query(`SELECT actor, action, detail FROM audit_log WHERE action LIKE 'bootstrap_token.%'`)
    ).rows;
    expect(audit).toEqual([
      { actor: "token:bootstrap", action: "bootstrap_token.rotate", detail: { from: "configured", sessionsEnded: 1 } },
    ]);
    expect(JSON.stringify(audit)).not.toContain(fresh);
  });

  it("revoked through the API, no bootstrap token signs in (the configured one neither), its sessions end, and an admin token can rotate a new one", async () => {
    const current = readFileSync(path.join(dataDir, "bootstrap-token"), "utf8").trim();
    const admin = await (
      await api("/api/v1/admin/tokens", current, {
        method: "POST",
        body: JSON.stringify({ name: "fleet-admin", role: "admin", tenants: ["*"] }),
      })
    ).json();
    const session = await signIn(current);
    const r = await api("/api/v1/admin/bootstrap-token", admin.token, { method: "DELETE" });
    expect(r.status).toBe(200);
    // This session and the one the previous test opened with the same token.
    expect(await r.json()).toEqual({ revoked: true, sessionsEnded: 2 });
    for (const tok of [current, BOOT]) expect((await api("/api/v1/tenants", tok)).status).toBe(401);
    expect((await withSession(session)).status).toBe(401);

    const rotated = await api("/api/v1/admin/bootstrap-token/rotate", admin.token, { method: "POST" });
    const { token } = await rotated.json();
    expect((await api("/api/v1/tenants", token)).status).toBe(200);
    const actions = (
      await t.pool.query(
        `SELECT action, actor, detail->>'from' AS "from" FROM audit_log WHERE action LIKE 'bootstrap_token.%' ORDER BY id`,
      )
    ).rows;
    expect(actions.slice(1)).toEqual([
      { action: "bootstrap_token.revoke", actor: "token:fleet-admin", from: "rotated" },
      { action: "bootstrap_token.rotate", actor: "token:fleet-admin", from: "revoked" },
    ]);
  });
});
