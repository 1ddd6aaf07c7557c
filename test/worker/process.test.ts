import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { waitFor, longDocument } from "../helpers/worker";
import { spawnWorker } from "../helpers/process";
import { publish } from "../../lib/documents/publish";

// The worker as its own OS process: SIGTERM drains and exits 0 with nothing left RUNNING under
// its id, and the registry row is marked stopped.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());

async function publishMany(n: number, prefix: string) {
  for (let i = 0; i < n; i++) {
    await publish(t.pool, {
      tenant: "proc",
      key: `${prefix}-${i}`,
      title: `${prefix} ${i}`,
      contentType: "text/markdown",
      content: Buffer.from(longDocument(12, `${prefix}${i}`)),
      acl: [],
      abstract: null,
      overview: null,
      actor: "test",
      maxAttempts: 8,
    });
  }
}

describe("worker process", () => {
  it("registers itself, drains work, and on SIGTERM exits 0 leaving nothing RUNNING", async () => {
    await publishMany(30, "term");
    const w = spawnWorker(t.url, "proc-term", { SHUTDOWN_GRACE_SECONDS: "10" });
    await waitFor(async () => (await t.pool.query(`SELECT 1 FROM workers WHERE id = 'proc-term' AND stopped_at IS NULL`)).rowCount, 30_000);
    const reg = (await t.pool.query(`SELECT host, pid, concurrency FROM workers WHERE id = 'proc-term'`)).rows[0];
    expect(reg).toMatchObject({ pid: w.pid, concurrency: 2 });
    await waitFor(async () => (await t.pool.query(`SELECT count(*)::int AS n FROM index_tasks WHERE status = 'SUCCEEDED'`)).rows[0].n >= 3, 30_000);
    w.kill("SIGTERM");
    const { code } = await w.exited;
    expect(code, w.logs()).toBe(0);
    const running = await t.pool.query(`SELECT count(*)::int AS n FROM index_tasks WHERE status = 'RUNNING' AND lease_owner = 'proc-term'`);
    expect(running.rows[0].n).toBe(0);
    const after = (await t.pool.query(`SELECT stopped_at, current_tasks FROM workers WHERE id = 'proc-term'`)).rows[0];
    expect(after.stopped_at).toBeInstanceOf(Date);
    expect(after.current_tasks).toEqual([]);
    // Whatever it did not get to is still there for the next worker, nothing lost or stuck.
    const left = await t.pool.query(`SELECT status, count(*)::int AS n FROM index_tasks GROUP BY status ORDER BY status`);
    for (const r of left.rows) expect(["PENDING", "RETRY_WAIT", "SUCCEEDED"]).toContain(r.status);
  });
});
