import net from "node:net";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { startEmbedded, type EmbeddedDb } from "../../lib/db/embedded";
import { migrate } from "../../lib/db/migrate";

export type TestDb = { url: string; pool: pg.Pool; real: boolean; close: () => Promise<void> };

export const onRealPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** A port the OS just handed out, so it is not in use (random picks can hit outgoing connections' ports). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/**
 * A fresh, migrated database for one test file: a new database on the server named by
 * TEST_DATABASE_URL, or an in-memory PGlite served on a free local port.
 */
/**
 * A pool of its own on a test database. Its idle connections are ended by the server when the
 * file's database is dropped (WITH FORCE): without a listener that 57P01 would surface as an
 * uncaught error of whichever test file runs at that moment.
 */
export function extraPool(url: string, config: Omit<pg.PoolConfig, "connectionString"> = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, ...config });
  pool.on("error", () => undefined);
  return pool;
}

export async function createTestDb(opts: { migrate?: boolean; poolMax?: number } = {}): Promise<TestDb> {
  const base = process.env.TEST_DATABASE_URL;
  let url: string;
  let drop: () => Promise<void>;
  let embedded: EmbeddedDb | null = null;
  if (base) {
    const name = `iw_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(base);
    u.pathname = `/${name}`;
    url = u.toString();
    drop = async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  } else {
    embedded = await startEmbedded({ port: await freePort() });
    url = embedded.url;
    drop = () => embedded!.stop();
  }
  if (opts.migrate !== false) await migrate(url);
  const pool = new pg.Pool({ connectionString: url, max: opts.poolMax ?? 10 });
  pool.on("error", () => undefined);
  return {
    url,
    pool,
    real: Boolean(base),
    close: async () => {
      await pool.end().catch(() => undefined);
      await drop();
    },
  };
}
