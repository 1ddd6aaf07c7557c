import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetContent } from "../helpers/seed";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor, SlowEmbedder, longDocument } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { claim } from "../../lib/queue/engine";
import { executeTask } from "../helpers/pipeline";
import { LocalEmbedder } from "../../lib/embedding";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await resetContent(t.pool);
});

const pub = (key: string, content: string) =>
  publish(t.pool, {
    tenant: "sw",
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(content),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 8,
  });

const pointer = async (key: string) =>
  (
    await t.pool.query(
      `SELECT sp.version_number FROM search_pointers sp JOIN documents d ON d.id = sp.document_id WHERE d.key = $1`,
      [key],
    )
  ).rows[0]?.version_number ?? null;

describe("supersede and the forward-only pointer", () => {
  it("v3 published while v2 is running: v2 ends SUPERSEDED and never switches; the search version ends at v3", async () => {
    const fast = testWorker(t, "fast", {}, 1);
    await fast.start();
    await pub("policy", longDocument(8, "one"));
    await waitFor(async () => (await pointer("policy")) === 1);
    await fast.stop(2000);

    const slow = new SlowEmbedder(600);
    const w = testWorker(t, "slow", { LEASE_SECONDS: "5", HEARTBEAT_SECONDS: "0.2", EMBED_BATCH_SIZE: "2" }, 1, slow);
    const v2 = await pub("policy", longDocument(8, "two"));
    await w.start();
    await waitFor(
      async () =>
        (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [v2.taskId])).rows[0].status ===
        "RUNNING",
    );
    const v3 = await pub("policy", longDocument(8, "three"));
    expect(v3.versionNumber).toBe(3);
    const sup = (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [v2.taskId])).rows[0];
    expect(sup.status).toBe("SUPERSEDED");
    await waitFor(async () => (await pointer("policy")) === 3, 30_000);
    await w.stop(3000);

    expect((await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [v2.taskId])).rows[0].status).toBe(
      "SUPERSEDED",
    );
    const ivs = await t.pool.query(`SELECT version_number, status FROM index_versions ORDER BY version_number`);
    expect(ivs.rows).toEqual([
      { version_number: 1, status: "RETIRED" },
      { version_number: 3, status: "ACTIVE" },
    ]);
    const kinds = (
      await t.pool.query(`SELECT kind FROM task_events WHERE task_id = $1 ORDER BY id`, [v2.taskId])
    ).rows.map((r) => r.kind);
    expect(kinds).toContain("SUPERSEDED");
    expect(kinds).not.toContain("SUCCEEDED");
  });

  it("a slower task for an older version never moves the pointer backwards", async () => {
    const a = await pub("doc", "# Doc\n\nfirst version text");
    // v2 inserted without superseding v1, as if both were legitimately in flight.
    await t.pool.query(
      `INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, published_by)
                        SELECT gen_random_uuid(), tenant_id, document_id, 2, title, content_type, convert_to('# Doc\n\nsecond version text', 'UTF8'), 10, 'x', 'test' FROM document_versions WHERE document_id = $1`,
      [a.documentId],
    );
    await t.pool.query(`UPDATE documents SET business_version = 2 WHERE id = $1`, [a.documentId]);
    await t.pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, next_attempt_at) VALUES ('sw', $1, 2, 'INDEX', now() + interval '1 second')`,
      [a.documentId],
    );
    const [l1] = await claim(t.pool, "w1", 60, 1);
    await new Promise((r) => setTimeout(r, 1100));
    const [l2] = await claim(t.pool, "w2", 60, 1);
    expect([l1.versionNumber, l2.versionNumber]).toEqual([1, 2]);
    const hooks = { signal: new AbortController().signal, progress: () => undefined };
    const opts = { batchSize: 16, batchMaxBytes: 1 << 20 };
    await executeTask(t.pool, new LocalEmbedder(), l2, hooks, opts);
    // The late v1 run finds, under the document lock, that the business version moved past it:
    // it writes nothing and ends SUPERSEDED with the reason on its timeline.
    expect(await executeTask(t.pool, new LocalEmbedder(), l1, hooks, opts)).toBeNull();
    expect(await pointer("doc")).toBe(2);
    const ivs = await t.pool.query(`SELECT version_number, status FROM index_versions ORDER BY version_number`);
    expect(ivs.rows).toEqual([{ version_number: 2, status: "ACTIVE" }]);
    const late = await t.pool.query(
      `SELECT t.status, e.detail FROM index_tasks t JOIN task_events e ON e.task_id = t.task_id AND e.kind = 'SUPERSEDED' WHERE t.task_id = $1`,
      [l1.taskId],
    );
    expect(late.rows).toEqual([
      { status: "SUPERSEDED", detail: { reason: "a newer version was published", businessVersion: 2 } },
    ]);
  });
});
