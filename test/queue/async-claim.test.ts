import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { seedTasks } from "../helpers/seed";
import { testWorker, waitFor, longDocument } from "../helpers/worker";
import { claim, complete } from "../../lib/queue/engine";
import { claimTasks } from "../../lib/queue/sql";
import { publish } from "../../lib/documents/publish";
import { LocalEmbedder } from "../../lib/embedding";

// The claim commits without waiting for the WAL flush; completion stays durable. A claim lost in
// a server crash can therefore be handed out again with the same lease attempt, even to the same
// worker: this file checks the commit modes and that such a re-claim is harmless.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());

describe("commit modes", () => {
  it("only the claim's own transaction commits asynchronously; completion and the connection stay synchronous", async () => {
    await seedTasks(t.pool, 1, { tenant: "modes" });
    const c = await t.pool.connect();
    try {
      const mode = async () => (await c.query(`SELECT current_setting('synchronous_commit') AS v`)).rows[0].v;
      expect(await mode()).toBe("on");
      await c.query("BEGIN");
      const [inTx] = await claim(c, "w-modes", 60, 1);
      expect(inTx).toBeDefined();
      expect(await mode()).toBe("off");
      await c.query("ROLLBACK");
      expect(await mode()).toBe("on");

      // On its own (as the worker runs it) the setting ends with the claim's transaction.
      const [lease] = await claim(c, "w-modes", 60, 1);
      expect(await mode()).toBe("on");
      await c.query("BEGIN");
      await complete(c, lease);
      expect(await mode()).toBe("on");
      await c.query("COMMIT");
      expect((await c.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [lease.taskId])).rows[0].status).toBe(
        "SUCCEEDED",
      );
    } finally {
      c.release();
    }
  });
});

describe("claim batch size", () => {
  it("is part of the statement's text, and only a whole number from 1 to 10,000 is accepted", () => {
    expect(claimTasks("w", 60, 7).text).toContain("LIMIT 7");
    expect(claimTasks("w", 60, 7).values).toEqual(["w", 60]);
    for (const bad of [0, -1, 1.5, Number.NaN, 10_001]) expect(() => claimTasks("w", 60, bad)).toThrow(RangeError);
  });
});

/** Local embedder whose calls wait at a gate; counts the calls waiting and running. */
class GatedEmbedder extends LocalEmbedder {
  waiting = 0;
  active = 0;
  max = 0;
  private open!: () => void;
  private gate: Promise<void> = new Promise((r) => (this.open = r));
  release(): void {
    this.open();
  }
  override async embed(texts: string[], signal: AbortSignal): Promise<number[][]> {
    this.active++;
    this.max = Math.max(this.max, this.active);
    try {
      this.waiting++;
      try {
        await Promise.race([
          this.gate,
          new Promise<never>((_, reject) =>
            signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
          ),
        ]);
      } finally {
        this.waiting--;
      }
      return await super.embed(texts, signal);
    } finally {
      this.active--;
    }
  }
}

const pub = (key: string) =>
  publish(t.pool, {
    tenant: "lost",
    key,
    title: key,
    contentType: "text/markdown",
    content: Buffer.from(longDocument(12, key)),
    acl: [],
    abstract: null,
    overview: null,
    actor: "test",
    maxAttempts: 8,
  });

describe("a claim lost in a crash", () => {
  it("handed to the same worker again under the same lease attempt: both runs hold a slot, one switch wins, nothing is written twice", async () => {
    const embedder = new GatedEmbedder();
    const w = testWorker(t, "w-lost", { EMBED_BATCH_SIZE: "4", LEASE_SECONDS: "60" }, 2, embedder);
    const first = await pub("first");
    await w.start();
    try {
      // Run A holds lease attempt 1 and waits inside its first embedding call.
      await waitFor(async () => embedder.waiting === 1);
      // The server "crashes" before the claim's commit reached the disk: the task is as it was
      // before the claim, due again, and the claim's event is gone with it.
      // One statement: as two, the worker could claim again between them and the event delete
      // would take the new claim's event with it.
      await t.pool.query(
        `WITH lost AS (DELETE FROM task_events WHERE task_id = $1)
         UPDATE index_tasks SET status = 'PENDING', attempts = 0, lease_owner = NULL, lease_until = NULL, started_at = NULL WHERE task_id = $1`,
        [first.taskId],
      );
      // The same worker claims it again: run B, same task, same worker, same lease attempt.
      await waitFor(async () => embedder.waiting === 2);
      expect(
        (await t.pool.query(`SELECT status, attempts, lease_owner FROM index_tasks WHERE task_id = $1`, [first.taskId]))
          .rows[0],
      ).toEqual({
        status: "RUNNING",
        attempts: 1,
        lease_owner: "w-lost",
      });
      // Both runs count against the worker's two slots: a new task waits for one to end.
      const second = await pub("second");
      await new Promise((r) => setTimeout(r, 1000));
      expect(
        (await t.pool.query(`SELECT status FROM index_tasks WHERE task_id = $1`, [second.taskId])).rows[0].status,
      ).toBe("PENDING");
      embedder.release();
      await waitFor(
        async () =>
          (
            await t.pool.query(`SELECT 1 FROM index_tasks WHERE task_id = ANY($1::bigint[]) AND status = 'SUCCEEDED'`, [
              [first.taskId, second.taskId],
            ])
          ).rowCount === 2,
      );
    } finally {
      embedder.release();
      await w.stop(5000);
    }
    expect(embedder.active).toBe(0);
    expect(embedder.max).toBeLessThanOrEqual(2);
    // One switch won: one complete version serves the document, the task succeeded once.
    const versions = await t.pool.query(
      `SELECT iv.status FROM index_versions iv JOIN documents d ON d.id = iv.document_id WHERE d.key = 'first' AND d.tenant_id = 'lost'`,
    );
    expect(versions.rows).toEqual([{ status: "ACTIVE" }]);
    const events = await t.pool.query(`SELECT kind, lease_attempt FROM task_events WHERE task_id = $1 ORDER BY id`, [
      first.taskId,
    ]);
    expect(events.rows).toEqual([
      { kind: "CLAIMED", lease_attempt: 1 },
      { kind: "SUCCEEDED", lease_attempt: 1 },
    ]);
    const running = await t.pool.query(
      `SELECT task_id FROM index_tasks WHERE status = 'RUNNING' AND lease_owner = 'w-lost'`,
    );
    expect(running.rows).toEqual([]);
  });
});
