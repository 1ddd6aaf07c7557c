import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db";
import { rollUpFreshness } from "../../lib/slo/rollup";
import { freshnessMetrics, freshnessSummary, reachFor, ROLLED_REACH, SLI_SETTINGS } from "../../lib/slo/sql";
import type { SloDefaults } from "../../lib/slo/limits";

// The freshness SLI's hourly roll-ups: with the hours rolled up, the long windows (1 d, 3 d, the
// SLO's 28 d) are sums of freshness_hours plus the tasks since, and every figure equals the one
// counted from the tasks alone; a change of a tenant's target makes the old hours unused at once
// and counted again by the next pass; the tasks are then read only as far back as the roll-ups end.

const D: SloDefaults = { objective: 0.99, targetSeconds: 300, windowDays: 28 };
const H = 3_600;
let t: TestDb;

beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t?.close();
});

async function insert(tenant: string, version: number, status: string, createdAgo: number, took: number | null) {
  await t.pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [tenant]);
  const doc = randomUUID();
  await t.pool.query(
    `INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES ($1, $2, $3, $3, $4)`,
    [doc, tenant, `k-${doc}`, version],
  );
  await t.pool.query(
    `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, created_at, updated_at, finished_at)
     VALUES ($1, $2, $3, 'INDEX', $4, now() - make_interval(secs => $5), now() - make_interval(secs => $5),
             CASE WHEN $6::float8 IS NULL THEN NULL ELSE now() - make_interval(secs => $5) + make_interval(secs => $6::float8) END)`,
    [tenant, doc, version, status, createdAgo, took],
  );
}

/** The metrics' and the summary's figures as the product reads them (roll-ups where they apply). */
async function figures() {
  const c = await t.pool.connect();
  try {
    await c.query("BEGIN READ ONLY");
    await c.query(SLI_SETTINGS);
    const { behind } = (await c.query<{ behind: number | null }>(ROLLED_REACH, [null, D.targetSeconds])).rows[0];
    const m = freshnessMetrics(D, reachFor(D, behind, 259_200));
    const metrics = (await c.query<{ tenant_id: string; counts: number[] }>(m.text, m.values)).rows;
    const s = freshnessSummary(null, D, reachFor(D, behind));
    const summary = (await c.query<{ tenant_id: string; good: number; bad: number; pending: number }>(s.text, s.values))
      .rows;
    await c.query("COMMIT");
    return { behind, metrics, summary };
  } finally {
    c.release();
  }
}

describe("freshness roll-ups", () => {
  it("give the figures the tasks give, and let the SLO's reads stop at the roll-ups' end", async () => {
    // Decisions spread over the 28 days, none within an hour of a window's start (now − 1 d, 3 d, 28 d),
    // where the roll-ups count whole hours only.
    const ages = [20 * 86_400, 5 * 86_400, 2 * 86_400, 30 * H, 20 * H, 6 * H + 600, 3 * H, 2 * H, 1_200, 400];
    for (const [i, age] of ages.entries()) {
      await insert("acme", 1, "SUCCEEDED", age, 30); // in time: good
      await insert("acme", 1, "SUCCEEDED", age + 60, 900); // late: bad at its deadline
      if (i % 3 === 0) await insert("globex", 1, "DEAD", age, 120); // bad at its end
      if (i % 4 === 1) await insert("globex", 1, "PENDING", age, null); // stuck: bad at its deadline
    }
    await insert("globex", 1, "PENDING", 60, null); // within its deadline: pending

    const live = await figures();
    expect(live.behind).toBeNull();
    const acme = live.metrics.find((r) => r.tenant_id === "acme")!.counts;
    // The SLO window (the last pair): every one of acme's decisions, 10 good and 10 bad.
    expect(acme.slice(-2)).toEqual([10, 10]);

    const r = await rollUpFreshness(t.pool, D);
    expect(r.tenants).toBe(2);
    expect(r.hours).toBeGreaterThan(10);
    const { rows } = await t.pool.query(`SELECT sum(good)::int AS good, sum(bad)::int AS bad FROM freshness_hours`);
    expect(rows[0].good).toBeGreaterThan(0);

    const rolled = await figures();
    // Rolled up to the last hour that ended more than the target and 10 minutes ago: the tasks are read only since.
    expect(rolled.behind).toBeGreaterThan(600 + 300);
    expect(rolled.behind).toBeLessThan(H + 600 + 300 + 60);
    expect(rolled.metrics).toEqual(live.metrics);
    expect(rolled.summary).toEqual(live.summary);
    // A second pass finds nothing new to count.
    expect((await rollUpFreshness(t.pool, D)).hours).toBe(0);
  });

  it("a change of a tenant's target leaves its old hours unread until they are counted again", async () => {
    await t.pool.query(`UPDATE tenants SET freshness_target_seconds = 1000 WHERE id = 'acme'`);
    const before = await figures();
    expect(before.behind).toBeNull(); // acme's hours were counted under 300 s: the tasks are read
    const acme = before.metrics.find((r) => r.tenant_id === "acme")!.counts;
    expect(acme.slice(-2)).toEqual([20, 0]); // the late ones (900 s) are in time under 1,000 s
    const r = await rollUpFreshness(t.pool, D);
    expect(r.tenants).toBe(1);
    const after = await figures();
    expect(after.behind).not.toBeNull();
    expect(after.metrics).toEqual(before.metrics);
    expect(after.summary).toEqual(before.summary);
  });
});
