import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomUUID } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { LocalEmbedder } from "../../lib/embedding";
import { TaskError } from "../../lib/queue/errors";
import type { Worker } from "../../worker/loop";

// Operator actions through the real route handlers: retry, bulk retry, force-done, rollback,
// reindex, rename, task listing and timeline, overview, and role checks.
const ADMIN = "ops-admin-token-0123456789abcdef";
const VIEWER = "ops-viewer-token-0123456789abcdef";

/** The local embedder, switchable into a broken provider that answers with a wrong dimension. */
class FlakyEmbedder extends LocalEmbedder {
  broken = false;
  texts = 0;
  override async embed(texts: string[], signal: AbortSignal) {
    if (this.broken) throw new TaskError("EMBEDDING_INVALID_RESPONSE", "embedding has 12 dimensions, expected 384");
    this.texts += texts.length;
    return super.embed(texts, signal);
  }
}

let t: TestDb;
let worker: Worker;
const embedder = new FlakyEmbedder(384);
let R: Record<string, any>;

beforeAll(async () => {
  t = await createTestDb();
  process.env.DATABASE_URL = t.url;
  process.env.INDEXWRIGHT_BOOTSTRAP_TOKEN = ADMIN;
  process.env.LOG_LEVEL = "silent";
  await t.pool.query(
    `INSERT INTO api_tokens (id, name, token_hash, role, tenants) VALUES ($1, 'viewer-bot', $2, 'viewer', ARRAY['*'])`,
    [randomUUID(), createHash("sha256").update(VIEWER).digest("hex")],
  );
  const base = "../../app/api/v1";
  R = {
    publish: await import(`${base}/tenants/[tenant]/documents/[key]/versions/route`),
    doc: await import(`${base}/tenants/[tenant]/documents/[key]/route`),
    search: await import(`${base}/tenants/[tenant]/search/route`),
    rollback: await import(`${base}/tenants/[tenant]/documents/[key]/rollback/route`),
    reindex: await import(`${base}/tenants/[tenant]/documents/[key]/reindex/route`),
    rename: await import(`${base}/tenants/[tenant]/documents/[key]/rename/route`),
    tasks: await import(`${base}/tasks/route`),
    task: await import(`${base}/tasks/[taskId]/route`),
    retry: await import(`${base}/tasks/[taskId]/retry/route`),
    forceDone: await import(`${base}/tasks/[taskId]/force-done/route`),
    bulkRetry: await import(`${base}/tasks/retry/route`),
    overview: await import(`${base}/overview/route`),
  };
  worker = testWorker(t, "ops-worker", {}, 2, embedder);
  await worker.start();
});
afterAll(async () => {
  await worker?.stop(5000);
  const { closePools } = await import("../../lib/db/pool");
  await closePools();
  await t?.close();
});

const ctx = <P>(p: P) => ({ params: Promise.resolve(p) });
const call = async (route: any, method: string, params: object, body?: unknown, token = ADMIN, query = "") => {
  const res: Response = await route[method](
    new Request(`http://localhost/x${query}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    ctx(params),
  );
  return { status: res.status, body: await res.json() };
};
const publish = (key: string, content: string, tenant = "ops") =>
  call(R.publish, "POST", { tenant, key }, { title: key, contentType: "text/markdown", content });
const doc = async (key: string, tenant = "ops") => (await call(R.doc, "GET", { tenant, key })).body;
const hits = async (query: string, tenant = "ops") => (await call(R.search, "POST", { tenant }, { query })).body.hits;
const until = (key: string, pred: (d: any) => boolean) =>
  waitFor(async () => {
    const d = await doc(key);
    return pred(d) ? d : null;
  });

describe("operator actions", () => {
  it("a provider failure leaves the task DEAD with its code; retry after recovery makes it SEARCHABLE", async () => {
    embedder.broken = true;
    const p = await publish("broken-doc", "# Broken\n\nThe quartz clock chimes thirteen times at midnight.");
    const dead = await until("broken-doc", (d) => d.state === "FAILED");
    expect(dead.lastError).toEqual({
      code: "EMBEDDING_INVALID_RESPONSE",
      message: "embedding has 12 dimensions, expected 384",
    });
    expect(await hits("quartz clock chimes thirteen times")).toEqual([]);

    const listed = await call(
      R.tasks,
      "GET",
      {},
      undefined,
      ADMIN,
      "?status=DEAD&errorCode=EMBEDDING_INVALID_RESPONSE",
    );
    expect(listed.body.items.map((i: any) => i.taskId)).toEqual([p.body.taskId]);

    const forbidden = await call(R.retry, "POST", { taskId: p.body.taskId }, {}, VIEWER);
    expect(forbidden.status).toBe(403);
    embedder.broken = false;
    const r = await call(R.retry, "POST", { taskId: p.body.taskId }, { reason: "provider fixed" });
    expect(r).toEqual({ status: 200, body: { taskId: p.body.taskId, status: "PENDING" } });
    await until("broken-doc", (d) => d.state === "SEARCHABLE");
    expect((await hits("quartz clock chimes thirteen times"))[0].documentKey).toBe("broken-doc");

    const again = await call(R.retry, "POST", { taskId: p.body.taskId }, {});
    expect(again.status).toBe(409);
    const timeline = (await call(R.task, "GET", { taskId: p.body.taskId })).body.events.map((e: any) => e.kind);
    expect(timeline).toEqual(["CREATED", "CLAIMED", "FAILED", "DEAD", "OPERATOR_RETRY", "CLAIMED", "SUCCEEDED"]);
    const audit = await t.pool.query(`SELECT actor, action, reason FROM audit_log WHERE action = 'task.retry'`);
    expect(audit.rows).toEqual([{ actor: "token:bootstrap", action: "task.retry", reason: "provider fixed" }]);
  });

  it("bulk retry by filter retries only the matching DEAD tasks", async () => {
    embedder.broken = true;
    await publish("bulk-a", "# A\n\nalpha text");
    await publish("bulk-b", "# B\n\nbeta text");
    await until("bulk-a", (d) => d.state === "FAILED");
    await until("bulk-b", (d) => d.state === "FAILED");
    embedder.broken = false;
    const other = await call(R.bulkRetry, "POST", {}, { status: "DEAD", errorCode: "PARSE_ERROR" });
    expect(other.body).toEqual({ retried: 0, skipped: 0 });
    const bad = await call(R.bulkRetry, "POST", {}, { status: "RUNNING" });
    expect(bad.status).toBe(400);
    const r = await call(
      R.bulkRetry,
      "POST",
      {},
      { status: "DEAD", errorCode: "EMBEDDING_INVALID_RESPONSE", tenant: "ops" },
    );
    expect(r.body).toEqual({ retried: 2, skipped: 0 });
    await until("bulk-a", (d) => d.state === "SEARCHABLE");
    await until("bulk-b", (d) => d.state === "SEARCHABLE");
  });

  it("force-done closes a DEAD task as RESOLVED; the older version keeps serving and the drift is acknowledged", async () => {
    await publish("forced", "# Forced\n\nversion one mentions the copper kettle.");
    await until("forced", (d) => d.state === "SEARCHABLE");
    embedder.broken = true;
    const v2 = await publish("forced", "# Forced\n\nversion two mentions the silver teapot.");
    await until("forced", (d) => d.state === "FAILED");
    embedder.broken = false;
    const noReason = await call(R.forceDone, "POST", { taskId: v2.body.taskId }, {});
    expect(noReason.status).toBe(400);
    const r = await call(R.forceDone, "POST", { taskId: v2.body.taskId }, { reason: "v2 withdrawn by legal" });
    expect(r.body).toEqual({ taskId: v2.body.taskId, status: "RESOLVED" });
    const d = await doc("forced");
    expect(d).toMatchObject({ state: "SEARCHABLE", businessVersion: 2, searchVersion: 1 });
    expect(d.tasks[0]).toMatchObject({ status: "RESOLVED" });
    expect((await hits("copper kettle"))[0].documentKey).toBe("forced");
    const ov = (await call(R.overview, "GET", {})).body;
    expect(ov.drift.acknowledged).toBeGreaterThanOrEqual(1);
  });

  it("rollback points search at the previous version and pins it until the next publish", async () => {
    await publish("rolled", "# Rolled\n\nThe ferry leaves from pier seven every hour.");
    await until("rolled", (d) => d.searchVersion === 1 && d.state === "SEARCHABLE");
    await publish("rolled", "# Rolled\n\nThe ferry now leaves from pier nine twice an hour.");
    await until("rolled", (d) => d.searchVersion === 2 && d.state === "SEARCHABLE");
    expect((await hits("ferry pier nine twice an hour"))[0].text).toContain("pier nine");
    const viewer = await call(
      R.rollback,
      "POST",
      { tenant: "ops", key: "rolled" },
      { toVersion: 1, reason: "bad edit" },
      VIEWER,
    );
    expect(viewer.status).toBe(403);
    const missing = await call(R.rollback, "POST", { tenant: "ops", key: "rolled" }, { toVersion: 7, reason: "typo" });
    expect(missing.status).toBe(409);
    const r = await call(R.rollback, "POST", { tenant: "ops", key: "rolled" }, { toVersion: 1, reason: "bad edit" });
    expect(r.body).toMatchObject({ searchVersion: 1, pinned: true });
    const top = (await hits("ferry pier"))[0];
    expect(top).toMatchObject({ documentKey: "rolled", versionNumber: 1 });
    expect(top.text).toContain("pier seven");
    const d = await doc("rolled");
    expect(d).toMatchObject({ businessVersion: 2, searchVersion: 1 });

    // Publishing version 2's content again changes nothing and queues nothing. The answer says
    // SEARCHABLE, and says that version 1 is what search serves, held there by the pin.
    const same = await publish("rolled", "# Rolled\n\nThe ferry now leaves from pier nine twice an hour.");
    expect(same).toEqual({
      status: 200,
      body: {
        documentId: d.documentId,
        versionNumber: 2,
        taskId: expect.any(String),
        state: "SEARCHABLE",
        searchVersion: 1,
        searchVersionServed: true,
        pinned: true,
      },
    });
  });

  it("reindex builds a new index version of the business version; rename answers with the new key without re-embedding", async () => {
    await publish("renamed", "# Renamed\n\nLanterns are lit along the harbour wall at dusk.");
    await until("renamed", (d) => d.state === "SEARCHABLE");
    const before = embedder.texts;
    const re = await call(R.reindex, "POST", { tenant: "ops", key: "renamed" });
    expect(re.status).toBe(202);
    await waitFor(
      async () =>
        (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [re.body.taskId])).rows[0].status ===
        "SUCCEEDED",
    );
    // Same model and chunker: every chunk's embedding is reused.
    expect(embedder.texts).toBe(before);
    const d = await doc("renamed");
    expect(d.indexVersions.filter((v: any) => v.status === "ACTIVE")).toHaveLength(1);
    expect(d.indexVersions).toHaveLength(2);

    const chunksBefore = (await t.pool.query(`SELECT count(*)::int AS n FROM chunks`)).rows[0].n;
    const rn = await call(R.rename, "POST", { tenant: "ops", key: "renamed" }, { newKey: "harbour-lights" });
    expect(rn.body).toEqual({ tenant: "ops", key: "harbour-lights", renamed: true });
    expect((await hits("Lanterns along the harbour wall"))[0].documentKey).toBe("harbour-lights");
    const again = await call(R.rename, "POST", { tenant: "ops", key: "renamed" }, { newKey: "harbour-lights" });
    expect(again).toEqual({ status: 200, body: { tenant: "ops", key: "harbour-lights", renamed: false } });
    const taken = await call(R.rename, "POST", { tenant: "ops", key: "harbour-lights" }, { newKey: "rolled" });
    expect(taken.status).toBe(409);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM chunks`)).rows[0].n).toBe(chunksBefore);
    expect(embedder.texts).toBe(before);
  });

  it("a viewer can read but every mutation is 403", async () => {
    expect((await call(R.doc, "GET", { tenant: "ops", key: "rolled" }, undefined, VIEWER)).status).toBe(200);
    expect((await call(R.tasks, "GET", {}, undefined, VIEWER)).status).toBe(200);
    expect(
      (
        await call(
          R.publish,
          "POST",
          { tenant: "ops", key: "x" },
          { title: "x", contentType: "text/plain", content: "x" },
          VIEWER,
        )
      ).status,
    ).toBe(403);
    expect((await call(R.reindex, "POST", { tenant: "ops", key: "rolled" }, undefined, VIEWER)).status).toBe(403);
    expect((await call(R.rename, "POST", { tenant: "ops", key: "rolled" }, { newKey: "y" }, VIEWER)).status).toBe(403);
    expect((await call(R.bulkRetry, "POST", {}, { status: "DEAD" }, VIEWER)).status).toBe(403);
  });

  it("lists tasks newest first with cursor pagination", async () => {
    const first = await call(R.tasks, "GET", {}, undefined, ADMIN, "?limit=3");
    expect(first.body.items).toHaveLength(3);
    const second = await call(R.tasks, "GET", {}, undefined, ADMIN, `?limit=3&cursor=${first.body.nextCursor}`);
    const ids = [...first.body.items, ...second.body.items].map((i: any) => Number(i.taskId));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(ids.length);
    expect((await call(R.tasks, "GET", {}, undefined, ADMIN, "?status=NOPE")).status).toBe(400);
  });
});
