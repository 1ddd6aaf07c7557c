import pg from "pg";
import { migrate } from "../lib/db/migrate";

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

export async function serverVersion(pool: pg.Pool): Promise<string> {
  return (await pool.query(`SELECT current_setting('server_version') AS v`)).rows[0].v;
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
