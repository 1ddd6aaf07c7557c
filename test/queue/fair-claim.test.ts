import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { resetContent, seedTasks } from "../helpers/seed";
import { waitFor } from "../helpers/worker";
import { claim, complete, fail, type Lease } from "../../lib/queue/engine";
import { PRIORITY } from "../../lib/queue/sql";
import { retryTask } from "../../lib/queue/actions-sql";
import { publish } from "../../lib/documents/publish";
import { loadConfig } from "../../lib/config";
import { LocalEmbedder } from "../../lib/embedding";
import { Worker } from "../../worker/loop";

// Priorities and fair share in the claim (docs/decisions/040-fair-claim.md): tenants take turns
// within a class whatever their backlogs, interactive work goes before bulk, and bulk still gets
// its turn. Each case here failed with the first-in first-out claim it replaces.
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.close());
beforeEach(async () => resetContent(t.pool));

const bulk = (ids: string[]) =>
  t.pool.query(`UPDATE index_tasks SET priority = ${PRIORITY.BULK} WHERE task_id = ANY($1::bigint[])`, [ids]);

async function claimed(limit: number): Promise<Lease[]> {
  const leases = await claim(t.pool, "fair-w", 60, limit, { takeOver: false });
  for (const l of leases) await complete(t.pool, l, null);
  return leases;
}

describe("the fair claim", () => {
  it("a tenant's one task waits for at most one task of another tenant's 300-task backlog", async () => {
    await seedTasks(t.pool, 300, { tenant: "big" });
    const [small] = await seedTasks(t.pool, 1, { tenant: "small" });
    const first = await claimed(2);
    expect(first.map((l) => l.taskId)).toContain(small);
  });

  it("tenants whose backlogs were queued one after another are served in turn", async () => {
    await seedTasks(t.pool, 30, { tenant: "a" });
    await seedTasks(t.pool, 30, { tenant: "b" });
    await seedTasks(t.pool, 30, { tenant: "c" });
    for (let round = 0; round < 10; round++) {
      const tenants = (await claimed(3)).map((l) => l.tenantId).sort();
      expect(tenants).toEqual(["a", "b", "c"]);
    }
  });

  it("interactive work goes before bulk work, whoever queued first", async () => {
    await bulk(await seedTasks(t.pool, 50, { tenant: "sync" }));
    const [publish] = await seedTasks(t.pool, 1, { tenant: "sync" });
    expect((await claimed(1))[0].taskId).toBe(publish);
  });

  it("a retry queues behind its tenant's waiting work, not ahead of another tenant", async () => {
    await seedTasks(t.pool, 5, { tenant: "flaky" });
    const [lease] = await claim(t.pool, "fair-w", 60, 1, { takeOver: false });
    await fail(t.pool, lease, "EMBEDDING_PROVIDER_UNAVAILABLE", "down", { baseSeconds: 0, maxSeconds: 0, jitter: 0 });
    const [other] = await seedTasks(t.pool, 1, { tenant: "steady" });
    // One at a time: a claim answers in task id order, not in the order it chose.
    const order: string[] = [];
    for (let i = 0; i < 6; i++) order.push(...(await claimed(1)).map((l) => l.taskId));
    expect(order.indexOf(other)).toBeLessThan(order.indexOf(lease.taskId));
    expect(order).toHaveLength(6);
  });

  it("concurrent enqueues of one tenant take places one after another, not one shared place", async () => {
    await t.pool.query(`INSERT INTO tenants (id, name) VALUES ('conc', 'conc') ON CONFLICT DO NOTHING`);
    const clients = await Promise.all(Array.from({ length: 4 }, () => t.pool.connect()));
    try {
      for (const c of clients) await c.query("BEGIN");
      // Each open transaction queues one task; none sees the others' rows until they commit.
      for (const [k, c] of clients.entries())
        await c.query(
          `WITH d AS (INSERT INTO documents (id, tenant_id, key, title, business_version)
                      VALUES (gen_random_uuid(), 'conc', 'c-' || $1::text, 'Doc', 1) RETURNING id)
           INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type) SELECT 'conc', id, 1, 'INDEX' FROM d`,
          [k],
        );
      for (const c of clients) await c.query("COMMIT");
    } finally {
      for (const c of clients) c.release();
    }
    const { rows } = await t.pool.query<{ n: number }>(
      `SELECT count(DISTINCT fair_at)::int AS n FROM index_tasks WHERE tenant_id = 'conc'`,
    );
    expect(rows[0].n).toBe(4);
  });

  it("an operator's retry keeps a bulk task bulk and queues it behind its tenant's waiting work", async () => {
    const ids = await seedTasks(t.pool, 3, { tenant: "retried" });
    await bulk(ids);
    await t.pool.query(`UPDATE index_tasks SET status = 'DEAD', attempts = 1, finished_at = now() WHERE task_id = $1`, [
      ids[0],
    ]);
    const [person] = await seedTasks(t.pool, 1, { tenant: "retried" });
    const r = retryTask(ids[0], 3, "user:op", null);
    await t.pool.query(r.text, r.values);
    const row = (await t.pool.query(`SELECT status, priority FROM index_tasks WHERE task_id = $1`, [ids[0]])).rows[0];
    expect(row).toEqual({ status: "PENDING", priority: PRIORITY.BULK });
    const order: string[] = [];
    for (let i = 0; i < 4; i++) order.push(...(await claimed(1)).map((l) => l.taskId));
    expect(order).toEqual([person, ids[1], ids[2], ids[0]]);
  });

  it("a publish over a queued bulk build supersedes it; its own build has the class it asked for", async () => {
    const body = (text: string, priority: (typeof PRIORITY)[keyof typeof PRIORITY]) => ({
      tenant: "pub",
      key: "policy",
      title: "Policy",
      contentType: "text/markdown",
      content: Buffer.from(`# Policy\n\n${text}`),
      acl: [],
      abstract: null,
      overview: null,
      actor: "t",
      maxAttempts: 8,
      priority,
    });
    const first = await publish(t.pool, body("From the nightly sync.", PRIORITY.BULK));
    const second = await publish(t.pool, body("Fixed by a person.", PRIORITY.INTERACTIVE));
    const rows = (
      await t.pool.query<{ task_id: string; status: string; priority: number }>(
        `SELECT task_id::text, status, priority FROM index_tasks WHERE tenant_id = 'pub' ORDER BY task_id`,
      )
    ).rows;
    expect(rows).toEqual([
      { task_id: first.taskId, status: "SUPERSEDED", priority: PRIORITY.BULK },
      { task_id: second.taskId, status: "PENDING", priority: PRIORITY.INTERACTIVE },
    ]);
  });

  it("with indexwright.fair_queue = off the claim is first-in first-out", async () => {
    const c = await t.pool.connect();
    try {
      await c.query(`SET indexwright.fair_queue = 'off'`);
      await c.query(`INSERT INTO tenants (id, name) VALUES ('fifo-a', 'a'), ('fifo-b', 'b') ON CONFLICT DO NOTHING`);
      for (const tenant of ["fifo-a", "fifo-b"])
        await c.query(
          `WITH d AS (INSERT INTO documents (id, tenant_id, key, title, business_version)
                      SELECT gen_random_uuid(), $1, $1 || '-' || g, 'Doc', 1 FROM generate_series(1, 20) g RETURNING id)
           INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type) SELECT $1, id, 1, 'INDEX' FROM d`,
          [tenant],
        );
    } finally {
      await c.query(`RESET indexwright.fair_queue`);
      c.release();
    }
    const tenants = (await claimed(20)).map((l) => l.tenantId);
    expect(new Set(tenants)).toEqual(new Set(["fifo-a"]));
  });
});

describe("bulk work in a worker that interactive work keeps busy", () => {
  it("still gets a slot about every bulkAgingMs (aging)", async () => {
    await seedTasks(t.pool, 400, { tenant: "people" });
    await bulk(await seedTasks(t.pool, 3, { tenant: "backfill" }));
    const w = new Worker({
      pool: t.pool,
      databaseUrl: t.url,
      workerId: "fair-aging",
      concurrency: 2,
      cfg: loadConfig({ POLL_INTERVAL_MS: "50", LEASE_SECONDS: "30", LOG_LEVEL: "silent" }),
      embedder: new LocalEmbedder(384),
      tasksPerSlot: 1,
      bulkAgingMs: 300,
      execute: async (p, _e, members) => {
        const out = [];
        for (const { lease } of members as { lease: Lease }[]) {
          await new Promise((r) => setTimeout(r, 25));
          await complete(p, lease, null);
          out.push({ status: "fulfilled" as const, value: null });
        }
        return out;
      },
    });
    await w.start();
    try {
      await waitFor(async () => {
        const { rows } = await t.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM index_tasks WHERE tenant_id = 'backfill' AND status = 'SUCCEEDED'`,
        );
        return rows[0].n === 3;
      }, 15_000);
      const { rows } = await t.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM index_tasks WHERE tenant_id = 'people' AND status = 'PENDING'`,
      );
      // The interactive backlog was still there: only the aging turn let the bulk work in.
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await w.stop(5_000);
    }
  });
});
