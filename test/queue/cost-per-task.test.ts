import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { createTestDb, onRealPostgres, type TestDb } from "../helpers/db";
import { seedTasks } from "../helpers/seed";
import { claim, complete } from "../../lib/queue/engine";

// What a task's claim and completion write, read back from the WAL (pg_walinspect): which indexes
// get an entry and which row locks are logged. Both updates change the status, so neither is HOT
// and every index whose predicate the new row version matches gets an entry; the schema decides
// how many (docs/decisions/006-queue-cost-per-task.md). A new index on index_tasks or
// task_events that the hot path maintains shows up here as a changed list.
let t: TestDb;
let walinspect = false;
beforeAll(async () => {
  t = await createTestDb();
  if (onRealPostgres) {
    walinspect =
      (await t.pool.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'pg_walinspect'`)).rowCount === 1;
    if (walinspect) await t.pool.query(`CREATE EXTENSION IF NOT EXISTS pg_walinspect`);
  }
});
afterAll(async () => t?.close());

type Written = { indexEntries: string[]; rowLocks: number; heapWrites: string[] };

/** The WAL `fn` wrote in this database: index entries per index, row locks, heap writes per table. */
async function written(c: pg.PoolClient, fn: () => Promise<void>): Promise<Written> {
  const lsn = async () => (await c.query<{ l: string }>(`SELECT pg_current_wal_insert_lsn()::text AS l`)).rows[0].l;
  const from = await lsn();
  await fn();
  const to = await lsn();
  // The claim commits asynchronously; pg_walinspect reads only WAL that is flushed.
  for (
    let i = 0;
    i < 100 && !(await c.query(`SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS ok`, [to])).rows[0].ok;
    i++
  )
    await new Promise((r) => setTimeout(r, 20));
  const { rows } = await c.query<{ rm: string; kind: string; rel: string | null }>(
    `SELECT w.resource_manager AS rm, split_part(w.record_type, ' ', 1) AS kind, r.relname AS rel
       FROM pg_get_wal_records_info($1, $2) w
       LEFT JOIN pg_class r ON r.relfilenode = substring(w.block_ref FROM 'rel \\d+/' || (SELECT oid FROM pg_database WHERE datname = current_database()) || '/(\\d+)')::oid
      WHERE w.block_ref LIKE '%/' || (SELECT oid FROM pg_database WHERE datname = current_database()) || '/%'`,
    [from, to],
  );
  return {
    indexEntries: rows
      .filter((r) => r.rm === "Btree" && /^(INSERT_LEAF|INSERT_POST|SPLIT_L|SPLIT_R)$/.test(r.kind))
      .map((r) => r.rel ?? "?")
      .sort(),
    rowLocks: rows.filter((r) => r.rm === "Heap" && r.kind === "LOCK").length,
    heapWrites: rows
      .filter((r) => r.rm === "Heap" && /^(INSERT|UPDATE|HOT_UPDATE)/.test(r.kind))
      .map((r) => `${r.kind.replace("+INIT", "")} ${r.rel}`)
      .sort(),
  };
}

describe.runIf(onRealPostgres)("the queue's writes per task", () => {
  it("claim: the task row, its CLAIMED event and 4 index entries; completion: the row, its event and 6; one row lock, the claim's own", async (ctx) => {
    if (!walinspect) ctx.skip();
    await seedTasks(t.pool, 1, { tenant: "cost" });
    const c = await t.pool.connect();
    try {
      let lease: Awaited<ReturnType<typeof claim>>[number] | undefined;
      const claimed = await written(c, async () => {
        [lease] = await claim(c, "cost-worker", 60, 1);
      });
      expect(lease).toBeDefined();
      const completed = await written(c, () => complete(c, lease!));

      // Not the status index (it holds no RUNNING rows), not a second key index on either table.
      expect(claimed.indexEntries).toEqual([
        "index_tasks_document_key",
        "index_tasks_lease_idx",
        "index_tasks_pkey",
        "task_events_pkey",
      ]);
      expect(completed.indexEntries).toEqual([
        "index_tasks_document_key",
        "index_tasks_finished_at_idx",
        // The freshness SLO's (ended INDEX tasks only, so never at the claim).
        "index_tasks_freshness_idx",
        "index_tasks_pkey",
        "index_tasks_settled_status_idx",
        "task_events_pkey",
      ]);
      expect(claimed.heapWrites).toEqual(["INSERT task_events", "UPDATE index_tasks"]);
      expect(completed.heapWrites).toEqual(["INSERT task_events", "UPDATE index_tasks"]);
      // FOR UPDATE SKIP LOCKED of the claim; no foreign-key check locks the task row for its events.
      expect(claimed.rowLocks).toBe(1);
      expect(completed.rowLocks).toBe(0);
    } finally {
      c.release();
    }
  });
});
