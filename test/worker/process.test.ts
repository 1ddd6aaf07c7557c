import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spaceFor } from "../helpers/spaces";
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
    await waitFor(
      async () => (await t.pool.query(`SELECT 1 FROM workers WHERE id = 'proc-term' AND stopped_at IS NULL`)).rowCount,
      30_000,
    );
    const reg = (await t.pool.query(`SELECT host, pid, concurrency FROM workers WHERE id = 'proc-term'`)).rows[0];
    expect(reg).toMatchObject({ pid: w.pid, concurrency: 2 });
    await waitFor(
      async () =>
        (await t.pool.query(`SELECT count(*)::int AS n FROM index_tasks WHERE status = 'SUCCEEDED'`)).rows[0].n >= 3,
      30_000,
    );
    w.kill("SIGTERM");
    const { code } = await w.exited;
    expect(code, w.logs()).toBe(0);
    const running = await t.pool.query(
      `SELECT count(*)::int AS n FROM index_tasks WHERE status = 'RUNNING' AND lease_owner = 'proc-term'`,
    );
    expect(running.rows[0].n).toBe(0);
    const after = (await t.pool.query(`SELECT stopped_at, current_tasks FROM workers WHERE id = 'proc-term'`)).rows[0];
    expect(after.stopped_at).toBeInstanceOf(Date);
    expect(after.current_tasks).toEqual([]);
    // Whatever it did not get to is still there for the next worker, nothing lost or stuck.
    const left = await t.pool.query(
      `SELECT status, count(*)::int AS n FROM index_tasks GROUP BY status ORDER BY status`,
    );
    for (const r of left.rows) expect(["PENDING", "RETRY_WAIT", "SUCCEEDED"]).toContain(r.status);
  });
});

describe("worker crash", () => {
  it("SIGKILL mid-task: another worker takes the task over after lease expiry and it succeeds exactly once", async () => {
    const { startFakeProvider } = await import("../helpers/fake-provider");
    const fake = await startFakeProvider({ dimensions: 384 });
    const providerEnv = {
      EMBEDDING_PROVIDER: "openai",
      OPENAI_API_KEY: "test-key-not-secret",
      OPENAI_BASE_URL: fake.url,
      EMBEDDING_MODEL: "fake-embed",
      EMBEDDING_DIMENSIONS: "384",
      EMBEDDING_TIMEOUT_MS: "60000",
      LEASE_SECONDS: "2",
      HEARTBEAT_SECONDS: "0.5",
    };
    try {
      await t.pool.query(`UPDATE index_tasks SET status = 'SUCCEEDED' WHERE status IN ('PENDING', 'RETRY_WAIT')`);
      // The fake provider's index space is the tenants' (the workers' start then finds it as it is).
      await spaceFor(t.pool, { model: "fake-embed", dimensions: 384 }, { asDefault: true, allTenants: true });
      fake.mode("slow", { delayMs: 60_000 });
      const r = await publish(t.pool, {
        tenant: "proc",
        key: "crash",
        title: "Crash",
        contentType: "text/markdown",
        content: Buffer.from(longDocument(6, "crash")),
        acl: [],
        abstract: null,
        overview: null,
        actor: "test",
        maxAttempts: 8,
      });
      const a = spawnWorker(t.url, "proc-doomed", providerEnv, 1);
      await waitFor(
        async () =>
          (
            await t.pool.query(`SELECT lease_owner FROM index_tasks WHERE task_id = $1 AND status = 'RUNNING'`, [
              r.taskId,
            ])
          ).rows[0]?.lease_owner === "proc-doomed",
        30_000,
      );
      await waitFor(async () => fake.requests > 0, 30_000);
      a.kill("SIGKILL");
      expect((await a.exited).signal).toBe("SIGKILL");
      fake.mode("ok");

      const b = spawnWorker(t.url, "proc-rescuer", providerEnv, 1);
      await waitFor(
        async () =>
          (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [r.taskId])).rows[0].status ===
          "SUCCEEDED",
        60_000,
      );
      b.kill("SIGTERM");
      expect((await b.exited).code, b.logs()).toBe(0);

      const ev = (
        await t.pool.query(`SELECT kind, actor, lease_attempt FROM task_events WHERE task_id = $1 ORDER BY id`, [
          r.taskId,
        ])
      ).rows;
      expect(ev.filter((e) => e.kind === "SUCCEEDED")).toEqual([
        { kind: "SUCCEEDED", actor: "proc-rescuer", lease_attempt: 2 },
      ]);
      expect(ev.find((e) => e.kind === "LEASE_TAKEN_OVER")).toMatchObject({ actor: "proc-rescuer", lease_attempt: 2 });
      const sp = await t.pool.query(
        `SELECT version_number FROM search_pointers WHERE document_id = (SELECT document_id FROM index_tasks WHERE task_id = $1)`,
        [r.taskId],
      );
      expect(sp.rows).toEqual([{ version_number: 1 }]);
    } finally {
      await fake.close();
    }
  });
});
