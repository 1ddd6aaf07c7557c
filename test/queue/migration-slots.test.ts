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
  await t.pool.query(`UPDATE index_tasks SET task_type = 'MIGRATE', priority = 2 WHERE task_id = ANY($1::bigint[])`, [
    ids,
  ]);
}

/**
 * A worker of `concurrency` slots and `perSlot` tasks per slot. INDEX tasks are held until
 * `release` is called (a publish that keeps a slot busy); the MIGRATE tasks of a slot run one after
 * another, `migrateMs` each. `running` counts the slots running MIGRATE, by batch (more than one
 * task) and single.
 */
function worker(
  id: string,
  concurrency: number,
  env: Record<string, string> = {},
  perSlot = 1,
  migrateMs = 20,
  opts: { indexMs?: number; migrationAgingMs?: number } = {},
) {
  const held: (() => void)[] = [];
  const running = { index: 0, migrate: 0, maxTogether: 0, batches: 0, singles: 0, mostBatches: 0, mostSlots: 0 };
  const w = new Worker({
    pool: t.pool,
    databaseUrl: t.url,
    workerId: id,
    concurrency,
    cfg: loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "30", LOG_LEVEL: "silent", ...env }),
    embedder: new LocalEmbedder(384),
    tasksPerSlot: perSlot,
    migrationAgingMs: opts.migrationAgingMs,
    execute: async (p, _e, members) => {
      const migrate = members.filter((m) => m.lease.taskType === "MIGRATE").length;
      const batch = migrate > 1;
      if (migrate > 0) {
        if (batch) running.batches++;
        else running.singles++;
        running.mostBatches = Math.max(running.mostBatches, running.batches);
        running.mostSlots = Math.max(running.mostSlots, running.batches + running.singles);
      }
      const out = [];
      for (const { lease } of members as { lease: Lease }[]) {
        if (lease.taskType === "MIGRATE") {
          running.migrate++;
          if (running.index > 0) running.maxTogether = Math.max(running.maxTogether, running.migrate);
          await new Promise((r) => setTimeout(r, migrateMs));
          running.migrate--;
        } else {
          running.index++;
          if (opts.indexMs !== undefined) await new Promise((r) => setTimeout(r, opts.indexMs));
          else await new Promise<void>((r) => held.push(r));
          running.index--;
        }
        await complete(p, lease, null);
        out.push({ status: "fulfilled" as const, value: null });
      }
      if (migrate > 0) {
        if (batch) running.batches--;
        else running.singles--;
      }
      return out;
    },
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

  it("runs batches in at most MIGRATION_SLOTS slots and single tasks in the others while nothing else is due, and a publish does not wait for the backlog", async () => {
    const migrate = await seedTasks(t.pool, 120, { tenant: "cap" });
    await asMigrate(migrate);
    const { w, running, release } = worker("mig-cap", 3, { MIGRATION_SLOTS: "1" }, 4, 25);
    await w.start();
    try {
      // A quiet worker: one batch slot and the two others one task at a time.
      await waitFor(async () => running.mostSlots === 3, 10_000);
      await waitFor(async () => (await statusCount("MIGRATE", "SUCCEEDED")) >= 20, 10_000);
      const [publishTask] = await seedTasks(t.pool, 1, { tenant: "cap" });
      await waitFor(async () => running.index === 1, 5_000);
      // Claimed while most of the migration was still due, not after it.
      expect(await statusCount("MIGRATE", "SUCCEEDED")).toBeLessThan(100);
      expect((await taskRow(t.pool, publishTask)).status).toBe("RUNNING");
      await waitFor(async () => (await statusCount("MIGRATE", "SUCCEEDED")) === 120, 20_000);
      expect(running.mostBatches).toBe(1);
    } finally {
      release();
      await w.stop(5_000);
    }
  });

  it("is not held back without bound by a publish backlog that keeps every slot full (aging)", async () => {
    await seedTasks(t.pool, 400, { tenant: "backlog" });
    const migrate = await seedTasks(t.pool, 4, { tenant: "backlog" });
    await asMigrate(migrate);
    const { w } = worker("mig-aging", 2, {}, 1, 5, { indexMs: 25, migrationAgingMs: 500 });
    await w.start();
    try {
      // A claim fills both slots with INDEX work every time; only the aging rule lets MIGRATE in.
      await waitFor(async () => (await statusCount("MIGRATE", "SUCCEEDED")) === 4, 15_000);
      expect(await statusCount("INDEX", "PENDING")).toBeGreaterThan(0);
    } finally {
      await w.stop(5_000);
    }
  });

  it("runs none at all with MIGRATION_SLOTS=0", async () => {
    const migrate = await seedTasks(t.pool, 5, { tenant: "none" });
    await asMigrate(migrate);
    await seedTasks(t.pool, 2, { tenant: "none" });
    const { w, running, release } = worker("mig-none", 2, { MIGRATION_SLOTS: "0" });
    await w.start();
    try {
      await waitFor(async () => running.index === 2, 5_000);
      release();
      await waitFor(async () => (await statusCount("INDEX", "SUCCEEDED")) === 2, 5_000);
      // Several idle claim turns later, still nothing of the migration claimed.
      await new Promise((r) => setTimeout(r, 300));
      expect(await statusCount("MIGRATE", "PENDING")).toBe(5);
      expect(running.mostSlots).toBe(0);
    } finally {
      release();
      await w.stop(5_000);
    }
  });
});
