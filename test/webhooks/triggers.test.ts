import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { requestDelete, reindex, rollback, unpin } from "../../lib/documents/repository";
import { forceDone, retryTask, cancelTask } from "../../lib/operations/repository";
import { LocalEmbedder } from "../../lib/embedding";
import { spaceOf } from "../../lib/embedding/types";
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from "../../lib/webhooks/constants";
import type { Worker } from "../../worker/loop";

// The outbox triggers (prisma/migrations/20261130070000_webhooks) driven through the same library
// functions the API and the worker call: which state changes write an event, with what payload,
// and which do not (rolled back, superseded, repeated, force-closed, rolled back to an older version).

let t: TestDb;
let worker: Worker;
const space = spaceOf(new LocalEmbedder(384));
const actor = { subject: "user:test@example.com" };

type Ev = { type: string; tenant: string; data: Record<string, unknown>; deliveries: number };
async function events(tenant = "wh"): Promise<Ev[]> {
  const { rows } = await t.pool.query(
    `SELECT e.type, e.tenant_id AS tenant, e.payload, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
       FROM webhook_events e WHERE e.tenant_id = $1 ORDER BY e.id`,
    [tenant],
  );
  return rows.map((r) => {
    expect(r.payload.type).toBe(r.type);
    expect(Date.parse(r.payload.timestamp)).not.toBeNaN();
    return { type: r.type, tenant: r.tenant, data: r.payload.data, deliveries: r.deliveries };
  });
}
const brief = async (tenant = "wh") => (await events(tenant)).map((e) => `${e.type}:${e.data.key}:${e.data.version}`);

async function pub(key: string, content: string, tenant = "wh") {
  return publish(t.pool, {
    tenant,
    key,
    title: key,
    contentType: "text/plain",
    content: Buffer.from(content),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 3,
  });
}
const status = async (taskId: string) =>
  (await t.pool.query<{ status: string }>(`SELECT status FROM index_tasks WHERE task_id = $1`, [taskId])).rows[0]
    .status;
const settled = (taskId: string | null, want: string[] = ["SUCCEEDED", "DEAD", "SUPERSEDED"]) =>
  waitFor(async () => want.includes(await status(taskId!)), 30_000);

async function endpoint(tenant: string, eventTypes: string[], enabled = true): Promise<string> {
  const id = randomUUID();
  await t.pool.query(
    `INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, enabled, secret, created_by) VALUES ($1, $2, 'http://127.0.0.1:9/hook', $3, $4, 'whsec_dGVzdA==', 'test')`,
    [id, tenant, eventTypes, enabled],
  );
  return id;
}

beforeAll(async () => {
  t = await createTestDb();
  worker = testWorker(t, "wh-worker");
  await worker.start();
});
afterAll(async () => {
  await worker?.stop(1000);
  await t?.close();
});
beforeEach(async () => {
  await t.pool.query(`TRUNCATE webhook_endpoints, webhook_events, webhook_deliveries`);
});

describe("webhook vocabularies", () => {
  it("event types and delivery states are the migration's CHECK lists", async () => {
    const { rows } = await t.pool.query<{ name: string; def: string }>(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE conname IN ('webhook_endpoints_event_types_known', 'webhook_events_type_known', 'webhook_deliveries_status_known')`,
    );
    const quoted = (def: string) => [...def.matchAll(/'([^']+)'/g)].map((m) => m[1]).sort();
    const by = Object.fromEntries(rows.map((r) => [r.name, quoted(r.def)]));
    expect(by.webhook_endpoints_event_types_known).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    expect(by.webhook_events_type_known).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    expect(by.webhook_deliveries_status_known).toEqual([...DELIVERY_STATUSES].sort());
  });
});

describe("outbox triggers", () => {
  it("write nothing for a tenant with no subscribed, enabled endpoint", async () => {
    await endpoint("wh", ["task.dead"], false);
    await endpoint("elsewhere", ["document.searchable", "document.deleted"]);
    await endpoint("wh", ["document.failed"]);
    const r = await pub("quiet", "nobody listens for this");
    await settled(r.taskId);
    await requestDelete(t.pool, "wh", "quiet", "test", 3);
    expect(await events()).toEqual([]);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM webhook_events`)).rows[0].n).toBe(0);
  });

  it("fan out one event to one delivery per enabled endpoint of the tenant subscribed to its type", async () => {
    const a = await endpoint("wh", ["document.searchable"]);
    const b = await endpoint("wh", ["document.searchable", "task.dead"]);
    await endpoint("wh", ["document.searchable"], false);
    await endpoint("wh", ["document.deleted"]);
    await endpoint("other", ["document.searchable"]);
    const r = await pub("fan", "fan out to two");
    await settled(r.taskId);
    const evs = await events();
    expect(evs.map((e) => [e.type, e.deliveries])).toEqual([["document.searchable", 2]]);
    const { rows } = await t.pool.query(
      `SELECT endpoint_id::text, tenant_id, status, attempts FROM webhook_deliveries ORDER BY endpoint_id`,
    );
    expect(rows).toEqual(
      [a, b].sort().map((id) => ({ endpoint_id: id, tenant_id: "wh", status: "PENDING", attempts: 0 })),
    );
  });

  it("document.searchable when the business version starts serving, not for a same-space rebuild, an identical republish or a rollback; again after unpin", async () => {
    await endpoint("wh", ["document.searchable", "document.deleted", "document.failed", "task.dead"]);
    const v1 = await pub("life", "first version of the life document");
    await settled(v1.taskId);
    const [first] = await events();
    const docId = (await t.pool.query(`SELECT id FROM documents WHERE key = 'life'`)).rows[0].id;
    const iv = (
      await t.pool.query(`SELECT index_version_id::text AS id FROM search_pointers WHERE document_id = $1`, [docId])
    ).rows[0].id;
    expect(first).toEqual({
      type: "document.searchable",
      tenant: "wh",
      deliveries: 1,
      data: {
        tenant: "wh",
        key: "life",
        documentId: docId,
        version: 1,
        indexVersionId: iv,
        embeddingModel: space.model,
        embeddingDimensions: space.dimensions,
      },
    });

    // The same content again is no new version; a REINDEX rebuilds v1 in the same space.
    const same = await pub("life", "first version of the life document");
    expect(same.created).toBe(false);
    const re = await reindex(t.pool, "wh", "life", actor, 3);
    await settled(String((re as { taskId: string }).taskId));
    expect(await brief()).toEqual(["document.searchable:life:1"]);

    const v2 = await pub("life", "second version of the life document");
    await settled(v2.taskId);
    expect(await brief()).toEqual(["document.searchable:life:1", "document.searchable:life:2"]);

    // Rolling back serves an older version: not the business version, no event. Unpinning
    // returns to v2, which starts serving again: reported again.
    await rollback(t.pool, "wh", "life", 1, "bad edit", actor, 24);
    expect(await brief()).toHaveLength(2);
    await unpin(t.pool, "wh", "life", actor, { retentionHours: 24, maxAttempts: 3 });
    expect(await brief()).toEqual([
      "document.searchable:life:1",
      "document.searchable:life:2",
      "document.searchable:life:2",
    ]);
  });

  it("document.searchable again when the business version comes back in another embedding space", async () => {
    await endpoint("wh", ["document.searchable"]);
    const v1 = await pub("space", "a document whose model changes");
    await settled(v1.taskId);
    const docId = (await t.pool.query(`SELECT id FROM documents WHERE key = 'space'`)).rows[0].id;
    // A build of v1 by another model, switched to as the worker's switch would (same statement shape).
    const other = randomUUID();
    await t.pool.query(
      `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, expected_chunk_count)
       VALUES ($1, 'wh', $2, 1, 'READY', 'c', 'another-model', 384, 0, 0)`,
      [other, docId],
    );
    await t.pool.query(`UPDATE search_pointers SET index_version_id = $2, updated_at = now() WHERE document_id = $1`, [
      docId,
      other,
    ]);
    const evs = await events();
    expect(evs.map((e) => [e.type, e.data.version, e.data.embeddingModel])).toEqual([
      ["document.searchable", 1, space.model],
      ["document.searchable", 1, "another-model"],
    ]);
  });

  it("nothing survives a rolled-back change", async () => {
    await endpoint("wh", ["document.deleted"]);
    const r = await pub("undo", "deleted in a transaction that rolls back");
    await settled(r.taskId);
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      await c.query(`UPDATE documents SET deleted_at = now() WHERE key = 'undo'`);
      expect((await c.query(`SELECT count(*)::int AS n FROM webhook_deliveries`)).rows[0].n).toBe(1);
      await c.query("ROLLBACK");
    } finally {
      c.release();
    }
    expect(await events()).toEqual([]);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries`)).rows[0].n).toBe(0);
  });

  it("document.deleted once, when the delete is requested; a re-publish after it is searchable at the new version", async () => {
    await endpoint("wh", ["document.searchable", "document.deleted", "task.dead"]);
    const v1 = await pub("gone", "to be deleted");
    await settled(v1.taskId);
    const del = await requestDelete(t.pool, "wh", "gone", "test", 3);
    expect(await brief()).toEqual(["document.searchable:gone:1", "document.deleted:gone:1"]);
    // A second request changes nothing and reports nothing.
    await requestDelete(t.pool, "wh", "gone", "test", 3);
    await settled(del!.taskId, ["SUCCEEDED"]);
    expect(await brief()).toHaveLength(2);
    const deleted = (await events())[1];
    expect(deleted.data).toMatchObject({ tenant: "wh", key: "gone", version: 1 });

    const v2 = await pub("gone", "back again after the delete");
    await settled(v2.taskId, ["SUCCEEDED"]);
    expect(await brief()).toEqual([
      "document.searchable:gone:1",
      "document.deleted:gone:1",
      "document.searchable:gone:2",
    ]);
  });

  it("task.dead and document.failed when the business version's task dies; again after a retry dies; nothing on force-done", async () => {
    await endpoint("wh", ["document.failed", "task.dead"]);
    const r = await pub("empty", "");
    await settled(r.taskId, ["DEAD"]);
    const evs = await events();
    expect(evs.map((e) => e.type)).toEqual(["task.dead", "document.failed"]);
    expect(evs[0].data).toMatchObject({
      tenant: "wh",
      key: "empty",
      version: 1,
      taskId: r.taskId,
      taskType: "INDEX",
      errorCode: "EMPTY_DOCUMENT",
    });
    expect(evs[1].data).toMatchObject({
      tenant: "wh",
      key: "empty",
      version: 1,
      taskId: r.taskId,
      errorCode: "EMPTY_DOCUMENT",
    });

    await retryTask(t.pool, r.taskId!, actor, "try again", 3, null);
    await waitFor(async () => (await events()).length === 4, 30_000);
    expect((await events()).map((e) => e.type)).toEqual([
      "task.dead",
      "document.failed",
      "task.dead",
      "document.failed",
    ]);

    await forceDone(t.pool, r.taskId!, actor, "accepted", null);
    expect(await status(r.taskId!)).toBe("RESOLVED");
    expect(await events()).toHaveLength(4);
  });

  it("document.failed only for the task the document state reads: not an older task of the version, not a DELETE, not a deleted document", async () => {
    await endpoint("wh", ["document.failed", "task.dead"]);
    const r = await pub("older", "indexed fine");
    await settled(r.taskId);
    const doc = (await t.pool.query(`SELECT id FROM documents WHERE key = 'older'`)).rows[0].id;
    // Two waiting tasks of a business version 2 (as after an operator REINDEX next to an INDEX),
    // due in an hour so the worker leaves them alone; the older one dies.
    await t.pool.query(`UPDATE documents SET business_version = 2 WHERE id = $1`, [doc]);
    const { rows } = await t.pool.query<{ task_id: string }>(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, next_attempt_at)
       VALUES ('wh', $1, 2, 'INDEX', 'RETRY_WAIT', now() + interval '1 hour'), ('wh', $1, 2, 'REINDEX', 'RETRY_WAIT', now() + interval '1 hour') RETURNING task_id::text`,
      [doc],
    );
    await t.pool.query(`UPDATE index_tasks SET status = 'DEAD', error_code = 'INTERNAL_ERROR' WHERE task_id = $1`, [
      rows[0].task_id,
    ]);
    expect((await events()).map((e) => e.type)).toEqual(["task.dead"]);
    // The newest one dying does fail the document.
    await t.pool.query(`UPDATE index_tasks SET status = 'DEAD', error_code = 'INTERNAL_ERROR' WHERE task_id = $1`, [
      rows[1].task_id,
    ]);
    expect((await events()).map((e) => e.type)).toEqual(["task.dead", "task.dead", "document.failed"]);
    // Still DEAD after another update of the row (a status write that is not a transition).
    await t.pool.query(`UPDATE index_tasks SET status = 'DEAD', updated_at = now() WHERE task_id = $1`, [
      rows[1].task_id,
    ]);
    expect(await events()).toHaveLength(3);

    // A deleted document's DELETE task dying: task.dead only.
    await t.pool.query(`UPDATE documents SET business_version = 1 WHERE id = $1`, [doc]);
    const del = await requestDelete(t.pool, "wh", "older", "test", 3);
    await settled(del!.taskId, ["SUCCEEDED"]);
    await t.pool.query(`UPDATE index_tasks SET status = 'DEAD', error_code = 'INTERNAL_ERROR' WHERE task_id = $1`, [
      del!.taskId,
    ]);
    const last = (await events()).slice(3);
    expect(last.map((e) => [e.type, e.data.taskType])).toEqual([["task.dead", "DELETE"]]);
  });

  it("a cancelled build of the business version sends document.failed (cancelled), never task.dead; cancelling an older task sends nothing", async () => {
    await endpoint("wh", ["document.failed", "task.dead"]);
    const r = await pub("halted", "indexed fine");
    await settled(r.taskId);
    const doc = (await t.pool.query(`SELECT id FROM documents WHERE key = 'halted'`)).rows[0].id;
    // Business version 2 with two waiting tasks, due in an hour so the worker leaves them alone.
    await t.pool.query(`UPDATE documents SET business_version = 2 WHERE id = $1`, [doc]);
    const { rows } = await t.pool.query<{ task_id: string }>(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, next_attempt_at)
       VALUES ('wh', $1, 2, 'INDEX', 'RETRY_WAIT', now() + interval '1 hour'), ('wh', $1, 2, 'REINDEX', 'PENDING', now() + interval '1 hour') RETURNING task_id::text`,
      [doc],
    );
    await cancelTask(t.pool, rows[0].task_id, actor, "not this one", null);
    expect(await events()).toEqual([]);
    await cancelTask(t.pool, rows[1].task_id, actor, "wrong source file", null);
    const evs = await events();
    expect(evs.map((e) => e.type)).toEqual(["document.failed"]);
    expect(evs[0].data).toMatchObject({
      key: "halted",
      version: 2,
      taskId: rows[1].task_id,
      errorCode: "OPERATOR_CANCELLED",
      cancelled: true,
    });
  });

  it("a task superseded by a re-publish reports nothing; its successor reports the new version", async () => {
    await endpoint("wh", ["document.searchable", "document.failed", "task.dead"]);
    await worker.stop(1000);
    const v1 = await pub("race", "first, superseded before any worker sees it");
    const v2 = await pub("race", "second, the one that gets indexed");
    expect(await status(v1.taskId!)).toBe("SUPERSEDED");
    worker = testWorker(t, "wh-worker");
    await worker.start();
    await settled(v2.taskId, ["SUCCEEDED"]);
    expect(await brief()).toEqual(["document.searchable:race:2"]);
  });
});
