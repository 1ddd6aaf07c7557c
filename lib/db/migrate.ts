import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import pg from "pg";

// Mirrors the table `prisma migrate deploy` creates and fills, so either tool can take over.
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;
// The same advisory lock key Prisma's migrate uses, so the two never run at once.
const LOCK_KEY = 72707369;

export type Migration = { name: string; sql: string; checksum: string };

export function migrationsDir(): string {
  return path.resolve(process.cwd(), "prisma", "migrations");
}

export function listMigrations(dir = migrationsDir()): Migration[] {
  if (!existsSync(dir)) throw new Error(`no migrations directory at ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export type MigrateResult = { applied: string[]; alreadyApplied: number };

/**
 * Applies pending migrations in order, each in its own transaction. Refuses to continue when a
 * previously applied migration's file changed or a failed migration is recorded, as Prisma does.
 */
export async function migrate(url: string, opts: { schema?: string; log?: (m: string) => void; dir?: string } = {}): Promise<MigrateResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const log = opts.log ?? (() => undefined);
  try {
    if (opts.schema) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${opts.schema}"`);
      await client.query(`SET search_path TO "${opts.schema}", public`);
    }
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    try {
      await client.query(CREATE_TABLE);
      const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
        `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
      );
      const failed = rows.find((r) => r.finished_at === null && r.rolled_back_at === null);
      if (failed) throw new Error(`migration ${failed.migration_name} failed earlier and is not rolled back; resolve it first`);
      const done = new Map(rows.filter((r) => r.finished_at !== null).map((r) => [r.migration_name, r.checksum]));
      const applied: string[] = [];
      for (const m of listMigrations(opts.dir)) {
        const prior = done.get(m.name);
        if (prior !== undefined) {
          if (prior !== m.checksum) throw new Error(`migration ${m.name} was changed after it was applied (checksum mismatch)`);
          continue;
        }
        const id = randomUUID();
        await client.query("BEGIN");
        try {
          await client.query(m.sql);
          await client.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, started_at, applied_steps_count)
             VALUES ($1, $2, now(), $3, NULL, now(), 1)`,
            [id, m.checksum, m.name],
          );
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw new Error(`migration ${m.name} failed: ${(err as Error).message}`);
        }
        applied.push(m.name);
        log(`applied migration ${m.name}`);
      }
      return { applied, alreadyApplied: done.size };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}
