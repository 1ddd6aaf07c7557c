// What one task costs the database, in counts that do not depend on the machine's load:
// WAL records and bytes, index entries written, heap tuples written, commits and statements per
// task, for claim → no-op → complete with the worker's own statements (CLAIMERS connections, each
// claiming BATCH due tasks and completing them in turn, named statements as on an external
// server; about a claim per three tasks, as the Worker in bench/queue.ts does). bench/queue.ts measures throughput on
// a shared machine, where a run's figure moves with whatever else runs; these counts do not, so a
// change of the hot path can be judged by them first.
//
//   node --import tsx bench/queue-cost.ts
//   TASKS=20000 FINISHED=1000000 CLAIMERS=10 BATCH=3 node --import tsx bench/queue-cost.ts
//   QUEUE_COST_DATABASE=iw_qcost node --import tsx bench/queue-cost.ts   (keep a seeded database)
//
// WAL is read with pg_walinspect (PostgreSQL 15+, contrib): index entries written are its B-tree
// insert records, heap tuples written its heap insert/update records. A checkpoint before the
// run makes the full-page images of the first touch of each page part of the figure, as they are
// in production between checkpoints.
import pg from "pg";
import { migrate } from "../lib/db/migrate";
import { claim, complete, setPreparedStatements } from "../lib/queue/engine";
import { procsCpuMs, round3, seedFinishedTasks } from "./db";

const base = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const num = (name: string, fallback: number) => {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 0) throw new Error(`BENCH_INVALID_SETTING: ${name} must be a non-negative integer`);
  return n;
};
const S = {
  tasks: num("TASKS", 20_000),
  finished: num("FINISHED", 1_000_000),
  claimers: num("CLAIMERS", 10),
  batch: num("BATCH", 3),
};
const kept = process.env.QUEUE_COST_DATABASE?.trim() || null;
const say = (msg: string) => process.stderr.write(`[bench:queue-cost] ${msg}\n`);

function backendCpuMs(pids: number[]): number {
  const ms = procsCpuMs(pids);
  if (ms === null) throw new Error("a claimer's backend is gone (or no /proc): cannot read its CPU");
  return ms;
}

async function main() {
  const dbName = kept ?? `iw_bench_queue_cost_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const exists = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [dbName])).rowCount === 1;
  if (!exists) await admin.query(`CREATE DATABASE ${dbName}`);
  const u = new URL(base);
  u.pathname = `/${dbName}`;
  const url = u.toString();
  // A kept database is migrated when it is created; later migrations are applied to it by hand
  // (or QUEUE_COST_MIGRATE=1), so one seeded copy can be compared before and after a change.
  if (!exists || process.env.QUEUE_COST_MIGRATE === "1") await migrate(url);
  const pool = new pg.Pool({ connectionString: url, max: S.claimers + 1 });
  try {
    await pool.query(`CREATE EXTENSION IF NOT EXISTS pg_walinspect`);
    if (!exists) {
      await pool.query(`INSERT INTO tenants (id, name) VALUES ('bench', 'bench')`);
      await seedFinishedTasks(pool, S.finished);
    }
    const next = Number(
      (await pool.query(`SELECT coalesce(max(version_number), 0) + 1 AS v FROM index_tasks`)).rows[0].v,
    );
    const perDoc = Math.ceil(S.tasks / 1000);
    await pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type)
       SELECT 'bench', d.id, g.v, 'INDEX' FROM documents d CROSS JOIN generate_series($1::int, $2::int) AS g(v) LIMIT $3`,
      [next, next + perDoc - 1, S.tasks],
    );
    await pool.query(`VACUUM (ANALYZE) index_tasks, task_events`);
    await pool.query(`CHECKPOINT`);

    setPreparedStatements(true);
    const clients = await Promise.all(
      Array.from({ length: S.claimers }, async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        return c;
      }),
    );
    const pids = await Promise.all(
      clients.map(async (c) => Number((await c.query(`SELECT pg_backend_pid() AS p`)).rows[0].p)),
    );
    const counters = async () =>
      (
        await pool.query(`SELECT pg_current_wal_insert_lsn() AS lsn,
              (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS commits`)
      ).rows[0] as { lsn: string; commits: string };
    // A checkpoint elsewhere on the server may recycle the run's WAL before it is read: a
    // physical slot holds it until then.
    const slot = `iw_queue_cost_${process.pid}`;
    await pool.query(`SELECT pg_create_physical_replication_slot($1, true)`, [slot]);
    const before = await counters();
    const cpu0 = backendCpuMs(pids);
    let statements = 0;
    const t0 = performance.now();
    const done = await Promise.all(
      clients.map(async (c, i) => {
        let n = 0;
        for (;;) {
          const leases = await claim(c, `cost-${i}`, 60, S.batch);
          statements++;
          if (leases.length === 0) return n;
          for (const l of leases) {
            await complete(c, l);
            statements++;
            n++;
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu = backendCpuMs(pids) - cpu0;
    await Promise.all(clients.map((c) => c.end()));
    await new Promise((r) => setTimeout(r, 1200));
    const after = await counters();
    // pg_walinspect reads only flushed WAL; the claims' asynchronous commits may not be yet.
    while ((await pool.query(`SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS ok`, [after.lsn])).rows[0].ok !== true)
      await new Promise((r) => setTimeout(r, 50));
    const total = done.reduce((a, b) => a + b, 0);
    if (total !== S.tasks) throw new Error(`completed ${total} of ${S.tasks}`);
    // Other databases of the server may write WAL meanwhile: only records touching this
    // database's relations count, with the commit records of the transactions that wrote them.
    const wal = (
      await pool.query<{ rm: string; n: string; bytes: string; fpi: string }>(
        `WITH r AS (SELECT * FROM pg_get_wal_records_info($1, $2)),
            ours AS (SELECT DISTINCT xid FROM r WHERE block_ref LIKE '%/' || (SELECT oid FROM pg_database WHERE datname = current_database()) || '/%' AND xid <> '0')
       SELECT resource_manager || '/' || split_part(record_type, ' ', 1) AS rm, count(*) AS n, sum(record_length) AS bytes, count(*) FILTER (WHERE fpi_length > 0) AS fpi
         FROM r
        WHERE block_ref LIKE '%/' || (SELECT oid FROM pg_database WHERE datname = current_database()) || '/%'
           OR (resource_manager = 'Transaction' AND xid IN (SELECT xid FROM ours))
        GROUP BY 1 ORDER BY 3 DESC`,
        [before.lsn, after.lsn],
      )
    ).rows;
    await pool.query(`SELECT pg_drop_replication_slot($1)`, [slot]);
    const per = (x: number) => round3(x / total);
    const kinds = Object.fromEntries(
      wal.map((r) => [
        r.rm,
        { records: per(Number(r.n)), bytes: Math.round(Number(r.bytes) / total), fpi: per(Number(r.fpi)) },
      ]),
    );
    const sum = (pred: (rm: string) => boolean, field: "n" | "bytes" | "fpi") =>
      wal.filter((r) => pred(r.rm)).reduce((a, r) => a + Number(r[field]), 0);
    const result = {
      bench: "queue-cost",
      settings: S,
      tasksPerSecond: Math.round(total / seconds),
      perTask: {
        walBytes: Math.round(sum(() => true, "bytes") / total),
        walRecords: per(sum(() => true, "n")),
        fullPageImages: per(sum(() => true, "fpi")),
        indexEntriesWritten: per(sum((rm) => /^Btree\/INSERT/.test(rm), "n")),
        heapTuplesWritten: per(sum((rm) => /^Heap2?\/(INSERT|UPDATE|HOT_UPDATE|MULTI_INSERT|DELETE)/.test(rm), "n")),
        hotUpdates: per(sum((rm) => rm === "Heap/HOT_UPDATE", "n")),
        commits: per(Number(after.commits) - Number(before.commits)),
        statements: per(statements),
        databaseCpuMs: per(cpu),
      },
      walByRecordType: kinds,
    };
    say(JSON.stringify(result.perTask));
    console.log(JSON.stringify(result));
  } finally {
    await pool.end();
    if (!kept) await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
