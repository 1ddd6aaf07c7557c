import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetContent } from "../helpers/seed";
import { createTestDb, type TestDb } from "../helpers/db";
import { testWorker, waitFor, SlowEmbedder, longDocument } from "../helpers/worker";
import { publish } from "../../lib/documents/publish";

// A slow task (≈ 3+ lease lengths): heartbeats keep it owned; without them another worker
// takes it over and finishes it, and the first worker's late write is fenced off.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await resetContent(t.pool);
});

const LEASE = { LEASE_SECONDS: "1", HEARTBEAT_SECONDS: "0.25", EMBED_BATCH_SIZE: "4" };

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
  return (await t.pool.query(`SELECT kind, actor, lease_attempt FROM task_events WHERE task_id = $1 ORDER BY id`, [taskId])).rows;
}

describe("heartbeat", () => {
  it("keeps a task running for three lease lengths owned by its worker", async () => {
    const slow = new SlowEmbedder(800); // ≥ 4 batches × 0.8 s ≈ 3.2 s with a 1 s lease
    const w = testWorker(t, "steady", LEASE, 1, slow);
    const other = testWorker(t, "other", LEASE, 1);
    const r = await publishSlowDoc("steady-doc");
    const started = Date.now();
    await w.start();
    await waitFor(async () => (await t.pool.query(`SELECT 1 FROM index_tasks WHERE status = 'RUNNING'`)).rowCount);
    await other.start();
    await waitFor(async () => (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [r.taskId])).rows[0].status === "SUCCEEDED", 30_000);
    const elapsed = Date.now() - started;
    await Promise.all([w.stop(2000), other.stop(2000)]);
    expect(elapsed).toBeGreaterThan(3000);
    const ev = await eventsOf(r.taskId!);
    expect(ev.map((e) => e.kind)).toEqual(["CREATED", "CLAIMED", "SUCCEEDED"]);
    expect(ev[1]).toMatchObject({ actor: "steady", lease_attempt: 1 });
    expect(ev[2]).toMatchObject({ actor: "steady", lease_attempt: 1 });
  });

  it("with FAULT_DROP_LEASE_HEARTBEAT=1 the lease is lost, another worker finishes, and the late write is fenced", async () => {
    const slowA = new SlowEmbedder(700);
    const a = testWorker(t, "dropper", { ...LEASE, FAULT_DROP_LEASE_HEARTBEAT: "1" }, 1, slowA);
    const b = testWorker(t, "rescuer", LEASE, 1);
    const r = await publishSlowDoc("dropped-doc");
    await a.start();
    await waitFor(async () => (await t.pool.query(`SELECT lease_owner FROM index_tasks WHERE task_id = $1`, [r.taskId])).rows[0].lease_owner === "dropper");
    await b.start();
    await waitFor(async () => (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [r.taskId])).rows[0].status === "SUCCEEDED", 30_000);
    // Let the dropper reach its (fenced) write before stopping it.
    await waitFor(async () => a.stats.lost + a.stats.succeeded + a.stats.failed > 0 || slowA.calls >= 4, 15_000);
    await new Promise((res) => setTimeout(res, 1500));
    await Promise.all([a.stop(3000), b.stop(3000)]);

    const ev = await eventsOf(r.taskId!);
    const kinds = ev.map((e) => e.kind);
    expect(kinds.filter((k) => k === "SUCCEEDED")).toHaveLength(1);
    expect(ev.find((e) => e.kind === "LEASE_TAKEN_OVER")).toMatchObject({ actor: "rescuer", lease_attempt: 2 });
    expect(ev.find((e) => e.kind === "SUCCEEDED")).toMatchObject({ actor: "rescuer", lease_attempt: 2 });
    expect(a.stats.succeeded).toBe(0);
    const ivs = await t.pool.query(`SELECT count(*)::int AS n FROM index_versions WHERE document_id = (SELECT document_id FROM index_tasks WHERE task_id = $1)`, [r.taskId]);
    expect(ivs.rows[0].n).toBe(1);
    const dup = await t.pool.query(`SELECT count(*)::int AS n, count(DISTINCT chunk_id)::int AS d FROM chunks`);
    expect(dup.rows[0].n).toBe(dup.rows[0].d);
  });
});
