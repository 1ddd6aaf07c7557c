import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor, longDocument } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";
import { claim } from "../../lib/queue/engine";
import { executeTask } from "../helpers/pipeline";
import { supersedeOlderTasks } from "../../lib/queue/actions-sql";
import { LocalEmbedder } from "../../lib/embedding";
import { TASK_TYPES } from "../../lib/domain/constants";

// One lock order for every transaction that touches a document and its tasks: the document row
// first. Before, the worker's switch locked its task and then the document while publish locked
// the document and then the tasks (to supersede them): 40P01 whenever they met.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb({ poolMax: 20 });
});
afterAll(async () => t?.close());

const pub = (key: string, content: string) =>
  publish(t.pool, {
    tenant: "locks",
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

async function deadlocks(): Promise<number> {
  // Statistics reach the shared view when a backend reports them; a fresh snapshot reads them.
  await t.pool.query(`SELECT pg_stat_force_next_flush()`).catch(() => undefined);
  const r = await t.pool.query<{ n: string }>(
    `SELECT pg_stat_clear_snapshot(), deadlocks::text AS n FROM pg_stat_database WHERE datname = current_database()`,
  );
  return Number(r.rows[0].n);
}

const isDeadlock = (e: unknown) => (e as { code?: string } | null)?.code === "40P01";

describe("lock order", () => {
  it("a publish holding the document while a switch starts: the switch waits, the publish supersedes, nobody deadlocks", async (ctx) => {
    if (!t.real) ctx.skip(); // row-lock waits need the real server: PGlite runs one statement at a time
    const v1 = await pub("doc", longDocument(6, "one"));
    const [lease] = await claim(t.pool, "w-switch", 60, 1);
    expect(lease.taskId).toBe(v1.taskId);
    const before = await deadlocks();

    const x = new pg.Client({ connectionString: t.url });
    await x.connect();
    try {
      await x.query("BEGIN");
      await x.query(`SELECT id FROM documents WHERE id = $1 FOR UPDATE`, [v1.documentId]);
      const switching = executeTask(
        t.pool,
        new LocalEmbedder(),
        lease,
        { signal: new AbortController().signal, progress: () => undefined },
        { batchSize: 8, batchMaxBytes: 1 << 20 },
      ).then(
        () => null,
        (e: unknown) => e,
      );
      // Wait until the switch is blocked on a row lock, holding whatever it took before.
      await waitFor(
        async () =>
          (
            await t.pool.query(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          ).rowCount,
        10_000,
        20,
      );
      const s = supersedeOlderTasks(v1.documentId, 2, "test", TASK_TYPES);
      const superseded = await x.query(s.text, s.values as unknown[]).then(
        (r) => r.rowCount,
        (e: unknown) => e,
      );
      await x.query(isDeadlock(superseded) ? "ROLLBACK" : "COMMIT");
      const outcome = await switching;
      expect(isDeadlock(superseded), String(superseded)).toBe(false);
      expect(superseded).toBe(1);
      expect(isDeadlock(outcome), String(outcome)).toBe(false);
      expect((outcome as Error).name).toBe("LeaseLostError");
    } finally {
      await x.end();
    }
    expect(await deadlocks()).toBe(before);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM index_versions`)).rows[0].n).toBe(0);
  });

  it("a switch waiting on the document lock longer than its lease keeps heartbeating and is not taken over", async (ctx) => {
    if (!t.real) ctx.skip();
    const v = await pub("held", longDocument(4, "held"));
    const x = new pg.Client({ connectionString: t.url });
    await x.connect();
    const w = testWorker(t, "w-held", { LEASE_SECONDS: "1.5" }, 2);
    try {
      await x.query("BEGIN");
      await x.query(`SELECT id FROM documents WHERE id = $1 FOR UPDATE`, [v.documentId]);
      await w.start();
      await waitFor(
        async () =>
          (
            await t.pool.query(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          ).rowCount,
        10_000,
        20,
      );
      await new Promise((r) => setTimeout(r, 4000)); // well past the 1.5 s lease
      await x.query("COMMIT");
      await waitFor(
        async () =>
          (await t.pool.query(`SELECT 1 FROM index_tasks WHERE task_id = $1 AND status = 'SUCCEEDED'`, [v.taskId]))
            .rowCount,
      );
    } finally {
      await x.end();
      await w.stop(2000);
    }
    const task = (await t.pool.query(`SELECT attempts FROM index_tasks WHERE task_id = $1`, [v.taskId])).rows[0];
    expect(task.attempts).toBe(1);
    const kinds = (
      await t.pool.query(`SELECT kind FROM task_events WHERE task_id = $1 ORDER BY id`, [v.taskId])
    ).rows.map((r) => r.kind);
    expect(kinds).toEqual(["CREATED", "CLAIMED", "SUCCEEDED"]);
  });

  it("publishes racing a worker's switches in a loop never see 40P01, and every document ends at its business version", async (ctx) => {
    if (!t.real) ctx.skip();
    const before = await deadlocks();
    const w = testWorker(t, "w-race", { EMBED_BATCH_SIZE: "64" }, 4);
    await w.start();
    const errors: unknown[] = [];
    const keys = ["a", "b", "c"];
    const until = Date.now() + 4000;
    let published = 0;
    await Promise.all(
      keys.map(async (key) => {
        for (let i = 0; Date.now() < until; i++) {
          try {
            await pub(key, longDocument(3, `${key}${i}`));
            published++;
          } catch (e) {
            errors.push(e);
          }
          await new Promise((r) => setTimeout(r, 5 + (i % 7) * 3));
        }
      }),
    );
    const drifted = async () =>
      (
        await t.pool.query(
          `SELECT d.key, d.business_version, sp.version_number, (SELECT json_agg(json_build_object('v', version_number, 's', status, 'e', error_code, 'm', error_message)) FROM index_tasks WHERE document_id = d.id AND version_number >= d.business_version - 1) AS tasks
             FROM documents d LEFT JOIN search_pointers sp ON sp.document_id = d.id WHERE d.key = ANY($1::text[]) AND sp.version_number IS DISTINCT FROM d.business_version`,
          [keys],
        )
      ).rows;
    try {
      await waitFor(async () => (await drifted()).length === 0, 30_000).catch(async (e) => {
        throw new Error(`${(e as Error).message}: ${JSON.stringify(await drifted())}`);
      });
    } finally {
      await w.stop(3000);
    }
    expect(errors.filter(isDeadlock)).toEqual([]);
    expect(errors).toEqual([]);
    expect(published).toBeGreaterThan(30);
    const failed = await t.pool.query(`SELECT error_message FROM index_tasks WHERE error_code IS NOT NULL`);
    expect(failed.rows).toEqual([]);
    expect(await deadlocks()).toBe(before);
  });
});
