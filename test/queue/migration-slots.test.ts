import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { resetContent, seedTasks, taskRow } from "../helpers/seed";
import { waitFor } from "../helpers/worker";
import { complete, type Lease } from "../../lib/queue/engine";
import { loadConfig } from "../../lib/config";
import { LocalEmbedder } from "../../lib/embedding";
import { Worker } from "../../worker/loop";

// Which slots a worker gives to index-space migration work (MIGRATE tasks) while publishes keep
// arriving. The tasks here complete their lease and nothing else: the pipeline is not the point.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => resetContent(t.pool));

/** Turns `n` of the tenant's seeded INDEX tasks into MIGRATE tasks (what a migration queues). */
async function asMigrate(ids: string[]): Promise<void> {
  await t.pool.query(`UPDATE index_tasks SET task_type = 'MIGRATE' WHERE task_id = ANY($1::bigint[])`, [ids]);
}

/**
 * A worker of `concurrency` slots, one task per slot. INDEX tasks are held until `release` is
 * called (a publish that keeps a slot busy); MIGRATE tasks complete at once.
 */
function worker(id: string, concurrency: number, env: Record<string, string> = {}) {
  const held: (() => void)[] = [];
  const running = { index: 0, migrate: 0, maxTogether: 0 };
  const w = new Worker({
    pool: t.pool,
    databaseUrl: t.url,
    workerId: id,
    concurrency,
    cfg: loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "30", LOG_LEVEL: "silent", ...env }),
    embedder: new LocalEmbedder(384),
    tasksPerSlot: 1,
    execute: (p, _e, members) =>
      Promise.all(
        members.map(async ({ lease }: { lease: Lease }) => {
          if (lease.taskType === "MIGRATE") {
            running.migrate++;
            if (running.index > 0) running.maxTogether = Math.max(running.maxTogether, running.migrate);
            await new Promise((r) => setTimeout(r, 20));
            running.migrate--;
          } else {
            running.index++;
            await new Promise<void>((r) => held.push(r));
            running.index--;
          }
          await complete(p, lease, null);
          return { status: "fulfilled" as const, value: null };
        }),
      ),
  });
  return { w, held, running, release: () => held.splice(0).forEach((r) => r()) };
}

const statusCount = async (type: string, status: string) =>
  (
    await t.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM index_tasks WHERE task_type = $1 AND status = $2`,
      [type, status],
    )
  ).rows[0].n;

describe("migration work in a busy worker", () => {
  it("goes on in the free slot while a publish holds the other (it used to wait until both were free)", async () => {
    const [publishTask] = await seedTasks(t.pool, 1, { tenant: "busy" });
    const migrate = await seedTasks(t.pool, 10, { tenant: "busy" });
    await asMigrate(migrate);
    const { w, running, release } = worker("mig-busy", 2);
    await w.start();
    try {
      await waitFor(async () => running.index === 1, 5_000);
      // The publish holds one slot for the whole wait: every MIGRATE must get through the other.
      await waitFor(async () => (await statusCount("MIGRATE", "SUCCEEDED")) === 10, 10_000);
      expect(running.maxTogether).toBe(1);
      expect((await taskRow(t.pool, publishTask)).status).toBe("RUNNING");
    } finally {
      release();
      await w.stop(5_000);
    }
  });

  it("never takes more than MIGRATION_SLOTS slots, so the rest are there for publishes", async () => {
    const migrate = await seedTasks(t.pool, 30, { tenant: "cap" });
    await asMigrate(migrate);
    const { w, running, release } = worker("mig-cap", 3, { MIGRATION_SLOTS: "1" });
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, running.migrate)), 2);
    await w.start();
    try {
      // A publish arriving mid-migration finds a slot at once although 29 MIGRATE tasks are due.
      await waitFor(async () => (await statusCount("MIGRATE", "SUCCEEDED")) >= 3, 10_000);
      await seedTasks(t.pool, 1, { tenant: "cap" });
      await waitFor(async () => running.index === 1, 5_000);
      await waitFor(async () => (await statusCount("MIGRATE", "SUCCEEDED")) === 30, 15_000);
      expect(most).toBe(1);
    } finally {
      clearInterval(watch);
      release();
      await w.stop(5_000);
    }
  });
});
