import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, onRealPostgres, type TestDb } from "../helpers/db";
import { publish, type PublishInput } from "../../lib/documents/publish";
import type { DomainError } from "../../lib/domain/errors";
import { statusOf } from "../../lib/http/errors";
import { waitFor } from "../helpers/worker";

// Two publishes of one document wait for each other on the document's row lock. The one that waits
// must judge "identical?" against the version the other just committed, not the one it saw before
// the wait. Blocking locks need separate server sessions, so this runs on real PostgreSQL.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());

const input = (content: string): PublishInput => ({
  tenant: "race",
  key: "policy",
  title: "Policy",
  contentType: "text/markdown",
  content: Buffer.from(content),
  acl: ["staff"],
  abstract: null,
  overview: null,
  actor: "test",
  maxAttempts: 3,
});

/** Waits until `n` sessions wait on a lock in a statement whose text matches the LIKE `pattern`. */
const lockWaiters = (pattern: string, n: number) =>
  waitFor(
    async () => {
      const r = await t.pool.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE $1 AND pid <> pg_backend_pid()`,
        [pattern],
      );
      return r.rows[0].n === n;
    },
    10_000,
    10,
  );

describe.runIf(onRealPostgres)("identical publishes racing on one document", () => {
  it("the second, having waited for the first's commit, returns the version it made instead of a duplicate", async () => {
    const v1 = await publish(t.pool, input("# Policy\n\nFirst."));
    expect(v1).toMatchObject({ created: true, versionNumber: 1 });

    // Hold the document's row lock so both publishes queue up behind it with the same view.
    const holder = await t.pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM documents WHERE id = $1 FOR UPDATE`, [v1.documentId]);
      const racing = [publish(t.pool, input("# Policy\n\nSecond.")), publish(t.pool, input("# Policy\n\nSecond."))];
      await lockWaiters("%FOR NO KEY UPDATE OF d%", 2);
      await holder.query("COMMIT");
      const results = await Promise.all(racing);
      expect(results.map((r) => [r.created, r.versionNumber]).sort()).toEqual([
        [false, 2],
        [true, 2],
      ]);
    } finally {
      holder.release();
    }
    const versions = (
      await t.pool.query(`SELECT version_number FROM document_versions WHERE document_id = $1 ORDER BY 1`, [
        v1.documentId,
      ])
    ).rows;
    expect(versions.map((v) => v.version_number)).toEqual([1, 2]);
    const tasks = (
      await t.pool.query(
        `SELECT version_number, status FROM index_tasks WHERE document_id = $1 ORDER BY version_number`,
        [v1.documentId],
      )
    ).rows;
    expect(tasks).toEqual([
      { version_number: 1, status: "SUPERSEDED" },
      { version_number: 2, status: "PENDING" },
    ]);
  });
});

describe.runIf(onRealPostgres)("a publish racing a rename of its document", () => {
  it("finds the key free once the rename commits and publishes a new document there instead of failing", async () => {
    const first = await publish(t.pool, { ...input("# Handbook\n\nOld."), key: "handbook" });
    // The rename holds the row lock (as lib/documents/repository.ts rename does) while a publish to
    // the old key finds the row there, skips its insert and queues for the lock.
    const renamer = await t.pool.connect();
    try {
      await renamer.query("BEGIN");
      await renamer.query(`SELECT 1 FROM documents WHERE id = $1 FOR UPDATE`, [first.documentId]);
      const racing = publish(t.pool, { ...input("# Handbook\n\nNew."), key: "handbook" });
      await lockWaiters("%FOR NO KEY UPDATE OF d%", 1);
      await renamer.query(`UPDATE documents SET key = 'handbook-2019' WHERE id = $1`, [first.documentId]);
      await renamer.query("COMMIT");
      const r = await racing;
      expect(r).toMatchObject({ created: true, versionNumber: 1 });
      expect(r.documentId).not.toBe(first.documentId);
    } finally {
      renamer.release();
    }
    const docs = (
      await t.pool.query(
        `SELECT key, business_version FROM documents WHERE tenant_id = 'race' AND key LIKE 'handbook%' ORDER BY key`,
      )
    ).rows;
    expect(docs).toEqual([
      { key: "handbook", business_version: 1 },
      { key: "handbook-2019", business_version: 1 },
    ]);
  });
});

describe.runIf(onRealPostgres)("a rename racing a publish to its new key", () => {
  it("answers 409 KEY_TAKEN, not a database error, when the new key is taken between its check and its update", async () => {
    const { rename } = await import("../../lib/documents/repository");
    await publish(t.pool, { ...input("# Notes\n\nKept."), key: "notes" });
    // A publish to the new key has inserted its document and not committed: the rename's check
    // does not see it, and the rename's update then waits for it on the unique key.
    const publisher = await t.pool.connect();
    try {
      await publisher.query("BEGIN");
      await publisher.query(
        `INSERT INTO documents (id, tenant_id, key, title) VALUES (gen_random_uuid(), 'race', 'minutes', 'Minutes')`,
      );
      const renaming = rename(t.pool, "race", "notes", "minutes", { subject: "test" }).then(
        () => null,
        (e: unknown) => e,
      );
      await lockWaiters("UPDATE documents SET key%", 1);
      await publisher.query("COMMIT");
      const err = (await renaming) as DomainError;
      expect({ status: statusOf(err), code: err.code }).toMatchObject({ status: 409, code: "KEY_TAKEN" });
    } finally {
      publisher.release();
    }
    const keys = (
      await t.pool.query(
        `SELECT key FROM documents WHERE tenant_id = 'race' AND key IN ('notes', 'minutes') ORDER BY key`,
      )
    ).rows;
    expect(keys.map((k) => k.key)).toEqual(["minutes", "notes"]);
  });
});

describe.runIf(onRealPostgres)("a reindex racing its REINDEX task going DEAD", () => {
  it("judges the task by the status it locks: the revived DEAD task gets its CREATED event and a wake-up", async () => {
    const { reindex } = await import("../../lib/documents/repository");
    const doc = await publish(t.pool, { ...input("# Atlas\n\nMaps."), key: "atlas" });
    const { taskId } = await reindex(t.pool, "race", "atlas", { subject: "test" }, 3);
    await t.pool.query(
      `UPDATE index_tasks SET status = 'RUNNING', attempts = 1, lease_owner = 'w1', lease_until = now() + interval '1 minute' WHERE task_id = $1`,
      [taskId],
    );
    // The worker's failure of the task (it takes no document lock) holds the task row, uncommitted.
    const worker = await t.pool.connect();
    try {
      await worker.query("BEGIN");
      await worker.query(
        `UPDATE index_tasks SET status = 'DEAD', lease_owner = NULL, lease_until = NULL, finished_at = now(), error_code = 'PARSE_ERROR' WHERE task_id = $1`,
        [taskId],
      );
      const again = reindex(t.pool, "race", "atlas", { subject: "op" }, 3);
      await lockWaiters("%index_tasks%", 1);
      await worker.query("COMMIT");
      expect((await again).taskId).toBe(taskId);
    } finally {
      worker.release();
    }
    const task = (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [taskId])).rows[0];
    expect(task.status).toBe("PENDING");
    // The timeline says it came back from DEAD, as a reindex of a DEAD task always says.
    const events = await t.pool.query(`SELECT kind, actor, detail FROM task_events WHERE task_id = $1 ORDER BY id`, [
      taskId,
    ]);
    expect(events.rows.at(-1)).toMatchObject({ kind: "CREATED", actor: "op", detail: { restartedFrom: "DEAD" } });
    expect(doc.created).toBe(true);
  });
});
