import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { ROUTES, allowHeader, routeFor, type HttpMethod, type RouteRule } from "../../lib/http/routes";
import { ROLES, type Role } from "../../lib/domain/constants";

// The authorization matrix: every row of the route table (lib/http/routes.ts) is called by every
// kind of caller (application tokens, people's password sessions and people's own tokens, limited
// to one tenant or not) through the real route handler, and the expected answer is computed from
// the row alone. Allowed means 2xx (or a few named answers the fixtures' state makes right), and
// list answers are checked for what they contain. The table must list exactly the methods the
// route files on disk export, so a new route without a row fails here before it can ship unchecked.
// The route handler applies its row itself (lib/http/handler.ts), so this checks what callers get,
// not that two declarations agree.

const BOOT = "matrix-bootstrap-token-0123456789";
const PASSWORD = "a long enough password";
const HOST = "dash.local";
const FOREIGN = "https://evil.example";
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
  // Every answer is checked against the database as it is at that call, after other callers'
  // actions: the overview's answers shared across callers for a second would lag those.
  process.env.DASHBOARD_SHARED_READ_MS = "0";
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
  return [...METHODS, "HEAD", "OPTIONS"].filter(
    (m) => typeof mod[m] === "function" && mod[m] !== fallback[m] && !(m === "HEAD" && mod.HEAD === mod.GET),
  );
}

/** A concrete URL for a pattern: `[tenant]` → the target tenant, other params from `params`. */
function fill(pattern: string, params: Record<string, string>): string {
  return pattern.replace(/\[([^\]]+)\]/g, (_, name: string) => encodeURIComponent(params[name] ?? "x"));
}

const call = (mod: Mod, method: string, req: Request, params: Record<string, string> = {}) =>
  (mod[method] as Handler)(req, { params: Promise.resolve(params) });

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
      ...[...onDisk]
        .filter((k) => !inTable.has(k))
        .map((k) => `${k}: exported by a route file but has no row in ROUTES`),
      ...[...inTable]
        .filter((k) => !onDisk.has(k))
        .map((k) => `${k}: has a row in ROUTES but no route file exports it`),
    ];
    // A route file names the row its handler applies; naming another route's row would apply the wrong rules.
    for (const [pattern, mod] of modules) {
      for (const m of ownMethods(mod)) {
        const rule = (mod[m] as { rule?: RouteRule }).rule;
        if (rule && `${rule.method} ${rule.path}` !== `${m} ${pattern}`)
          problems.push(`${m} ${pattern}: its handler applies the row of ${rule.method} ${rule.path}`);
      }
    }
    for (const r of ROUTES) {
      const k = `${r.method} ${r.path}`;
      if ((r.auth === "role") !== Boolean(r.role))
        problems.push(`${k}: a role row names its minimum role, and only a role row does`);
      if ((r.scope === "tenant-param") !== r.path.includes("/[tenant]"))
        problems.push(`${k}: scope tenant-param goes with a [tenant] segment`);
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
          problems.push(
            `${m} ${pattern}: not exported; the route file must end with export * from "@/lib/http/method-fallback"`,
          );
          continue;
        }
        const res = await call(mod, m, new Request(url, { method: m, headers: { host: HOST } }));
        const code = await codeOf(res);
        if (res.status !== 405 || code !== "METHOD_NOT_ALLOWED" || res.headers.get("allow") !== allowHeader(allowed)) {
          problems.push(
            `${m} ${pattern}: expected 405 METHOD_NOT_ALLOWED, Allow: ${allowHeader(allowed)}; got ${res.status} ${code}, Allow: ${res.headers.get("allow")}`,
          );
        }
      }
      // Next.js answers HEAD with the module's GET; where the route serves no GET that is the 405.
      // (HEAD where it does serve GET is called in the matrix below, caller by caller.)
      if (!allowed.includes("GET")) {
        checked++;
        const res = await call(mod, "GET", new Request(url, { method: "HEAD", headers: { host: HOST } }));
        if (res.status !== 405 || res.headers.get("allow") !== allowHeader(allowed))
          problems.push(
            `HEAD ${pattern}: expected 405, Allow: ${allowHeader(allowed)}; got ${res.status}, Allow: ${res.headers.get("allow")}`,
          );
      }
      if (typeof mod.OPTIONS !== "function")
        problems.push(`OPTIONS ${pattern}: not exported (would list the 405 methods as allowed)`);
      else {
        const res = await call(mod, "OPTIONS", new Request(url, { method: "OPTIONS", headers: { host: HOST } }));
        if (res.status !== 204 || res.headers.get("allow") !== allowHeader(allowed))
          problems.push(
            `OPTIONS ${pattern}: expected 204, Allow: ${allowHeader(allowed)}; got ${res.status}, Allow: ${res.headers.get("allow")}`,
          );
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(ROUTES.length);
  });

  it("an unknown /api path is a JSON 404 for every method", async () => {
    for (const m of [...METHODS, "HEAD", "OPTIONS"]) {
      const res = await call(
        catchAll,
        m,
        new Request(`http://${HOST}/api/v1/nope/deeper`, { method: m, headers: { host: HOST } }),
        { rest: ["v1", "nope", "deeper"] } as never,
      );
      expect(res.status, m).toBe(404);
      expect(res.headers.get("content-type"), m).toMatch(/application\/json/);
      if (m !== "HEAD")
        expect(await res.json(), m).toEqual({
          error: { code: "NOT_FOUND", message: "no API route at /api/v1/nope/deeper" },
        });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Callers

type Caller = {
  name: string;
  kind: "none" | "token" | "session";
  /** What the credential stands for: an application's token, or a person (their session or their token). */
  identity?: "application" | "person";
  /** The effective grant the caller must act with (null = all tenants); for a person's token, the common part of token and user. */
  tenants?: string[] | null;
  /** The effective role: for a person's token, the lower of the token's and the user's. */
  role?: Role;
  capabilities?: string[];
  /** The person behind a session or a person's token. */
  email?: string;
  /** Expected to be refused as not authenticated (revoked token, ended session, disabled owner). */
  dead?: boolean;
  secret?: string;
  tokenId?: string;
  /** Why the caller could not be created, when it could not. */
  setupError?: string;
};

const RANK: Record<Role, number> = { viewer: 0, maintainer: 1, operator: 2, admin: 3 };

type Expect = { allowed: true } | { allowed: false; status: number; codes: string[] };

/** What the row says this caller, aimed at `target`, must get. */
function expected(row: RouteRule, c: Caller, target: string): Expect {
  if (row.auth === "public") return { allowed: true };
  if (c.kind === "none" || c.dead) return { allowed: false, status: 401, codes: ["UNAUTHORIZED"] };
  const roleOk =
    row.auth === "session" ||
    RANK[c.role!] >= RANK[row.role!] ||
    Boolean(row.capability && c.capabilities?.includes(row.capability));
  const all = c.tenants === null;
  const scopeCode =
    row.scope === "tenant-param" && !all && !c.tenants!.includes(target)
      ? "FORBIDDEN"
      : row.scope === "fleet" && !all
        ? "FLEET_SCOPE_REQUIRED"
        : null;
  // Which check comes first when both fail is not part of the contract: either code is right.
  if (!roleOk)
    return { allowed: false, status: 403, codes: [...new Set(["FORBIDDEN", ...(scopeCode ? [scopeCode] : [])])] };
  if (scopeCode) return { allowed: false, status: 403, codes: [scopeCode] };
  // own-tenants: an id from a tenant the caller does not hold is not revealed to exist.
  if (row.scope === "own-tenants" && !all && !c.tenants!.includes(target))
    return { allowed: false, status: 404, codes: ["NOT_FOUND"] };
  return { allowed: true };
}

/**
 * A cookie-carried write must name our own origin. Authenticated rows require the Origin header;
 * the public sign-in and sign-out refuse only a foreign one, since scripts send none and a browser
 * on another site always does.
 */
type OriginVariant = "no Origin" | "foreign Origin";
function expectedForOrigin(row: RouteRule, variant: OriginVariant): Expect {
  if (row.auth === "public" && variant === "no Origin") return { allowed: true };
  return { allowed: false, status: 403, codes: ["ORIGIN_MISMATCH"] };
}

/**
 * An allowed call answers 2xx, or one of these: the state the matrix runs in makes them the right
 * answer. Never a 5xx.
 */
const EXPECTED_NON_2XX: Record<string, { status: number; code: string; why: string }[]> = {
  "GET /api/auth/oidc/start": [{ status: 404, code: "NOT_FOUND", why: "single sign-on is not configured" }],
  "GET /api/auth/oidc/callback": [{ status: 404, code: "NOT_FOUND", why: "single sign-on is not configured" }],
  "POST /api/v1/tenants/[tenant]/documents/[key]/rollback": [
    { status: 409, code: "ROLLBACK_UNAVAILABLE", why: "no worker runs, so version 1 was never built" },
  ],
};

/**
 * Cases that fail today because of a bug in the product, each with the exact failure it shows.
 * Such a case counts as expected while it fails exactly this way. It fails when it passes (the bug
 * is fixed: delete its entry) and when it fails any other way (the bug changed or got worse).
 */
const KNOWN_BUG: { case: string; failure: string; bug: string }[] = [];

/**
 * A migration of `tenant` to the matrix's second space, started as the bootstrap admin (switched
 * too when `switched`). The fixture tenants hold no built document, so a switch has nothing to
 * wait for; the space's index is built in beforeAll.
 */
async function startMigrationAsBoot(tenant: string, switched = false): Promise<string> {
  const m = await asBoot(R.migrations, "POST", { space: "matrix-b" }, { tenant });
  if (switched) await asBoot(R.migrationSwitch, "POST", {}, { tenant, id: m.id });
  return m.id as string;
}

/** Back to the default space with no migration open, for the next case. */
async function resetMigrations(tenant: string): Promise<void> {
  await t.pool.query(
    `UPDATE space_migrations SET state = 'ABORTED', ended_at = now() WHERE tenant_id = $1 AND state IN ('BUILDING', 'READY', 'SWITCHED')`,
    [tenant],
  );
  await t.pool.query(`DELETE FROM space_pointers WHERE tenant_id = $1`, [tenant]);
  await t.pool.query(`UPDATE tenants SET active_space_id = indexwright_default_space() WHERE id = $1`, [tenant]);
}

/** The tenant's evaluation set, made (as the bootstrap admin) when it has none. */
async function evaluationSetOf(tenant: string): Promise<void> {
  if ((await setVersions(tenant)) > 0) return;
  await asBoot(R.evaluationSet, "PUT", { queries: [{ query: "hello matrix", relevant: ["seed"] }] }, { tenant });
}
const setVersions = async (tenant: string) =>
  (await t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM evaluation_sets WHERE tenant_id = $1`, [tenant]))
    .rows[0].n;
/** A fresh (PENDING) evaluation run of the tenant's set; its id. */
async function evaluationRunOf(tenant: string): Promise<string> {
  await evaluationSetOf(tenant);
  return (await asBoot(R.evaluations, "POST", { mode: "text" }, { tenant })).id as string;
}

/** Rows where the caller can aim at another tenant: its [tenant] segment, or an id of a resource that lives in one tenant. */
const aimsAtTenant = (row: RouteRule) =>
  row.scope === "tenant-param" || (row.scope === "own-tenants" && /\[[^\]]+\]/.test(row.path));

const grant = (tenants: string[] | null | undefined) => (tenants === null ? "*" : (tenants ?? []).join(","));
const describeCaller = (c: Caller) => {
  if (c.kind === "none" || c.dead) return c.name;
  const what =
    c.kind === "session" ? "password session" : c.identity === "person" ? "person's token" : "application token";
  return `${c.name} (${what}, acts as ${c.role}, tenants ${grant(c.tenants)}${c.capabilities?.length ? `, ${c.capabilities.join(",")}` : ""})`;
};

// ---------------------------------------------------------------------------------------------
// Fixtures: real resources per case, so allowed calls do real work and a leak across tenants would
// show as a 2xx on the other tenant's real data rather than a 404. List rows get fresh items in
// both tenants, and their answers are checked for what they contain.

type Answer = { status: number; body: unknown; succeeded: boolean; caller: Caller };
type Prepared = {
  params: Record<string, string>;
  body?: unknown;
  /** A session cookie to send instead of the caller's own (sign-out would end the caller's). */
  cookie?: string;
  /** Problems with the answer beyond its status: what a list contains, what a write changed. Runs on 2xx answers. */
  check?: (a: Answer) => Promise<string[]>;
  /** Run `check` on refused calls too: what a refused write must have left alone. */
  checkRefused?: boolean;
  /** Undoes what the call changed for every later case (rotating the bootstrap token ends every caller using it). */
  undo?: () => Promise<void>;
  /** A query string, for GET rows that read one. */
  query?: Record<string, string>;
};
type FixtureCtx = { target: string; n: number; caller: Caller };

let R: Record<string, Mod>;
const ctx = (p: object = {}) => ({ params: Promise.resolve(p) });
const bootReq = (method: string, body?: unknown) =>
  new Request(`http://${HOST}/x`, {
    method,
    headers: { host: HOST, "content-type": "application/json", authorization: `Bearer ${BOOT}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function asBoot(mod: Mod, method: string, body?: unknown, params: object = {}) {
  const res = await (mod[method] as Handler)(bootReq(method, body), ctx(params) as never);
  const json = await res.json().catch(() => null);
  if (res.status >= 300) throw new Error(`setup ${method} failed: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function publishDoc(tenant: string, key: string, content = "hello matrix") {
  return asBoot(
    R.publish,
    "POST",
    { title: `Doc ${key}`, contentType: "text/plain", content },
    { tenant, key },
  ) as Promise<{ taskId: string; versionNumber: number }>;
}

async function deadTask(tenant: string, key: string, errorCode = "EMBEDDING_TIMEOUT"): Promise<string> {
  const { taskId } = await publishDoc(tenant, key);
  await t.pool.query(
    `UPDATE index_tasks SET status = 'DEAD', error_code = $2, finished_at = now(), updated_at = now() WHERE task_id = $1`,
    [taskId, errorCode],
  );
  return String(taskId);
}

/** A pause of `tenant` made just now (any earlier one replaced); its id. */
async function freshPause(tenant: string): Promise<string> {
  await t.pool.query(`DELETE FROM task_pauses WHERE tenant_id = $1`, [tenant]);
  const { rows } = await t.pool.query<{ id: string }>(
    `INSERT INTO task_pauses (tenant_id, paused_by, reason) VALUES ($1, 'matrix', 'matrix check') RETURNING id::text`,
    [tenant],
  );
  return rows[0].id;
}

let address = 0;
/** Sign-in is throttled per client address; every request here comes from its own. */
const nextAddress = () => `10.78.${Math.floor(++address / 250) % 250}.${address % 250}`;
const cookieOf = (res: Response) => /iw_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];

/** A password sign-in through the route, as the sign-in page does it. */
async function signIn(email: string): Promise<string> {
  const res = await (R.signin.POST as Handler)(
    new Request(`http://${HOST}/api/auth/signin`, {
      method: "POST",
      headers: {
        host: HOST,
        origin: `http://${HOST}`,
        "content-type": "application/json",
        "x-forwarded-for": nextAddress(),
      },
      body: JSON.stringify({ email, password: PASSWORD }),
    }),
    ctx() as never,
  );
  const cookie = cookieOf(res);
  if (res.status !== 200 || !cookie)
    throw new Error(`sign-in of ${email} answered ${res.status} without a session cookie`);
  return cookie;
}

/** Whether a session cookie still authenticates (a GET, so no Origin is involved). */
async function sessionWorks(cookie: string): Promise<boolean> {
  const res = await (modules.get("/api/v1/tenants")!.GET as Handler)(
    new Request(`http://${HOST}/api/v1/tenants`, { headers: { host: HOST, cookie: `iw_session=${cookie}` } }),
    ctx() as never,
  );
  return res.status === 200;
}

const sameSet = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

/**
 * A list answer against the caller's grant. `fresh` names the newest item the fixture made in each
 * tenant: a tenant-limited caller sees only its tenants' items and its own tenant's fresh one; an
 * all-tenant caller sees both fresh ones. Messages name tenants, never ids, so they are the same
 * on every run.
 */
function listProblems(
  what: string,
  caller: Caller,
  items: { tenants: string[]; id: string }[],
  fresh: { own: string; other: string },
): string[] {
  const problems: string[] = [];
  const ids = new Set(items.map((i) => i.id));
  if (caller.tenants !== null) {
    const mine = caller.tenants!;
    const outside = [...new Set(items.flatMap((i) => i.tenants.filter((x) => !mine.includes(x))))].sort();
    if (outside.length) problems.push(`${what} lists items outside the caller's tenants (${outside.join(", ")})`);
    if (!ids.has(fresh.own)) problems.push(`${what} lacks the newest item of tenant own`);
  } else {
    if (!ids.has(fresh.own)) problems.push(`${what} lacks the newest item of tenant own`);
    if (!ids.has(fresh.other)) problems.push(`${what} lacks the newest item of tenant other`);
  }
  return problems;
}

type Figures = {
  due: number;
  waitingForRetry: number;
  running: number;
  dead: number;
  errors: { errorCode: string; status: string; count: number }[];
};

/** The overview's task figures for a grant, counted independently of the product's queries. */
async function figuresFor(tenants: string[] | null): Promise<Figures> {
  const scope = `($1::text[] IS NULL OR tenant_id = ANY($1::text[]))`;
  const { rows } = await t.pool.query(
    `SELECT count(*) FILTER (WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now())::int AS due,
            count(*) FILTER (WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at > now())::int AS "waitingForRetry",
            count(*) FILTER (WHERE status = 'RUNNING')::int AS running,
            count(*) FILTER (WHERE status = 'DEAD')::int AS dead
       FROM index_tasks WHERE ${scope}`,
    [tenants],
  );
  const errors = await t.pool.query(
    `SELECT error_code AS "errorCode", status, count(*)::int AS count FROM index_tasks
      WHERE status IN ('DEAD', 'RETRY_WAIT') AND error_code IS NOT NULL AND ${scope} GROUP BY 1, 2`,
    [tenants],
  );
  return { ...rows[0], errors: sortErrors(errors.rows) };
}
const sortErrors = (e: Figures["errors"]) =>
  [...e].sort((a, b) => `${a.errorCode}/${a.status}`.localeCompare(`${b.errorCode}/${b.status}`));

const taskStatus = async (taskId: string) =>
  (await t.pool.query<{ status: string }>(`SELECT status FROM index_tasks WHERE task_id = $1`, [taskId])).rows[0]
    ?.status;

/** Users every admin list is checked against, one per tenant (also the targets of PATCH). */
const targets: Record<string, string> = {};

const DOC = "/api/v1/tenants/[tenant]/documents/[key]";
const dbNow = async () => (await t.pool.query<{ now: Date }>(`SELECT now()`)).rows[0].now;
/** The configured bootstrap token again, with the sessions the call ended (those ended since `since`). */
const restoreBootstrapToken = (since: Date) => async () => {
  await t.pool.query(`DELETE FROM bootstrap_token`);
  await t.pool.query(`UPDATE sessions SET revoked_at = NULL WHERE bootstrap_hash IS NOT NULL AND revoked_at >= $1`, [
    since,
  ]);
};

const FIXTURES: Record<string, (f: FixtureCtx) => Promise<Prepared>> = {
  "POST /api/auth/signin": async () => ({ params: {}, body: { token: BOOT } }),
  // Public: every caller, signed in or not, gets the same document.
  "GET /api/openapi.json": async () => ({
    params: {},
    check: async ({ body }) =>
      (body as { openapi?: string; paths?: object })?.openapi === "3.1.0" && (body as { paths?: object }).paths
        ? []
        : ["not the OpenAPI 3.1 document"],
  }),
  "POST /api/auth/signout": async ({ caller }) => {
    if (caller.kind !== "session" || caller.dead) return { params: {} };
    // A fresh session of the same person: signing out the caller's own would end it for every row after this one.
    const cookie = await signIn(caller.email!);
    return {
      params: {},
      cookie,
      checkRefused: true,
      check: async ({ succeeded }) => {
        const works = await sessionWorks(cookie);
        if (succeeded && works) return ["the session still works after sign-out"];
        if (!succeeded && !works) return ["a refused sign-out ended the session anyway"];
        return [];
      },
    };
  },
  "GET /api/v1/overview": async ({ n }) => {
    // A DEAD task in each tenant, each with its own error code, so a figure that counted the other
    // tenant would differ. Made only when missing (rows before this one may have revived them).
    for (const [tenant, code] of [
      ["own", "EMBEDDING_TIMEOUT"],
      ["other", "PARSE_ERROR"],
    ]) {
      const { rowCount } = await t.pool.query(
        `SELECT 1 FROM index_tasks WHERE tenant_id = $1 AND status = 'DEAD' AND error_code = $2 LIMIT 1`,
        [tenant, code],
      );
      if (!rowCount) await deadTask(tenant, `ov-${n}`, code);
    }
    return {
      params: {},
      check: async ({ body, caller }) => {
        const o = body as {
          scope: string;
          queue: Record<string, number>;
          errors: Figures["errors"];
          workers: unknown[];
          history: unknown[];
          reconciler: unknown;
        };
        const want = await figuresFor(caller.tenants ?? null);
        const problems: string[] = [];
        if (caller.tenants !== null) {
          const all = await figuresFor(null);
          if (all.dead === want.dead || !want.dead)
            problems.push(
              "fixture: the own tenant's figures are zero or equal the fleet's, so the check could not tell them apart",
            );
          if (o.scope !== "tenants") problems.push(`scope is ${o.scope}, expected tenants`);
          if (o.workers?.length || o.history?.length || o.reconciler !== null)
            problems.push("a tenant-limited overview carries fleet figures (workers, history or reconciler)");
        } else if (o.scope !== "fleet") problems.push(`scope is ${o.scope}, expected fleet`);
        for (const k of ["due", "waitingForRetry", "running", "dead"] as const) {
          if (o.queue?.[k] !== want[k])
            problems.push(`queue.${k} is ${o.queue?.[k]}, expected ${want[k]} (tenants ${grant(caller.tenants)})`);
        }
        const errors = sortErrors(o.errors ?? []);
        if (JSON.stringify(errors) !== JSON.stringify(want.errors)) {
          problems.push(
            `errors are ${errors.map((e) => `${e.errorCode}/${e.status}×${e.count}`).join(", ") || "none"}, expected ${want.errors.map((e) => `${e.errorCode}/${e.status}×${e.count}`).join(", ")} (tenants ${grant(caller.tenants)})`,
          );
        }
        return problems;
      },
    };
  },
  "GET /api/v1/overview/activity": async ({ n }) => {
    // A finished task in each tenant inside the default range, so both tenants have throughput.
    for (const tenant of ["own", "other"]) await deadTask(tenant, `act-${n}`);
    return {
      params: {},
      check: async ({ body, caller }) => {
        const a = body as { scope: string; history: unknown[]; totals: Record<string, number> };
        const problems: string[] = [];
        const want = caller.tenants === null ? "fleet" : "tenants";
        if (a.scope !== want) problems.push(`scope is ${a.scope}, expected ${want}`);
        if (caller.tenants !== null && a.history.length)
          problems.push("a tenant-limited caller gets the fleet's backlog history");
        const { rows } = await t.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM index_tasks WHERE status = 'DEAD' AND finished_at > now() - interval '24 hours' AND ($1::text[] IS NULL OR tenant_id = ANY($1::text[]))`,
          [caller.tenants ?? null],
        );
        if (a.totals?.DEAD !== rows[0].n)
          problems.push(`DEAD total is ${a.totals?.DEAD}, expected ${rows[0].n} (tenants ${grant(caller.tenants)})`);
        return problems;
      },
    };
  },
  "GET /api/v1/tenants": async () => ({
    params: {},
    check: async ({ body, caller }) => {
      const got = (body as { items: { id: string }[] }).items.map((i) => i.id);
      const known = (await t.pool.query<{ id: string }>(`SELECT id FROM tenants`)).rows.map((r) => r.id);
      const want = caller.tenants === null ? known : caller.tenants!.filter((x) => known.includes(x));
      if (caller.tenants === null && !(known.includes("own") && known.includes("other")))
        return ["fixture: tenants own and other do not both exist"];
      return sameSet(got, want)
        ? []
        : [`tenants are ${[...got].sort().join(", ") || "none"}, expected exactly ${[...want].sort().join(", ")}`];
    },
  }),
  "GET /api/v1/documents": async ({ n }) => {
    await publishDoc("other", `list-${n}`);
    await publishDoc("own", `list-${n}`);
    return {
      params: {},
      check: async ({ body, caller }) =>
        listProblems(
          "the document list",
          caller,
          (body as { items: { tenant: string; key: string }[] }).items.map((i) => ({
            tenants: [i.tenant],
            id: `${i.tenant}/${i.key}`,
          })),
          {
            own: `own/list-${n}`,
            other: `other/list-${n}`,
          },
        ),
    };
  },
  "GET /api/v1/tasks": async ({ n }) => {
    const other = String((await publishDoc("other", `list-${n}`)).taskId);
    const own = String((await publishDoc("own", `list-${n}`)).taskId);
    return {
      params: {},
      check: async ({ body, caller }) =>
        listProblems(
          "the task list",
          caller,
          (body as { items: { tenant: string; taskId: string }[] }).items.map((i) => ({
            tenants: [i.tenant],
            id: i.taskId,
          })),
          { own, other },
        ),
    };
  },
  "GET /api/v1/audit": async () => {
    // Unpinning a document that is not pinned is a no-op that is still audited, under its tenant.
    const newest = async (tenant: string) => {
      await asBoot(R.unpin, "POST", undefined, { tenant, key: "seed" });
      return (
        await t.pool.query<{ id: string }>(
          `SELECT max(id)::text AS id FROM audit_log WHERE tenant_id = $1 AND action = 'document.unpin'`,
          [tenant],
        )
      ).rows[0].id;
    };
    const other = await newest("other");
    const own = await newest("own");
    // And one without a tenant (an account change), which a tenant-limited caller must not see either.
    await asBoot(R.tokens, "POST", { name: `audit-${randomUUID()}`, role: "viewer", tenants: ["other"] });
    return {
      params: {},
      check: async ({ body, caller }) =>
        listProblems(
          "the audit log",
          caller,
          (body as { items: { tenant: string | null; id: string }[] }).items.map((i) => ({
            tenants: [i.tenant ?? "(no tenant)"],
            id: i.id,
          })),
          { own, other },
        ),
    };
  },
  [`GET ${DOC}`]: async ({ target, n }) => (
    await publishDoc(target, `d-${n}`),
    { params: { tenant: target, key: `d-${n}` } }
  ),
  [`GET ${DOC}/chunks`]: async ({ target, n }) => (
    await publishDoc(target, `d-${n}`),
    { params: { tenant: target, key: `d-${n}` } }
  ),
  [`DELETE ${DOC}`]: async ({ target, n }) => (
    await publishDoc(target, `d-${n}`),
    { params: { tenant: target, key: `d-${n}` } }
  ),
  [`POST ${DOC}/versions`]: async ({ target, n }) => ({
    params: { tenant: target, key: `d-${n}` },
    body: { title: "Matrix", contentType: "text/plain", content: "hello" },
  }),
  [`POST ${DOC}/reindex`]: async ({ target, n }) => (
    await publishDoc(target, `d-${n}`),
    { params: { tenant: target, key: `d-${n}` } }
  ),
  [`POST ${DOC}/rename`]: async ({ target, n }) => (
    await publishDoc(target, `d-${n}`),
    { params: { tenant: target, key: `d-${n}` }, body: { newKey: `renamed-${n}` } }
  ),
  [`POST ${DOC}/rollback`]: async ({ target, n }) => {
    await publishDoc(target, `d-${n}`, "first");
    await publishDoc(target, `d-${n}`, "second");
    return { params: { tenant: target, key: `d-${n}` }, body: { toVersion: 1, reason: "matrix check" } };
  },
  [`POST ${DOC}/unpin`]: async ({ target, n }) => (
    await publishDoc(target, `d-${n}`),
    { params: { tenant: target, key: `d-${n}` } }
  ),
  "POST /api/v1/tenants/[tenant]/search": async ({ target }) => ({
    params: { tenant: target },
    body: { query: "hello" },
    // Without `principals` a caller searches as itself: a person as their user, an application as nobody.
    check: async ({ body, caller }) => {
      const as = (body as { searchedAs?: string[] }).searchedAs;
      const want = caller.identity === "person" ? [`user:${caller.email}`] : [];
      return JSON.stringify(as) === JSON.stringify(want)
        ? []
        : [`searched as ${JSON.stringify(as)}, expected ${JSON.stringify(want)}`];
    },
  }),
  "GET /api/v1/tasks/[taskId]": async ({ target, n }) => ({
    params: { taskId: String((await publishDoc(target, `task-${n}`)).taskId) },
  }),
  "POST /api/v1/tasks/[taskId]/retry": async ({ target, n }) => ({
    params: { taskId: await deadTask(target, `task-${n}`) },
  }),
  "POST /api/v1/tasks/[taskId]/force-done": async ({ target, n }) => ({
    params: { taskId: await deadTask(target, `task-${n}`) },
    body: { reason: "matrix check" },
  }),
  // Publishing leaves a PENDING task (no worker runs here): the one state a cancel accepts.
  "POST /api/v1/tasks/[taskId]/cancel": async ({ target, n }) => ({
    params: { taskId: String((await publishDoc(target, `cancel-${n}`)).taskId) },
    body: { reason: "matrix check" },
  }),
  "GET /api/v1/pauses": async () => {
    const [own, other] = await Promise.all(["own", "other"].map(freshPause));
    return {
      params: {},
      check: async ({ body, caller }) =>
        listProblems(
          "the pause list",
          caller,
          (body as { items: { id: string; tenant: string }[] }).items.map((i) => ({ tenants: [i.tenant], id: i.id })),
          { own, other },
        ),
    };
  },
  "POST /api/v1/pauses": async ({ target }) => {
    await t.pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [target]);
    await t.pool.query(`DELETE FROM task_pauses WHERE tenant_id = $1`, [target]);
    return {
      params: {},
      body: { tenant: target, reason: "matrix check" },
      checkRefused: true,
      check: async ({ succeeded }) => {
        const { rowCount } = await t.pool.query(`SELECT 1 FROM task_pauses WHERE tenant_id = $1`, [target]);
        return (rowCount === 1) === succeeded
          ? []
          : [`tenant ${target} is ${rowCount ? "" : "not "}paused after the call`];
      },
    };
  },
  "DELETE /api/v1/pauses/[id]": async ({ target }) => {
    const id = await freshPause(target);
    return {
      params: { id },
      checkRefused: true,
      check: async ({ succeeded }) => {
        const { rowCount } = await t.pool.query(`SELECT 1 FROM task_pauses WHERE id = $1`, [id]);
        return (rowCount === 0) === succeeded
          ? []
          : [`the pause of tenant ${target} ${rowCount ? "still stands" : "is gone"} after the call`];
      },
    };
  },
  "POST /api/v1/tasks/retry": async ({ n }) => {
    const own = await deadTask("own", `bulk-${n}`);
    const other = await deadTask("other", `bulk-${n}`);
    return {
      params: {},
      body: { status: "DEAD", reason: "matrix check" },
      checkRefused: true,
      // Revives the DEAD tasks of the caller's tenants, and nothing when refused.
      check: async ({ succeeded, caller }) => {
        const problems: string[] = [];
        for (const [tenant, id] of [
          ["own", own],
          ["other", other],
        ]) {
          const want = succeeded && (caller.tenants === null || caller.tenants!.includes(tenant)) ? "PENDING" : "DEAD";
          const got = await taskStatus(id);
          if (got !== want) problems.push(`tenant ${tenant}'s DEAD task is ${got} after the call, expected ${want}`);
        }
        return problems;
      },
    };
  },
  "GET /api/v1/admin/users": async () => ({
    params: {},
    check: async ({ body, caller }) =>
      listProblems(
        "the user list",
        caller,
        (body as { items: { id: string; tenants: string[] }[] }).items.map((i) => ({
          tenants: i.tenants.includes("*") ? ["*"] : i.tenants,
          id: i.id,
        })),
        {
          own: targets.own,
          other: targets.other,
        },
      ),
  }),
  "POST /api/v1/admin/users": async ({ target, n }) => ({
    params: {},
    body: { email: `new-${n}@example.com`, password: PASSWORD, role: "viewer", tenants: [target] },
  }),
  // The same user per tenant every time: a new one per case would cost a password hash each.
  "PATCH /api/v1/admin/users/[id]": async ({ target }) => ({
    params: { id: targets[target] },
    body: { role: "maintainer" },
  }),
  "GET /api/v1/admin/tokens": async ({ n }) => {
    const other = (await asBoot(R.tokens, "POST", { name: `list-other-${n}`, role: "viewer", tenants: ["other"] })).id;
    const own = (await asBoot(R.tokens, "POST", { name: `list-own-${n}`, role: "viewer", tenants: ["own"] })).id;
    return {
      params: {},
      check: async ({ body, caller }) =>
        listProblems(
          "the token list",
          caller,
          (body as { items: { id: string; tenants: string[] }[] }).items.map((i) => ({
            tenants: i.tenants.includes("*") ? ["*"] : i.tenants,
            id: i.id,
          })),
          { own, other },
        ),
    };
  },
  "POST /api/v1/admin/tokens": async ({ target, n }) => ({
    params: {},
    body: { name: `new-${n}`, role: "viewer", tenants: [target] },
  }),
  "POST /api/v1/admin/bootstrap-token/rotate": async () => ({ params: {}, undo: restoreBootstrapToken(await dbNow()) }),
  "DELETE /api/v1/admin/bootstrap-token": async () => ({ params: {}, undo: restoreBootstrapToken(await dbNow()) }),
  "DELETE /api/v1/admin/tokens/[id]": async ({ target, n }) => {
    const tok = await asBoot(R.tokens, "POST", { name: `target-${n}`, role: "viewer", tenants: [target] });
    return { params: { id: tok.id } };
  },
  "GET /api/v1/admin/embedding-spaces": async () => ({ params: {} }),
  "POST /api/v1/admin/embedding-spaces": async ({ n }) => ({
    params: {},
    body: { name: `m-new-${n}`, provider: "local", dimensions: 8 },
  }),
  "PATCH /api/v1/admin/embedding-spaces/[name]": async () => ({
    params: { name: "matrix-b" },
    body: { textsPerMinute: 1000 },
  }),
  "POST /api/v1/admin/embedding-spaces/[name]/retire": async ({ n }) => {
    const space = await asBoot(R.spaces, "POST", { name: `m-retire-${n}`, provider: "local", dimensions: 8 });
    return { params: { name: space.name } };
  },
  // From a space no tenant searches: the call is judged, and nobody is migrated.
  "POST /api/v1/admin/migrations": async () => ({
    params: {},
    body: { space: "matrix-b", from: "matrix-nobody" },
  }),
  "GET /api/v1/tenants/[tenant]/migrations": async ({ target }) => ({ params: { tenant: target } }),
  "POST /api/v1/tenants/[tenant]/migrations": async ({ target }) => ({
    params: { tenant: target },
    body: { space: "matrix-b" },
    undo: () => resetMigrations(target),
  }),
  "GET /api/v1/tenants/[tenant]/migrations/[id]": async ({ target }) => ({
    params: { tenant: target, id: await startMigrationAsBoot(target) },
    undo: () => resetMigrations(target),
  }),
  "POST /api/v1/tenants/[tenant]/migrations/[id]/switch": async ({ target }) => ({
    params: { tenant: target, id: await startMigrationAsBoot(target) },
    undo: () => resetMigrations(target),
  }),
  "POST /api/v1/tenants/[tenant]/migrations/[id]/switch-back": async ({ target }) => ({
    params: { tenant: target, id: await startMigrationAsBoot(target, true) },
    undo: () => resetMigrations(target),
  }),
  "POST /api/v1/tenants/[tenant]/migrations/[id]/abort": async ({ target }) => ({
    params: { tenant: target, id: await startMigrationAsBoot(target) },
    undo: () => resetMigrations(target),
  }),
  "POST /api/v1/tenants/[tenant]/migrations/[id]/finish": async ({ target }) => ({
    params: { tenant: target, id: await startMigrationAsBoot(target, true) },
    undo: () => resetMigrations(target),
  }),
  // Evaluation (docs/evaluation.md#trust): a set in each tenant so that a leak would read real data;
  // no worker runs here, so a run stays PENDING.
  "GET /api/v1/tenants/[tenant]/evaluation-set": async ({ target }) => (
    await evaluationSetOf(target),
    {
      params: { tenant: target },
      check: async ({ body }) =>
        (body as { tenant?: string }).tenant === target ? [] : [`the set of ${(body as { tenant?: string }).tenant}`],
    }
  ),
  "PUT /api/v1/tenants/[tenant]/evaluation-set": async ({ target }) => {
    const before = await setVersions(target);
    return {
      params: { tenant: target },
      body: { queries: [{ query: "hello matrix", relevant: ["seed"] }] },
      checkRefused: true,
      check: async ({ succeeded }) => {
        const after = await setVersions(target);
        return after === before + (succeeded ? 1 : 0)
          ? []
          : [`tenant ${target}'s set has ${after} versions after the call, ${before} before`];
      },
    };
  },
  // The freshness SLO: every reader of the tenant sees it; only its admins set its objective, and a
  // refused call leaves the stored objective as it was.
  "GET /api/v1/slo": async () => ({
    params: {},
    check: async ({ body, caller }) => {
      const got = (body as { items: { tenant: string }[] }).items.map((i) => i.tenant);
      const known = (await t.pool.query<{ id: string }>(`SELECT id FROM tenants`)).rows.map((r) => r.id);
      const want = caller.tenants === null ? known : caller.tenants!.filter((x) => known.includes(x));
      return sameSet(got, want) ? [] : [`the SLO list covers ${[...got].sort().join(", ") || "none"}`];
    },
  }),
  "PUT /api/v1/tenants/[tenant]/slo": async ({ target, n }) => {
    const objective = 0.9 + (n % 90) / 1000;
    const stored = async () =>
      (await t.pool.query<{ o: number | null }>(`SELECT freshness_objective AS o FROM tenants WHERE id = $1`, [target]))
        .rows[0]?.o ?? null;
    const before = await stored();
    return {
      params: { tenant: target },
      body: { objective },
      checkRefused: true,
      check: async ({ succeeded }) => {
        const after = await stored();
        return after === (succeeded ? objective : before)
          ? []
          : [`tenant ${target}'s objective is ${after} after the call, ${before} before`];
      },
    };
  },
  "GET /api/v1/tenants/[tenant]/evaluations": async ({ target }) => {
    const id = await evaluationRunOf(target);
    return {
      params: { tenant: target },
      check: async ({ body }) => {
        const items = (body as { items: { id: string; tenant: string }[] }).items;
        const problems = items.some((i) => i.tenant !== target) ? [`lists runs of other tenants`] : [];
        if (!items.some((i) => i.id === id)) problems.push(`lacks tenant ${target}'s newest run`);
        return problems;
      },
    };
  },
  "POST /api/v1/tenants/[tenant]/evaluations": async ({ target }) => (
    await evaluationSetOf(target),
    { params: { tenant: target }, body: { mode: "text" } }
  ),
  "GET /api/v1/tenants/[tenant]/evaluations/[id]": async ({ target }) => ({
    params: { tenant: target, id: await evaluationRunOf(target) },
  }),
  [`GET ${DOC}/why`]: async ({ target }) => ({
    params: { tenant: target, key: "seed" },
    query: { query: "hello matrix", mode: "text" },
  }),
  [`POST ${DOC}/why`]: async ({ target }) => ({
    params: { tenant: target, key: "seed" },
    body: { query: "hello matrix", mode: "text" },
  }),
  "GET /api/v1/admin/webhooks": async ({ n }) => {
    const other = (await asBoot(R.webhooks, "POST", hookBody("other", `list-${n}`))).id;
    const own = (await asBoot(R.webhooks, "POST", hookBody("own", `list-${n}`))).id;
    return {
      params: {},
      check: async ({ body, caller }) =>
        listProblems(
          "the webhook list",
          caller,
          (body as { items: { id: string; tenant: string }[] }).items.map((i) => ({ tenants: [i.tenant], id: i.id })),
          { own, other },
        ),
    };
  },
  "POST /api/v1/admin/webhooks": async ({ target, n }) => ({ params: {}, body: hookBody(target, `new-${n}`) }),
  "PATCH /api/v1/admin/webhooks/[id]": async ({ target, n }) => ({
    params: { id: (await asBoot(R.webhooks, "POST", hookBody(target, `patch-${n}`))).id },
    body: { enabled: false },
  }),
  "DELETE /api/v1/admin/webhooks/[id]": async ({ target, n }) => ({
    params: { id: (await asBoot(R.webhooks, "POST", hookBody(target, `delete-${n}`))).id },
  }),
  "POST /api/v1/admin/webhooks/[id]/rotate-secret": async ({ target, n }) => ({
    params: { id: (await asBoot(R.webhooks, "POST", hookBody(target, `rotate-${n}`))).id },
  }),
  "GET /api/v1/admin/webhooks/[id]/deliveries": async ({ target, n }) => ({
    params: { id: (await asBoot(R.webhooks, "POST", hookBody(target, `log-${n}`))).id },
  }),
  "POST /api/v1/admin/webhooks/[id]/deliveries/[deliveryId]/redeliver": async ({ target, n }) => {
    // A task made DEAD in the tenant is a task.dead event: the endpoint's one delivery.
    const id = (await asBoot(R.webhooks, "POST", hookBody(target, `redeliver-${n}`))).id;
    await deadTask(target, `hook-${n}`);
    const deliveryId = (
      await t.pool.query<{ id: string }>(`SELECT id::text FROM webhook_deliveries WHERE endpoint_id = $1`, [id])
    ).rows[0].id;
    return { params: { id, deliveryId }, body: { reason: "matrix check" } };
  },
};

/** A webhook endpoint's body; a public-looking URL, so the private-address refusal does not apply. */
const hookBody = (tenant: string, name: string) => ({
  tenant,
  url: `https://hooks.example.com/${tenant}/${name}`,
  eventTypes: ["task.dead"],
});

/** Rows without a fixture get placeholder parameters: the auth gate runs before any lookup. */
const defaultFixture = async ({ target }: FixtureCtx, row: RouteRule): Promise<Prepared> => ({
  params: Object.fromEntries(
    [...row.path.matchAll(/\[([^\]]+)\]/g)].map(([, name]) => [
      name,
      name === "tenant" ? target : name === "id" ? randomUUID() : name === "taskId" ? "1" : "absent",
    ]),
  ),
});

// ---------------------------------------------------------------------------------------------

const callers: Caller[] = [];
/** The most privileged session: the one the Origin cases use, so that nothing but the Origin can be the reason for a refusal. */
let originProbe: Caller;

type Result = {
  label: string;
  row: RouteRule;
  method: string;
  caller: Caller;
  target: string;
  kind: "call" | "HEAD" | "Origin";
  want: Expect;
  status: number | null;
  code: string | null;
  /** Why the case is not as expected. */
  failure?: string;
  /** The KNOWN_BUG entry the failure matched. */
  known?: string;
};
const results: Result[] = [];

/** Runs `fn` for a caller's setup; a failure is recorded on the caller and reported by every case it would have run. */
async function settingUp(c: Caller, fn: () => Promise<void>): Promise<Caller> {
  try {
    await fn();
  } catch (err) {
    c.setupError = (err as Error).message;
  }
  return c;
}

async function appToken(name: string, role: Role, tenants: string[] | null, capabilities?: string[]): Promise<Caller> {
  const c: Caller = { name, kind: "token", identity: "application", role, tenants, capabilities };
  return settingUp(c, async () => {
    const created = await asBoot(R.tokens, "POST", {
      name,
      role,
      tenants: tenants === null ? ["*"] : tenants,
      ...(capabilities ? { capabilities } : {}),
    });
    c.secret = created.token;
    c.tokenId = created.id;
  });
}

/** A token minted for a person (`kind: "person"`); `userId` is read inside the setup, so a user that failed to be created fails only this caller. */
async function personToken(c: Caller, userId: () => string, role: Role, tenants: string[] | null): Promise<Caller> {
  c.kind = "token";
  c.identity = "person";
  return settingUp(c, async () => {
    const created = await asBoot(R.tokens, "POST", {
      name: c.name,
      role,
      tenants: tenants === null ? ["*"] : tenants,
      kind: "person",
      userId: userId(),
    });
    c.secret = created.token;
    c.tokenId = created.id;
  });
}

describe("authorization matrix", () => {
  beforeAll(async () => {
    const base = "../../app/api";
    R = {
      signin: await import(`${base}/auth/signin/route`),
      signout: await import(`${base}/auth/signout/route`),
      tokens: await import(`${base}/v1/admin/tokens/route`),
      token: await import(`${base}/v1/admin/tokens/[id]/route`),
      users: await import(`${base}/v1/admin/users/route`),
      user: await import(`${base}/v1/admin/users/[id]/route`),
      publish: await import(`${base}/v1/tenants/[tenant]/documents/[key]/versions/route`),
      unpin: await import(`${base}/v1/tenants/[tenant]/documents/[key]/unpin/route`),
      forceDone: await import(`${base}/v1/tasks/[taskId]/force-done/route`),
      webhooks: await import(`${base}/v1/admin/webhooks/route`),
      spaces: await import(`${base}/v1/admin/embedding-spaces/route`),
      migrations: await import(`${base}/v1/tenants/[tenant]/migrations/route`),
      migrationSwitch: await import(`${base}/v1/tenants/[tenant]/migrations/[id]/switch/route`),
      evaluationSet: await import(`${base}/v1/tenants/[tenant]/evaluation-set/route`),
      evaluations: await import(`${base}/v1/tenants/[tenant]/evaluations/route`),
    };
    // A second index space with its HNSW index (migrations switch to it), and one no tenant searches.
    await asBoot(R.spaces, "POST", { name: "matrix-b", provider: "local", dimensions: 8 });
    await asBoot(R.spaces, "POST", { name: "matrix-nobody", provider: "local", dimensions: 16 });
    const { spaceIndexSql } = await import("../../lib/spaces/indexes");
    const { rows: made } = await t.pool.query<{ id: number }>(
      `SELECT id FROM embedding_spaces WHERE name = 'matrix-b'`,
    );
    await t.pool.query(spaceIndexSql({ id: made[0].id, dimensions: 8 }, false));
    // Both tenants hold documents, tasks (a DEAD one each, one force-closed, so audited) and
    // accounts limited to them, so a leak across tenants would answer with real data.
    for (const tenant of ["own", "other"]) {
      await publishDoc(tenant, "seed");
      await deadTask(tenant, "seed-dead");
      await asBoot(R.forceDone, "POST", { reason: "matrix seed" }, { taskId: await deadTask(tenant, "seed-closed") });
    }

    // People. Passwords are hashed at the production cost, so the accounts are created at once
    // (the hashes run on the crypto thread pool) and each person serves as several callers.
    const person = (email: string, role: Role, tenants: string[]) =>
      asBoot(R.users, "POST", { email, password: PASSWORD, role, tenants }).then((u) => u.id as string);
    const [ownViewer, ownMaintainer, ownOperator, ownAdmin, allAdmin, ended, disabled, targetOwn, targetOther] =
      await Promise.allSettled([
        // Made operator first so it can own an operator token, then demoted to viewer below.
        person("own-viewer@example.com", "operator", ["own"]),
        // Holds own and other at first, so its token can name both; narrowed to own below.
        person("own-maintainer@example.com", "maintainer", ["own", "other"]),
        person("own-operator@example.com", "operator", ["own"]),
        person("own-admin@example.com", "admin", ["own"]),
        person("all-admin@example.com", "admin", ["*"]),
        person("ended@example.com", "admin", ["*"]),
        person("disabled@example.com", "admin", ["*"]),
        person("target-own@example.com", "viewer", ["own"]),
        person("target-other@example.com", "viewer", ["other"]),
      ]);
    const id = (s: PromiseSettledResult<string>) => {
      if (s.status === "rejected") throw s.reason;
      return s.value;
    };
    if (targetOwn.status === "fulfilled") targets.own = targetOwn.value;
    if (targetOther.status === "fulfilled") targets.other = targetOther.value;

    callers.push({ name: "no credentials", kind: "none" });

    const revoked = await appToken("revoked token (was admin, all tenants)", "admin", null);
    revoked.dead = true;
    callers.push(
      await settingUp(revoked, async () => void (await asBoot(R.token, "DELETE", undefined, { id: revoked.tokenId }))),
    );

    const endedSession: Caller = {
      name: "ended session (signed out; was admin, all tenants)",
      kind: "session",
      dead: true,
    };
    callers.push(
      await settingUp(endedSession, async () => {
        id(ended);
        endedSession.secret = await signIn("ended@example.com");
        const out = await (R.signout.POST as Handler)(
          new Request(`http://${HOST}/api/auth/signout`, {
            method: "POST",
            headers: { host: HOST, origin: `http://${HOST}`, cookie: `iw_session=${endedSession.secret}` },
          }),
          ctx() as never,
        );
        if (out.status !== 200) throw new Error(`sign-out answered ${out.status}`);
      }),
    );

    const disabledToken: Caller = {
      name: "person's token of a disabled user (admin, all tenants)",
      kind: "token",
      dead: true,
    };
    callers.push(
      await settingUp(disabledToken, async () => {
        await personToken(disabledToken, () => id(disabled), "admin", null);
        if (disabledToken.setupError) throw new Error(disabledToken.setupError);
        await asBoot(R.user, "PATCH", { disabled: true }, { id: id(disabled) });
      }),
    );

    // Tenant-limited callers, one of each kind per role: an application token, a person's
    // password session and that person's own token.
    const demoted: Caller = {
      name: "own-operator token of a user demoted to viewer",
      role: "viewer",
      tenants: ["own"],
      email: "own-viewer@example.com",
      kind: "token",
    };
    const narrowed: Caller = {
      name: "own+other token of a maintainer narrowed to own",
      role: "maintainer",
      tenants: ["own"],
      email: "own-maintainer@example.com",
      kind: "token",
    };
    await settingUp(demoted, async () => {
      await personToken(demoted, () => id(ownViewer), "operator", ["own"]);
      await asBoot(R.user, "PATCH", { role: "viewer" }, { id: id(ownViewer) });
    });
    await settingUp(narrowed, async () => {
      await personToken(narrowed, () => id(ownMaintainer), "maintainer", ["own", "other"]);
      await asBoot(R.user, "PATCH", { tenants: ["own"] }, { id: id(ownMaintainer) });
    });
    const people: Record<Role, PromiseSettledResult<string>> = {
      viewer: ownViewer,
      maintainer: ownMaintainer,
      operator: ownOperator,
      admin: ownAdmin,
    };
    const sessions: Caller[] = [];
    for (const role of ROLES) {
      const email = `own-${role}@example.com`;
      callers.push(await appToken(`own-${role} token`, role, ["own"]));
      const s: Caller = {
        name: `own-${role} session`,
        kind: "session",
        identity: "person",
        role,
        tenants: ["own"],
        email,
      };
      sessions.push(s);
      callers.push(s);
      const pt: Caller = { name: `own-${role} person's token`, kind: "token", role, tenants: ["own"], email };
      callers.push(await personToken(pt, () => id(people[role]), role, ["own"]));
    }
    callers.push(demoted, narrowed);

    // All-tenant callers: application tokens per role, a metrics:read token, the all-tenant
    // admin's session and that admin's tokens at each role (a person's token may name any role up
    // to its user's).
    for (const role of ROLES) callers.push(await appToken(`all-${role} token`, role, null));
    callers.push(await appToken("metrics-reader token", "viewer", null, ["metrics:read"]));
    originProbe = {
      name: "all-admin session",
      kind: "session",
      identity: "person",
      role: "admin",
      tenants: null,
      email: "all-admin@example.com",
    };
    sessions.push(originProbe);
    callers.push(originProbe);
    for (const role of ROLES) {
      const pt: Caller = {
        name: `all-${role} token of the all-tenant admin`,
        kind: "token",
        role,
        tenants: null,
        email: "all-admin@example.com",
      };
      callers.push(await personToken(pt, () => id(allAdmin), role, null));
    }

    // Sessions last: every role and grant change above has happened, and the sign-ins run at once.
    await Promise.all(sessions.map((s) => settingUp(s, async () => void (s.secret = await signIn(s.email!)))));
  });

  afterAll(() => {
    if (!results.length) return;
    const failed = results.filter((r) => r.failure && !r.known);
    const known = results.filter((r) => r.known);
    const allowed = results.filter((r) => r.want.allowed && !r.failure);
    const byStatus = new Map<string, number>();
    for (const r of allowed) byStatus.set(String(r.status), (byStatus.get(String(r.status)) ?? 0) + 1);
    const count = (k: Result["kind"]) => results.filter((r) => r.kind === k).length;
    const lines = [
      `authorization matrix: ${ROUTES.length} rows × ${callers.length} callers (where they apply) = ${count("call")} cases, + ${count("HEAD")} HEAD and ${count("Origin")} Origin cases = ${results.length}; ${results.length - failed.length - known.length} as expected, ${known.length} known bugs, ${failed.length} not`,
      `  allowed cases answered: ${[...byStatus]
        .sort()
        .map(([s, n]) => `${s}×${n}`)
        .join(", ")}`,
      ...known.map((r) => `  ! ${r.label}: ${r.failure} (known bug: ${r.known})`),
      ...failed.map((r) => `  ✗ ${r.label}: ${r.failure}`),
    ];
    // MATRIX_VERBOSE=1 prints every case, e.g. to see which allowed calls were not 2xx and why.
    if (process.env.MATRIX_VERBOSE)
      for (const r of results)
        lines.push(`  ${r.failure ? (r.known ? "!" : "✗") : "·"} ${r.label}: ${r.status} ${r.code ?? ""}`);
    console.log(lines.join("\n"));
  });

  let n = 0;
  it.each(ROUTES.map((r) => ({ ...r, label: `${r.method} ${r.path}` })))("$label", async (row) => {
    const mod = modules.get(row.path);
    expect(mod, `no route file for ${row.path}`).toBeDefined();
    const rowKey = `${row.method} ${row.path}`;
    // Dead callers aim at `own`; tenant-limited ones at `own` and, where the row can name a
    // tenant, at `other`; all-tenant ones at `other` (any tenant is theirs), on every row a grant
    // can decide (not the public ones).
    const plan: { caller: Caller; target: string; origin?: OriginVariant }[] = [];
    for (const c of callers) {
      const live = c.kind !== "none" && !c.dead;
      if (live && c.tenants === null) {
        if (row.auth === "public") continue;
        if (c.capabilities?.length && !row.capability) continue;
        plan.push({ caller: c, target: aimsAtTenant(row) ? "other" : "own" });
        continue;
      }
      plan.push({ caller: c, target: "own" });
      if (live && aimsAtTenant(row)) plan.push({ caller: c, target: "other" });
    }
    if (row.method !== "GET")
      for (const origin of ["no Origin", "foreign Origin"] as const)
        plan.push({ caller: originProbe, target: "own", origin });

    const mine: string[] = [];
    for (const { caller, target, origin } of plan) {
      const at = aimsAtTenant(row) ? ` → tenant ${target}` : "";
      const label = `${rowKey} · ${describeCaller(caller)}${at}${origin ? ` · ${origin}` : ""}`;
      const want = origin ? expectedForOrigin(row, origin) : expected(row, caller, target);
      const record = (r: Omit<Result, "failure" | "known">, problems: string[]) => {
        const result: Result = { ...r };
        if (problems.length) result.failure = problems.join("; ");
        const bug = KNOWN_BUG.find((b) => b.case === r.label);
        if (bug) {
          if (result.failure === bug.failure) result.known = bug.bug;
          else
            result.failure = result.failure
              ? `${result.failure} (KNOWN_BUG expects: ${bug.failure})`
              : `passes now: remove its KNOWN_BUG entry (${bug.bug})`;
        }
        results.push(result);
        if (result.failure && !result.known) mine.push(`${r.label}: ${result.failure}`);
      };
      if (caller.setupError || (caller.kind !== "none" && !caller.secret)) {
        record(
          {
            label,
            row,
            method: row.method,
            caller,
            target,
            kind: origin ? "Origin" : "call",
            want,
            status: null,
            code: null,
          },
          [`caller could not be set up (${caller.setupError ?? "no secret"})`],
        );
        continue;
      }
      let prepared: Prepared;
      try {
        prepared = await (FIXTURES[rowKey] ?? ((f: FixtureCtx) => defaultFixture(f, row)))({ target, n: ++n, caller });
      } catch (err) {
        record(
          {
            label,
            row,
            method: row.method,
            caller,
            target,
            kind: origin ? "Origin" : "call",
            want,
            status: null,
            code: null,
          },
          [`fixture failed: ${(err as Error).message}`],
        );
        continue;
      }
      const headers: Record<string, string> = { host: HOST, "x-forwarded-for": nextAddress() };
      if (caller.kind === "token") headers.authorization = `Bearer ${caller.secret}`;
      if (caller.kind === "session") {
        headers.cookie = `iw_session=${prepared.cookie ?? caller.secret}`;
        if (origin === "foreign Origin") headers.origin = FOREIGN;
        else if (!origin) headers.origin = `http://${HOST}`;
      }
      if (prepared.body !== undefined) headers["content-type"] = "application/json";
      const url = `http://${HOST}${fill(row.path, prepared.params)}${prepared.query ? `?${new URLSearchParams(prepared.query)}` : ""}`;

      const send = async (method: string) => {
        const res = await call(
          mod!,
          row.method,
          new Request(url, {
            method,
            headers,
            body: prepared.body === undefined ? undefined : JSON.stringify(prepared.body),
          }),
          prepared.params,
        );
        const text = await res.text();
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          // Not JSON (metrics are text): no error code, no body to check.
        }
        const code = (res.headers.get("content-type") ?? "").includes("json")
          ? ((body as { error?: { code?: string } } | null)?.error?.code ?? null)
          : null;
        return { status: res.status, code, body };
      };
      /** What is wrong with an answer, judged against the row's expectation. */
      const judge = (got: { status: number; code: string | null }): string[] => {
        const shown = `${got.status}${got.code ? ` ${got.code}` : ""}`;
        if (!want.allowed)
          return got.status === want.status && want.codes.includes(got.code ?? "")
            ? []
            : [`expected ${want.status} ${want.codes.join(" or ")}, got ${shown}`];
        if (got.status >= 200 && got.status < 300) return [];
        const ok = (EXPECTED_NON_2XX[rowKey] ?? []).some((e) => e.status === got.status && e.code === got.code);
        return ok
          ? []
          : [
              `expected allowed (2xx${EXPECTED_NON_2XX[rowKey] ? ` or ${EXPECTED_NON_2XX[rowKey].map((e) => `${e.status} ${e.code}`).join(", ")}` : ""}), got ${shown}`,
            ];
      };

      const got = await send(row.method);
      const problems = judge(got);
      const is2xx = got.status >= 200 && got.status < 300;
      if (prepared.check && (is2xx || (prepared.checkRefused && !want.allowed))) {
        try {
          problems.push(...(await prepared.check({ status: got.status, body: got.body, succeeded: is2xx, caller })));
        } catch (err) {
          problems.push(`check failed: ${(err as Error).message}`);
        }
      }
      record(
        {
          label,
          row,
          method: row.method,
          caller,
          target,
          kind: origin ? "Origin" : "call",
          want,
          status: got.status,
          code: got.code,
        },
        problems,
      );
      await prepared.undo?.();

      // Next.js answers HEAD with the route's GET (it strips the body on the way out): HEAD must
      // get what GET got, for every caller. The fixture is still valid: GET changed nothing.
      if (row.method === "GET") {
        const head = await send("HEAD");
        const headProblems = judge(head);
        if (head.status !== got.status) headProblems.push(`GET answered ${got.status}, HEAD ${head.status}`);
        record(
          {
            label: label.replace(/^GET /, "HEAD "),
            row,
            method: "HEAD",
            caller,
            target,
            kind: "HEAD",
            want,
            status: head.status,
            code: head.code,
          },
          headProblems,
        );
      }
    }
    expect(mine).toEqual([]);
  });
});
