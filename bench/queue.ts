// Queue benchmark: our task engine against graphile-worker and pg-boss, in the same run, on the
// same server, with the same no-op work: claim → no-op → complete.
//
//   npm run bench:queue          (PostgreSQL at BENCH_DATABASE_URL, default
//                                 postgresql://postgres@127.0.0.1:5432/postgres)
//   TASKS=50000 PROCESSES=1,4 CONCURRENCY=10 ROUNDS=2 npm run bench:queue
//   SYSTEMS=indexwright ROUNDS=1 BENCH_PROFILE=1 npm run bench:queue   (statements per task)
//   MIXED_PRIORITIES=0 npm run bench:queue                             (every task in one class)
//
// By default half the tasks are bulk (ours: priority 1, claimed after interactive work, tenants in
// turn: docs/decisions/040-fair-claim.md) and graphile-worker's jobs have priorities 0 and 1 alike,
// so both claims order by priority.
//
// It creates (and afterwards drops) its own database, applies our migrations and the peers' own
// schemas, and seeds FINISHED succeeded tasks (the table a long-running install has).
//
// 1. Claim latency (kept from the first version of this bench): LATENCY_TASKS due tasks, drained
//    by 1, 4 and 8 claimers on their own connections with claim(batch=1) then complete; every
//    claim statement is timed on the client.
// 2. Throughput: for each process count, ROUNDS rounds of A/B/C (ours, graphile-worker, pg-boss).
//    Each run enqueues TASKS tasks, vacuums every system's tables and checkpoints, forks the
//    worker processes (bench/peers/*: real OS processes, CONCURRENCY tasks in hand each), waits
//    until all are set up, then starts the clock and says "go". The clock stops when the database
//    shows every task of the run completed. A run must finish every task exactly once (checked).
//
// The last line of output is one JSON object; a human summary goes to stderr.
import pg from "pg";
import fs from "node:fs";
import path from "node:path";
import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { runMigrations, Logger } from "graphile-worker";
import PgBoss from "pg-boss";
import {
  withBenchDatabase,
  percentile,
  round3,
  machineFacts,
  median,
  seedFinishedTasks,
  procsCpuMs,
  sessionBackendPids,
} from "./db";
import { claim, complete, setPreparedStatements } from "../lib/queue/engine";
import { PGBOSS_QUEUE, type FromChild } from "./peers/child";

const ROOT = path.resolve(import.meta.dirname, "..");

function setting(name: string, fallback: string): string {
  return process.env[name]?.trim() || fallback;
}
function positiveInt(name: string, fallback: number): number {
  const raw = setting(name, String(fallback));
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`BENCH_INVALID_SETTING: ${name} must be a positive integer, got "${raw}"`);
  return n;
}
function intList(name: string, fallback: string): number[] {
  const raw = setting(name, fallback);
  const xs = raw.split(",").map((s) => Number(s.trim()));
  if (xs.length === 0 || xs.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`BENCH_INVALID_SETTING: ${name} must be a comma-separated list of positive integers, got "${raw}"`);
  return xs;
}

// "indexwright" is ours as shipped for an external PostgreSQL: claim and complete as named
// statements (WORKER_PREPARED_STATEMENTS=auto). "indexwright-unnamed" is the same engine with
// unnamed statements, what runs on the embedded database or behind PgBouncer in transaction mode:
// measured beside it so the cost is visible in the same run, never the figure the ratios use.
// "indexwright-baseline" is ours from another checkout (BENCH_BASELINE=<its directory>, sharing
// this node_modules), to compare two versions of the engine in the same run.
const SYSTEM_NAMES = [
  "indexwright",
  "graphile-worker",
  "pg-boss",
  "indexwright-unnamed",
  "indexwright-baseline",
] as const;
const BASELINE = process.env.BENCH_BASELINE?.trim() || null;
type SystemName = (typeof SYSTEM_NAMES)[number];

const S = {
  tasks: positiveInt("TASKS", 50_000),
  processes: intList("PROCESSES", "1,4"),
  concurrency: positiveInt("CONCURRENCY", 10),
  rounds: positiveInt("ROUNDS", 2),
  finished: Number(setting("FINISHED", "1000000")),
  latencyTasks: positiveInt("LATENCY_TASKS", 4000),
  latencyClaimers: intList("LATENCY_CLAIMERS", "1,4,8"),
  pgBossWorkers: positiveInt("PGBOSS_WORKERS", 1),
  profile: process.env.BENCH_PROFILE === "1",
  /** Half the tasks bulk (ours) and half at priority 1 (graphile-worker's job priority): both claims order by class. */
  mixedPriorities: setting("MIXED_PRIORITIES", "1") === "1",
  systems: setting("SYSTEMS", SYSTEM_NAMES.filter((n) => n !== "indexwright-baseline" || BASELINE).join(","))
    .split(",")
    .map((s) => s.trim()) as SystemName[],
};
if (
  S.systems.includes("indexwright-baseline") &&
  !(BASELINE && fs.existsSync(path.join(BASELINE, "bench/peers/indexwright.ts")))
) {
  throw new Error(
    `BENCH_INVALID_SETTING: indexwright-baseline needs BENCH_BASELINE, a checkout with bench/peers/indexwright.ts (got "${BASELINE ?? ""}")`,
  );
}
if (!Number.isInteger(S.finished) || S.finished < 0)
  throw new Error(`BENCH_INVALID_SETTING: FINISHED must be a non-negative integer, got "${process.env.FINISHED}"`);
for (const s of S.systems)
  if (!SYSTEM_NAMES.includes(s))
    throw new Error(`BENCH_INVALID_SETTING: SYSTEMS: unknown system "${s}" (known: ${SYSTEM_NAMES.join(", ")})`);

const pct = percentile;
const round = round3;
const say = (msg: string) => process.stderr.write(`[bench:queue] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function packageVersion(name: string): string {
  return JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
}
function revision(dir: string): string {
  try {
    const sha = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: dir, encoding: "utf8" }).trim();
    const dirty =
      execFileSync("git", ["status", "--porcelain", "--", "lib/queue", "worker", "bench"], {
        cwd: dir,
        encoding: "utf8",
      }).trim() !== "";
    return dirty ? `${sha}+local changes` : sha;
  } catch {
    return "unknown";
  }
}

/** What the parent needs to know about each system: how to fill its queue and see it drained. */
type Adapter = {
  name: SystemName;
  file: string;
  env?: Record<string, string>;
  enqueue(pool: pg.Pool, n: number): Promise<void>;
  remaining(pool: pg.Pool): Promise<number>;
  /** Every task of the run completed exactly once; throws otherwise. */
  verify(pool: pg.Pool, n: number): Promise<Record<string, number>>;
};

/** Version numbers above every one used so far: each run's tasks are new (document, version) pairs. */
const versionCounter = { next: 0 };

function indexwrightAdapter(name: SystemName, prepared: boolean, root = ROOT): Adapter {
  let range = { lo: "0", hi: "0" };
  return {
    name,
    file: path.join(root, "bench/peers/indexwright.ts"),
    env: { BENCH_CHILD_PREPARED: prepared ? "1" : "0" },
    async enqueue(pool, n) {
      if (versionCounter.next === 0)
        versionCounter.next = Number(
          (await pool.query(`SELECT coalesce(max(version_number), 0) + 1 AS v FROM index_tasks`)).rows[0].v,
        );
      const nextVersion = versionCounter.next;
      const perDoc = Math.ceil(n / 1000);
      const r = await pool.query<{ lo: string; hi: string }>(
        `WITH ins AS (
           INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, priority)
           SELECT 'bench', d.id, g.v, 'INDEX', CASE WHEN $4::boolean THEN (abs(hashtext(d.id::text || g.v)) % 2)::smallint ELSE 0::smallint END
             FROM documents d CROSS JOIN generate_series($1::int, $2::int) AS g(v) LIMIT $3
           RETURNING task_id)
         SELECT min(task_id)::text AS lo, max(task_id)::text AS hi FROM ins`,
        [nextVersion, nextVersion + perDoc - 1, n, S.mixedPriorities],
      );
      versionCounter.next += perDoc;
      range = r.rows[0];
    },
    async remaining(pool) {
      return Number(
        (
          await pool.query(
            `SELECT count(*) FROM index_tasks WHERE task_id BETWEEN $1 AND $2 AND status <> 'SUCCEEDED'`,
            [range.lo, range.hi],
          )
        ).rows[0].count,
      );
    },
    async verify(pool, n) {
      const t = (
        await pool.query(
          `SELECT count(*) FILTER (WHERE status = 'SUCCEEDED' AND attempts = 1) AS once, count(*) AS total FROM index_tasks WHERE task_id BETWEEN $1 AND $2`,
          [range.lo, range.hi],
        )
      ).rows[0];
      const ev = await pool.query<{ kind: string; n: string }>(
        `SELECT kind, count(*) AS n FROM task_events WHERE task_id BETWEEN $1 AND $2 GROUP BY kind`,
        [range.lo, range.hi],
      );
      const events = Object.fromEntries(ev.rows.map((r) => [r.kind, Number(r.n)]));
      if (Number(t.once) !== n || Number(t.total) !== n)
        throw new Error(`${name}: ${t.once} of ${n} tasks succeeded on their first lease (${t.total} in the run)`);
      if (events.CLAIMED !== n || events.SUCCEEDED !== n)
        throw new Error(`${name}: task events ${JSON.stringify(events)}, expected ${n} CLAIMED and ${n} SUCCEEDED`);
      return {
        succeededOnFirstLease: Number(t.once),
        ...Object.fromEntries(Object.entries(events).map(([k, v]) => [`events${k}`, v])),
      };
    },
  };
}

function graphileAdapter(): Adapter {
  return {
    name: "graphile-worker",
    file: path.join(ROOT, "bench/peers/graphile-worker.ts"),
    async enqueue(pool, n) {
      await pool.query(
        `SELECT count(*) FROM graphile_worker.add_jobs(array(
           SELECT ('noop', '{}'::json, NULL, NULL, NULL, NULL, CASE WHEN $2::boolean THEN g % 2 END, NULL)::graphile_worker.job_spec FROM generate_series(1, $1) g))`,
        [n, S.mixedPriorities],
      );
    },
    async remaining(pool) {
      return Number((await pool.query(`SELECT count(*) FROM graphile_worker._private_jobs`)).rows[0].count);
    },
    async verify(pool) {
      // Completed jobs are deleted; a job that failed or was retried would still be here.
      const left = Number((await pool.query(`SELECT count(*) FROM graphile_worker._private_jobs`)).rows[0].count);
      if (left !== 0) throw new Error(`graphile-worker: ${left} jobs left`);
      return { jobsLeft: 0 };
    },
  };
}

function pgBossAdapter(boss: PgBoss): Adapter {
  let completedBefore = 0;
  const completed = async (pool: pg.Pool) =>
    Number(
      (await pool.query(`SELECT count(*) FROM pgboss.job WHERE name = $1 AND state = 'completed'`, [PGBOSS_QUEUE]))
        .rows[0].count,
    );
  return {
    name: "pg-boss",
    file: path.join(ROOT, "bench/peers/pg-boss.ts"),
    async enqueue(pool, n) {
      completedBefore = await completed(pool);
      for (let i = 0; i < n; i += 10_000) {
        // On the bench's own pool, whose counters are reported before each run (flushStatistics).
        await boss.insert(
          Array.from({ length: Math.min(10_000, n - i) }, () => ({ name: PGBOSS_QUEUE, data: {} })),
          {
            db: { executeSql: (text, values) => pool.query(text, values) },
          },
        );
      }
    },
    async remaining(pool) {
      return Number(
        (await pool.query(`SELECT count(*) FROM pgboss.job WHERE name = $1 AND state <> 'completed'`, [PGBOSS_QUEUE]))
          .rows[0].count,
      );
    },
    async verify(pool, n) {
      const done = (await completed(pool)) - completedBefore;
      const retried = Number(
        (await pool.query(`SELECT count(*) FROM pgboss.job WHERE name = $1 AND retry_count > 0`, [PGBOSS_QUEUE]))
          .rows[0].count,
      );
      if (done !== n) throw new Error(`pg-boss: ${done} of ${n} jobs completed`);
      return { completed: done, retried };
    },
  };
}

type RunResult = {
  system: SystemName;
  processes: number;
  round: number;
  seconds: number;
  perSecond: number;
  commitsPerTask: number;
  rowsWrittenPerTask: number;
  /** CPU per task: the worker processes, and the PostgreSQL backends serving them. */
  cpuMsPerTask: { workers: number | null; database: number | null };
  verified: Record<string, number>;
  statementsPerTask?: Record<string, number>;
  clientMsPerStatement?: Record<string, number>;
};

async function dbCounters(pool: pg.Pool) {
  const r = (
    await pool.query(
      `SELECT xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = current_database()`,
    )
  ).rows[0];
  return {
    commits: Number(r.xact_commit),
    rows: Number(r.tup_inserted) + Number(r.tup_updated) + Number(r.tup_deleted),
  };
}

/**
 * CPU time (ms) the PostgreSQL backends of this database's other sessions have used since they
 * started: the worker processes' connections, which all start after "go". Read from /proc, so
 * only where the server runs on this machine (null otherwise).
 */
async function backendCpuMs(pool: pg.Pool): Promise<number | null> {
  return procsCpuMs(await sessionBackendPids(pool, "bench-parent"));
}

/**
 * A backend reports its row and commit counters when it goes idle at most once a second, else
 * within 10 s: the enqueue's inserts could land in the next read of pg_stat_database and be
 * counted as the run's writes (one row per task). Every connection of the parent's pool is made to
 * report now, before the run's first reading.
 */
async function flushStatistics(pool: pg.Pool): Promise<void> {
  const clients = await Promise.all(Array.from({ length: Math.max(1, pool.idleCount) }, () => pool.connect()));
  try {
    await Promise.all(clients.map((c) => c.query(`SELECT pg_stat_force_next_flush()`)));
  } finally {
    for (const c of clients) c.release();
  }
  await sleep(50);
}

async function runOnce(pool: pg.Pool, url: string, a: Adapter, processes: number, roundNo: number): Promise<RunResult> {
  await a.enqueue(pool, S.tasks);
  // Every system starts from the same state: no dead rows left by the previous run, fresh
  // statistics, and no checkpoint pending from the enqueue.
  await pool.query(`VACUUM (ANALYZE) index_tasks, task_events, graphile_worker._private_jobs, pgboss.job`);
  await pool.query(`CHECKPOINT`);
  await flushStatistics(pool);
  const runId = `${a.name}-${processes}p-r${roundNo}-${Date.now().toString(36)}`;
  const children: ChildProcess[] = [];
  const done = new Array<number>(processes).fill(0);
  const cpuMs = new Array<number>(processes).fill(0);
  const stats: Record<string, unknown>[] = [];
  let failure: string | null = null;
  const ready: Promise<void>[] = [];
  const stopped: Promise<void>[] = [];
  for (let i = 0; i < processes; i++) {
    const child = fork(a.file, [], {
      cwd: ROOT,
      execArgv: ["--conditions=react-server", "--import", "tsx"],
      env: {
        ...process.env,
        LOG_LEVEL: "silent",
        // The reconciler repairs documents; the bench's documents have no content to repair and
        // it is not part of the queue's path.
        RECONCILE_INTERVAL_SECONDS: "0",
        BENCH_CHILD_DATABASE_URL: url,
        BENCH_CHILD_CONCURRENCY: String(S.concurrency),
        BENCH_CHILD_INDEX: String(i),
        BENCH_CHILD_RUN: runId,
        ...a.env,
      },
      stdio: ["ignore", "pipe", "inherit", "ipc"],
    });
    child.stdout!.on("data", (d) => process.stderr.write(d));
    children.push(child);
    let onReady: () => void = () => undefined;
    let onStopped: () => void = () => undefined;
    ready.push(new Promise<void>((r) => (onReady = r)));
    stopped.push(new Promise<void>((r) => (onStopped = r)));
    child.on("message", (m: FromChild) => {
      if (m.type === "ready") onReady();
      else if (m.type === "progress") done[i] = m.done;
      else if (m.type === "stopped") {
        done[i] = m.done;
        // A baseline checkout's child may predate CPU reporting.
        cpuMs[i] = m.cpuMs ?? NaN;
        stats[i] = m.stats;
        onStopped();
      } else if (m.type === "error") failure = `${a.name} process ${i}: ${m.message}`;
    });
    child.on("exit", (code) => {
      if (code !== 0 && code !== null) failure ??= `${a.name} process ${i} exited with ${code}`;
      onReady();
      onStopped();
    });
  }
  try {
    await Promise.all(ready);
    if (failure) throw new Error(failure);
    const before = await dbCounters(pool);
    const t0 = performance.now();
    for (const c of children) c.send({ type: "go" });
    let lastProgress = 0;
    let lastChange = Date.now();
    // Children report every 25 ms; the database has the last word on "done".
    for (;;) {
      if (failure) throw new Error(failure);
      const sum = done.reduce((x, y) => x + y, 0);
      if (sum !== lastProgress) {
        lastProgress = sum;
        lastChange = Date.now();
      }
      if (Date.now() - lastChange > 120_000) throw new Error(`${a.name}: no progress for 120 s at ${sum}/${S.tasks}`);
      if (sum >= S.tasks && (await a.remaining(pool)) === 0) break;
      await sleep(sum >= S.tasks ? 5 : 25);
    }
    const seconds = (performance.now() - t0) / 1000;
    const databaseCpu = await backendCpuMs(pool);
    const exited = children.map(
      (c) => new Promise<void>((r) => (c.exitCode !== null ? r() : c.once("exit", () => r()))),
    );
    for (const c of children) c.send({ type: "stop" });
    await Promise.race([Promise.all(stopped), sleep(30_000)]);
    // Backends report their counters to pg_stat_database at most once a second and when they
    // end: read them once the workers' connections are gone.
    await Promise.race([Promise.all(exited), sleep(10_000)]);
    await sleep(1500);
    const after = await dbCounters(pool);
    const verified = await a.verify(pool, S.tasks);
    const r: RunResult = {
      system: a.name,
      processes,
      round: roundNo,
      seconds: round(seconds),
      perSecond: Math.round(S.tasks / seconds),
      commitsPerTask: round((after.commits - before.commits) / S.tasks),
      rowsWrittenPerTask: round((after.rows - before.rows) / S.tasks),
      cpuMsPerTask: {
        workers: cpuMs.some(Number.isNaN) ? null : round(cpuMs.reduce((x, y) => x + y, 0) / S.tasks),
        database: databaseCpu === null ? null : round(databaseCpu / S.tasks),
      },
      verified,
    };
    if (S.profile) {
      const calls: Record<string, number> = {};
      const ms: Record<string, number> = {};
      for (const s of stats) {
        for (const [k, v] of Object.entries((s?.statements ?? {}) as Record<string, { calls: number; ms: number }>)) {
          calls[k] = (calls[k] ?? 0) + v.calls;
          ms[k] = (ms[k] ?? 0) + v.ms;
        }
      }
      r.statementsPerTask = Object.fromEntries(Object.entries(calls).map(([k, v]) => [k, round(v / S.tasks)]));
      r.clientMsPerStatement = Object.fromEntries(Object.entries(calls).map(([k, v]) => [k, round(ms[k] / v)]));
    }
    return r;
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  }
}

/** The first version of this bench, kept so claim latency stays comparable across changes. */
async function claimLatency(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 4, application_name: "bench-parent" });
  pool.on("error", () => undefined);
  // As a worker on an external PostgreSQL runs them by default (WORKER_PREPARED_STATEMENTS=auto).
  setPreparedStatements(true);
  if (versionCounter.next === 0)
    versionCounter.next = Number(
      (await pool.query(`SELECT coalesce(max(version_number), 0) + 1 AS v FROM index_tasks`)).rows[0].v,
    );
  const runs = [];
  const all: number[] = [];
  for (const n of S.latencyClaimers) {
    const perDoc = Math.ceil(S.latencyTasks / 1000);
    await pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type)
       SELECT 'bench', d.id, g.v, 'INDEX' FROM documents d CROSS JOIN generate_series($1::int, $2::int) AS g(v) LIMIT $3`,
      [versionCounter.next, versionCounter.next + perDoc - 1, S.latencyTasks],
    );
    versionCounter.next += perDoc;
    const clients = await Promise.all(
      Array.from({ length: n }, async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        return c;
      }),
    );
    const latencies: number[] = [];
    const t0 = process.hrtime.bigint();
    const counts = await Promise.all(
      clients.map(async (c, i) => {
        let k = 0;
        for (;;) {
          const s = process.hrtime.bigint();
          const leases = await claim(c, `latency-${n}-${i}`, 60, 1);
          latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
          if (leases.length === 0) break;
          await complete(c, leases[0]);
          k++;
        }
        return k;
      }),
    );
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    await Promise.all(clients.map((c) => c.end()));
    const total = counts.reduce((a, b) => a + b, 0);
    latencies.sort((a, b) => a - b);
    all.push(...latencies);
    runs.push({
      claimers: n,
      tasks: total,
      seconds: round(seconds),
      tasksPerSecond: Math.round(total / seconds),
      claimMs: {
        p50: round(pct(latencies, 50)),
        p95: round(pct(latencies, 95)),
        p99: round(pct(latencies, 99)),
        max: round(latencies[latencies.length - 1]),
      },
    });
  }
  all.sort((a, b) => a - b);
  const plan = (
    await pool.query(
      `EXPLAIN (FORMAT JSON) SELECT task_id FROM index_tasks WHERE status IN ('PENDING','RETRY_WAIT') AND next_attempt_at <= now() ORDER BY next_attempt_at, created_at, task_id LIMIT 1`,
    )
  ).rows[0]["QUERY PLAN"][0].Plan;
  await pool.end();
  return {
    method:
      "N claimers on separate connections, claim(batch=1) then complete as named statements (the default on PostgreSQL), until empty; client-side timing of every claim statement (including empty final claims)",
    runs,
    claimMsAllRuns: {
      samples: all.length,
      p50: round(pct(all, 50)),
      p95: round(pct(all, 95)),
      p99: round(pct(all, 99)),
    },
    dueScanPlan:
      `${plan["Node Type"]} → ${plan.Plans?.[0]?.["Node Type"] ?? ""} ${plan.Plans?.[0]?.["Index Name"] ?? ""}`.trim(),
  };
}

async function main() {
  const versions = {
    indexwright: revision(ROOT),
    ...(BASELINE && S.systems.includes("indexwright-baseline") ? { "indexwright-baseline": revision(BASELINE) } : {}),
    "graphile-worker": packageVersion("graphile-worker"),
    "pg-boss": packageVersion("pg-boss"),
    pg: packageVersion("pg"),
    node: process.version,
  };
  await withBenchDatabase("queue", async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 4, application_name: "bench-parent" });
    // pool.end() resolves before its sockets are closed; the database is then dropped WITH (FORCE),
    // and the termination of a closing connection must not take the process down.
    pool.on("error", () => undefined);
    const machine = await machineFacts(pool);
    say(
      `${machine.cpus} cpus, load ${machine.loadAverage1m}, PostgreSQL ${machine.postgres}; ${S.tasks} tasks × processes ${S.processes.join("/")} × concurrency ${S.concurrency} × ${S.rounds} rounds`,
    );

    await pool.query(`INSERT INTO tenants (id, name) VALUES ('bench', 'bench')`);
    const seedStart = Date.now();
    await seedFinishedTasks(pool, S.finished);
    await pool.query(`VACUUM (ANALYZE) index_tasks`);
    const seedSeconds = (Date.now() - seedStart) / 1000;
    const finishedInTable = Number(
      (await pool.query(`SELECT count(*) FROM index_tasks WHERE status = 'SUCCEEDED'`)).rows[0].count,
    );

    // The peers' schemas, installed by their own migration code.
    await runMigrations({ connectionString: url, logger: new Logger(() => () => undefined) });
    const boss = new PgBoss({
      connectionString: url,
      max: 2,
      supervise: false,
      schedule: false,
      application_name: "bench-parent",
    });
    boss.on("error", (err) => say(`pg-boss (enqueue side): ${err.message}`));
    await boss.start();
    await boss.createQueue(PGBOSS_QUEUE);

    say(
      `seeded ${finishedInTable} finished tasks in ${round(seedSeconds)} s; claim latency with ${S.latencyClaimers.join("/")} claimers`,
    );
    const latency = await claimLatency(url);
    say(`claim p95 ${latency.claimMsAllRuns.p95} ms (p50 ${latency.claimMsAllRuns.p50})`);

    const adapters = Object.fromEntries(
      [
        indexwrightAdapter("indexwright", true),
        graphileAdapter(),
        pgBossAdapter(boss),
        indexwrightAdapter("indexwright-unnamed", false),
        indexwrightAdapter("indexwright-baseline", true, BASELINE ?? ROOT),
      ].map((a) => [a.name, a]),
    ) as Record<SystemName, Adapter>;
    const runs: RunResult[] = [];
    for (const processes of S.processes) {
      for (let roundNo = 1; roundNo <= S.rounds; roundNo++) {
        for (const name of S.systems) {
          const r = await runOnce(pool, url, adapters[name], processes, roundNo);
          runs.push(r);
          say(
            `${processes}p round ${roundNo} ${name.padEnd(15)} ${String(r.perSecond).padStart(6)} tasks/s (${r.seconds} s, ${r.commitsPerTask} commits/task, ${r.rowsWrittenPerTask} rows/task, CPU ms/task ${r.cpuMsPerTask.workers} workers + ${r.cpuMsPerTask.database} database)${r.statementsPerTask ? " " + JSON.stringify(r.statementsPerTask) : ""}`,
          );
        }
      }
    }
    await boss.stop({ graceful: false, wait: true });

    const throughput: Record<
      string,
      Record<string, { perSecond: number[]; median: number; min: number; max: number; spreadPct: number }>
    > = {};
    const ratioVsGraphileWorker: Record<string, number | null> = {};
    const ratioVsPgBoss: Record<string, number | null> = {};
    const currentVsBaseline: Record<string, number> = {};
    const unnamedRatios = {
      vsGraphileWorker: {} as Record<string, number | null>,
      vsPgBoss: {} as Record<string, number | null>,
      vsDefault: {} as Record<string, number | null>,
    };
    for (const p of S.processes) {
      throughput[p] = {};
      for (const name of S.systems) {
        const xs = runs.filter((r) => r.processes === p && r.system === name).map((r) => r.perSecond);
        const m = median(xs);
        throughput[p][name] = {
          perSecond: xs,
          median: Math.round(m),
          min: Math.min(...xs),
          max: Math.max(...xs),
          spreadPct: Math.round(((Math.max(...xs) - Math.min(...xs)) / m) * 1000) / 10,
        };
      }
      const ours = throughput[p].indexwright?.median;
      ratioVsGraphileWorker[p] =
        ours && throughput[p]["graphile-worker"] ? round(ours / throughput[p]["graphile-worker"].median) : null;
      ratioVsPgBoss[p] = ours && throughput[p]["pg-boss"] ? round(ours / throughput[p]["pg-boss"].median) : null;
      const prep = throughput[p]["indexwright-unnamed"]?.median;
      if (prep) {
        unnamedRatios.vsGraphileWorker[p] = throughput[p]["graphile-worker"]
          ? round(prep / throughput[p]["graphile-worker"].median)
          : null;
        unnamedRatios.vsPgBoss[p] = throughput[p]["pg-boss"] ? round(prep / throughput[p]["pg-boss"].median) : null;
        unnamedRatios.vsDefault[p] = ours ? round(prep / ours) : null;
      }
      const base = throughput[p]["indexwright-baseline"]?.median;
      if (base && ours) currentVsBaseline[p] = round(ours / base);
    }
    const claimP95Ms = latency.claimMsAllRuns.p95;
    const ratios = (o: Record<string, number | null>) => Object.values(o).filter((v): v is number => v !== null);
    const result = {
      bench: "queue",
      date: new Date().toISOString(),
      method:
        "claim → no-op → complete. Each run enqueues `tasks`, vacuums and checkpoints, forks `processes` worker processes (CONCURRENCY tasks in hand each), starts the clock once all are set up, and stops it when the database shows every task completed; rounds alternate the systems (A/B/C, A/B/C). Ours: the production Worker (worker/loop.ts) with fencing and task events, a no-op runner that completes its lease; claim and complete as named statements, the default on an external PostgreSQL; indexwright-unnamed is the same with unnamed statements (the embedded database's mode; not used for the ratios). graphile-worker: run() with its defaults, no local queue or completion batching. pg-boss: work() with batchSize = concurrency and notifyWorker when a batch came back full. Logging off in all. Medians per process count; ratio = ours ÷ theirs.",
      settings: {
        tasks: S.tasks,
        processes: S.processes,
        concurrency: S.concurrency,
        rounds: S.rounds,
        systems: S.systems,
        finishedTasksSeeded: S.finished,
        latencyTasks: S.latencyTasks,
        latencyClaimers: S.latencyClaimers,
        indexwright: {
          poolPerProcess: S.concurrency + 4,
          pollIntervalMs: Number(process.env.POLL_INTERVAL_MS ?? 2000),
          leaseSeconds: Number(process.env.LEASE_SECONDS ?? 60),
          reconciler: "off",
        },
        graphileWorker: {
          maxPoolSize: 10,
          pollInterval: 2000,
          preparedStatements: true,
          localQueue: "off",
          completeJobBatchDelay: -1,
        },
        pgBoss: {
          max: 10,
          workLoops: S.pgBossWorkers,
          batchSize: Math.max(1, Math.floor(S.concurrency / S.pgBossWorkers)),
          pollingIntervalSeconds: 0.5,
          notifyWorkerWhenBatchFull: true,
        },
        profile: S.profile,
      },
      versions,
      machine,
      finishedTasksInTable: finishedInTable,
      seedSeconds: round(seedSeconds),
      throughput,
      ratioVsGraphileWorker,
      ratioVsPgBoss,
      // Ours with unnamed statements (the embedded database's mode): its ratios, and ÷ the default.
      unnamedStatements: S.systems.includes("indexwright-unnamed") ? unnamedRatios : null,
      // This checkout's engine ÷ the BENCH_BASELINE checkout's, same run (null without a baseline).
      vsBaseline:
        BASELINE && S.systems.includes("indexwright-baseline") ? { dir: BASELINE, ratio: currentVsBaseline } : null,
      claimP95Ms,
      claimLatency: latency,
      targets: { ratioVsGraphileWorker: 1, ratioVsPgBoss: 1, claimP95Ms: 20 },
      met: {
        ratioVsGraphileWorker:
          ratios(ratioVsGraphileWorker).length > 0 ? ratios(ratioVsGraphileWorker).every((v) => v >= 1) : null,
        ratioVsPgBoss: ratios(ratioVsPgBoss).length > 0 ? ratios(ratioVsPgBoss).every((v) => v >= 1) : null,
        claimP95Ms: claimP95Ms < 20,
      },
      runs,
    };
    await pool.end();
    for (const p of S.processes)
      say(
        `${p} process(es): ${S.systems.map((n) => `${n} ${throughput[p][n].median}/s (±${throughput[p][n].spreadPct}%)`).join(", ")}; ratio vs graphile-worker ${ratioVsGraphileWorker[p]}, vs pg-boss ${ratioVsPgBoss[p]}`,
      );
    console.log(JSON.stringify(result));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
