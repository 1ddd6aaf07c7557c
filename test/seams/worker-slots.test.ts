import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor, longDocument } from "../helpers/worker";
import { expireLease } from "../helpers/seed";
import { publish } from "../../lib/documents/publish";
import { LocalEmbedder } from "../../lib/embedding";

// A worker that loses a lease and claims the same task again (its own old run still unwinding)
// must count both runs against its concurrency, and its shutdown must not forget either of them.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());

/** The local embedder, slowed down per batch, recording how many runs embed at the same time. */
class CountingEmbedder extends LocalEmbedder {
  active = 0;
  max = 0;
  override async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    this.active++;
    this.max = Math.max(this.max, this.active);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 80);
        signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
      });
      return await super.embed(texts, signal);
    } finally {
      this.active--;
    }
  }
}

const pub = (key: string) =>
  publish(t.pool, {
    tenant: "slots",
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(longDocument(60, key)),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 8,
  });

describe("worker slots", () => {
  it("a re-claim of its own task after a lost lease never takes the worker past its concurrency, and shutdown waits for every run", async () => {
    const embedder = new CountingEmbedder();
    const w = testWorker(
      t,
      "w-slots",
      { EMBED_BATCH_SIZE: "1", LEASE_SECONDS: "30", SHUTDOWN_GRACE_SECONDS: "0" },
      2,
      embedder,
    );
    const first = await pub("first");
    await w.start();
    try {
      await waitFor(
        async () =>
          (
            await t.pool.query(
              `SELECT 1 FROM index_tasks WHERE task_id = $1 AND status = 'RUNNING' AND progress_done >= 0`,
              [first.taskId],
            )
          ).rowCount && embedder.active > 0,
      );
      // The lease lapses (as after a long stall): the same worker, with a free slot, claims the task again.
      await expireLease(t.pool, first.taskId!);
      await waitFor(
        async () =>
          (await t.pool.query(`SELECT attempts FROM index_tasks WHERE task_id = $1`, [first.taskId])).rows[0]
            .attempts === 2,
      );
      await pub("second");
      await pub("third");
      await new Promise((r) => setTimeout(r, 1500));
      expect(embedder.max).toBeLessThanOrEqual(2);
    } finally {
      await w.stop(200);
    }
    // Nothing left running under this worker's name, and no run still embedding after stop().
    expect(embedder.active).toBe(0);
    const running = await t.pool.query(
      `SELECT task_id FROM index_tasks WHERE status = 'RUNNING' AND lease_owner = 'w-slots'`,
    );
    expect(running.rows).toEqual([]);
  });

  it("while the provider's circuit is open the worker claims nothing, so no task spends attempts on the outage", async () => {
    class Gated extends LocalEmbedder {
      openUntil = Date.now() + 1500;
      unavailableForMs(): number {
        return Math.max(0, this.openUntil - Date.now());
      }
    }
    const gated = new Gated();
    const task = await pub("gated");
    const w = testWorker(t, "w-gated", {}, 2, gated);
    await w.start();
    try {
      await new Promise((r) => setTimeout(r, 1000));
      expect(
        (await t.pool.query(`SELECT status, attempts FROM index_tasks WHERE task_id = $1`, [task.taskId])).rows[0],
      ).toEqual({ status: "PENDING", attempts: 0 });
      await waitFor(
        async () =>
          (await t.pool.query(`SELECT 1 FROM index_tasks WHERE task_id = $1 AND status = 'SUCCEEDED'`, [task.taskId]))
            .rowCount,
      );
    } finally {
      await w.stop(2000);
    }
    expect(
      (await t.pool.query(`SELECT attempts FROM index_tasks WHERE task_id = $1`, [task.taskId])).rows[0].attempts,
    ).toBe(1);
  });

  it("a task that ends as a recorded no-op at its switch is counted and logged as superseded, not as a success", async () => {
    const v1 = await pub("noop");
    await pub("noop-other");
    await t.pool.query(`UPDATE documents SET business_version = business_version + 1 WHERE key = 'noop'`);
    const w = testWorker(t, "w-noop", {}, 1);
    await w.start();
    try {
      await waitFor(
        async () =>
          (await t.pool.query(`SELECT 1 FROM index_tasks WHERE task_id = $1 AND status = 'SUPERSEDED'`, [v1.taskId]))
            .rowCount,
      );
      await waitFor(async () => w.stats.succeeded === 1);
    } finally {
      await w.stop(2000);
    }
    expect(w.stats).toMatchObject({ superseded: 1, succeeded: 1 });
  });
});
