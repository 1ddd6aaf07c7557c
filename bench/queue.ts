// Queue benchmark: claim→complete throughput of no-op tasks with 1, 4 and 8 concurrent workers,
// and claim latency percentiles, with 1,000,000 finished tasks in the table.
//
//   npm run bench:queue                      (PostgreSQL at BENCH_DATABASE_URL, default
//                                             postgresql://postgres@127.0.0.1:5432/postgres)
//   FINISHED=1000000 TASKS=4000 npm run bench:queue
//
// It creates (and afterwards drops) its own database, applies the migrations, seeds the finished
// tasks with one INSERT … SELECT generate_series, then for each worker count seeds TASKS due
// tasks and lets N claimers (each on its own connection, batch size 1, as the worker does per
// free slot) claim and complete until the queue is empty. Every claim is timed on the client.
import pg from "pg";
import os from "node:os";
import { withBenchDatabase, percentile, round3 } from "./db";
import { claim, complete } from "../lib/queue/engine";

const FINISHED = Number(process.env.FINISHED ?? 1_000_000);
const TASKS = Number(process.env.TASKS ?? 4000);
const WORKERS = (process.env.WORKERS ?? "1,4,8").split(",").map(Number);

const pct = percentile;
const round = round3;

async function main() {
  await withBenchDatabase("queue", async (dbUrl) => {
    const pool = new pg.Pool({ connectionString: dbUrl, max: 12 });
    await pool.query(`INSERT INTO tenants (id, name) VALUES ('bench', 'bench')`);
    await pool.query(`INSERT INTO documents (id, tenant_id, key, title, business_version)
                      SELECT gen_random_uuid(), 'bench', 'doc-' || i, 'Doc', 1 FROM generate_series(1, 1000) i`);
    const seedStart = Date.now();
    await pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, attempts, created_at, updated_at, started_at, finished_at, next_attempt_at)
       SELECT 'bench', d.id, g.v, 'INDEX', 'SUCCEEDED', 1, now() - interval '1 day', now(), now(), now(), now() - interval '1 day'
         FROM (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM documents) d
         JOIN LATERAL generate_series(1, ceil($1::numeric / 1000)::int) AS g(v) ON true
        LIMIT $1`,
      [FINISHED],
    );
    await pool.query(`ANALYZE index_tasks`);
    const seedMs = Date.now() - seedStart;
    const finished = Number((await pool.query(`SELECT count(*) FROM index_tasks WHERE status = 'SUCCEEDED'`)).rows[0].count);

    let nextVersion = Math.ceil(FINISHED / 1000) + 1;
    const runs = [];
    const allLatencies: number[] = [];
    for (const n of WORKERS) {
      // TASKS due no-op tasks spread over the 1,000 documents, above every used version number.
      const perDoc = Math.ceil(TASKS / 1000);
      await pool.query(
        `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type)
         SELECT 'bench', d.id, g.v, 'INDEX' FROM documents d CROSS JOIN generate_series($1::int, $2::int) AS g(v) LIMIT $3`,
        [nextVersion, nextVersion + perDoc - 1, TASKS],
      );
      nextVersion += perDoc;
      const clients = await Promise.all(Array.from({ length: n }, async () => {
        const c = new pg.Client({ connectionString: dbUrl });
        await c.connect();
        return c;
      }));
      const latencies: number[] = [];
      const t0 = process.hrtime.bigint();
      const counts = await Promise.all(clients.map(async (c, i) => {
        let done = 0;
        for (;;) {
          const s = process.hrtime.bigint();
          const leases = await claim(c, `bench-${n}-${i}`, 60, 1);
          latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
          if (leases.length === 0) break;
          await complete(c, leases[0]);
          done++;
        }
        return done;
      }));
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      await Promise.all(clients.map((c) => c.end()));
      const total = counts.reduce((a, b) => a + b, 0);
      latencies.sort((a, b) => a - b);
      allLatencies.push(...latencies);
      runs.push({
        workers: n,
        tasks: total,
        seconds: round(seconds),
        tasksPerSecond: Math.round(total / seconds),
        claimMs: { p50: round(pct(latencies, 50)), p95: round(pct(latencies, 95)), p99: round(pct(latencies, 99)), max: round(latencies[latencies.length - 1]) },
      });
    }
    allLatencies.sort((a, b) => a - b);
    const plan = (await pool.query(`EXPLAIN (FORMAT JSON) SELECT task_id FROM index_tasks WHERE status IN ('PENDING','RETRY_WAIT') AND next_attempt_at <= now() ORDER BY next_attempt_at, created_at, task_id LIMIT 1`)).rows[0]["QUERY PLAN"][0].Plan;
    const server = (await pool.query(`SELECT current_setting('server_version') AS v`)).rows[0].v;
    await pool.end();
    console.log(
      JSON.stringify(
        {
          bench: "queue",
          method: "N claimers on separate connections, claim(batch=1) then complete, until empty; client-side timing of every claim statement (including empty final claims)",
          machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, postgres: server },
          finishedTasksInTable: finished,
          seedSeconds: round(seedMs / 1000),
          runs,
          claimMsAllRuns: { samples: allLatencies.length, p50: round(pct(allLatencies, 50)), p95: round(pct(allLatencies, 95)), p99: round(pct(allLatencies, 99)) },
          targetClaimP95Ms: 20,
          dueScanPlan: `${plan["Node Type"]} → ${plan.Plans?.[0]?.["Node Type"] ?? ""} ${plan.Plans?.[0]?.["Index Name"] ?? ""}`.trim(),
        },
        null,
        2,
      ),
    );
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
