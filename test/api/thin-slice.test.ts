import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import type { Worker } from "../../worker/loop";

// The vertical slice through the real route handlers: publish → worker → SEARCHABLE → search.
const TOKEN = "test-bootstrap-token-0123456789";
let t: TestDb;
let worker: Worker;
let routes: {
  publish: typeof import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route");
  doc: typeof import("../../app/api/v1/tenants/[tenant]/documents/[key]/route");
  search: typeof import("../../app/api/v1/tenants/[tenant]/search/route");
  list: typeof import("../../app/api/v1/documents/route");
  health: typeof import("../../app/api/health/route");
};

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = TOKEN;
  process.env.LOG_LEVEL = "silent";
  routes = {
    publish: await import("../../app/api/v1/tenants/[tenant]/documents/[key]/versions/route"),
    doc: await import("../../app/api/v1/tenants/[tenant]/documents/[key]/route"),
    search: await import("../../app/api/v1/tenants/[tenant]/search/route"),
    list: await import("../../app/api/v1/documents/route"),
    health: await import("../../app/api/health/route"),
  };
  worker = testWorker(t, "slice-worker");
  await worker.start();
});
afterAll(async () => {
  await worker?.stop(5000);
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const ctx = <P>(p: P) => ({ params: Promise.resolve(p) });
const req = (method: string, body?: unknown, token: string | null = TOKEN, raw?: string) =>
  new Request("http://localhost/x", {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });

const POLICY = `# Refund policy

Customers may return any unused item within thirty days of delivery for a full refund.

## Exceptions

Gift cards and perishable groceries cannot be refunded once the package has been opened.

## Travel

Employees book economy class for flights shorter than six hours and keep every receipt.
`;

async function count(table: string): Promise<number> {
  return Number((await t.pool.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
}

describe("publish → index → search", () => {
  it("health answers ok with the database reachable", async () => {
    const r = await routes.health.GET();
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ ok: true });
  });

  it("rejects a missing or wrong token with 401 and writes nothing", async () => {
    for (const token of [null, "wrong-token-wrong-token"]) {
      const r = await routes.publish.POST(
        req("POST", { title: "x", contentType: "text/markdown", content: "hi" }, token),
        ctx({ tenant: "acme", key: "k" }),
      );
      expect(r.status).toBe(401);
      expect((await r.json()).error.code).toBe("UNAUTHORIZED");
    }
    expect(await count("documents")).toBe(0);
    expect(await count("tenants")).toBe(0);
  });

  it("rejects malformed bodies with 400 and a code, writing nothing", async () => {
    const cases: [unknown, string | undefined, string][] = [
      [undefined, "{not json", "INVALID_JSON"],
      [{ title: "x", contentType: "text/markdown" }, undefined, "VALIDATION_FAILED"],
      [{ title: "x", contentType: "text/markdown", content: "hi", surprise: 1 }, undefined, "VALIDATION_FAILED"],
      [{ title: "", contentType: "text/markdown", content: "hi" }, undefined, "VALIDATION_FAILED"],
      [{ title: "x", contentType: "text/markdown", content: "   " }, undefined, "EMPTY_DOCUMENT"],
    ];
    for (const [body, raw, code] of cases) {
      const r = await routes.publish.POST(req("POST", body, TOKEN, raw), ctx({ tenant: "acme", key: "k" }));
      expect(r.status, JSON.stringify(body ?? raw)).toBe(400);
      expect((await r.json()).error.code).toBe(code);
    }
    const badKey = await routes.publish.POST(
      req("POST", { title: "x", contentType: "text/markdown", content: "hi" }),
      ctx({ tenant: "acme", key: "Bad Key!" }),
    );
    expect(badKey.status).toBe(400);
    const unsupported = await routes.publish.POST(
      req("POST", { title: "x", contentType: "application/x-msdownload", content: "MZ" }),
      ctx({ tenant: "acme", key: "k" }),
    );
    expect(unsupported.status).toBe(415);
    expect((await unsupported.json()).error.code).toBe("UNSUPPORTED_DOCUMENT");
    expect(await count("documents")).toBe(0);
    expect(await count("index_tasks")).toBe(0);
  });

  it("publishes, becomes SEARCHABLE, and search returns it first", async () => {
    const r = await routes.publish.POST(
      req("POST", { title: "Refund policy", contentType: "text/markdown", content: POLICY }),
      ctx({ tenant: "acme", key: "refund-policy" }),
    );
    expect(r.status).toBe(202);
    const body = await r.json();
    expect(body).toMatchObject({ versionNumber: 1, state: "INDEXING" });
    expect(body.taskId).toMatch(/^\d+$/);

    const doc = await waitFor(async () => {
      const d = await (await routes.doc.GET(req("GET"), ctx({ tenant: "acme", key: "refund-policy" }))).json();
      return d.state === "SEARCHABLE" ? d : null;
    });
    expect(doc).toMatchObject({
      tenant: "acme",
      key: "refund-policy",
      businessVersion: 1,
      searchVersion: 1,
      lastError: null,
      progress: null,
    });
    expect(doc.tasks[0]).toMatchObject({ status: "SUCCEEDED", attempts: 1 });
    expect(doc.indexVersions[0]).toMatchObject({ status: "ACTIVE", chunkCount: expect.any(Number) });

    const s = await routes.search.POST(
      req("POST", { query: "Gift cards and perishable groceries cannot be refunded" }),
      ctx({ tenant: "acme" }),
    );
    expect(s.status).toBe(200);
    const { hits } = await s.json();
    expect(hits[0]).toMatchObject({
      documentKey: "refund-policy",
      versionNumber: 1,
      sectionPath: "Refund policy > Exceptions",
    });
    expect(hits[0].text).toContain("Gift cards");

    const other = await routes.search.POST(req("POST", { query: "Gift cards" }), ctx({ tenant: "other" }));
    expect((await other.json()).hits).toEqual([]);
  });

  it("publishing identical content again is 200 with the same version and no new task", async () => {
    const before = await count("index_tasks");
    const r = await routes.publish.POST(
      req("POST", { title: "Refund policy", contentType: "text/markdown", content: POLICY }),
      ctx({ tenant: "acme", key: "refund-policy" }),
    );
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ versionNumber: 1, state: "SEARCHABLE" });
    expect(await count("index_tasks")).toBe(before);
  });

  it("lists documents with their state, filtered and paged", async () => {
    const r = await routes.list.GET(req("GET"), ctx({}));
    const page = await r.json();
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({
      tenant: "acme",
      key: "refund-policy",
      state: "SEARCHABLE",
      businessVersion: 1,
      searchVersion: 1,
    });
    const none = await (
      await routes.list.GET(
        new Request("http://localhost/x?state=FAILED", { headers: { authorization: `Bearer ${TOKEN}` } }),
        ctx({}),
      )
    ).json();
    expect(none.items).toEqual([]);
  });

  it("delete removes it from search, and deleting again is still 202", async () => {
    const d1 = await routes.doc.DELETE(req("DELETE"), ctx({ tenant: "acme", key: "refund-policy" }));
    expect(d1.status).toBe(202);
    const { taskId } = await d1.json();
    await waitFor(
      async () =>
        (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [taskId])).rows[0].status ===
        "SUCCEEDED",
    );
    const s = await routes.search.POST(
      req("POST", { query: "Gift cards and perishable groceries" }),
      ctx({ tenant: "acme" }),
    );
    expect((await s.json()).hits).toEqual([]);
    const d2 = await routes.doc.DELETE(req("DELETE"), ctx({ tenant: "acme", key: "refund-policy" }));
    expect(d2.status).toBe(202);
    expect((await d2.json()).taskId).toBe(taskId);
    const doc = await (await routes.doc.GET(req("GET"), ctx({ tenant: "acme", key: "refund-policy" }))).json();
    expect(doc.state).toBe("DELETED");
  });
});
