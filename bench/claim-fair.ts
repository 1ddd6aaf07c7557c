// The fair claim's cost at scale (docs/decisions/040-fair-claim.md): claim time with FINISHED
// finished tasks and DUE due tasks spread over TENANTS tenants (half interactive, half bulk, a
// share of them waiting for a retry that is not due yet), beside what joining the queue costs (one
// task's insert through the place-giving trigger) and what the overview's per-tenant waits read.
// Each claim and insert runs in a transaction that is rolled back, so every sample sees the same
// queue.
//
//   npm run bench:claim-fair      FINISHED=1000000 DUE=100000 TENANTS=1000 SAMPLES=50 by default
//
// The last line of stdout is one JSON object.
import pg from "pg";
import { claimTasks } from "../lib/queue/sql";
import { tenantQueueHeads } from "../lib/queue/waits";
import { withBenchDatabase, percentile, round3, machineFacts, seedFinishedTasks } from "./db";

const FINISHED = Number(process.env.FINISHED ?? 1_000_000);
const DUE = Number(process.env.DUE ?? 100_000);
const TENANTS = Number(process.env.TENANTS ?? 1000);
const SAMPLES = Number(process.env.SAMPLES ?? 50);
const RETRY_WAITING = Number(process.env.RETRY_WAITING ?? 10_000);
const LIMIT = 16;
const TARGET_P95_MS = 20;
const log = (m: string) => process.stderr.write(`[bench:claim-fair] ${m}\n`);

async function timed(c: pg.PoolClient, fn: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES + 3; i++) {
    await c.query("BEGIN");
    const t0 = performance.now();
    await fn();
    const ms = performance.now() - t0;
    await c.query("ROLLBACK");
    if (i >= 3) times.push(ms);
  }
  return times.sort((a, b) => a - b);
}
const summary = (xs: number[]) => ({
  p50: round3(percentile(xs, 50)),
  p95: round3(percentile(xs, 95)),
  max: round3(xs.at(-1)!),
});

async function main() {
  const out = await withBenchDatabase("claim_fair", async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      const facts = await machineFacts(pool);
      let t0 = performance.now();
      await pool.query(`INSERT INTO tenants (id, name) VALUES ('bench', 'bench')`);
      await seedFinishedTasks(pool, FINISHED);
      log(`${FINISHED} finished tasks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      t0 = performance.now();
      const per = Math.ceil(DUE / TENANTS);
      // Tenant after tenant, each in one statement (as a sync's bulk insert), through the trigger.
      for (let k = 0; k < TENANTS; k++) {
        const tenant = `t${String(k).padStart(4, "0")}`;
        await pool.query(
          `WITH x AS (INSERT INTO tenants (id, name) VALUES ($1, $1) RETURNING id),
                d AS (INSERT INTO documents (id, tenant_id, key, title, business_version)
                      SELECT gen_random_uuid(), $1, $1 || '-' || i, 'Doc', 1 FROM generate_series(1, $2::int) i, x RETURNING id)
           INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, priority)
           SELECT $1, d.id, 1, 'INDEX', $3::smallint FROM d`,
          [tenant, per, k % 2],
        );
      }
      log(`${per * TENANTS} due tasks over ${TENANTS} tenants in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      // Retries not due yet, as a provider outage leaves them: the claim must not read them.
      await pool.query(
        `UPDATE index_tasks SET status = 'RETRY_WAIT', next_attempt_at = now() + interval '1 hour', attempts = 1
          WHERE task_id IN (SELECT task_id FROM index_tasks WHERE status = 'PENDING' ORDER BY task_id LIMIT $1)`,
        [RETRY_WAITING],
      );
      await pool.query(`VACUUM ANALYZE index_tasks`);
      const c = await pool.connect();
      try {
        const claim = claimTasks("bench-claimer", 60, LIMIT);
        const dueOnly = claimTasks("bench-claimer", 60, LIMIT, { takeOver: false });
        const full = await timed(c, () => c.query(claim.text, claim.values));
        const due = await timed(c, () => c.query(dueOnly.text, dueOnly.values));
        const claimed = await c.query(claim.text, claim.values);
        await c.query(`SELECT 1`);
        const doc = (await c.query<{ id: string }>(`SELECT id FROM documents WHERE tenant_id = 't0001' LIMIT 1`))
          .rows[0].id;
        const insert = await timed(c, () =>
          c.query(
            `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, priority) VALUES ('t0001', $1, 99, 'INDEX', 1)`,
            [doc],
          ),
        );
        const heads = tenantQueueHeads();
        const waits = await timed(c, () => c.query(heads.text, heads.values));
        return {
          bench: "claim-fair",
          settings: { FINISHED, DUE: per * TENANTS, TENANTS, RETRY_WAITING, LIMIT, SAMPLES },
          machine: facts,
          target: { claimP95Ms: TARGET_P95_MS },
          claimMs: summary(full),
          claimDueOnlyMs: summary(due),
          firstClaimTenants: new Set(claimed.rows.map((r: { tenant_id: string }) => r.tenant_id)).size,
          enqueueOneMs: summary(insert),
          tenantWaitsMs: summary(waits),
          met: { claimP95: percentile(full, 95) < TARGET_P95_MS },
        };
      } finally {
        c.release();
      }
    } finally {
      await pool.end();
    }
  });
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
