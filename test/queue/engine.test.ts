import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { seedTasks, expireLease, taskRow } from "../helpers/seed";
import { claim, renew, complete, fail, release, lockHeld } from "../../lib/queue/engine";
import { LeaseLostError } from "../../lib/queue/errors";
import { withTransaction } from "../../lib/db/pool";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await t.pool.query(`TRUNCATE task_events, index_tasks, document_versions, documents, tenants CASCADE`);
});

const policy = { baseSeconds: 2, maxSeconds: 300, jitter: 0.2 };

describe("claim", () => {
  it("takes due tasks in order, sets a lease from the database clock and logs CLAIMED", async () => {
    const ids = await seedTasks(t.pool, 3);
    const leases = await claim(t.pool, "w1", 60, 2);
    expect(leases.map((l) => l.taskId)).toEqual(ids.slice(0, 2));
    expect(leases.every((l) => l.leaseAttempt === 1 && !l.takenOver)).toBe(true);
    const row = await taskRow(t.pool, ids[0]);
    expect(row.status).toBe("RUNNING");
    expect(row.lease_owner).toBe("w1");
    const { rows } = await t.pool.query(
      `SELECT extract(epoch FROM lease_until - now()) AS s FROM index_tasks WHERE task_id = $1`,
      [ids[0]],
    );
    expect(Number(rows[0].s)).toBeGreaterThan(55);
    expect(Number(rows[0].s)).toBeLessThanOrEqual(60);
    const ev = await t.pool.query(`SELECT kind, actor, lease_attempt FROM task_events WHERE task_id = $1`, [ids[0]]);
    expect(ev.rows).toEqual([{ kind: "CLAIMED", actor: "w1", lease_attempt: 1 }]);
    expect(await claim(t.pool, "w2", 60, 5)).toHaveLength(1);
    expect(await claim(t.pool, "w3", 60, 5)).toHaveLength(0);
  });

  it("does not take tasks whose next attempt is in the future", async () => {
    const [id] = await seedTasks(t.pool, 1);
    await t.pool.query(`UPDATE index_tasks SET next_attempt_at = now() + interval '1 hour' WHERE task_id = $1`, [id]);
    expect(await claim(t.pool, "w1", 60, 5)).toHaveLength(0);
  });
});

describe("fencing", () => {
  it("a zombie's renew, complete, fail and index write are all rejected after takeover", async () => {
    const [id] = await seedTasks(t.pool, 1);
    const [a] = await claim(t.pool, "A", 60, 1);
    await expireLease(t.pool, id);
    const [b] = await claim(t.pool, "B", 60, 1);
    expect(b.takenOver).toBe(true);
    expect(b.leaseAttempt).toBe(2);
    await expect(renew(t.pool, a, 60, { done: 1, total: 2 })).rejects.toBeInstanceOf(LeaseLostError);
    await expect(complete(t.pool, a)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(fail(t.pool, a, "EMBEDDING_TIMEOUT", "late", policy)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(withTransaction(t.pool, (tx) => lockHeld(tx, a))).rejects.toBeInstanceOf(LeaseLostError);
    const mid = await taskRow(t.pool, id);
    expect(mid).toMatchObject({ status: "RUNNING", lease_owner: "B", attempts: 2, progress_done: 0 });
    await complete(t.pool, b);
    expect((await taskRow(t.pool, id)).status).toBe("SUCCEEDED");
    const kinds = (await t.pool.query(`SELECT kind FROM task_events WHERE task_id = $1 ORDER BY id`, [id])).rows.map(
      (r) => r.kind,
    );
    expect(kinds).toEqual(["CLAIMED", "LEASE_TAKEN_OVER", "SUCCEEDED"]);
  });

  it("the same worker id with an older lease attempt is rejected", async () => {
    const [id] = await seedTasks(t.pool, 1);
    const [old] = await claim(t.pool, "W", 60, 1);
    await expireLease(t.pool, id);
    const [fresh] = await claim(t.pool, "W", 60, 1);
    expect(fresh.leaseAttempt).toBe(old.leaseAttempt + 1);
    await expect(complete(t.pool, old)).rejects.toBeInstanceOf(LeaseLostError);
    await complete(t.pool, fresh);
  });

  it("an expired lease cannot be renewed even by its holder", async () => {
    const [id] = await seedTasks(t.pool, 1);
    const [a] = await claim(t.pool, "A", 60, 1);
    await expireLease(t.pool, id);
    await expect(renew(t.pool, a, 60, { done: 0, total: 0 })).rejects.toBeInstanceOf(LeaseLostError);
  });

  it("an expired lease with no attempts left becomes DEAD / LEASE_ATTEMPTS_EXHAUSTED", async () => {
    const [id] = await seedTasks(t.pool, 1, { maxAttempts: 2 });
    await claim(t.pool, "A", 60, 1);
    await expireLease(t.pool, id);
    await claim(t.pool, "B", 60, 1);
    await expireLease(t.pool, id);
    expect(await claim(t.pool, "C", 60, 1)).toHaveLength(0);
    expect(await taskRow(t.pool, id)).toMatchObject({
      status: "DEAD",
      error_code: "LEASE_ATTEMPTS_EXHAUSTED",
      attempts: 2,
    });
    const last = (
      await t.pool.query(`SELECT kind, error_code FROM task_events WHERE task_id = $1 ORDER BY id DESC LIMIT 1`, [id])
    ).rows[0];
    expect(last).toEqual({ kind: "LEASE_EXPIRED_DEAD", error_code: "LEASE_ATTEMPTS_EXHAUSTED" });
  });
});

describe("failure", () => {
  it("a non-retryable code is DEAD at once", async () => {
    const [id] = await seedTasks(t.pool, 1);
    const [a] = await claim(t.pool, "A", 60, 1);
    expect((await fail(t.pool, a, "PARSE_ERROR", "bad bytes", policy)).status).toBe("DEAD");
    expect(await taskRow(t.pool, id)).toMatchObject({
      status: "DEAD",
      error_code: "PARSE_ERROR",
      error_message: "bad bytes",
    });
  });

  it("a retryable code waits within backoff ± jitter, and dies after max attempts", async () => {
    const [id] = await seedTasks(t.pool, 1, { maxAttempts: 3 });
    for (let attempt = 1; attempt <= 3; attempt++) {
      await t.pool.query(`UPDATE index_tasks SET next_attempt_at = now() WHERE task_id = $1`, [id]);
      const [l] = await claim(t.pool, "A", 60, 1);
      expect(l.leaseAttempt).toBe(attempt);
      const r = await fail(t.pool, l, "EMBEDDING_RATE_LIMITED", "429", policy);
      if (attempt < 3) {
        expect(r.status).toBe("RETRY_WAIT");
        const { rows } = await t.pool.query(
          `SELECT extract(epoch FROM next_attempt_at - updated_at) AS s FROM index_tasks WHERE task_id = $1`,
          [id],
        );
        const base = 2 * 2 ** (attempt - 1);
        expect(Number(rows[0].s)).toBeGreaterThanOrEqual(base * 0.8 - 0.01);
        expect(Number(rows[0].s)).toBeLessThanOrEqual(base * 1.2 + 0.01);
      } else {
        expect(r.status).toBe("DEAD");
      }
    }
    expect(await taskRow(t.pool, id)).toMatchObject({
      status: "DEAD",
      error_code: "EMBEDDING_RATE_LIMITED",
      attempts: 3,
    });
  });

  it("release hands a task back, due at once", async () => {
    const [id] = await seedTasks(t.pool, 1);
    const [a] = await claim(t.pool, "A", 60, 1);
    expect(await release(t.pool, a)).toBe(true);
    expect(await taskRow(t.pool, id)).toMatchObject({ status: "RETRY_WAIT" });
    const [b] = await claim(t.pool, "B", 60, 1);
    expect(b.leaseAttempt).toBe(2);
  });
});
