import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetContent } from "../helpers/seed";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor, SlowEmbedder, longDocument } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";

// A slow task (≈ 3+ lease lengths): heartbeats keep it owned. Without them (FAULT_DROP_LEASE_HEARTBEAT)
// another worker takes it over: that row is in test/faults/fault-matrix.test.ts.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await resetContent(t.pool);
});

// A 3 s lease renewed every 0.3 s: a renewal may be late by 2.7 s before the lease is lost, so a
// loaded machine (the embedded database serialises every connection) does not fake a takeover.
const LEASE = { LEASE_SECONDS: "3", HEARTBEAT_SECONDS: "0.3", EMBED_BATCH_SIZE: "4" };

async function publishSlowDoc(key: string) {
  return publish(t.pool, {
    tenant: "hb",
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(longDocument(16, key)),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 8,
  });
}

async function eventsOf(taskId: string) {
  return (
    await t.pool.query(`SELECT kind, actor, lease_attempt FROM task_events WHERE task_id = $1 ORDER BY id`, [taskId])
  ).rows;
}

describe("heartbeat", () => {
  it("keeps a task running for three lease lengths owned by its worker", async () => {
    const slow = new SlowEmbedder(2400); // ≥ 4 batches × 2.4 s ≈ 9.6 s with a 3 s lease
    const w = testWorker(t, "steady", LEASE, 1, slow);
    const other = testWorker(t, "other", LEASE, 1);
    const r = await publishSlowDoc("steady-doc");
    const started = Date.now();
    await w.start();
    await waitFor(async () => (await t.pool.query(`SELECT 1 FROM index_tasks WHERE status = 'RUNNING'`)).rowCount);
    await other.start();
    await waitFor(
      async () =>
        (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [r.taskId])).rows[0].status ===
        "SUCCEEDED",
      45_000,
    );
    const elapsed = Date.now() - started;
    await Promise.all([w.stop(2000), other.stop(2000)]);
    expect(elapsed).toBeGreaterThan(9000);
    const ev = await eventsOf(r.taskId!);
    expect(ev.map((e) => e.kind)).toEqual(["CREATED", "CLAIMED", "SUCCEEDED"]);
    expect(ev[1]).toMatchObject({ actor: "steady", lease_attempt: 1 });
    expect(ev[2]).toMatchObject({ actor: "steady", lease_attempt: 1 });
  });
});
