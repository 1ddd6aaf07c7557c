import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createTestDb, onRealPostgres, type TestDb } from "../helpers/db";
import { seedTasks } from "../helpers/seed";
import { claim, complete } from "../../lib/queue/engine";

// Many claimers on their own connections drain one queue: each task is held by one claimer and
// completed exactly once. Real PostgreSQL runs the full 5,000; embedded PGlite (one session,
// serialised) a smaller set, since it cannot show true concurrency anyway.
const TASKS = onRealPostgres ? 5000 : 600;
const CLAIMERS = 8;

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());

describe("concurrent claimers", () => {
  it(`${CLAIMERS} claimers over ${TASKS} due tasks: one holder each, all SUCCEEDED, none completed twice`, async () => {
    await seedTasks(t.pool, TASKS);
    const clients = await Promise.all(
      Array.from({ length: CLAIMERS }, async () => {
        const c = new pg.Client({ connectionString: t.url });
        await c.connect();
        return c;
      }),
    );
    const perClaimer = await Promise.all(
      clients.map(async (c, i) => {
        const done: string[] = [];
        for (;;) {
          const leases = await claim(c, `claimer-${i}`, 60, 10);
          if (leases.length === 0) break;
          for (const l of leases) {
            await complete(c, l);
            done.push(l.taskId);
          }
        }
        return done;
      }),
    );
    await Promise.all(clients.map((c) => c.end()));

    const all = perClaimer.flat();
    expect(all).toHaveLength(TASKS);
    expect(new Set(all).size).toBe(TASKS);
    expect(perClaimer.filter((d) => d.length > 0).length).toBeGreaterThan(1);

    const status = await t.pool.query(`SELECT status, count(*)::int AS n FROM index_tasks GROUP BY status`);
    expect(status.rows).toEqual([{ status: "SUCCEEDED", n: TASKS }]);
    const events = await t.pool.query(
      `SELECT count(*) FILTER (WHERE kind = 'CLAIMED')::int AS claimed, count(*) FILTER (WHERE kind = 'SUCCEEDED')::int AS succeeded,
              count(DISTINCT task_id) FILTER (WHERE kind = 'SUCCEEDED')::int AS distinct_succeeded,
              count(*) FILTER (WHERE kind = 'LEASE_TAKEN_OVER')::int AS takeovers
         FROM task_events`,
    );
    expect(events.rows[0]).toEqual({ claimed: TASKS, succeeded: TASKS, distinct_succeeded: TASKS, takeovers: 0 });
    const attempts = await t.pool.query(`SELECT max(attempts)::int AS max FROM index_tasks`);
    expect(attempts.rows[0].max).toBe(1);
  });
});
