import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { resetContent } from "../helpers/seed";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";

// One worker slot runs several tasks; each task's outcome is recorded when it is decided, not when
// the slot's last task ends. A task stops renewing its lease at its switch, so a failure there that
// waited for its siblings could outlive the lease: the failure went unrecorded, and on the last
// attempt the next claim marked the task DEAD with LEASE_ATTEMPTS_EXHAUSTED instead of its error.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t?.pool
    .query(`DROP TRIGGER IF EXISTS slow_delete ON index_tasks; DROP TRIGGER IF EXISTS garble ON chunks`)
    .catch(() => undefined);
  await t?.close();
});
beforeEach(async () => {
  await resetContent(t.pool);
});

const TENANT = "slot";
const text = (key: string) =>
  [
    `# ${key}`,
    ...[0, 1, 2].map((i) => `## Part ${i}\n\nThe ${key} rule ${i} says requests about ${key} go to desk ${i}.`),
  ].join("\n\n");
const pub = (key: string) =>
  publish(t.pool, {
    tenant: TENANT,
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(text(key)),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 1,
  });

it("a batch member that fails in the switch has its failure recorded while a slow sibling still runs", async () => {
  const good = await pub("good");
  const bad = await pub("bad");
  // A DELETE in the same claim runs after the batch, on its own, and takes 4 s to complete:
  // longer than the 1.5 s lease the failed member no longer renews.
  const gone = await pub("gone");
  await t.pool.query(`UPDATE index_tasks SET status = 'SUPERSEDED' WHERE task_id = $1`, [gone.taskId]);
  await t.pool.query(`UPDATE documents SET deleted_at = now() WHERE id = $1`, [gone.documentId]);
  const del = (
    await t.pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, max_attempts) VALUES ($1, $2, 1, 'DELETE', 1) RETURNING task_id::text`,
      [TENANT, gone.documentId],
    )
  ).rows[0].task_id;
  await t.pool.query(
    `CREATE OR REPLACE FUNCTION slow_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(4); RETURN NEW; END $$`,
  );
  await t.pool.query(
    `CREATE TRIGGER slow_delete BEFORE UPDATE ON index_tasks FOR EACH ROW WHEN (NEW.task_type = 'DELETE' AND NEW.status = 'SUCCEEDED') EXECUTE FUNCTION slow_delete()`,
  );
  // One record of "bad" is stored with other text than was embedded: its integrity check fails.
  await t.pool.query(`CREATE OR REPLACE FUNCTION garble() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.text LIKE '%about bad %' AND NEW.ordinal = 1 THEN NEW.text := NEW.text || ' (garbled)'; END IF; RETURN NEW; END $$`);
  await t.pool.query(`CREATE TRIGGER garble BEFORE INSERT ON chunks FOR EACH ROW EXECUTE FUNCTION garble()`);

  const w = testWorker(
    t,
    "slot",
    { POLL_INTERVAL_MS: "50", LEASE_SECONDS: "1.5", HEARTBEAT_SECONDS: "0.3", WORKER_TASKS_PER_SLOT: "8" },
    1,
  );
  await w.start();
  try {
    const rows = await waitFor(async () => {
      const r = (
        await t.pool.query(
          `SELECT task_id::text, status, error_code FROM index_tasks WHERE task_id = ANY($1::bigint[]) ORDER BY task_id`,
          [[good.taskId, bad.taskId, del]],
        )
      ).rows;
      return r.every((x) => !["PENDING", "RUNNING", "RETRY_WAIT"].includes(x.status)) ? r : null;
    }, 30_000);
    expect(rows).toEqual([
      { task_id: good.taskId, status: "SUCCEEDED", error_code: null },
      { task_id: bad.taskId, status: "DEAD", error_code: "INDEX_INTEGRITY_FAILED" },
      { task_id: del, status: "SUCCEEDED", error_code: null },
    ]);
    const events = (
      await t.pool.query(`SELECT kind FROM task_events WHERE task_id = $1 ORDER BY id`, [bad.taskId])
    ).rows.map((e) => e.kind);
    expect(events).toEqual(["CREATED", "CLAIMED", "FAILED", "DEAD"]);
  } finally {
    await w.stop(2000);
    await t.pool.query(`DROP TRIGGER IF EXISTS slow_delete ON index_tasks; DROP TRIGGER IF EXISTS garble ON chunks`);
  }
});
