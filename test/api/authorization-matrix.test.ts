import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { ROUTES, allowHeader, routeFor, type HttpMethod, type RouteRule } from "../../lib/http/routes";
import { ROLES, type Role } from "../../lib/domain/constants";

// The authorization matrix: every row of the route table (lib/http/routes.ts) is called by every
// kind of caller through the real route handler, and the expected answer is computed from the
// row alone. The table must list exactly the methods the route files on disk export, so a new
// route without a row fails here before it can ship unchecked.

const BOOT = "matrix-bootstrap-token-0123456789";
const PASSWORD = "a long enough password";
const HOST = "dash.local";
const METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const API_DIR = path.resolve(import.meta.dirname, "../../app/api");
const CATCH_ALL = "[...rest]";

type Mod = Record<string, unknown>;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** Route directories under app/api that hold a route.ts, as URL patterns ("/api/v1/tasks/[taskId]"). */
function routeFiles(dir = API_DIR, rel = ""): { pattern: string; file: string }[] {
  const out: { pattern: string; file: string }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.isDirectory()) out.push(...routeFiles(path.join(dir, e.name), `${rel}/${e.name}`));
    else if (e.name === "route.ts") out.push({ pattern: `/api${rel}`, file: path.join(dir, e.name) });
  }
  return out;
}

let t: TestDb;
let fallback: Mod;
const modules = new Map<string, Mod>(); // pattern → route module
let catchAll: Mod;

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = BOOT;
  process.env.INDEXWRIGHT_SESSION_SECRET = "matrix-session-secret";
  process.env.LOG_LEVEL = "silent";
  for (const k of Object.keys(process.env)) if (k.startsWith("OIDC_")) delete process.env[k];
  fallback = await import("../../lib/http/method-fallback");
  for (const { pattern, file } of routeFiles()) {
    const mod = (await import(/* @vite-ignore */ path.relative(import.meta.dirname, file))) as Mod;
    if (pattern === `/api/${CATCH_ALL}`) catchAll = mod;
    else modules.set(pattern, mod);
  }
});

afterAll(async () => {
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

/** The methods a route module defines itself (not the 405 answers it re-exports). */
function ownMethods(mod: Mod): string[] {
  return [...METHODS, "HEAD", "OPTIONS"].filter((m) => typeof mod[m] === "function" && mod[m] !== fallback[m] && !(m === "HEAD" && mod.HEAD === mod.GET));
}

/** A concrete URL for a pattern: `[tenant]` → the target tenant, other params from `params`. */
function fill(pattern: string, params: Record<string, string>): string {
  return pattern.replace(/\[([^\]]+)\]/g, (_, name: string) => encodeURIComponent(params[name] ?? "x"));
}

const call = (mod: Mod, method: string, req: Request, params: Record<string, string> = {}) => (mod[method] as Handler)(req, { params: Promise.resolve(params) });

async function codeOf(res: Response): Promise<string | null> {
  if (!(res.headers.get("content-type") ?? "").includes("json")) return null;
  const body = (await res.json().catch(() => null)) as { error?: { code?: string } } | null;
  return body?.error?.code ?? null;
}

describe("the route table", () => {
  it("lists exactly the methods the route files export (a new route without a row fails here)", () => {
    const onDisk = new Set<string>();
    for (const [pattern, mod] of modules) for (const m of ownMethods(mod)) onDisk.add(`${m} ${pattern}`);
    const inTable = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    const problems = [
      ...[...onDisk].filter((k) => !inTable.has(k)).map((k) => `${k}: exported by a route file but has no row in ROUTES`),
      ...[...inTable].filter((k) => !onDisk.has(k)).map((k) => `${k}: has a row in ROUTES but no route file exports it`),
    ];
    for (const r of ROUTES) {
      const k = `${r.method} ${r.path}`;
      if ((r.auth === "role") !== Boolean(r.role)) problems.push(`${k}: a role row names its minimum role, and only a role row does`);
      if ((r.scope === "tenant-param") !== r.path.includes("/[tenant]")) problems.push(`${k}: scope tenant-param goes with a [tenant] segment`);
      if (r.auth === "public" && r.scope !== "none") problems.push(`${k}: a public route has no tenant scope`);
    }
    expect(problems).toEqual([]);
    expect(inTable.size).toBe(ROUTES.length); // no duplicate rows
  });

  it("picks the route the App Router would: a literal segment beats a parameter", () => {
    expect(routeFor("/api/v1/tasks/retry")).toEqual({ path: "/api/v1/tasks/retry", methods: ["POST"] });
    expect(routeFor("/api/v1/tasks/42")).toEqual({ path: "/api/v1/tasks/[taskId]", methods: ["GET"] });
    expect(routeFor("/api/v1/admin/users")?.methods).toEqual(["GET", "POST"]);
    expect(routeFor("/api/v1/tenants/acme/documents/a%2Fb")?.path).toBe("/api/v1/tenants/[tenant]/documents/[key]");
    expect(routeFor("/api/v1/tenants/acme/documents")).toBeNull();
    expect(routeFor("/api/nope")).toBeNull();
    expect(allowHeader(["POST"])).toBe("OPTIONS, POST");
    expect(allowHeader(["GET", "DELETE"])).toBe("DELETE, GET, HEAD, OPTIONS");
  });

  it("every other method on a known path is a JSON 405 with an Allow header; OPTIONS lists the allowed ones", async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const [pattern, mod] of modules) {
      const allowed = ROUTES.filter((r) => r.path === pattern).map((r) => r.method);
      const url = `http://${HOST}${fill(pattern, { tenant: "own", key: "k", taskId: "1", id: randomUUID() })}`;
      for (const m of METHODS.filter((x) => !allowed.includes(x))) {
        checked++;
        if (typeof mod[m] !== "function") {
          problems.push(`${m} ${pattern}: not exported; the route file must end with export * from "@/lib/http/method-fallback"`);
          continue;
        }
        const res = await call(mod, m, new Request(url, { method: m, headers: { host: HOST } }));
        const code = await codeOf(res);
        if (res.status !== 405 || code !== "METHOD_NOT_ALLOWED" || res.headers.get("allow") !== allowHeader(allowed)) {
          problems.push(`${m} ${pattern}: expected 405 METHOD_NOT_ALLOWED, Allow: ${allowHeader(allowed)}; got ${res.status} ${code}, Allow: ${res.headers.get("allow")}`);
        }
      }
      // Next.js answers HEAD with the module's GET; where the route serves no GET that is the 405.
      // (HEAD where it does serve GET is called in the matrix below, caller by caller.)
      if (!allowed.includes("GET")) {
        checked++;
        const res = await call(mod, "GET", new Request(url, { method: "HEAD", headers: { host: HOST } }));
        if (res.status !== 405 || res.headers.get("allow") !== allowHeader(allowed)) problems.push(`HEAD ${pattern}: expected 405, Allow: ${allowHeader(allowed)}; got ${res.status}, Allow: ${res.headers.get("allow")}`);
      }
      if (typeof mod.OPTIONS !== "function") problems.push(`OPTIONS ${pattern}: not exported (would list the 405 methods as allowed)`);
      else {
        const res = await call(mod, "OPTIONS", new Request(url, { method: "OPTIONS", headers: { host: HOST } }));
        if (res.status !== 204 || res.headers.get("allow") !== allowHeader(allowed)) problems.push(`OPTIONS ${pattern}: expected 204, Allow: ${allowHeader(allowed)}; got ${res.status}, Allow: ${res.headers.get("allow")}`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(ROUTES.length);
  });

  it("an unknown /api path is a JSON 404 for every method", async () => {
    for (const m of [...METHODS, "HEAD", "OPTIONS"]) {
      const res = await call(catchAll, m, new Request(`http://${HOST}/api/v1/nope/deeper`, { method: m, headers: { host: HOST } }), { rest: ["v1", "nope", "deeper"] } as never);
      expect(res.status, m).toBe(404);
      expect(res.headers.get("content-type"), m).toMatch(/application\/json/);
      if (m !== "HEAD") expect(await res.json(), m).toEqual({ error: { code: "NOT_FOUND", message: "no API route at /api/v1/nope/deeper" } });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Callers

type Caller = {
  name: string;
  kind: "none" | "token" | "session";
  /** null = all tenants */
  tenants?: string[] | null;
  role?: Role;
  capabilities?: string[];
  /** Expected to be refused as not authenticated (revoked token, ended session). */
  dead?: boolean;
  secret?: string;
  tokenId?: string;
  /** Why the caller could not be created, when it could not. */
  setupError?: string;
};

const RANK: Record<Role, number> = { viewer: 0, maintainer: 1, operator: 2, admin: 3 };

type Expect = { allowed: true } | { allowed: false; status: number; codes: string[] };

/**
 * An allowed call answers 2xx, or one of these: the state the matrix runs in makes them the right
 * answer. Never a 5xx.
 */
const EXPECTED_NON_2XX: Record<string, { status: number; code: string; why: string }[]> = {
  "GET /api/auth/oidc/start": [{ status: 404, code: "NOT_FOUND", why: "single sign-on is not configured" }],
  "GET /api/auth/oidc/callback": [{ status: 404, code: "NOT_FOUND", why: "single sign-on is not configured" }],
  "POST /api/v1/tenants/[tenant]/documents/[key]/rollback": [{ status: 409, code: "ROLLBACK_UNAVAILABLE", why: "no worker runs, so version 1 was never built" }],
};

/** What the row says this caller, aimed at `target`, must get. */
function expected(row: RouteRule, c: Caller, target: string): Expect {
  if (row.auth === "public") return { allowed: true };
  if (c.kind === "none" || c.dead) return { allowed: false, status: 401, codes: ["UNAUTHORIZED"] };
  const roleOk = row.auth === "session" || RANK[c.role!] >= RANK[row.role!] || Boolean(row.capability && c.capabilities?.includes(row.capability));
  const all = c.tenants === null;
  const scopeCode =
    row.scope === "tenant-param" && !all && !c.tenants!.includes(target) ? "FORBIDDEN" : row.scope === "fleet" && !all ? "FLEET_SCOPE_REQUIRED" : null;
  // Which check comes first when both fail is not part of the contract: either code is right.
  if (!roleOk) return { allowed: false, status: 403, codes: [...new Set(["FORBIDDEN", ...(scopeCode ? [scopeCode] : [])])] };
  if (scopeCode) return { allowed: false, status: 403, codes: [scopeCode] };
  // own-tenants: an id from a tenant the caller does not hold is not revealed to exist.
  if (row.scope === "own-tenants" && !all && !c.tenants!.includes(target)) return { allowed: false, status: 404, codes: ["NOT_FOUND"] };
  return { allowed: true };
}

/** Rows where the caller can aim at another tenant: its [tenant] segment, or an id of a resource that lives in one tenant. */
const aimsAtTenant = (row: RouteRule) => row.scope === "tenant-param" || (row.scope === "own-tenants" && /\[[^\]]+\]/.test(row.path));

const describeCaller = (c: Caller) =>
  c.kind === "none" ? "no credentials" : c.dead ? c.name : `${c.name} (${c.kind}, ${c.role}, tenants ${c.tenants === null ? "*" : c.tenants!.join(",")}${c.capabilities?.length ? `, ${c.capabilities.join(",")}` : ""})`;

// ---------------------------------------------------------------------------------------------
// Fixtures: real resources per case, so allowed calls mostly succeed (2xx) and a leak across
// tenants would show as a 2xx on the other tenant's real data rather than a 404.

type Prepared = { params: Record<string, string>; body?: unknown; query?: string };
type FixtureCtx = { target: string; n: number };

let R: Record<string, Mod>;
const ctx = (p: object = {}) => ({ params: Promise.resolve(p) });
const bootReq = (method: string, body?: unknown) =>
  new Request(`http://${HOST}/x`, { method, headers: { host: HOST, "content-type": "application/json", authorization: `Bearer ${BOOT}` }, body: body === undefined ? undefined : JSON.stringify(body) });

async function asBoot(mod: Mod, method: string, body?: unknown, params: object = {}) {
  const res = await (mod[method] as Handler)(bootReq(method, body), ctx(params) as never);
  const json = await res.json().catch(() => null);
  if (res.status >= 300) throw new Error(`setup ${method} failed: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function publishDoc(tenant: string, key: string, content = "hello matrix") {
  return asBoot(R.publish, "POST", { title: `Doc ${key}`, contentType: "text/plain", content }, { tenant, key }) as Promise<{ taskId: string; versionNumber: number }>;
}

async function deadTask(tenant: string, n: number): Promise<string> {
  const { taskId } = await publishDoc(tenant, `task-${n}`);
  await t.pool.query(`UPDATE index_tasks SET status = 'DEAD', error_code = 'EMBEDDING_TIMEOUT', finished_at = now(), updated_at = now() WHERE task_id = $1`, [taskId]);
  return String(taskId);
}

const DOC = "/api/v1/tenants/[tenant]/documents/[key]";
const FIXTURES: Record<string, (f: FixtureCtx) => Promise<Prepared>> = {
  "POST /api/auth/signin": async () => ({ params: {}, body: { token: BOOT } }),
  [`GET ${DOC}`]: async ({ target, n }) => (await publishDoc(target, `d-${n}`), { params: { tenant: target, key: `d-${n}` } }),
  [`DELETE ${DOC}`]: async ({ target, n }) => (await publishDoc(target, `d-${n}`), { params: { tenant: target, key: `d-${n}` } }),
  [`POST ${DOC}/versions`]: async ({ target, n }) => ({ params: { tenant: target, key: `d-${n}` }, body: { title: "Matrix", contentType: "text/plain", content: "hello" } }),
  [`POST ${DOC}/reindex`]: async ({ target, n }) => (await publishDoc(target, `d-${n}`), { params: { tenant: target, key: `d-${n}` } }),
  [`POST ${DOC}/rename`]: async ({ target, n }) => (await publishDoc(target, `d-${n}`), { params: { tenant: target, key: `d-${n}` }, body: { newKey: `renamed-${n}` } }),
  [`POST ${DOC}/rollback`]: async ({ target, n }) => {
    await publishDoc(target, `d-${n}`, "first");
    await publishDoc(target, `d-${n}`, "second");
    return { params: { tenant: target, key: `d-${n}` }, body: { toVersion: 1, reason: "matrix check" } };
  },
  [`POST ${DOC}/unpin`]: async ({ target, n }) => (await publishDoc(target, `d-${n}`), { params: { tenant: target, key: `d-${n}` } }),
  "POST /api/v1/tenants/[tenant]/search": async ({ target }) => ({ params: { tenant: target }, body: { query: "hello" } }),
  "GET /api/v1/tasks/[taskId]": async ({ target, n }) => ({ params: { taskId: String((await publishDoc(target, `task-${n}`)).taskId) } }),
  "POST /api/v1/tasks/[taskId]/retry": async ({ target, n }) => ({ params: { taskId: await deadTask(target, n) } }),
  "POST /api/v1/tasks/[taskId]/force-done": async ({ target, n }) => ({ params: { taskId: await deadTask(target, n) }, body: { reason: "matrix check" } }),
  "POST /api/v1/tasks/retry": async () => ({ params: {}, body: { status: "DEAD", reason: "matrix check" } }),
  "POST /api/v1/admin/users": async ({ target, n }) => ({ params: {}, body: { email: `new-${n}@example.com`, password: PASSWORD, role: "viewer", tenants: [target] } }),
  "PATCH /api/v1/admin/users/[id]": async ({ target, n }) => {
    const u = await asBoot(R.users, "POST", { email: `target-${n}@example.com`, password: PASSWORD, role: "viewer", tenants: [target] });
    return { params: { id: u.id }, body: { role: "maintainer" } };
  },
  "POST /api/v1/admin/tokens": async ({ target, n }) => ({ params: {}, body: { name: `new-${n}`, role: "viewer", tenants: [target] } }),
  "DELETE /api/v1/admin/tokens/[id]": async ({ target, n }) => {
    const tok = await asBoot(R.tokens, "POST", { name: `target-${n}`, role: "viewer", tenants: [target] });
    return { params: { id: tok.id } };
  },
};

/** Rows without a fixture get placeholder parameters: the auth gate runs before any lookup. */
const defaultFixture = async ({ target }: FixtureCtx, row: RouteRule): Promise<Prepared> => ({
  params: Object.fromEntries([...row.path.matchAll(/\[([^\]]+)\]/g)].map(([, name]) => [name, name === "tenant" ? target : name === "id" ? randomUUID() : name === "taskId" ? "1" : "absent"])),
});

// ---------------------------------------------------------------------------------------------

const callers: Caller[] = [];

async function makeToken(name: string, role: Role, tenants: string[] | null, capabilities?: string[]): Promise<Caller> {
  const c: Caller = { name, kind: "token", role, tenants, capabilities };
  const body = { name, role, tenants: tenants === null ? ["*"] : tenants, ...(capabilities ? { capabilities } : {}) };
  try {
    const created = await asBoot(R.tokens, "POST", body);
    c.secret = created.token;
    c.tokenId = created.id;
  } catch (err) {
    c.setupError = (err as Error).message;
  }
  return c;
}

const cookieOf = (res: Response) => /iw_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];

type Result = { row: RouteRule; caller: Caller; target: string; want: Expect; status: number | null; code: string | null; note?: string };
const results: Result[] = [];

describe("authorization matrix", () => {
  beforeAll(async () => {
    const base = "../../app/api";
    R = {
      signin: await import(`${base}/auth/signin/route`),
      signout: await import(`${base}/auth/signout/route`),
      tokens: await import(`${base}/v1/admin/tokens/route`),
      token: await import(`${base}/v1/admin/tokens/[id]/route`),
      users: await import(`${base}/v1/admin/users/route`),
      publish: await import(`${base}/v1/tenants/[tenant]/documents/[key]/versions/route`),
    };
    // Both tenants hold documents, so a leak across them would answer with real data.
    await publishDoc("own", "seed");
    await publishDoc("other", "seed");

    callers.push({ name: "no credentials", kind: "none" });

    const revoked = await makeToken("revoked", "admin", null);
    revoked.name = "revoked token (was admin, all tenants)";
    revoked.dead = true;
    if (revoked.tokenId) {
      try {
        await asBoot(R.token, "DELETE", undefined, { id: revoked.tokenId });
      } catch (err) {
        revoked.setupError = (err as Error).message;
      }
    }
    callers.push(revoked);

    const ended: Caller = { name: "ended session (signed out; was admin, all tenants)", kind: "session", dead: true };
    try {
      await asBoot(R.users, "POST", { email: "ended@example.com", password: PASSWORD, role: "admin", tenants: ["*"] });
      const signin = await (R.signin.POST as Handler)(
        new Request(`http://${HOST}/api/auth/signin`, { method: "POST", headers: { host: HOST, "content-type": "application/json", "x-forwarded-for": "10.77.0.1" }, body: JSON.stringify({ email: "ended@example.com", password: PASSWORD }) }),
        ctx() as never,
      );
      ended.secret = cookieOf(signin);
      if (!ended.secret) throw new Error(`sign-in answered ${signin.status} without a session cookie`);
      const out = await (R.signout.POST as Handler)(new Request(`http://${HOST}/api/auth/signout`, { method: "POST", headers: { host: HOST, origin: `http://${HOST}`, cookie: `iw_session=${ended.secret}` } }), ctx() as never);
      if (out.status !== 200) throw new Error(`sign-out answered ${out.status}`);
    } catch (err) {
      ended.setupError = (err as Error).message;
    }
    callers.push(ended);

    for (const role of ROLES) callers.push(await makeToken(`own-${role}`, role, ["own"]));
    for (const role of ROLES) callers.push(await makeToken(`all-${role}`, role, null));
    callers.push(await makeToken("metrics-reader", "viewer", null, ["metrics:read"]));
  });

  afterAll(() => {
    if (!results.length) return;
    const failed = results.filter((r) => r.note);
    const allowed = results.filter((r) => r.want.allowed && !r.note);
    const byStatus = new Map<string, number>();
    for (const r of allowed) byStatus.set(String(r.status), (byStatus.get(String(r.status)) ?? 0) + 1);
    const lines = [
      `authorization matrix: ${ROUTES.length} rows × ${callers.length} callers (where they apply) = ${results.length} cases; ${results.length - failed.length} as expected, ${failed.length} not`,
      `  allowed cases answered: ${[...byStatus].sort().map(([s, n]) => `${s}×${n}`).join(", ")}`,
      ...failed.map((r) => `  ✗ ${r.note}`),
    ];
    // MATRIX_VERBOSE=1 prints every case, e.g. to see which allowed calls were not 2xx and why.
    if (process.env.MATRIX_VERBOSE) for (const r of results) lines.push(`  ${r.note ? "✗" : "·"} ${r.row.method} ${r.row.path} · ${describeCaller(r.caller)} → ${r.target}: ${r.status} ${r.code ?? ""}`);
    console.log(lines.join("\n"));
  });

  let n = 0;
  it.each(ROUTES.map((r) => ({ ...r, label: `${r.method} ${r.path}` })))("$label", async (row) => {
    const mod = modules.get(row.path);
    expect(mod, `no route file for ${row.path}`).toBeDefined();
    // Unauthenticated and dead callers aim at the caller's own tenant; tenant-limited callers also at the other one.
    const plan: { caller: Caller; target: string }[] = [];
    for (const c of callers) {
      // All-tenant tokens are only interesting where the grant decides: fleet routes.
      const allTenant = c.kind === "token" && !c.dead && c.tenants === null;
      if (allTenant && row.scope !== "fleet") continue;
      if (c.name === "metrics-reader" && !row.capability) continue;
      plan.push({ caller: c, target: "own" });
      if (aimsAtTenant(row) && c.kind === "token" && !c.dead && c.tenants !== null) plan.push({ caller: c, target: "other" });
    }
    const mine: string[] = [];
    for (const { caller, target } of plan) {
      const want = expected(row, caller, target);
      const label = `${row.method} ${row.path} · ${describeCaller(caller)}${aimsAtTenant(row) ? ` → tenant ${target}` : ""}`;
      const result: Result = { row, caller, target, want, status: null, code: null };
      results.push(result);
      const fail = (why: string) => {
        result.note = `${label}: ${why}`;
        mine.push(result.note);
      };
      if (caller.setupError || (caller.kind !== "none" && !caller.secret)) {
        fail(`caller could not be set up (${caller.setupError ?? "no secret"})`);
        continue;
      }
      let prepared: Prepared;
      try {
        prepared = await (FIXTURES[`${row.method} ${row.path}`] ?? ((f: FixtureCtx) => defaultFixture(f, row)))({ target, n: ++n });
      } catch (err) {
        fail(`fixture failed: ${(err as Error).message}`);
        continue;
      }
      const headers: Record<string, string> = { host: HOST, "x-forwarded-for": `10.78.${Math.floor(n / 250)}.${n % 250}` };
      if (caller.kind === "token") headers.authorization = `Bearer ${caller.secret}`;
      if (caller.kind === "session") Object.assign(headers, { cookie: `iw_session=${caller.secret}`, origin: `http://${HOST}` });
      if (prepared.body !== undefined) headers["content-type"] = "application/json";
      const url = `http://${HOST}${fill(row.path, prepared.params)}${prepared.query ?? ""}`;
      const res = await call(mod!, row.method, new Request(url, { method: row.method, headers, body: prepared.body === undefined ? undefined : JSON.stringify(prepared.body) }), prepared.params);
      result.status = res.status;
      result.code = await codeOf(res);
      const got = `${res.status}${result.code ? ` ${result.code}` : ""}`;
      if (want.allowed) {
        const named = EXPECTED_NON_2XX[`${row.method} ${row.path}`];
        const ok = (res.status >= 200 && res.status < 300) || (named ?? []).some((e) => e.status === res.status && e.code === result.code);
        if (!ok) fail(`expected allowed (2xx${named ? ` or ${named.map((e) => `${e.status} ${e.code}`).join(", ")}` : ""}), got ${got}`);
      } else if (res.status !== want.status || !want.codes.includes(result.code ?? "")) {
        fail(`expected ${want.status} ${want.codes.join(" or ")}, got ${got}`);
      }
    }
    expect(mine).toEqual([]);
  });
});
