import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import path from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { OpenAPIBackend, Operation } from "openapi-backend";
import { Validator as OpenApiSchemaValidator } from "@seriousme/openapi-schema-validator";
import { createTestDb, type TestDb } from "../helpers/db";
import { openApiBackend } from "../../e2e/support/contract";
import { ROUTES, type RouteRule } from "../../lib/http/routes";
import type { Worker } from "../../worker/loop";

// The OpenAPI document (lib/http/openapi.ts) against the handlers: every route file and every row
// of the route table is an operation with the same methods, and every operation, called through
// its real handler on a seeded database with a worker that builds indexes, answers with a status
// the document lists and a body its schema accepts (error bodies too: the code must be one the
// operation documents). Requests the fixtures send are valid by the document's request schemas,
// and a body with an undocumented field is refused by both.
//
// The document checked is the one served at GET /api/openapi.json, and the answers are checked by
// validators we did not write: the served document against the OpenAPI 3.1 schema
// (@seriousme/openapi-schema-validator), and every answer by openapi-backend, which finds the
// operation from the request's method and path itself and validates the body against that
// operation's schema for the status. openapi-backend passes a status the operation does not list
// (it finds no schema to check), so that, and the content type, are checked here as well.

const BOOT = "openapi-contract-bootstrap-token-0123";
const HOST = "api.local";
const API_DIR = path.resolve(import.meta.dirname, "../../app/api");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

type Mod = Record<string, unknown>;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Doc = { paths: Record<string, Record<string, OperationObject>>; components: unknown };
type OperationObject = {
  operationId: string;
  parameters?: { name: string; in: string; required?: boolean; schema: object }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: object }> };
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
};

function routeFiles(dir = API_DIR, rel = ""): { pattern: string; file: string }[] {
  const out: { pattern: string; file: string }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...routeFiles(path.join(dir, e.name), `${rel}/${e.name}`));
    else if (e.name === "route.ts") out.push({ pattern: `/api${rel}`, file: path.join(dir, e.name) });
  }
  return out;
}

let t: TestDb;
let doc: Doc;
let served: OpenAPIBackend;
/** Answers whose JSON body openapi-backend validated, so a run that checked nothing cannot pass. */
let servedChecks = 0;
let worker: Worker;
let fallback: Mod;
let waitFor: typeof import("../helpers/worker").waitFor;
const modules = new Map<string, Mod>();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const compiled = new Map<string, ValidateFunction>();

const oaPath = (p: string) => p.replace(/\[([^\]]+)\]/g, "{$1}");
const operation = (row: Pick<RouteRule, "method" | "path">) => doc.paths[oaPath(row.path)]?.[row.method.toLowerCase()];

/** A schema from the document, compiled with the document's components beside it so its $refs resolve. */
function validator(key: string, schema: object): ValidateFunction {
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile({ ...schema, components: doc.components });
    compiled.set(key, v);
  }
  return v;
}

function problemsOf(v: ValidateFunction, value: unknown): string[] {
  return v(value)
    ? []
    : (v.errors ?? []).map(
        (e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`,
      );
}

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = BOOT;
  process.env.INDEXWRIGHT_SESSION_SECRET = "openapi-contract-session-secret";
  process.env.LOG_LEVEL = "silent";
  for (const k of Object.keys(process.env)) if (k.startsWith("OIDC_")) delete process.env[k];
  fallback = await import("../../lib/http/method-fallback");
  for (const { pattern, file } of routeFiles()) {
    if (pattern.includes("[...")) continue; // the catch-all JSON 404, no operation
    modules.set(pattern, (await import(/* @vite-ignore */ path.relative(import.meta.dirname, file))) as Mod);
  }
  // The document as a client downloads it, not the object the server builds it from.
  const res = await (modules.get("/api/openapi.json")!.GET as Handler)(
    new Request(`http://${HOST}/api/openapi.json`, { headers: { host: HOST } }),
    { params: Promise.resolve({}) },
  );
  expect(res.status).toBe(200);
  doc = (await res.json()) as Doc;
  served = await openApiBackend(doc);
  // Imported after LOG_LEVEL is set: the logger reads it once.
  const { testWorker, waitFor: wait } = await import("../helpers/worker");
  waitFor = wait;
  worker = testWorker(t, "openapi-contract");
  await worker.start();
});

afterAll(async () => {
  await worker?.stop(5_000);
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

describe("the document lists exactly the API's operations", () => {
  it("every route file's methods and every route table row, and nothing else", () => {
    const onDisk = new Set<string>();
    for (const [pattern, mod] of modules) {
      for (const m of METHODS)
        if (typeof mod[m] === "function" && mod[m] !== fallback[m]) onDisk.add(`${m} ${oaPath(pattern)}`);
    }
    const inTable = new Set(ROUTES.map((r) => `${r.method} ${oaPath(r.path)}`));
    const inDoc = new Set(
      Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`)),
    );
    const missing = (a: Set<string>, b: Set<string>, what: string) =>
      [...a].filter((k) => !b.has(k)).map((k) => `${k}: ${what}`);
    expect([
      ...missing(onDisk, inDoc, "a route file serves it; the document lacks it"),
      ...missing(inTable, inDoc, "in lib/http/routes.ts; the document lacks it"),
      ...missing(inDoc, onDisk, "in the document; no route file serves it"),
    ]).toEqual([]);
    expect(inDoc.size).toBe(ROUTES.length);
  });

  it("the served document is a valid OpenAPI 3.1 document", async () => {
    const v = new OpenApiSchemaValidator();
    const result = await v.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(v.version).toBe("3.1");
  });

  it("openapi-backend finds operations by method and path, and refuses what a schema does not allow", () => {
    const op = served.matchOperation({ method: "get", path: "/api/v1/tasks/123", headers: {} })!;
    expect(op.operationId).toBe(doc.paths["/api/v1/tasks/{taskId}"].get.operationId);
    const check = (body: unknown, status: number) => served.validator.validateResponse(body, op, status).valid;
    expect(check({ error: { code: "NOT_FOUND", message: "task 1 not found" } }, 404)).toBe(true);
    expect(check({ error: { code: "SOMETHING_ELSE", message: "x" } }, 404)).toBe(false);
    expect(check({ error: { code: "NOT_FOUND", message: "x", extra: 1 } }, 404)).toBe(false);
    expect(check({ taskId: "1" }, 200)).toBe(false);
    // Formats are checked: a task's timestamps are date-times.
    const task = served.matchOperation({ method: "get", path: "/api/v1/tasks", headers: {} })!;
    const listed = served.validator.validateResponse({ items: [{ createdAt: "yesterday" }] }, task, 200);
    expect(listed.valid).toBe(false);
  });

  it("the validator refuses what a schema does not allow (so the checks below can fail)", () => {
    const detail =
      doc.paths["/api/v1/tenants/{tenant}/documents/{key}"].get.responses["200"].content!["application/json"].schema;
    const v = validator("self-check", detail);
    expect(problemsOf(v, {}).length).toBeGreaterThan(0);
    const error = doc.paths["/api/v1/tasks/{taskId}"].get.responses["404"].content!["application/json"].schema;
    const e = validator("self-check error", error);
    expect(problemsOf(e, { error: { code: "NOT_FOUND", message: "task 1 not found" } })).toEqual([]);
    expect(problemsOf(e, { error: { code: "SOMETHING_ELSE", message: "x" } }).length).toBeGreaterThan(0);
    expect(problemsOf(e, { error: { code: "NOT_FOUND", message: "x", extra: 1 } }).length).toBeGreaterThan(0);
  });

  it("path parameters are the route's [segments], and every non-public operation names its security", () => {
    const problems: string[] = [];
    for (const row of ROUTES) {
      const op = operation(row);
      if (!op) continue; // the test above names it
      const want = [...row.path.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]).sort();
      const have = (op.parameters ?? [])
        .filter((p) => p.in === "path")
        .map((p) => p.name)
        .sort();
      if (JSON.stringify(want) !== JSON.stringify(have))
        problems.push(`${row.method} ${row.path}: path parameters ${have} in the document, ${want} in the route`);
      const security = (op as { security?: unknown[] }).security ?? [];
      if ((row.auth === "public") !== (security.length === 0))
        problems.push(`${row.method} ${row.path}: security ${JSON.stringify(security)} for a ${row.auth} route`);
      if (!Object.keys(op.responses).some((s) => Number(s) < 400))
        problems.push(`${row.method} ${row.path}: no success response`);
    }
    expect(problems).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Calls through the real handlers

type Call = {
  method: string;
  pattern: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  auth?: string | null;
  headers?: Record<string, string>;
};
type Answer = { status: number; body: unknown; contentType: string };

async function call(c: Call): Promise<Answer> {
  const mod = modules.get(c.pattern);
  if (!mod) throw new Error(`no route file for ${c.pattern}`);
  const url = new URL(
    `http://${HOST}${c.pattern.replace(/\[([^\]]+)\]/g, (_, n: string) => encodeURIComponent(c.params?.[n] ?? "x"))}`,
  );
  for (const [k, v] of Object.entries(c.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { host: HOST, ...c.headers };
  const auth = c.auth === undefined ? BOOT : c.auth;
  if (auth) headers.authorization = `Bearer ${auth}`;
  if (c.body !== undefined) headers["content-type"] ??= "application/json";
  const res = await (mod[c.method] as Handler)(
    new Request(url, {
      method: c.method,
      headers,
      body: c.body === undefined ? undefined : typeof c.body === "string" ? c.body : JSON.stringify(c.body),
    }),
    { params: Promise.resolve(c.params ?? {}) },
  );
  const contentType = res.headers.get("content-type") ?? "";
  const text = await res.text();
  return { status: res.status, contentType, body: contentType.includes("json") && text ? JSON.parse(text) : text };
}

/**
 * What openapi-backend says is wrong with an answer: it finds the operation from the request's
 * method and path (which must be the one the route file serves) and validates a JSON body against
 * that operation's schema for the status.
 */
function servedProblems(c: Call, a: Answer, where: string): string[] {
  const url = new URL(
    `http://${HOST}${c.pattern.replace(/\[([^\]]+)\]/g, (_, n: string) => encodeURIComponent(c.params?.[n] ?? "x"))}`,
  );
  const op: Operation | undefined = served.matchOperation({
    method: c.method.toLowerCase(),
    path: url.pathname,
    headers: {},
  });
  const expected = operation({ method: c.method as RouteRule["method"], path: c.pattern })?.operationId;
  if (!op) return [`${where}: openapi-backend matches no operation for ${c.method} ${url.pathname}`];
  if (op.operationId !== expected)
    return [`${where}: openapi-backend routes ${c.method} ${url.pathname} to ${op.operationId}, not ${expected}`];
  if (!a.contentType.includes("json")) return [];
  servedChecks++;
  const r = served.validator.validateResponse(a.body, op, a.status);
  return (r.errors ?? []).map(
    (e) =>
      `${where} (openapi-backend): ${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`,
  );
}

/** What is wrong with an answer by the document: an undocumented status, or a body its schema refuses. */
function answerProblems(c: Call, a: Answer): string[] {
  const op = operation({ method: c.method as RouteRule["method"], path: c.pattern });
  const where = `${c.method} ${c.pattern} → ${a.status}`;
  if (!op) return [`${c.method} ${c.pattern}: not in the document`];
  const third = servedProblems(c, a, where);
  const response = op.responses[String(a.status)];
  if (!response)
    return [
      ...third,
      `${where}: status not in the document (${Object.keys(op.responses).join(", ")}); body ${JSON.stringify(a.body).slice(0, 300)}`,
    ];
  if (!response.content)
    return a.body === ""
      ? third
      : [...third, `${where}: the document says no body; got ${String(a.body).slice(0, 100)}`];
  const mediaType = Object.keys(response.content).find((m) => a.contentType.startsWith(m));
  if (!mediaType)
    return [...third, `${where}: content type ${a.contentType} not among ${Object.keys(response.content)}`];
  // A body openapi-backend does not check (text: CSV, Prometheus) is checked here by its schema.
  if (mediaType === "application/json") return third;
  const v = validator(`${where} ${mediaType}`, response.content[mediaType].schema);
  return [...third, ...problemsOf(v, a.body).map((p) => `${where}: ${p}`)];
}

/** What is wrong with a request by the document: its parameters and its JSON body against their schemas. */
function requestProblems(c: Call): string[] {
  const op = operation({ method: c.method as RouteRule["method"], path: c.pattern })!;
  const where = `${c.method} ${c.pattern} request`;
  const problems: string[] = [];
  for (const p of op.parameters ?? []) {
    const value =
      p.in === "path"
        ? c.params?.[p.name]
        : p.in === "query"
          ? c.query?.[p.name]
          : p.in === "header"
            ? c.headers?.[p.name]
            : undefined;
    if (value === undefined) {
      if (p.required) problems.push(`${where}: ${p.in} parameter ${p.name} is required`);
      continue;
    }
    // A query string is text; the document types the value it stands for.
    const type = (p.schema as { type?: string | string[] }).type;
    const types = Array.isArray(type) ? type : [type];
    const typed =
      types.includes("integer") || types.includes("number")
        ? Number(value)
        : types.includes("boolean")
          ? value === "true"
          : value;
    problems.push(
      ...problemsOf(validator(`${where} ${p.in} ${p.name}`, p.schema), typed).map((e) => `${where}: ${p.name} ${e}`),
    );
  }
  if (c.body !== undefined && typeof c.body !== "string") {
    const schema = op.requestBody?.content["application/json"]?.schema;
    if (!schema) problems.push(`${where}: sends a JSON body the document does not describe`);
    else problems.push(...problemsOf(validator(`${where} body`, schema), c.body).map((e) => `${where}: body ${e}`));
  } else if (op.requestBody?.required) problems.push(`${where}: the document requires a body`);
  return problems;
}

const DOC = "/api/v1/tenants/[tenant]/documents/[key]";
const seen = new Set<string>();
const problems: string[] = [];

/** Calls, checks the request and the answer against the document, and records which operation was exercised. */
async function exercise(c: Call, expectStatus?: number): Promise<Answer> {
  // A request meant to succeed must be valid by the document too.
  if (expectStatus !== undefined && expectStatus < 400) problems.push(...requestProblems(c));
  const a = await call(c);
  problems.push(...answerProblems(c, a));
  if (expectStatus !== undefined && a.status !== expectStatus)
    problems.push(
      `${c.method} ${c.pattern}: expected ${expectStatus}, got ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`,
    );
  seen.add(`${c.method} ${c.pattern} ${a.status}`);
  return a;
}

const documentState = async (tenant: string, key: string) =>
  ((await call({ method: "GET", pattern: DOC, params: { tenant, key } })).body as { state: string }).state;
const searchable = (tenant: string, key: string) =>
  waitFor(async () => (await documentState(tenant, key)) === "SEARCHABLE", 60_000);

describe("every operation answers as the document says", () => {
  // Several documents are built by the worker on the way: more than the default minute on a busy machine.
  it("success answers of every operation, on documents a worker built", { timeout: 180_000 }, async () => {
    const publish = (key: string, content: string, extra: object = {}) =>
      exercise({
        method: "POST",
        pattern: `${DOC}/versions`,
        params: { tenant: "acme", key },
        body: { title: `Doc ${key}`, contentType: "text/markdown", content, ...extra },
      });

    expect(
      (
        await publish("guide", "# Guide\n\nThe first version talks about lighthouses.", {
          acl: ["group:staff"],
          abstract: "About lighthouses.",
        })
      ).status,
    ).toBe(202);
    await searchable("acme", "guide");
    expect((await publish("guide", "# Guide\n\nThe second version talks about harbours.")).status).toBe(202);
    await waitFor(
      async () =>
        (
          (await call({ method: "GET", pattern: DOC, params: { tenant: "acme", key: "guide" } })).body as {
            searchVersion: number;
          }
        ).searchVersion === 2,
      60_000,
    );
    await exercise(
      {
        method: "POST",
        pattern: `${DOC}/versions`,
        params: { tenant: "acme", key: "guide" },
        body: {
          title: "Doc guide",
          contentType: "text/markdown",
          content: "# Guide\n\nThe second version talks about harbours.",
        },
      },
      200,
    );
    await exercise(
      {
        method: "POST",
        pattern: `${DOC}/versions`,
        params: { tenant: "acme", key: "notes" },
        headers: { "idempotency-key": "notes-1" },
        body: { title: "Notes", contentType: "text/plain", content: "plain notes" },
      },
      202,
    );
    // A replay answers as the first request did.
    await exercise(
      {
        method: "POST",
        pattern: `${DOC}/versions`,
        params: { tenant: "acme", key: "notes" },
        headers: { "idempotency-key": "notes-1" },
        body: { title: "Notes", contentType: "text/plain", content: "plain notes" },
      },
      202,
    );
    await searchable("acme", "notes");

    await exercise({ method: "GET", pattern: "/api/health", auth: null }, 200);
    await exercise({ method: "GET", pattern: "/api/openapi.json", auth: null }, 200);
    await exercise({ method: "GET", pattern: "/api/metrics" }, 200);
    await exercise({ method: "GET", pattern: "/api/v1/overview" }, 200);
    await exercise({ method: "GET", pattern: "/api/v1/workers" }, 200);
    await exercise({ method: "GET", pattern: "/api/v1/tenants" }, 200);
    await exercise({ method: "GET", pattern: "/api/v1/documents", query: { tenant: "acme", limit: "1" } }, 200);
    await exercise({ method: "GET", pattern: "/api/v1/documents", query: { state: "SEARCHABLE", q: "guide" } }, 200);
    const tasks = await exercise({ method: "GET", pattern: "/api/v1/tasks", query: { limit: "2" } }, 200);
    const taskId = (tasks.body as { items: { taskId: string }[] }).items[0].taskId;
    await exercise({ method: "GET", pattern: "/api/v1/tasks/[taskId]", params: { taskId } }, 200);
    await exercise({ method: "GET", pattern: DOC, params: { tenant: "acme", key: "guide" } }, 200);
    await exercise(
      {
        method: "POST",
        pattern: "/api/v1/tenants/[tenant]/search",
        params: { tenant: "acme" },
        body: { query: "harbours", topK: 3 },
      },
      200,
    );
    await exercise(
      {
        method: "POST",
        pattern: "/api/v1/tenants/[tenant]/search",
        params: { tenant: "acme" },
        body: { query: "harbours", principals: ["group:staff"] },
      },
      200,
    );

    await exercise(
      {
        method: "POST",
        pattern: `${DOC}/rollback`,
        params: { tenant: "acme", key: "guide" },
        body: { toVersion: 1, reason: "check the contract" },
      },
      200,
    );
    await exercise({ method: "POST", pattern: `${DOC}/unpin`, params: { tenant: "acme", key: "guide" } }, 200);
    await exercise({ method: "POST", pattern: `${DOC}/reindex`, params: { tenant: "acme", key: "notes" } }, 202);
    await exercise(
      {
        method: "POST",
        pattern: `${DOC}/rename`,
        params: { tenant: "acme", key: "notes" },
        body: { newKey: "notes-2" },
      },
      200,
    );
    await exercise({ method: "DELETE", pattern: DOC, params: { tenant: "acme", key: "notes-2" } }, 202);

    // A DEAD task for the operator actions: the failure is set by hand, the worker stays out of it.
    const dead = async () => {
      const key = `dead-${seen.size}`;
      const r = await call({
        method: "POST",
        pattern: `${DOC}/versions`,
        params: { tenant: "acme", key },
        body: { title: key, contentType: "text/plain", content: key },
      });
      const id = (r.body as { taskId: string }).taskId;
      await waitFor(
        async () =>
          (
            await t.pool.query(
              `UPDATE index_tasks SET status = 'DEAD', error_code = 'EMBEDDING_TIMEOUT', finished_at = now(), lease_owner = NULL, lease_until = NULL WHERE task_id = $1 AND status <> 'RUNNING' RETURNING 1`,
              [id],
            )
          ).rowCount === 1,
      );
      return id;
    };
    await exercise(
      {
        method: "POST",
        pattern: "/api/v1/tasks/[taskId]/retry",
        params: { taskId: await dead() },
        body: { reason: "contract" },
      },
      200,
    );
    await exercise(
      {
        method: "POST",
        pattern: "/api/v1/tasks/[taskId]/force-done",
        params: { taskId: await dead() },
        body: { reason: "contract" },
      },
      200,
    );
    await dead();
    await exercise({ method: "POST", pattern: "/api/v1/tasks/retry", body: { status: "DEAD", tenant: "acme" } }, 200);
    // With the tenant paused, a fresh task stays PENDING whatever the worker does: the one a cancel takes.
    const pause = await exercise(
      { method: "POST", pattern: "/api/v1/pauses", body: { tenant: "acme", reason: "contract" } },
      201,
    );
    const later = await call({
      method: "POST",
      pattern: `${DOC}/versions`,
      params: { tenant: "acme", key: "later" },
      body: { title: "later", contentType: "text/plain", content: "later" },
    });
    await exercise({ method: "GET", pattern: "/api/v1/pauses" }, 200);
    await exercise(
      {
        method: "POST",
        pattern: "/api/v1/tasks/[taskId]/cancel",
        params: { taskId: (later.body as { taskId: string }).taskId },
        body: { reason: "contract" },
      },
      200,
    );
    await exercise(
      {
        method: "DELETE",
        pattern: "/api/v1/pauses/[id]",
        params: { id: (pause.body as { id: string }).id },
        body: { reason: "contract" },
      },
      200,
    );
    await exercise({ method: "GET", pattern: "/api/v1/audit", query: { limit: "5" } }, 200);
    await exercise(
      {
        method: "GET",
        pattern: "/api/v1/audit",
        query: { action: "task.*", actor: "token", from: "2020-01-01T00:00:00Z" },
      },
      200,
    );
    await exercise({ method: "GET", pattern: "/api/v1/overview/activity", query: { range: "1h" } }, 200);
    await exercise(
      { method: "GET", pattern: "/api/v1/documents/export", query: { tenant: "acme", format: "csv" } },
      200,
    );
    await exercise(
      { method: "GET", pattern: "/api/v1/documents/export", query: { state: "SEARCHABLE", format: "json" } },
      200,
    );
    await exercise(
      { method: "GET", pattern: "/api/v1/tasks/export", query: { status: "SUCCEEDED", format: "json" } },
      200,
    );
    await exercise({ method: "GET", pattern: "/api/v1/tasks/export", query: { format: "csv" } }, 200);
    await exercise(
      {
        method: "GET",
        pattern: `${DOC}/chunks`,
        params: { tenant: "acme", key: "guide" },
        query: { level: "2", limit: "2" },
      },
      200,
    );

    const user = await exercise(
      {
        method: "POST",
        pattern: "/api/v1/admin/users",
        body: { email: "reader@example.com", password: "a long enough password", role: "viewer", tenants: ["acme"] },
      },
      201,
    );
    const userId = (user.body as { id: string }).id;
    await exercise(
      {
        method: "PATCH",
        pattern: "/api/v1/admin/users/[id]",
        params: { id: userId },
        body: { role: "maintainer", groups: ["staff"] },
      },
      200,
    );
    await exercise({ method: "GET", pattern: "/api/v1/admin/users" }, 200);
    const token = await exercise(
      {
        method: "POST",
        pattern: "/api/v1/admin/tokens",
        body: { name: "reader", role: "viewer", tenants: ["acme"], kind: "person", userId },
      },
      201,
    );
    await exercise({ method: "GET", pattern: "/api/v1/admin/tokens" }, 200);
    await exercise(
      { method: "DELETE", pattern: "/api/v1/admin/tokens/[id]", params: { id: (token.body as { id: string }).id } },
      200,
    );

    const hook = await exercise(
      {
        method: "POST",
        pattern: "/api/v1/admin/webhooks",
        body: {
          tenant: "acme",
          url: "https://hooks.example.com/contract",
          eventTypes: ["task.dead"],
          description: "contract",
        },
      },
      201,
    );
    const hookId = (hook.body as { id: string }).id;
    await exercise({ method: "GET", pattern: "/api/v1/admin/webhooks" }, 200);
    await exercise(
      {
        method: "PATCH",
        pattern: "/api/v1/admin/webhooks/[id]",
        params: { id: hookId },
        body: { description: "contract, changed" },
      },
      200,
    );
    await exercise(
      { method: "POST", pattern: "/api/v1/admin/webhooks/[id]/rotate-secret", params: { id: hookId } },
      200,
    );
    await dead(); // a task.dead event: one delivery for the endpoint
    const log = await exercise(
      {
        method: "GET",
        pattern: "/api/v1/admin/webhooks/[id]/deliveries",
        params: { id: hookId },
        query: { limit: "5" },
      },
      200,
    );
    const deliveryId = (log.body as { items: { id: string }[] }).items[0]?.id ?? "0";
    await exercise(
      {
        method: "POST",
        pattern: "/api/v1/admin/webhooks/[id]/deliveries/[deliveryId]/redeliver",
        params: { id: hookId, deliveryId },
        body: { reason: "contract" },
      },
      200,
    );
    await exercise({ method: "DELETE", pattern: "/api/v1/admin/webhooks/[id]", params: { id: hookId } }, 200);

    // Index spaces, and acme migrated into a second one: built by the worker, switched, back, and
    // again through abort and finish; then every tenant on it sent back in one call.
    await exercise(
      {
        method: "POST",
        pattern: "/api/v1/admin/embedding-spaces",
        body: { name: "contract-256", provider: "local", dimensions: 256, textsPerMinute: 1_000_000 },
      },
      201,
    );
    await exercise(
      {
        method: "POST",
        pattern: "/api/v1/admin/embedding-spaces",
        body: { name: "contract-unused", provider: "local", dimensions: 64 },
      },
      201,
    );
    await exercise({ method: "GET", pattern: "/api/v1/admin/embedding-spaces" }, 200);
    await exercise(
      {
        method: "PATCH",
        pattern: "/api/v1/admin/embedding-spaces/[name]",
        params: { name: "contract-256" },
        body: { pricePerMillionTokens: 0.02 },
      },
      200,
    );
    await exercise(
      { method: "POST", pattern: "/api/v1/admin/embedding-spaces/[name]/retire", params: { name: "contract-unused" } },
      200,
    );
    const MIG = "/api/v1/tenants/[tenant]/migrations";
    const startMig = async () =>
      (
        (
          await exercise(
            { method: "POST", pattern: MIG, params: { tenant: "acme" }, body: { space: "contract-256" } },
            202,
          )
        ).body as { id: string }
      ).id;
    const migId = await startMig();
    await exercise({ method: "GET", pattern: MIG, params: { tenant: "acme" } }, 200);
    // A wait that fails says what it was answered (once a body without `documents` was all it told).
    const migration = async (id: string) => {
      const a = await call({ method: "GET", pattern: `${MIG}/[id]`, params: { tenant: "acme", id } });
      if (a.status !== 200) throw new Error(`GET migration ${id}: ${a.status} ${JSON.stringify(a.body)}`);
      return a.body as { state: string; documents: { built: number; total: number } };
    };
    await waitFor(async () => {
      const m = await migration(migId);
      return m.documents.built === m.documents.total;
    }, 60_000);
    const { advanceMigrations } = await import("../../lib/spaces/maintenance");
    // The worker's maintenance may be building it at the same moment: wait until it is READY.
    await waitFor(async () => {
      await advanceMigrations(t.pool, "contract", { indexMemoryMb: 64, parallelWorkers: 0 });
      const m = (await call({ method: "GET", pattern: `${MIG}/[id]`, params: { tenant: "acme", id: migId } })).body as {
        state: string;
      };
      return m.state === "READY";
    }, 60_000);
    await exercise({ method: "GET", pattern: `${MIG}/[id]`, params: { tenant: "acme", id: migId } }, 200);
    await exercise({ method: "POST", pattern: `${MIG}/[id]/switch`, params: { tenant: "acme", id: migId } }, 200);
    await exercise(
      {
        method: "POST",
        pattern: `${MIG}/[id]/switch-back`,
        params: { tenant: "acme", id: migId },
        body: { reason: "contract" },
      },
      200,
    );
    const aborted = await startMig();
    await exercise({ method: "POST", pattern: `${MIG}/[id]/abort`, params: { tenant: "acme", id: aborted } }, 200);
    const finished = await startMig();
    await waitFor(async () => {
      const m = await migration(finished);
      return m.documents.built === m.documents.total;
    }, 60_000);
    await exercise({ method: "POST", pattern: `${MIG}/[id]/switch`, params: { tenant: "acme", id: finished } }, 200);
    await exercise({ method: "POST", pattern: `${MIG}/[id]/finish`, params: { tenant: "acme", id: finished } }, 200);
    await exercise(
      { method: "POST", pattern: "/api/v1/admin/migrations", body: { space: "local", from: "contract-256" } },
      202,
    );

    // The freshness SLO (docs/operations.md#freshness-slo): the list, a tenant's figures, its own
    // objective set, refused and returned to the default.
    const SLO = "/api/v1/tenants/[tenant]/slo";
    await exercise({ method: "GET", pattern: "/api/v1/slo" }, 200);
    await exercise({ method: "GET", pattern: SLO, params: { tenant: "acme" } }, 200);
    await exercise(
      { method: "PUT", pattern: SLO, params: { tenant: "acme" }, body: { objective: 0.995, targetSeconds: 120 } },
      200,
    );
    await exercise({ method: "PUT", pattern: SLO, params: { tenant: "acme" }, body: { objective: 1 } }, 400);
    await exercise(
      { method: "PUT", pattern: SLO, params: { tenant: "acme" }, body: { objective: null, targetSeconds: null } },
      200,
    );

    // Evaluation (docs/evaluation.md): a set in two versions, a run executed as a worker's
    // maintenance does, its history and detail; why a document is (not) found, both ways.
    const SET = "/api/v1/tenants/[tenant]/evaluation-set";
    const EVALS = "/api/v1/tenants/[tenant]/evaluations";
    await exercise(
      {
        method: "PUT",
        pattern: SET,
        params: { tenant: "acme" },
        body: { queries: [{ query: "harbours", relevant: ["guide"] }] },
      },
      200,
    );
    await exercise(
      {
        method: "PUT",
        pattern: SET,
        params: { tenant: "acme" },
        body: {
          queries: [
            { query: "harbours", relevant: ["guide"], grades: { guide: 2 }, principals: ["group:staff"] },
            { query: "lighthouses", relevant: ["guide", "nowhere"] },
          ],
        },
      },
      200,
    );
    await exercise(
      {
        method: "PUT",
        pattern: SET,
        params: { tenant: "acme" },
        body: { queries: [{ query: "x", relevant: ["a", "a"] }] },
      },
      400,
    );
    await exercise({ method: "GET", pattern: SET, params: { tenant: "acme" } }, 200);
    const evalRun = await exercise(
      { method: "POST", pattern: EVALS, params: { tenant: "acme" }, body: { mode: "vector", topK: 5 } },
      202,
    );
    const { runPendingEvaluations } = await import("../../lib/evaluation/runner");
    const { SpaceEmbedders } = await import("../../lib/spaces/embedders");
    const { LocalEmbedder } = await import("../../lib/embedding");
    await runPendingEvaluations(
      t.pool,
      new SpaceEmbedders({ timeoutMs: 5_000, preset: new LocalEmbedder(384) }),
      "contract",
    );
    await exercise({ method: "GET", pattern: EVALS, params: { tenant: "acme" } }, 200);
    const evalDone = await exercise(
      { method: "GET", pattern: `${EVALS}/[id]`, params: { tenant: "acme", id: (evalRun.body as { id: string }).id } },
      200,
    );
    expect((evalDone.body as { state: string }).state).toBe("DONE");
    await exercise({ method: "GET", pattern: `${EVALS}/[id]`, params: { tenant: "acme", id: "999999" } }, 404);
    await exercise(
      { method: "GET", pattern: `${DOC}/why`, params: { tenant: "acme", key: "guide" }, query: { query: "harbours" } },
      200,
    );
    await exercise(
      {
        method: "POST",
        pattern: `${DOC}/why`,
        params: { tenant: "acme", key: "guide" },
        body: { query: "harbours", principals: ["group:staff"], mode: "text" },
      },
      200,
    );

    await exercise({ method: "POST", pattern: "/api/auth/signin", auth: null, body: { token: BOOT } }, 200);
    await exercise({ method: "POST", pattern: "/api/auth/signout", auth: null }, 200);
    await exercise({ method: "GET", pattern: "/api/auth/oidc/start", auth: null }, 404);
    await exercise({ method: "GET", pattern: "/api/auth/oidc/callback", auth: null }, 404);

    // Last, since they replace the token every other call uses; the configured one is restored after.
    const rotated = await exercise({ method: "POST", pattern: "/api/v1/admin/bootstrap-token/rotate" }, 200);
    await exercise(
      { method: "DELETE", pattern: "/api/v1/admin/bootstrap-token", auth: (rotated.body as { token: string }).token },
      200,
    );
    await t.pool.query(`DELETE FROM bootstrap_token`);

    expect(problems).toEqual([]);
    expect(servedChecks).toBeGreaterThan(ROUTES.length);
    const exercised = new Set([...seen].map((s) => s.split(" ").slice(0, 2).join(" ")));
    expect(
      ROUTES.filter((r) => operation(r) && !exercised.has(`${r.method} ${r.path}`)).map((r) => `${r.method} ${r.path}`),
    ).toEqual([]);
  });

  it("error answers carry a code the operation documents", async () => {
    problems.length = 0;
    for (const row of ROUTES) {
      const op = operation(row);
      if (!op || !modules.has(row.path)) continue; // the first test names it
      const params = Object.fromEntries(
        [...row.path.matchAll(/\[([^\]]+)\]/g)].map((m) => [
          m[1],
          m[1] === "taskId"
            ? "999999"
            : m[1] === "id"
              ? "00000000-0000-4000-8000-000000000000"
              : m[1] === "tenant"
                ? "acme"
                : "absent",
        ]),
      );
      const body = row.method === "GET" || row.method === "DELETE" ? undefined : {};
      // Without credentials: 401 wherever the route is not public.
      if (row.auth !== "public")
        await exercise({ method: row.method, pattern: row.path, params, body, auth: null }, 401);
      // Malformed JSON, where a body is read.
      if (op.requestBody?.content["application/json"])
        await exercise({
          method: row.method,
          pattern: row.path,
          params,
          body: "{not json",
          auth: row.auth === "public" ? null : BOOT,
        });
    }
    // Not found, invalid ids and states.
    await exercise({ method: "GET", pattern: DOC, params: { tenant: "acme", key: "absent" } }, 404);
    await exercise({ method: "GET", pattern: `${DOC}/chunks`, params: { tenant: "acme", key: "absent" } }, 404);
    await exercise({ method: "GET", pattern: "/api/v1/overview/activity", query: { range: "2w" } }, 400);
    await exercise({ method: "GET", pattern: "/api/v1/documents/export", query: { format: "xml" } }, 400);
    await exercise({ method: "GET", pattern: "/api/v1/tasks/[taskId]", params: { taskId: "not-a-number" } }, 400);
    await exercise({ method: "GET", pattern: "/api/v1/tasks/[taskId]", params: { taskId: "999999" } }, 404);
    await exercise({ method: "GET", pattern: "/api/v1/documents", query: { cursor: "garbage" } }, 400);
    await exercise({ method: "POST", pattern: `${DOC}/reindex`, params: { tenant: "acme", key: "absent" } }, 404);
    await exercise(
      {
        method: "POST",
        pattern: `${DOC}/rollback`,
        params: { tenant: "acme", key: "guide" },
        body: { toVersion: 99, reason: "no such version" },
      },
      409,
    );
    await exercise(
      {
        method: "POST",
        pattern: `${DOC}/versions`,
        params: { tenant: "acme", key: "x" },
        body: { title: "X", contentType: "image/png", content: "x" },
      },
      415,
    );
    await exercise(
      {
        method: "POST",
        pattern: `${DOC}/versions`,
        params: { tenant: "acme", key: "x" },
        body: { title: "X", contentType: "text/plain", content: "   " },
      },
      400,
    );
    await exercise(
      {
        method: "POST",
        pattern: "/api/v1/admin/users",
        body: { email: "reader@example.com", password: "a long enough password", role: "viewer", tenants: ["acme"] },
      },
      409,
    );
    await exercise({ method: "POST", pattern: "/api/v1/tasks/[taskId]/retry", params: { taskId: "1" } }, 409);
    expect(problems).toEqual([]);
  });

  it("a body with a field the document does not describe is refused by the document and by the handler", async () => {
    problems.length = 0;
    const cases: Call[] = [
      {
        method: "POST",
        pattern: `${DOC}/versions`,
        params: { tenant: "acme", key: "extra" },
        body: { title: "X", contentType: "text/plain", content: "x", surprise: 1 },
      },
      {
        method: "POST",
        pattern: "/api/v1/tenants/[tenant]/search",
        params: { tenant: "acme" },
        body: { query: "x", surprise: 1 },
      },
      {
        method: "POST",
        pattern: `${DOC}/rollback`,
        params: { tenant: "acme", key: "guide" },
        body: { toVersion: 1, reason: "why not", surprise: 1 },
      },
      {
        method: "POST",
        pattern: `${DOC}/rename`,
        params: { tenant: "acme", key: "guide" },
        body: { newKey: "g2", surprise: 1 },
      },
      { method: "POST", pattern: "/api/v1/tasks/retry", body: { status: "DEAD", surprise: 1 } },
      {
        method: "POST",
        pattern: "/api/v1/admin/tokens",
        body: { name: "n", role: "viewer", tenants: ["acme"], surprise: 1 },
      },
      {
        method: "POST",
        pattern: "/api/v1/admin/users",
        body: { email: "x@example.com", role: "viewer", tenants: ["acme"], surprise: 1 },
      },
      { method: "POST", pattern: "/api/auth/signin", auth: null, body: { token: "t", surprise: 1 } },
    ];
    for (const c of cases) {
      expect(
        requestProblems(c).length,
        `${c.method} ${c.pattern}: the document accepts an unknown field`,
      ).toBeGreaterThan(0);
      const a = await call(c);
      problems.push(...answerProblems(c, a));
      expect([a.status, (a.body as { error?: { code: string } }).error?.code], `${c.method} ${c.pattern}`).toEqual([
        400,
        "VALIDATION_FAILED",
      ]);
    }
    expect(problems).toEqual([]);
  });

  it("reindex and unpin take no body: the document lists none, and the handler refuses one with 400", async () => {
    problems.length = 0;
    for (const action of ["reindex", "unpin"]) {
      const pattern = `${DOC}/${action}`;
      const params = { tenant: "acme", key: "guide" };
      const json: Call = { method: "POST", pattern, params, body: { reason: "a reason nobody reads" } };
      expect(requestProblems(json).join("\n")).toContain("sends a JSON body the document does not describe");
      const text: Call = { method: "POST", pattern, params, body: "x", headers: { "content-type": "text/plain" } };
      for (const c of [json, text]) {
        const a = await exercise(c, 400);
        expect((a.body as { error: { code: string; message: string } }).error).toEqual({
          code: "VALIDATION_FAILED",
          message: "this operation takes no request body (its input is the path); send none",
        });
      }
      // Without a body the same call is not refused (unpin of an unpinned document is its own 409).
      const without = await exercise({ method: "POST", pattern, params });
      expect([200, 202, 409], `${action} without a body`).toContain(without.status);
    }
    expect(problems).toEqual([]);
  });
});
