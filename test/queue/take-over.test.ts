import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { expireLease, resetContent, seedTasks, taskRow } from "../helpers/seed";
import { waitFor } from "../helpers/worker";
import { claim, complete } from "../../lib/queue/engine";
import { claimTasks } from "../../lib/queue/sql";
import { loadConfig } from "../../lib/config";
import { LocalEmbedder } from "../../lib/embedding";
import { TAKE_OVER_EVERY_MS, Worker } from "../../worker/loop";

// The worker claims due tasks without looking for expired leases between the claims that do
// (lib/queue/sql.ts claimTasks, takeOver; worker/loop.ts): this file checks what each claim takes,
// and that a busy worker still takes over a lease about TAKE_OVER_EVERY_MS after it expired.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => resetContent(t.pool));

describe("the two claims", () => {
  it("the due-only claim leaves expired leases (live or out of attempts) alone; the full claim takes one over and ends the other", async () => {
    const [expired] = await seedTasks(t.pool, 1, { tenant: "take-over" });
    const [exhausted] = await seedTasks(t.pool, 1, { tenant: "take-over", maxAttempts: 1 });
    for (const id of [expired, exhausted]) {
      await t.pool.query(
        `UPDATE index_tasks SET status = 'RUNNING', attempts = 1, lease_owner = 'gone', lease_until = now() + interval '1 hour' WHERE task_id = $1`,
        [id],
      );
      await expireLease(t.pool, id);
    }
    const [due] = await seedTasks(t.pool, 1, { tenant: "take-over" });

    const first = await claim(t.pool, "busy", 60, 5, { takeOver: false });
    expect(first.map((l) => l.taskId)).toEqual([due]);
    expect(await taskRow(t.pool, expired)).toMatchObject({ status: "RUNNING", lease_owner: "gone", attempts: 1 });
    expect(await taskRow(t.pool, exhausted)).toMatchObject({ status: "RUNNING", lease_owner: "gone", attempts: 1 });

    const second = await claim(t.pool, "busy", 60, 5);
    expect(second.map((l) => [l.taskId, l.leaseAttempt, l.takenOver])).toEqual([[expired, 2, true]]);
    expect(await taskRow(t.pool, exhausted)).toMatchObject({ status: "DEAD", error_code: "LEASE_ATTEMPTS_EXHAUSTED" });
    // The second claim's two events come from one statement, so only the first is ordered.
    const kinds = (
      await t.pool.query(`SELECT task_id::text, kind FROM task_events WHERE task_id = ANY($1::bigint[]) ORDER BY id`, [
        [expired, exhausted, due],
      ])
    ).rows;
    expect(kinds[0]).toEqual({ task_id: due, kind: "CLAIMED" });
    expect(kinds.slice(1).sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
      { task_id: exhausted, kind: "LEASE_EXPIRED_DEAD" },
      { task_id: expired, kind: "LEASE_TAKEN_OVER" },
    ]);
  });

  it("are two statements, each with its batch size in the text; the full one is the default", () => {
    const full = claimTasks("w", 60, 3);
    const dueOnly = claimTasks("w", 60, 3, { takeOver: false });
    expect(claimTasks("w", 60, 3, { takeOver: true }).text).toBe(full.text);
    expect(full.text).toContain("expired AS");
    expect(dueOnly.text).not.toContain("expired");
    expect(dueOnly.text).toContain("LIMIT 3");
    expect(dueOnly.values).toEqual(full.values);
  });
});

describe("a busy worker", () => {
  it("takes over a lease that expires while every claim comes back full, about TAKE_OVER_EVERY_MS later, before the due work runs out", async () => {
    // A crashed worker's task, its lease running out in a moment, and a backlog of no-op tasks
    // that keeps every claim of the live worker full for several seconds.
    const [orphan] = await seedTasks(t.pool, 1, { tenant: "busy" });
    const expiresAtMs = Number(
      (
        await t.pool.query<{ ms: string }>(
          `UPDATE index_tasks SET status = 'RUNNING', attempts = 1, lease_owner = 'crashed', lease_until = now() + interval '1500 milliseconds'
            WHERE task_id = $1 RETURNING (extract(epoch FROM lease_until) * 1000)::bigint::text AS ms`,
          [orphan],
        )
      ).rows[0].ms,
    );
    await seedTasks(t.pool, 4000, { tenant: "busy" });
    const pacedUntil = Date.now() + 6000;
    const worker = new Worker({
      pool: t.pool,
      databaseUrl: t.url,
      workerId: "busy",
      concurrency: 2,
      cfg: loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "30", LOG_LEVEL: "silent" }),
      embedder: new LocalEmbedder(384),
      tasksPerSlot: 1,
      execute: (p, _e, members) =>
        Promise.all(
          members.map(async ({ lease }) => {
            // Paced, so the backlog outlasts the orphan's lease on a fast machine too.
            if (Date.now() < pacedUntil) await new Promise((r) => setTimeout(r, 2));
            await complete(p, lease, null);
            return { status: "fulfilled" as const, value: null };
          }),
        ),
    });
    await worker.start();
    try {
      const takeover = await waitFor(
        async () =>
          (
            await t.pool.query<{ id: string; late_ms: number }>(
              `SELECT id::text, (extract(epoch FROM at) * 1000 - $2::double precision)::int AS late_ms
                 FROM task_events WHERE task_id = $1 AND kind = 'LEASE_TAKEN_OVER'`,
              [orphan, expiresAtMs],
            )
          ).rows[0],
        20_000,
        20,
      );
      expect(takeover.late_ms).toBeGreaterThanOrEqual(0);
      expect(takeover.late_ms).toBeLessThan(TAKE_OVER_EVERY_MS + 1000);
      await waitFor(
        async () =>
          (await t.pool.query(`SELECT 1 FROM index_tasks WHERE tenant_id = 'busy' AND status <> 'SUCCEEDED' LIMIT 1`))
            .rowCount === 0,
        60_000,
      );
      // Due work was still being claimed after the take-over: it happened while claims came back full.
      const after = (
        await t.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM task_events WHERE kind = 'CLAIMED' AND id > $1`,
          [takeover.id],
        )
      ).rows[0].n;
      expect(after).toBeGreaterThan(0);
      // Between full claims the worker claimed due work only: most claims skipped the look for expired leases.
      expect(worker.stats.claimed).toBe(4001);
    } finally {
      await worker.stop(1000);
    }
  });
});
