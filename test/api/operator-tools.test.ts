import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomUUID } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import type { Worker } from "../../worker/loop";

// The operator tools through the real route handlers on a real database: exports of the
// documents and tasks lists, the audit log's filters, the overview's throughput over a range and
// the per-document chunk browser. Each is checked against the list or the rows it must agree
// with, and against a tenant-limited caller.
const ADMIN = "tools-admin-token-0123456789abcdef";
const LIMITED = "tools-limited-token-0123456789abcd"; // operator, tenant tools-a only

let t: TestDb;
let worker: Worker;
let R: Record<string, any>;

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = ADMIN;
  process.env.LOG_LEVEL = "silent";
  await t.pool.query(
    `INSERT INTO api_tokens (id, name, token_hash, role, tenants) VALUES ($1, 'limited-ops', $2, 'operator', ARRAY['tools-a'])`,
    [randomUUID(), createHash("sha256").update(LIMITED).digest("hex")],
  );
  const base = "../../app/api/v1";
  R = {
    publish: await import(`${base}/tenants/[tenant]/documents/[key]/versions/route`),
    doc: await import(`${base}/tenants/[tenant]/documents/[key]/route`),
    chunks: await import(`${base}/tenants/[tenant]/documents/[key]/chunks/route`),
    documents: await import(`${base}/documents/route`),
    documentsExport: await import(`${base}/documents/export/route`),
    tasks: await import(`${base}/tasks/route`),
    tasksExport: await import(`${base}/tasks/export/route`),
    audit: await import(`${base}/audit/route`),
    activity: await import(`${base}/overview/activity/route`),
  };
  worker = testWorker(t, "tools-worker");
  await worker.start();
});
afterAll(async () => {
  await worker?.stop(5000);
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const ctx = <P>(p: P) => ({ params: Promise.resolve(p) });
async function send(
  route: any,
  method: string,
  params: object,
  opts: { body?: unknown; token?: string; query?: string } = {},
) {
  return (await route[method](
    new Request(`http://localhost/x${opts.query ?? ""}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${opts.token ?? ADMIN}` },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }),
    ctx(params),
  )) as Response;
}
const json = async (route: any, params: object, query = "", token = ADMIN) => {
  const res = await send(route, "GET", params, { query, token });
  return { status: res.status, body: await res.json() };
};
const publish = async (tenant: string, key: string, title: string, content: string, extra: object = {}) => {
  const res = await send(
    R.publish,
    "POST",
    { tenant, key },
    { body: { title, contentType: "text/markdown", content, ...extra } },
  );
  expect(res.status, await res.clone().text()).toBe(202);
  return res.json();
};
const until = (tenant: string, key: string, state: string) =>
  waitFor(async () => {
    const { body } = await json(R.doc, { tenant, key });
    return body.state === state ? body : null;
  }, 30_000);

/** Every page of a list route, as the dashboard would load them. */
async function wholeList(route: any, query: string, token = ADMIN, key: (i: any) => string): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  do {
    const { status, body } = await json(
      route,
      {},
      `?${query}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      token,
    );
    expect(status).toBe(200);
    out.push(...body.items.map(key));
    cursor = body.nextCursor;
  } while (cursor);
  return out;
}

describe("exports", () => {
  const TRICKY = [
    { key: "f-eq", title: '=HYPERLINK("http://evil.example","click")' },
    { key: "f-plus", title: "+1 more" },
    { key: "f-minus", title: "-2 less" },
    { key: "f-at", title: "@SUM(A1)" },
    { key: "f-quote", title: 'Title, with "quotes"' },
  ];

  beforeAll(async () => {
    for (const d of TRICKY) await publish("tools-a", d.key, d.title, `# ${d.key}\n\nPlain text for the export check.`);
    await publish("tools-b", "hidden", "Only tenant b", "# b\n\nNot for tenant a.");
    await until("tools-a", "f-quote", "SEARCHABLE");
    await until("tools-b", "hidden", "SEARCHABLE");
  });

  it("CSV: the list's filters and tenant scoping, RFC 4180 quoting, spreadsheet formulas neutralised", async () => {
    const res = await send(R.documentsExport, "GET", {}, { query: "?format=csv&q=f-", token: LIMITED });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="documents-\d{8}T\d{6}Z\.csv"$/);
    const text = await res.text();
    const lines = text.split("\r\n");
    expect(lines[0]).toBe(
      "tenant,key,title,state,businessVersion,searchVersion,searchVersionServed,lastErrorCode,lastErrorMessage,progressDone,progressTotal,updatedAt",
    );
    expect(text).toContain(`tools-a,f-eq,"'=HYPERLINK(""http://evil.example"",""click"")",SEARCHABLE,1,1,true,`);
    expect(text).toContain("tools-a,f-plus,'+1 more,SEARCHABLE,");
    expect(text).toContain("tools-a,f-minus,'-2 less,SEARCHABLE,");
    expect(text).toContain("tools-a,f-at,'@SUM(A1),SEARCHABLE,");
    expect(text).toContain('tools-a,f-quote,"Title, with ""quotes""",SEARCHABLE,');
    expect(text).not.toContain("tools-b");
    // Same rows, same order as the list it was exported from.
    const listed = await wholeList(R.documents, "q=f-", LIMITED, (i) => i.key);
    const exported = [...text.matchAll(/^tools-a,([a-z0-9._-]+),/gm)].map((m) => m[1]);
    expect(exported).toEqual(listed);
    expect(listed).toHaveLength(TRICKY.length);
  });

  it("JSON: every page of a long list (beyond one 200-row page), the filters recorded, a count that matches", async () => {
    // 450 documents written straight into the tables: the export's paging is under test, not publishing.
    await t.pool.query(`INSERT INTO tenants (id, name) VALUES ('tools-bulk', 'tools-bulk') ON CONFLICT DO NOTHING`);
    await t.pool.query(
      `WITH d AS (
         INSERT INTO documents (id, tenant_id, key, title, business_version, updated_at)
         SELECT gen_random_uuid(), 'tools-bulk', 'bulk-' || lpad(i::text, 4, '0'), 'Bulk ' || i, 1, now() - (i || ' seconds')::interval
           FROM generate_series(1, 450) i RETURNING id, title)
       INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, published_by)
       SELECT gen_random_uuid(), 'tools-bulk', d.id, 1, d.title, 'text/plain', 'x'::bytea, 1, 'c', 'test' FROM d`,
    );
    const res = await send(R.documentsExport, "GET", {}, { query: "?format=json&tenant=tools-bulk" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const body = await res.json();
    expect(body.kind).toBe("documents");
    expect(body.filters).toEqual({ tenant: "tools-bulk" });
    expect(body.count).toBe(450);
    expect(body.items).toHaveLength(450);
    expect(body.items[0]).toMatchObject({
      tenant: "tools-bulk",
      key: "bulk-0001",
      title: "Bulk 1",
      businessVersion: 1,
    });
    expect(body.items.map((i: any) => i.key)).toEqual(
      await wholeList(R.documents, "tenant=tools-bulk", ADMIN, (i) => i.key),
    );
  });

  it("an empty export is a header line (CSV) or no items (JSON), not an error", async () => {
    const csv = await send(R.documentsExport, "GET", {}, { query: "?tenant=tools-none" });
    expect(csv.status).toBe(200);
    expect(await csv.text()).toBe(
      "tenant,key,title,state,businessVersion,searchVersion,searchVersionServed,lastErrorCode,lastErrorMessage,progressDone,progressTotal,updatedAt\r\n",
    );
    const j = await send(R.tasksExport, "GET", {}, { query: "?format=json&tenant=tools-none" });
    expect(await j.json()).toMatchObject({ kind: "tasks", items: [], count: 0 });
  });

  it("tasks: the same filters as the task list, the caller's tenants only", async () => {
    const res = await send(R.tasksExport, "GET", {}, { query: "?status=SUCCEEDED&type=INDEX", token: LIMITED });
    expect(res.status).toBe(200);
    const text = await res.text();
    const rows = text.trim().split("\r\n");
    expect(rows[0].split(",").slice(0, 6)).toEqual([
      "taskId",
      "tenant",
      "documentKey",
      "versionNumber",
      "taskType",
      "status",
    ]);
    const ids = rows.slice(1).map((r) => r.split(",")[0]);
    expect(ids).toEqual(await wholeList(R.tasks, "status=SUCCEEDED&type=INDEX", LIMITED, (i) => i.taskId));
    expect(ids.length).toBe(TRICKY.length);
    expect(rows.slice(1).every((r) => r.split(",")[1] === "tools-a" && r.split(",")[5] === "SUCCEEDED")).toBe(true);
  });

  it("a filter the list does not know, a bad value or a bad format is a 400 with its code", async () => {
    for (const query of ["?stat=FAILED", "?state=NOPE", "?format=xml", "?limit=5"]) {
      const res = await send(R.documentsExport, "GET", {}, { query });
      expect(res.status, query).toBe(400);
      expect((await res.json()).error.code, query).toBe("VALIDATION_FAILED");
    }
    const res = await send(R.tasksExport, "GET", {}, { query: "?errorCode=NOT_A_CODE" });
    expect(res.status).toBe(400);
  });
});

describe("audit log filters", () => {
  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  beforeAll(async () => {
    const rows: [string, string, string | null, number][] = [
      ["user:Alice@example.com", "task.retry", "tools-a", 5],
      ["user:alice@example.com", "task.force_done", "tools-a", 50],
      ["user:bob@example.com", "document.rollback", "tools-a", 120],
      ["user:bob@example.com", "task.retry", "tools-b", 10],
      ["token:deploy-bot", "document.reindex", "tools-b", 3000],
      ["user:carol_50%@example.com", "user.update", null, 1],
    ];
    // Oldest first, so the log's id order (its page order) is also time order.
    for (const [actor, action, tenant, ago] of rows.sort((x, y) => y[3] - x[3])) {
      await t.pool.query(
        `INSERT INTO audit_log (at, actor, action, tenant_id, target_type, target_id) VALUES ($1, $2, $3, $4, 'x', 'y')`,
        [at(ago), actor, action, tenant],
      );
    }
  });
  const actions = async (query: string, token = ADMIN) => {
    const { status, body } = await json(R.audit, {}, query, token);
    expect(status, JSON.stringify(body)).toBe(200);
    return body.items.map((i: any) => `${i.actor} ${i.action}`);
  };

  it("actor matches part of the name in any case; % and _ are plain characters", async () => {
    expect(await actions("?actor=ALICE")).toEqual([
      "user:Alice@example.com task.retry",
      "user:alice@example.com task.force_done",
    ]);
    expect(await actions("?actor=50%25")).toEqual(["user:carol_50%@example.com user.update"]);
    expect(await actions("?actor=%25")).toEqual(["user:carol_50%@example.com user.update"]);
    expect(await actions("?actor=l_5")).toEqual(["user:carol_50%@example.com user.update"]);
  });

  it("action is one action or every action on a kind of target (task.*)", async () => {
    expect(await actions("?action=task.retry")).toEqual([
      "user:Alice@example.com task.retry",
      "user:bob@example.com task.retry",
    ]);
    expect(await actions("?action=task.*")).toEqual([
      "user:Alice@example.com task.retry",
      "user:bob@example.com task.retry",
      "user:alice@example.com task.force_done",
    ]);
    expect(await actions("?action=document.*&tenant=tools-b")).toEqual(["token:deploy-bot document.reindex"]);
  });

  it("a time range: from inclusive, to exclusive, combined with the other filters", async () => {
    expect(await actions(`?from=${encodeURIComponent(at(60))}`)).toEqual([
      "user:carol_50%@example.com user.update",
      "user:Alice@example.com task.retry",
      "user:bob@example.com task.retry",
      "user:alice@example.com task.force_done",
    ]);
    expect(await actions(`?from=${encodeURIComponent(at(200))}&to=${encodeURIComponent(at(8))}&actor=bob`)).toEqual([
      "user:bob@example.com task.retry",
      "user:bob@example.com document.rollback",
    ]);
  });

  it("a tenant-limited operator filters within its tenants: naming another tenant finds nothing", async () => {
    expect(await actions("?actor=bob", LIMITED)).toEqual(["user:bob@example.com document.rollback"]);
    expect(await actions("?tenant=tools-b", LIMITED)).toEqual([]);
    expect(await actions("?action=user.*", LIMITED)).toEqual([]);
  });

  it("pages stay filtered: the cursor walks only matching entries", async () => {
    const first = await json(R.audit, {}, "?action=task.*&limit=2");
    expect(first.body.items).toHaveLength(2);
    const second = await json(R.audit, {}, `?action=task.*&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((i: any) => i.action)).toEqual(["task.force_done"]);
    expect(second.body.nextCursor).toBeNull();
  });

  it("bad filters are a 400 with a stable code", async () => {
    for (const q of [
      "?action=DROP TABLE",
      "?action=task.",
      "?from=yesterday",
      `?from=${at(1)}&to=${at(10)}`,
      "?tenant=Not A Tenant",
      "?actor=%00",
    ]) {
      const { status, body } = await json(R.audit, {}, q.replace(/ /g, "%20"));
      expect(status, q).toBe(400);
      expect(body.error.code, q).toBe("VALIDATION_FAILED");
    }
  });
});

describe("overview activity", () => {
  let docId: string;
  beforeAll(async () => {
    await publish("tools-a", "activity", "Activity", "# Activity\n\nFinished tasks are counted here.");
    await until("tools-a", "activity", "SEARCHABLE");
    await t.pool.query(`INSERT INTO tenants (id, name) VALUES ('tools-b', 'tools-b') ON CONFLICT DO NOTHING`);
    docId = (
      await t.pool.query<{ id: string }>(`SELECT id FROM documents WHERE tenant_id = 'tools-a' AND key = 'activity'`)
    ).rows[0].id;
    await t.pool.query(`UPDATE index_tasks SET finished_at = now() - interval '10 days' WHERE finished_at IS NOT NULL`);
    // Finished tasks at known ages: v = version number, so the business key stays unique.
    const rows: [string, string, number][] = [
      ["SUCCEEDED", "tools-a", 0.5],
      ["SUCCEEDED", "tools-a", 0.6],
      ["DEAD", "tools-a", 2.5],
      ["RESOLVED", "tools-a", 30],
      ["SUPERSEDED", "tools-a", 90],
      ["SUCCEEDED", "tools-b", 1.5],
      ["SUCCEEDED", "tools-a", 60 * 30],
      ["SUCCEEDED", "tools-a", 60 * 24 * 3],
    ];
    let v = 100;
    for (const [status, tenant, minutesAgo] of rows) {
      await t.pool.query(
        `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, created_at, finished_at)
         VALUES ($1, $2, $3, 'INDEX', $4, now() - make_interval(secs => $5::float8 * 60 + 60), now() - make_interval(secs => $5::float8 * 60))`,
        [tenant, docId, v++, status, minutesAgo],
      );
    }
    // The worker that indexed above may have sealed the last hours already (task outcome
    // roll-ups); tasks written into the past behind its watermark are what a sealed bucket never
    // counts, so the roll-up starts again from them.
    await t.pool.query(`TRUNCATE task_outcome_counts; UPDATE task_outcome_rollup SET sealed_until = NULL`);
  });

  it("1 h: one-minute buckets, tasks per minute by outcome, empty minutes as zeros", async () => {
    const { status, body } = await json(R.activity, {}, "?range=1h");
    expect(status).toBe(200);
    expect(body).toMatchObject({ range: "1h", bucketSeconds: 60, scope: "fleet" });
    expect(body.throughput).toHaveLength(60);
    expect(body.totals).toEqual({ SUCCEEDED: 3, DEAD: 1, RESOLVED: 1, SUPERSEDED: 0 });
    const sum = (k: string) => body.throughput.reduce((n: number, p: any) => n + p[k], 0);
    // Per minute over one-minute buckets: the sums are the counts (the partly covered oldest minute aside).
    expect(sum("SUCCEEDED")).toBe(3);
    expect(sum("DEAD")).toBe(1);
    const times = body.throughput.map((p: any) => Date.parse(p.at));
    expect(times.every((x: number, i: number) => i === 0 || x - times[i - 1] === 60_000)).toBe(true);
    expect(
      body.throughput.filter((p: any) => p.SUCCEEDED + p.DEAD + p.RESOLVED + p.SUPERSEDED === 0).length,
    ).toBeGreaterThan(50);
  });

  it("24 h and 7 d reach further back, in 15-minute and 2-hour buckets shown per minute", async () => {
    const day = (await json(R.activity, {}, "?range=24h")).body;
    expect(day.throughput).toHaveLength(96);
    // The task finished 30 hours ago is outside the day, inside the week.
    expect(day.totals).toEqual({ SUCCEEDED: 3, DEAD: 1, RESOLVED: 1, SUPERSEDED: 1 });
    const week = (await json(R.activity, {}, "?range=7d")).body;
    expect(week.throughput).toHaveLength(84);
    expect(week.totals.SUCCEEDED).toBe(5);
    // Per minute over 2-hour buckets: each task counts 1/120, so the rates add up to the count over 120.
    const sum = week.throughput.reduce((n: number, p: any) => n + p.SUCCEEDED, 0);
    expect(sum * 120).toBeCloseTo(5, 1);
  });

  it("a tenant-limited caller counts its tenants' tasks and gets no fleet history", async () => {
    await t.pool.query(
      `INSERT INTO backlog_snapshots (taken_at, pending, retry_wait, running, dead, due, drift_count) VALUES (now() - interval '5 minutes', 1, 0, 0, 0, 1, 0)`,
    );
    const fleet = (await json(R.activity, {}, "?range=1h")).body;
    expect(fleet.history.length).toBeGreaterThanOrEqual(1);
    const mine = (await json(R.activity, {}, "?range=1h", LIMITED)).body;
    expect(mine.scope).toBe("tenants");
    expect(mine.history).toEqual([]);
    expect(mine.totals).toEqual({ SUCCEEDED: 2, DEAD: 1, RESOLVED: 1, SUPERSEDED: 0 });
  });

  it("an unknown range is a 400", async () => {
    const { status, body } = await json(R.activity, {}, "?range=2w");
    expect(status).toBe(400);
    expect(body.error.code).toBe("VALIDATION_FAILED");
  });
});

describe("chunk browser", () => {
  const v1 =
    "# Guide\n\n## Install\n\nRun the installer and accept the licence.\n\n## Configure\n\nSet the harbour address in the settings file.\n\n## Use\n\nOpen the dashboard and watch the queue.\n";
  const v2 = v1.replace("Set the harbour address", "Set the lighthouse address");

  it("the served version's chunks in reading order, with section, level and text; reused or embedded after a re-publish", async () => {
    await publish("tools-a", "guide", "Guide", v1, { abstract: "A short guide." });
    const first = await until("tools-a", "guide", "SEARCHABLE");
    const a = (await json(R.chunks, { tenant: "tools-a", key: "guide" })).body;
    expect(a.textHidden).toBe(false);
    expect(a.indexVersions).toHaveLength(1);
    expect(a.indexVersions[0]).toMatchObject({ versionNumber: 1, serving: true, chunksReusedAtBuild: 0 });
    expect(a.indexVersionId).toBe(a.indexVersions[0].id);
    expect(a.items.map((c: any) => c.ordinal)).toEqual(
      [...a.items.map((c: any) => c.ordinal)].sort((x: number, y: number) => x - y),
    );
    expect(a.items.every((c: any) => c.reused === false)).toBe(true);
    const configure = a.items.find((c: any) => c.text?.includes("harbour"));
    expect(configure).toMatchObject({ level: 2 });
    expect(configure.sectionPath).toContain("Configure");
    expect(a.items.find((c: any) => c.level === 0)).toMatchObject({ sectionPath: "abstract", text: "A short guide." });
    expect(first.searchVersion).toBe(1);

    await publish("tools-a", "guide", "Guide", v2, { abstract: "A short guide." });
    await waitFor(
      async () => ((await json(R.doc, { tenant: "tools-a", key: "guide" })).body.searchVersion === 2 ? true : null),
      30_000,
    );
    const b = (await json(R.chunks, { tenant: "tools-a", key: "guide" })).body;
    expect(b.indexVersions.map((v: any) => [v.versionNumber, v.serving])).toEqual([
      [2, true],
      [1, false],
    ]);
    const changed = b.items.filter((c: any) => !c.reused);
    expect(changed.map((c: any) => c.text)).toEqual([expect.stringContaining("lighthouse")]);
    expect(b.items.filter((c: any) => c.reused).length).toBe(b.items.length - 1);
    expect(b.indexVersions[0].chunksReusedAtBuild).toBe(b.items.length - 1);

    // The older version is still browsable by its id, level by level, a page at a time.
    const old = (
      await json(
        R.chunks,
        { tenant: "tools-a", key: "guide" },
        `?indexVersion=${b.indexVersions[1].id}&level=2&limit=1`,
      )
    ).body;
    expect(old.indexVersionId).toBe(b.indexVersions[1].id);
    expect(old.items).toHaveLength(1);
    expect(old.items[0].level).toBe(2);
    const next = (
      await json(
        R.chunks,
        { tenant: "tools-a", key: "guide" },
        `?indexVersion=${b.indexVersions[1].id}&level=2&limit=1&cursor=${old.nextCursor}`,
      )
    ).body;
    expect(next.items[0].ordinal).toBeGreaterThan(old.items[0].ordinal);
  });

  it("text hidden where the version's ACL does not include the caller, as in search; the structure still shown", async () => {
    await publish("tools-a", "secret", "Secret", "# Secret\n\nThe vault opens at dawn.", { acl: ["group:vault"] });
    await until("tools-a", "secret", "SEARCHABLE");
    // The bootstrap token is an application: it has no principals, like a search without any.
    const body = (await json(R.chunks, { tenant: "tools-a", key: "secret" })).body;
    expect(body.textHidden).toBe(true);
    expect(body.textHiddenReason).toBe("ACL");
    expect(body.items.length).toBeGreaterThan(0);
    expect(body.items.every((c: any) => c.text === null && c.chars > 0)).toBe(true);
    // The heading ("Secret"), the content hash (which confirms a guessed text) and the chunk id
    // (derived from that hash) are hidden too.
    expect(body.items.every((c: any) => c.sectionPath === null && c.contentHash === null && c.chunkId === null)).toBe(
      true,
    );
  });

  it("an ACL tightened by a re-publish hides the retained older version too", async () => {
    const open = "# Payroll\n\nBands are reviewed every spring.";
    await publish("tools-a", "payroll", "Payroll", open);
    await until("tools-a", "payroll", "SEARCHABLE");
    const before = (await json(R.chunks, { tenant: "tools-a", key: "payroll" })).body;
    expect(before.textHidden).toBe(false);
    const v1 = before.indexVersionId;

    // The same text, now for group:hr only. The caller (no principals) may no longer search it.
    await publish("tools-a", "payroll", "Payroll", open, { acl: ["group:hr"] });
    await waitFor(
      async () => ((await json(R.doc, { tenant: "tools-a", key: "payroll" })).body.searchVersion === 2 ? true : null),
      30_000,
    );
    for (const query of ["", `?indexVersion=${v1}`]) {
      const body = (await json(R.chunks, { tenant: "tools-a", key: "payroll" }, query)).body;
      expect(body.textHidden, query || "served version").toBe(true);
      expect(body.textHiddenReason).toBe("ACL");
      expect(body.items.every((c: any) => c.text === null && c.sectionPath === null)).toBe(true);
    }
  });

  it("a deleted document's kept versions are not readable", async () => {
    await publish("tools-a", "gone", "Gone", "# Gone\n\nThe old ferry timetable.");
    await until("tools-a", "gone", "SEARCHABLE");
    const v1 = (await json(R.chunks, { tenant: "tools-a", key: "gone" })).body.indexVersionId;
    expect((await send(R.doc, "DELETE", { tenant: "tools-a", key: "gone" })).status).toBe(202);
    for (const query of ["", `?indexVersion=${v1}`]) {
      const { status, body } = await json(R.chunks, { tenant: "tools-a", key: "gone" }, query);
      expect(status).toBe(200);
      expect(body.textHidden, query || "default version").toBe(true);
      expect(body.textHiddenReason).toBe("DELETED");
      expect(body.items.every((c: any) => c.text === null && c.contentHash === null)).toBe(true);
    }
  });

  it("an unknown document or index version is a 404; another tenant's document is a 403; a bad query is a 400", async () => {
    expect((await json(R.chunks, { tenant: "tools-a", key: "nope" })).status).toBe(404);
    expect((await json(R.chunks, { tenant: "tools-a", key: "guide" }, `?indexVersion=${randomUUID()}`)).status).toBe(
      404,
    );
    const other = await json(R.chunks, { tenant: "tools-b", key: "hidden" }, "", LIMITED);
    expect(other.status).toBe(403);
    for (const q of ["?level=3", "?indexVersion=abc", "?limit=0", "?cursor=-1", "?text=x"]) {
      const { status, body } = await json(R.chunks, { tenant: "tools-a", key: "guide" }, q);
      expect(status, q).toBe(400);
      expect(body.error.code, q).toBe("VALIDATION_FAILED");
    }
  });
});
