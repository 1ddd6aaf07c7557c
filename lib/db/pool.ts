import pg from "pg";
import { log } from "../log";
import { setting } from "../config";

export type Queryable = Pick<pg.Pool | pg.PoolClient, "query">;
export type Statement = { text: string; values: unknown[] };

// int8 (task ids, counters) arrives as a string by default; task ids stay strings end to end
// (JSON has no 64-bit integers), but counts from count(*) are converted where they are read.
const pools = new Map<string, pg.Pool>();

export function databaseUrl(): string {
  const url = setting("DATABASE_URL");
  if (!url) throw new Error("DATABASE_URL is not set (npm start sets it for the embedded database)");
  return url;
}

/** One shared pool per URL per process. */
export function getPool(url = databaseUrl(), max = Number(setting("PG_POOL_MAX") ?? 10)): pg.Pool {
  let pool = pools.get(url);
  if (!pool) {
    pool = newPool({ connectionString: url, max, idleTimeoutMillis: 30_000, application_name: "indexwright" });
    pools.set(url, pool);
  }
  return pool;
}

/** A pool of its own (not shared through getPool), with the same handling of lost connections. */
export function newPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  // A dropped idle connection must not crash the process; the next checkout reconnects.
  pool.on("error", (err) =>
    log.warn({ err: err.message }, "idle database connection lost; the next checkout reconnects"),
  );
  // pg-pool listens for a client's 'error' only while it is idle. A connection that dies while
  // checked out (a transaction in progress; the database restarted or pg_terminate_backend) emits
  // 'error' on the client, and with no listener Node exits the whole process. Nothing is lost by
  // listening: the statement in flight (or the next one) rejects with the error, and the pool
  // discards the broken client when it is released.
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

export async function closePools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.end().catch(() => undefined)));
}

export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

export async function run<T extends pg.QueryResultRow = pg.QueryResultRow>(
  db: Queryable,
  stmt: Statement,
): Promise<pg.QueryResult<T>> {
  return db.query<T>(stmt.text, stmt.values as unknown[]);
}
