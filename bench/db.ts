import os from "node:os";
import { readFileSync } from "node:fs";
import pg from "pg";
import { migrate } from "../lib/db/migrate";
import net from "node:net";

/** A fresh migrated database for one benchmark run on BENCH_DATABASE_URL's server; dropped after. */
export async function withBenchDatabase<T>(name: string, fn: (url: string) => Promise<T>): Promise<T> {
  const base = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const db = `iw_bench_${name}_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${db}`);
  await admin.query(`CREATE DATABASE ${db}`);
  const u = new URL(base);
  u.pathname = `/${db}`;
  try {
    await migrate(u.toString());
    return await fn(u.toString());
  } finally {
    if (process.env.BENCH_KEEP === "1") console.error(`[bench] kept database ${db}`);
    else await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await admin.end();
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
export const round3 = (n: number) => Math.round(n * 1000) / 1000;

/**
 * CPU time (ms, user + system) a process has used since it started, from /proc (Linux); null when
 * the process is gone or there is no /proc. utime and stime are the 12th and 13th fields after the
 * command name (which is in parentheses and may hold spaces), in clock ticks of 1/100 s.
 */
export function procCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return null;
  }
}

/** Sum of procCpuMs over `pids`; null if any is unreadable. */
export function procsCpuMs(pids: number[]): number | null {
  let sum = 0;
  for (const pid of pids) {
    const ms = procCpuMs(pid);
    if (ms === null) return null;
    sum += ms;
  }
  return sum;
}

/** Anything with pg's query(text, values): a pool or client, also of another copy of pg (a peer's). */
type Queryish = { query(text: string, values: unknown[]): Promise<{ rows: unknown[] }> };

/** The server processes of this database's client sessions, optionally without one application's. */
export async function sessionBackendPids(db: Queryish, exceptApplication?: string): Promise<number[]> {
  const r = await db.query(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND application_name IS DISTINCT FROM $1`,
    [exceptApplication ?? null],
  );
  return (r.rows as { pid: number }[]).map((x) => x.pid);
}

/** CPU seconds of a phase: the client processes (`node`), the database's backends, and both. */
export type Cpu = { node: number | null; database: number | null; total: number | null };

/**
 * CPU used between start and stop() by this process, some other client processes and every
 * backend of this database: a backend that connected in between counts from zero; one that ended
 * in between is lost (the benches keep their pools open through a phase). Needs the server on
 * this machine; null figures elsewhere.
 */
export async function startCpuMeter(db: Queryish, clientPids: number[]) {
  const self0 = process.cpuUsage();
  const clients0 = procsCpuMs(clientPids);
  const backends0 = new Map<number, number>();
  for (const pid of await sessionBackendPids(db)) {
    const ms = procCpuMs(pid);
    if (ms !== null) backends0.set(pid, ms);
  }
  return {
    async stop(): Promise<Cpu> {
      let databaseMs: number | null = 0;
      for (const pid of await sessionBackendPids(db)) {
        const ms = procCpuMs(pid);
        if (ms === null) {
          databaseMs = null;
          break;
        }
        databaseMs += ms - (backends0.get(pid) ?? 0);
      }
      const clients1 = procsCpuMs(clientPids);
      const self = process.cpuUsage(self0);
      const clientMs =
        clients0 === null || clients1 === null ? null : clients1 - clients0 + (self.user + self.system) / 1000;
      const s = (ms: number | null) => (ms === null ? null : round3(ms / 1000));
      return {
        node: s(clientMs),
        database: s(databaseMs),
        total: clientMs === null || databaseMs === null ? null : s(clientMs + databaseMs),
      };
    },
  };
}

export async function serverVersion(pool: pg.Pool): Promise<string> {
  return (await pool.query(`SELECT current_setting('server_version') AS v`)).rows[0].v;
}

/**
 * What a reader needs to judge a figure: the machine, its load when the bench started (other
 * processes share it), and the PostgreSQL server with the settings that decide commit cost.
 */
export async function machineFacts(pool: pg.Pool): Promise<Record<string, unknown>> {
  const s = (
    await pool.query<{ v: string; sc: string; fsync: string; sb: string; mc: string }>(
      `SELECT current_setting('server_version') AS v, current_setting('synchronous_commit') AS sc, current_setting('fsync') AS fsync,
              current_setting('shared_buffers') AS sb, current_setting('max_connections') AS mc`,
    )
  ).rows[0];
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? null,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    loadAverage1m: Math.round(os.loadavg()[0] * 100) / 100,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    postgres: s.v,
    postgresSettings: { synchronous_commit: s.sc, fsync: s.fsync, shared_buffers: s.sb, max_connections: Number(s.mc) },
  };
}

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** mulberry32: a small deterministic PRNG with a full 2^32 period (Math.imul keeps it exact). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `n` SUCCEEDED tasks over 1,000 documents of tenant "bench" (which must exist): the finished
 * history a claim has to step past, as a queue that has run for a while holds it.
 */
export async function seedFinishedTasks(pool: pg.Pool, n: number): Promise<void> {
  await pool.query(`INSERT INTO documents (id, tenant_id, key, title, business_version)
                    SELECT gen_random_uuid(), 'bench', 'doc-' || i, 'Doc', 1 FROM generate_series(1, 1000) i`);
  await pool.query(
    `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, attempts, created_at, updated_at, started_at, finished_at, next_attempt_at)
     SELECT 'bench', d.id, g.v, 'INDEX', 'SUCCEEDED', 1, now() - interval '1 day', now(), now(), now(), now() - interval '1 day'
       FROM (SELECT id FROM documents) d
       JOIN LATERAL generate_series(1, ceil($1::numeric / 1000)::int) AS g(v) ON true
      LIMIT $1`,
    [n],
  );
}

/** A port nothing listens on right now, on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Runs `fn` over `items`, at most `limit` at a time. */
export async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}
