// The claim's pause filter (lib/queue/sql.ts, NOT_PAUSED) at 100,000 due tasks: claim time with no
// pause, with a pause that holds nothing at the head of the queue, and with 100,000 paused due
// tasks queued ahead of the runnable ones; beside it, the forms of the filter not shipped.
// Each claim runs in a transaction that is rolled back, so every sample sees the same queue.
// Usage: npx tsx bench/claim-pause.ts   (BENCH_DATABASE_URL, CLAIM_PAUSE_TASKS, CLAIM_PAUSE_SAMPLES)
import pg from "pg";
import { claimTasks } from "../lib/queue/sql";
import { withBenchDatabase, percentile, round3, machineFacts } from "./db";

const N = Number(process.env.CLAIM_PAUSE_TASKS ?? 100_000);
const SAMPLES = Number(process.env.CLAIM_PAUSE_SAMPLES ?? 30);
const LIMIT = 16;

/** N due INDEX tasks of `tenant`, due from `ago` seconds back (older first), one document each. */
async function seed(pool: pg.Pool, tenant: string, n: number, ago: number) {
  await pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [tenant]);
  await pool.query(
    `WITH d AS (
       INSERT INTO documents (id, tenant_id, key, title, business_version)
       SELECT gen_random_uuid(), $1, $1 || '-' || i, 'Doc', 1 FROM generate_series(1, $2::int) i
       RETURNING id, key)
     INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, next_attempt_at, created_at)
     SELECT $1, d.id, 1, 'INDEX', now() - make_interval(secs => $3::double precision) + make_interval(secs => split_part(d.key, '-', 2)::int * 0.001), now()
       FROM d`,
    [tenant, n, ago],
  );
}

/** Claim time in ms over SAMPLES rolled-back claims, and what the first claim took. */
async function measure(
  pool: pg.Pool,
  text: string,
): Promise<{ p50: number; p95: number; claimedTenants: Record<string, number> }> {
  const times: number[] = [];
  let claimedTenants: Record<string, number> = {};
  const c = await pool.connect();
  try {
    for (let i = 0; i < SAMPLES + 3; i++) {
      await c.query("BEGIN");
      const t0 = performance.now();
      const { rows } = await c.query<{ tenant_id: string }>(text, ["bench", 60]);
      const ms = performance.now() - t0;
      await c.query("ROLLBACK");
      if (i >= 3) times.push(ms); // the first few warm the cache and the plan
      if (i === 0)
        claimedTenants = rows.reduce<Record<string, number>>(
          (a, r) => ({ ...a, [r.tenant_id]: (a[r.tenant_id] ?? 0) + 1 }),
          {},
        );
    }
  } finally {
    c.release();
  }
  times.sort((a, b) => a - b);
  return { p50: round3(percentile(times, 50)), p95: round3(percentile(times, 95)), claimedTenants };
}

/** The plan lines that show how the due scan is filtered (InitPlan, index scan, anti-join, rows read). */
async function plan(pool: pg.Pool, text: string): Promise<string[]> {
  const c = await pool.connect();
  try {
    await c.query("BEGIN");
    const { rows } = await c.query<{ "QUERY PLAN": string }>(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${text}`,
      ["bench", 60],
    );
    await c.query("ROLLBACK");
    return rows
      .map((r) => r["QUERY PLAN"])
      .filter((l) => /CTE due|InitPlan|Index Scan|Anti Join|Rows Removed|SubPlan|Seq Scan on index_tasks/.test(l))
      .map((l) => l.trim());
  } finally {
    c.release();
  }
}

await withBenchDatabase("claim_pause", async (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => undefined);
  try {
    // "held": N due tasks queued first; "free": a few hundred runnable tasks queued behind them.
    await seed(pool, "held", N, 7200);
    await seed(pool, "free", 500, 60);
    await pool.query("VACUUM ANALYZE index_tasks");
    await pool.query("ANALYZE documents");
    const shipped = claimTasks("bench", 60, LIMIT).text;
    const filter = /\(NOT EXISTS \(SELECT 1 FROM task_pauses\)\s+OR NOT \(tenant_id = ANY[\s\S]*?IS NOT NULL\)\)\)\)/g;
    if ((shipped.match(filter) ?? []).length !== 2)
      throw new Error("the claim's pause filter is not where this bench expects it");
    const swap = (replacement: string) => shipped.replace(filter, replacement);
    // The forms not shipped, each measured on the same queue.
    const alternatives: Record<string, string> = {
      // The gate, then a correlated NOT EXISTS: a per-row sub-plan run over a paused backlog.
      gatedCorrelatedExists:
        "(NOT EXISTS (SELECT 1 FROM task_pauses) OR NOT EXISTS (SELECT 1 FROM task_pauses p WHERE p.tenant_id = index_tasks.tenant_id OR p.task_type = index_tasks.task_type))",
      // One correlated NOT EXISTS: planned as an anti-join that reads every due row.
      singleNotExists:
        "NOT EXISTS (SELECT 1 FROM task_pauses p WHERE p.tenant_id = index_tasks.tenant_id OR p.task_type = index_tasks.task_type)",
      // The arrays without the gate: the planner cannot size them and picks a scan and sort.
      ungatedArrays:
        "NOT (tenant_id = ANY (ARRAY(SELECT tenant_id FROM task_pauses WHERE tenant_id IS NOT NULL)) OR task_type = ANY (ARRAY(SELECT task_type FROM task_pauses WHERE task_type IS NOT NULL)))",
      noFilter: "true",
    };
    const scenario = async (name: string) => {
      const others: Record<string, { p50: number; p95: number }> = {};
      for (const [k, v] of Object.entries(alternatives)) {
        const m = await measure(pool, swap(v));
        others[k] = { p50: m.p50, p95: m.p95 };
      }
      return { name, shipped: await measure(pool, shipped), plan: await plan(pool, shipped), alternatives: others };
    };
    const results = [];
    results.push(await scenario("no pause"));
    await pool.query(
      `INSERT INTO task_pauses (tenant_id, paused_by, reason) VALUES ('elsewhere', 'bench', 'a pause that holds nothing at the head')`,
    );
    results.push(await scenario("pause elsewhere (head of the queue runnable)"));
    await pool.query(`DELETE FROM task_pauses`);
    await pool.query(
      `INSERT INTO task_pauses (tenant_id, paused_by, reason) VALUES ('held', 'bench', 'the whole head of the queue held')`,
    );
    results.push(await scenario(`${N} paused due tasks ahead of the runnable ones`));
    const facts = await machineFacts(pool);
    for (const r of results) {
      process.stderr.write(
        `\n== ${r.name}\nshipped p50 ${r.shipped.p50} ms p95 ${r.shipped.p95} ms, claimed ${JSON.stringify(r.shipped.claimedTenants)}\n  ${r.plan.join("\n  ")}\n`,
      );
      for (const [k, v] of Object.entries(r.alternatives))
        process.stderr.write(`${k}: p50 ${v.p50} ms p95 ${v.p95} ms\n`);
    }
    process.stdout.write(
      `${JSON.stringify({ bench: "claim-pause", dueTasks: N + 500, claimLimit: LIMIT, samples: SAMPLES, results, machine: facts })}\n`,
    );
  } finally {
    await pool.end();
  }
});
