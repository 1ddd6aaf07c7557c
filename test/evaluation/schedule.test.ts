import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, extraPool, onRealPostgres, type TestDb } from "../helpers/db";
import { publish } from "../../lib/documents/publish";
import { LocalEmbedder } from "../../lib/embedding";
import { SpaceEmbedders } from "../../lib/spaces/embedders";
import { personPrincipal } from "../../lib/auth/principal";
import { putEvaluationSet } from "../../lib/evaluation/repository";
import { runPendingEvaluations, scheduleEvaluations } from "../../lib/evaluation/runner";
import { enqueueScheduledRuns } from "../../lib/evaluation/sql";
import { renderMetrics } from "../../lib/metrics";
import { loadConfig } from "../../lib/config";
import { promtool } from "../ops/exported";
import type pg from "pg";

// The evaluation schedule (EVALUATION_SCHEDULE_MINUTES) and the latest figures on /api/metrics.
// Every worker's maintenance offers the scheduled run; however many pass at once, one run per
// tenant is queued (a partial unique index), none while one waits, and the next only once the
// interval has passed since the last was asked for. No worker runs here: the runs are executed
// by hand, so nothing claims them between the steps. The documents are never indexed (their runs
// find nothing), which is all a schedule and a gauge need.

const A = "sched-a";
const B = "sched-b";
const operator = personPrincipal("ops@example.com", "operator", null);
const spaces = new SpaceEmbedders({ timeoutMs: 5_000, preset: new LocalEmbedder(384) });

let t: TestDb;
let other: pg.Pool;

const count = async (sql: string, values: unknown[] = []) => (await t.pool.query(sql, values)).rows[0].n as number;
const scheduled = (tenant: string) =>
  count(`SELECT count(*)::int AS n FROM evaluation_runs WHERE tenant_id = $1 AND trigger = 'scheduled'`, [tenant]);
/** Makes every scheduled run look asked for `minutes` earlier than it was. */
const age = (minutes: number) =>
  t.pool.query(
    `UPDATE evaluation_runs SET created_at = created_at - make_interval(mins => $1::int) WHERE trigger = 'scheduled'`,
    [minutes],
  );

async function tenantWithSet(tenant: string) {
  await publish(t.pool, {
    tenant,
    key: "policy",
    title: "policy",
    contentType: "text/markdown",
    content: Buffer.from("# Policy\n\nRefunds are paid within fourteen days."),
    acl: [],
    abstract: null,
    overview: null,
    actor: "t",
    maxAttempts: 3,
  });
  await putEvaluationSet(t.pool, operator, tenant, {
    queries: [
      { query: "how long does a refund take", relevant: ["policy"] },
      { query: "who pays the return shipping", relevant: ["shipping"] },
    ],
  });
}

beforeAll(async () => {
  t = await createTestDb();
  other = extraPool(t.url, { max: 2 });
  await tenantWithSet(A);
  await tenantWithSet(B);
}, 60_000);

afterAll(async () => {
  await other?.end().catch(() => undefined);
  await t?.close();
});

describe("the evaluation schedule", () => {
  it("is off at 0 (the default)", async () => {
    expect(loadConfig({}).EVALUATION_SCHEDULE_MINUTES).toBe(0);
    expect(await scheduleEvaluations(t.pool, { minutes: 0, worker: "w1" })).toEqual([]);
    expect(await scheduled(A)).toBe(0);
  });

  it("queues one run per tenant across two maintenance passes at once, on the active space in hybrid", async () => {
    const [one, two] = await Promise.all([
      scheduleEvaluations(t.pool, { minutes: 60, worker: "w1" }),
      scheduleEvaluations(other, { minutes: 60, worker: "w2" }),
    ]);
    expect([...one, ...two].map((r) => r.tenant).sort()).toEqual([A, B]);
    expect(await scheduled(A)).toBe(1);
    expect(await scheduled(B)).toBe(1);
    const { rows } = await t.pool.query(
      `SELECT r.state, r.mode, r.top_k, r.set_version, r.total, r.requested_by, r.settings, s.name AS space
         FROM evaluation_runs r JOIN embedding_spaces s ON s.id = r.space_id WHERE r.tenant_id = $1`,
      [A],
    );
    expect(rows[0]).toMatchObject({ state: "PENDING", mode: "hybrid", top_k: 10, set_version: 1, total: 2 });
    expect(rows[0].requested_by).toMatch(/^w[12] \(schedule\)$/);
    expect(rows[0].settings).toMatchObject({ space: { name: rows[0].space }, pointers: "active", mode: "hybrid" });
    // Within the interval nothing more is queued.
    expect(await scheduleEvaluations(t.pool, { minutes: 60, worker: "w1" })).toEqual([]);
  });

  it("never joins a waiting run, even one older than the interval: the second insert waits and does nothing", async () => {
    await age(120);
    // The race made certain: pass 1 has inserted (uncommitted) when pass 2 runs the same statement.
    // The open runs from the step before already conflict; close A's so pass 1 really inserts one.
    await t.pool.query(`UPDATE evaluation_runs SET state = 'FAILED', error = 'test' WHERE tenant_id = $1`, [A]);
    const c1 = await t.pool.connect();
    try {
      await c1.query("BEGIN");
      const s = enqueueScheduledRuns(60, "hybrid", "w1 (schedule)");
      const first = await c1.query(s.text, s.values);
      expect(first.rows.map((r) => r.tenant_id)).toEqual([A]);
      const second = other.query(s.text, s.values);
      // Pass 2 is blocked on pass 1's uncommitted index entry (real PostgreSQL; PGlite serialises).
      if (onRealPostgres) {
        const waiting = await Promise.race([
          second.then(() => false),
          new Promise<boolean>((r) => setTimeout(() => r(true), 300)),
        ]);
        expect(waiting).toBe(true);
      }
      await c1.query("COMMIT");
      expect((await second).rows).toEqual([]);
    } finally {
      c1.release();
    }
    expect(await scheduled(A)).toBe(2);
    // B's run has waited (PENDING) for longer than the interval: still only that one.
    expect(await scheduled(B)).toBe(1);
  });

  it("queues the next run once the last was asked for longer ago than the interval, and never two in a row of passes", async () => {
    await runPendingEvaluations(t.pool, spaces, "w1");
    expect(
      await count(`SELECT count(*)::int AS n FROM evaluation_runs WHERE trigger = 'scheduled' AND state = 'DONE'`),
    ).toBe(2);
    // A's newest was asked for just now: nothing for A; B's two hours ago, and it is no longer open.
    expect((await scheduleEvaluations(t.pool, { minutes: 60, worker: "w1" })).map((r) => r.tenant)).toEqual([B]);
    await runPendingEvaluations(t.pool, spaces, "w1");
    await age(61);
    // Ten rounds of two passes at once: one run per tenant in all.
    const rounds = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        scheduleEvaluations(i % 2 ? other : t.pool, { minutes: 60, worker: `w${i % 2}` }),
      ),
    );
    expect(
      rounds
        .flat()
        .map((r) => r.tenant)
        .sort(),
    ).toEqual([A, B]);
  });
});

describe("the latest figures on /api/metrics", () => {
  it("exports nDCG@10, recall@10, MRR@10 and the age of the newest finished run per tenant, space and mode", async () => {
    await runPendingEvaluations(t.pool, spaces, "w1");
    const [{ space }] = (
      await t.pool.query(
        `SELECT s.name AS space FROM tenants t JOIN embedding_spaces s ON s.id = t.active_space_id WHERE t.id = $1`,
        [A],
      )
    ).rows;
    // The newest run's figures, set by hand so the gauges' values are known (the real ones are all 0:
    // nothing was indexed). An older run with other figures must not show.
    await t.pool.query(`UPDATE evaluation_runs SET finished_at = now() - interval '1 hour' WHERE tenant_id = $1`, [A]);
    await t.pool.query(
      `UPDATE evaluation_runs SET recall_at_10 = 0.5, mrr_at_10 = 0.25, ndcg_at_10 = 0.375, finished_at = now() - interval '30 seconds'
        WHERE id = (SELECT max(id) FROM evaluation_runs WHERE tenant_id = $1 AND state = 'DONE')`,
      [A],
    );
    // A finished run on a space the tenant neither searches nor migrates to: not a series.
    const stray = (
      await t.pool.query<{ id: number }>(
        `INSERT INTO embedding_spaces (name, provider, model, dimensions, chunker_version)
         VALUES ('local-128', 'local', 'indexwright-local-hash-v1', 128, 'md-heading-v2') RETURNING id`,
      )
    ).rows[0].id;
    await t.pool.query(
      `INSERT INTO evaluation_runs (tenant_id, set_version, space_id, mode, top_k, state, total, done, settings, requested_by,
                                    recall_at_10, mrr_at_10, ndcg_at_10, finished_at)
       VALUES ($1, 1, $2, 'vector', 10, 'DONE', 2, 2, '{}', 't', 1, 1, 1, now())`,
      [A, stray],
    );
    const body = (await renderMetrics(t.pool, { leaseSeconds: 10, heartbeatSeconds: 3 })).body;
    const labels = `{tenant="${A}",space="${space}",mode="hybrid"}`;
    expect(body).toContain(`indexwright_evaluation_ndcg_at_10${labels} 0.375`);
    expect(body).toContain(`indexwright_evaluation_recall_at_10${labels} 0.5`);
    expect(body).toContain(`indexwright_evaluation_mrr_at_10${labels} 0.25`);
    const ageOf = Number(
      new RegExp(`indexwright_evaluation_last_run_age_seconds${labels.replace(/[{}]/g, "\\$&")} ([0-9.]+)`).exec(
        body,
      )?.[1],
    );
    expect(ageOf).toBeGreaterThanOrEqual(29);
    expect(ageOf).toBeLessThan(120);
    // One series per tenant, space and mode: A and B in hybrid on the active space, nothing else.
    expect(body.match(/^indexwright_evaluation_ndcg_at_10\{/gm)).toHaveLength(2);
    expect(body).not.toContain('space="local-128"');
    // Prometheus's own linter passes on the series, samples and all.
    const lint = promtool(
      ["check", "metrics"],
      body
        .split(/\n(?=# HELP )/)
        .filter((b) => b.includes("indexwright_evaluation_"))
        .join("\n"),
    );
    expect(lint.output).toBe("");
    expect(lint.status).toBe(0);
  });
});
