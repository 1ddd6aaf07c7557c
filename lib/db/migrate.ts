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

/**
 * First line of a migration that must run outside a transaction (CREATE INDEX CONCURRENTLY and the
 * like refuse to run inside one). Its statements then run one by one, each committed on its own.
 */
export const NO_TRANSACTION_MARKER = "-- indexwright:no-transaction";

/** How an operator runs this CLI; used in the remedies printed with errors. */
const CLI = "npm run migrate --";

export type Migration = { name: string; sql: string; checksum: string; noTransaction: boolean };

export type MigrationErrorCode =
  | "MIGRATIONS_DIR_MISSING"
  | "MIGRATION_FAILED" // a failed migration is recorded: nothing new is applied (Prisma's P3009)
  | "MIGRATION_APPLY_FAILED" // a migration failed in this run and is now recorded as failed (P3018)
  | "MIGRATION_MODIFIED" // an applied migration's file changed since
  | "MIGRATION_NOT_FOUND" // resolve names a migration that is not in the directory (P3017)
  | "MIGRATION_ALREADY_APPLIED" // resolve --applied on an applied migration (P3008)
  | "MIGRATION_NOT_APPLIED" // resolve --rolled-back on a migration never started (P3011)
  | "MIGRATION_NOT_FAILED"; // resolve --rolled-back on a migration that succeeded (P3012)

export class MigrationError extends Error {
  constructor(
    readonly code: MigrationErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = "MigrationError";
  }
}

export function migrationsDir(): string {
  return path.resolve(process.cwd(), "prisma", "migrations");
}

/** SHA-256 of the file's bytes as read, in lowercase hex: what Prisma records in `checksum`. */
export function checksumOf(script: string | Buffer): string {
  return createHash("sha256").update(script).digest("hex");
}

/**
 * Whether a migration file still matches the checksum recorded when it was applied, by the rule of
 * Prisma's schema engine (checksum.rs, `script_matches_checksum`): the file as it is, with CRLF
 * turned into LF, or with LF turned into CRLF — so a checkout whose line endings git converted
 * still matches — and, for checksums an early engine wrote without zero-padding each byte (any
 * length but 64), that old rendering.
 */
export function checksumMatches(script: string, recorded: string): boolean {
  const unpadded = recorded.length > 0 && recorded.length !== 64;
  return [script, script.replaceAll("\r\n", "\n"), script.replaceAll("\n", "\r\n")].some((variant) => {
    const digest = createHash("sha256").update(variant).digest();
    const rendered = unpadded ? Array.from(digest, (b) => b.toString(16)).join("") : digest.toString("hex");
    return rendered === recorded;
  });
}

function hasMarker(sql: string): boolean {
  const first = sql.replace(/^\uFEFF/, "").split("\n", 1)[0];
  return first.trim() === NO_TRANSACTION_MARKER;
}

export function listMigrations(dir = migrationsDir()): Migration[] {
  if (!existsSync(dir)) throw new MigrationError("MIGRATIONS_DIR_MISSING", `no migrations directory at ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const bytes = readFileSync(path.join(dir, name, "migration.sql"));
      const sql = bytes.toString("utf8");
      return { name, sql, checksum: checksumOf(bytes), noTransaction: hasMarker(sql) };
    });
}

type Row = {
  id: string;
  migration_name: string;
  checksum: string;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
  applied_steps_count: number;
};

const isFailed = (r: Row) => r.finished_at === null && r.rolled_back_at === null;
const isApplied = (r: Row) => r.finished_at !== null && r.rolled_back_at === null;

type Opts = { schema?: string; dir?: string };

async function withClient<T>(url: string, opts: Opts, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // A connection that dies mid-migration surfaces as a failed query; without a listener the
  // 'error' event would end the process before the failure is reported.
  client.on("error", () => undefined);
  try {
    if (opts.schema) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${opts.schema}"`);
      await client.query(`SET search_path TO "${opts.schema}", public`);
    }
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function withLock<T>(client: pg.Client, fn: () => Promise<T>): Promise<T> {
  await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
  try {
    return await fn();
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => undefined);
  }
}

async function hasTable(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query<{ t: string | null }>(`SELECT to_regclass('"_prisma_migrations"')::text AS t`);
  return rows[0].t !== null;
}

async function records(client: pg.Client): Promise<Row[]> {
  const { rows } = await client.query<Row>(
    `SELECT id, migration_name, checksum, started_at, finished_at, rolled_back_at, logs, applied_steps_count
       FROM "_prisma_migrations" ORDER BY started_at, migration_name`,
  );
  return rows;
}

/** What to do about a failed migration: depends on whether it ran in a transaction. */
function remedy(name: string, noTransaction: boolean | undefined): string {
  const lines = ["To resolve it:"];
  if (noTransaction) {
    lines.push(
      `  - It ran outside a transaction (${NO_TRANSACTION_MARKER}), so the statements before the failing one stay applied.`,
      `    Undo them, or let the re-run skip them (IF NOT EXISTS). A failed CREATE INDEX CONCURRENTLY leaves an INVALID index:`,
      `    drop it with DROP INDEX CONCURRENTLY IF EXISTS <name>. Then mark the migration rolled back and migrate again:`,
      `      ${CLI} resolve --rolled-back ${name}`,
      `  - Or finish its remaining statements by hand and record it as applied:`,
      `      ${CLI} resolve --applied ${name}`,
    );
  } else if (noTransaction === false) {
    lines.push(
      `  - It ran in one transaction, which was rolled back: none of it is in the database. Fix the migration, then`,
      `      ${CLI} resolve --rolled-back ${name}`,
      `    and migrate again; it is applied anew.`,
      `  - If you made its changes by hand instead:`,
      `      ${CLI} resolve --applied ${name}`,
    );
  } else {
    lines.push(
      `  - If its changes are not in the database (undone, or never made): ${CLI} resolve --rolled-back ${name}`,
      `  - If you completed them by hand: ${CLI} resolve --applied ${name}`,
    );
  }
  return lines.join("\n");
}

function failedMigrationsError(failed: Row[], files: Migration[]): MigrationError {
  const byName = new Map(files.map((m) => [m.name, m]));
  const details = failed.map((r) => {
    const logs = r.logs?.trim()
      ? ` with the following logs:\n${r.logs.trim()}`
      : " (no logs: the process applying it stopped before it could record the error)";
    return `The \`${r.migration_name}\` migration started at ${r.started_at.toISOString()} failed${logs}\n\n${remedy(r.migration_name, byName.get(r.migration_name)?.noTransaction)}`;
  });
  return new MigrationError(
    "MIGRATION_FAILED",
    `found ${failed.length === 1 ? "a failed migration" : `${failed.length} failed migrations`} in the database, so no new migrations were applied (as Prisma's P3009).\n\n${details.join("\n\n")}`,
  );
}

/** 1-based line number of a 0-based character offset. */
function lineAt(sql: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < sql.length; i++) if (sql.charCodeAt(i) === 10) line++;
  return line;
}

/** Prisma-style logs for a database error: migration, error code, message, where in the file. */
function errorLogs(m: Migration, err: unknown, stmtOffset = 0, extra: string[] = []): string {
  const e = err as pg.DatabaseError;
  const out = [`Migration name: ${m.name}`, ""];
  if (e.code) out.push(`Database error code: ${e.code}`, "");
  out.push("Database error:", e.message ?? String(err));
  if (e.detail) out.push(`DETAIL: ${e.detail}`);
  if (e.hint) out.push(`HINT: ${e.hint}`);
  if (e.position) {
    const line = lineAt(m.sql, stmtOffset + Number(e.position) - 1);
    out.push("", `Position: line ${line}: ${m.sql.split("\n")[line - 1]?.trimEnd() ?? ""}`);
  }
  if (
    /cannot run inside a transaction block|cannot be executed within a pipeline/.test(e.message ?? "") &&
    !m.noTransaction
  ) {
    out.push(
      "",
      `This statement cannot run in a transaction: move it to a migration of its own whose first line is \`${NO_TRANSACTION_MARKER}\`.`,
    );
  }
  out.push(...extra);
  return out.join("\n");
}

type Statement = {
  text: string;
  offset: number;
  concurrentIndex: { schema?: string; name?: string; table: string } | null;
};

type ParsedIndexStmt = { idxname?: string; concurrent?: boolean; relation?: { schemaname?: string; relname?: string } };
type ParsedStmt = { stmt?: { IndexStmt?: ParsedIndexStmt }; stmt_location?: number; stmt_len?: number };

/**
 * Splits a migration into statements with PostgreSQL's own parser (libpg-query), so quoting,
 * dollar-quoted bodies and comments split exactly as the server would read them. Its offsets count
 * UTF-8 bytes.
 */
async function splitStatements(sql: string): Promise<Statement[]> {
  const { parse } = await import("libpg-query");
  const parsed = (await parse(sql)) as unknown as { stmts?: ParsedStmt[] };
  const bytes = Buffer.from(sql, "utf8");
  const out: Statement[] = [];
  for (const s of parsed.stmts ?? []) {
    const start = s.stmt_location ?? 0;
    const end = s.stmt_len ? start + s.stmt_len : bytes.length;
    const raw = bytes.subarray(start, end).toString("utf8");
    const text = raw.trim();
    if (!text) continue;
    const offset = bytes.subarray(0, start).toString("utf8").length + raw.indexOf(text);
    const idx = s.stmt?.IndexStmt;
    out.push({
      text,
      offset,
      concurrentIndex:
        idx?.concurrent && idx.relation?.relname
          ? { schema: idx.relation.schemaname, name: idx.idxname, table: idx.relation.relname }
          : null,
    });
  }
  return out;
}

const qi = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** INVALID indexes a CREATE INDEX CONCURRENTLY left, or found already there and skipped (IF NOT EXISTS). */
async function invalidIndexes(client: pg.Client, ix: NonNullable<Statement["concurrentIndex"]>): Promise<string[]> {
  const schema = ix.schema ? `${qi(ix.schema)}.` : "";
  if (ix.name) {
    const { rows } = await client.query<{ name: string }>(
      `SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indexrelid = to_regclass($1) AND NOT indisvalid`,
      [schema + qi(ix.name)],
    );
    return rows.map((r) => r.name);
  }
  const { rows } = await client.query<{ name: string }>(
    `SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = to_regclass($1) AND NOT indisvalid`,
    [schema + qi(ix.table)],
  );
  return rows.map((r) => r.name);
}

async function recordFailure(client: pg.Client, id: string, logs: string): Promise<void> {
  // If the connection itself is gone the row stays failed without logs, as after a crash.
  await client.query(`UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1`, [id, logs]).catch(() => undefined);
}

function applyFailed(m: Migration, logs: string): MigrationError {
  return new MigrationError(
    "MIGRATION_APPLY_FAILED",
    `migration ${m.name} failed to apply. It is recorded as failed, and no later migration runs until it is resolved.\n\n${logs}\n\n${remedy(m.name, m.noTransaction)}`,
  );
}

async function applyInTransaction(client: pg.Client, m: Migration, id: string): Promise<void> {
  try {
    await client.query("BEGIN");
    await client.query(m.sql);
    // Finished in the same transaction as the migration: committed together or not at all.
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1`,
      [id],
    );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    const logs = errorLogs(m, err);
    await recordFailure(client, id, logs);
    throw applyFailed(m, logs);
  }
}

async function applyWithoutTransaction(client: pg.Client, m: Migration, id: string): Promise<void> {
  let statements: Statement[];
  try {
    statements = await splitStatements(m.sql);
  } catch (err) {
    // Not valid SQL: nothing was run.
    const logs = errorLogs(m, err, 0, ["", "The migration could not be parsed, so none of its statements ran."]);
    await recordFailure(client, id, logs);
    throw applyFailed(m, logs);
  }
  const where = (i: number) =>
    `statement ${i + 1} of ${statements.length} (line ${lineAt(m.sql, statements[i].offset)})`;
  const progress = (i: number) =>
    i === 0
      ? "No statement before it had run."
      : i === 1
        ? "Statement 1 ran and committed; it stays applied."
        : `Statements 1–${i} ran and committed; they stay applied.`;
  for (const [i, st] of statements.entries()) {
    try {
      await client.query(st.text);
    } catch (err) {
      const extra = ["", `Ran outside a transaction: ${where(i)} failed. ${progress(i)}`];
      if (st.concurrentIndex) {
        const invalid = await invalidIndexes(client, st.concurrentIndex).catch(() => []);
        for (const name of invalid)
          extra.push(`It left the INVALID index ${name}; remove it with: DROP INDEX CONCURRENTLY IF EXISTS ${name};`);
      }
      const logs = errorLogs(m, err, st.offset, extra);
      await recordFailure(client, id, logs);
      throw applyFailed(m, logs);
    }
    if (st.concurrentIndex) {
      // A concurrent build that failed in an earlier run leaves an INVALID index; IF NOT EXISTS
      // then skips it and would report success for an index the planner never uses.
      const invalid = await invalidIndexes(client, st.concurrentIndex);
      if (invalid.length > 0) {
        const logs = [
          `Migration name: ${m.name}`,
          "",
          `Ran outside a transaction: ${where(i)} completed, but the index is INVALID (a concurrent build that failed earlier left it, and IF NOT EXISTS kept it): ${invalid.join(", ")}.`,
          progress(i + 1),
          ...invalid.map((n) => `Remove it with: DROP INDEX CONCURRENTLY IF EXISTS ${n};`),
        ].join("\n");
        await recordFailure(client, id, logs);
        throw applyFailed(m, logs);
      }
    }
  }
  await client.query(
    `UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1`,
    [id],
  );
}

export type MigrateResult = { applied: string[]; alreadyApplied: number };

/**
 * `prisma migrate deploy`: applies pending migrations in order. Each runs in its own transaction
 * unless its first line is NO_TRANSACTION_MARKER. It is recorded as started before it runs, and as
 * finished, or failed with its error in `logs`, after. Refuses to apply anything while a failed
 * migration is recorded (resolve it first, see resolveMigration) or an applied migration's file
 * was changed.
 */
export async function migrate(url: string, opts: Opts & { log?: (m: string) => void } = {}): Promise<MigrateResult> {
  const log = opts.log ?? (() => undefined);
  const files = listMigrations(opts.dir);
  return withClient(url, opts, (client) =>
    withLock(client, async () => {
      await client.query(CREATE_TABLE);
      const rows = await records(client);
      const failed = rows.filter(isFailed);
      if (failed.length > 0) throw failedMigrationsError(failed, files);
      const done = new Map(rows.filter(isApplied).map((r) => [r.migration_name, r]));
      const modified = files.filter((m) => done.has(m.name) && !checksumMatches(m.sql, done.get(m.name)!.checksum));
      if (modified.length > 0) {
        throw new MigrationError(
          "MIGRATION_MODIFIED",
          `${modified.map((m) => `migration ${m.name}`).join(", ")} was changed after it was applied (checksum mismatch). Restore the file as applied; a change to the schema goes in a new migration.`,
        );
      }
      const applied: string[] = [];
      for (const m of files) {
        if (done.has(m.name)) continue;
        const id = randomUUID();
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
          [id, m.checksum, m.name],
        );
        if (m.noTransaction) await applyWithoutTransaction(client, m, id);
        else await applyInTransaction(client, m, id);
        applied.push(m.name);
        log(`applied migration ${m.name}${m.noTransaction ? " (outside a transaction)" : ""}`);
      }
      return { applied, alreadyApplied: done.size };
    }),
  );
}

export type MigrationState = "applied" | "pending" | "failed" | "modified";

export type MigrationStatusEntry = {
  name: string;
  state: MigrationState;
  /** In the migrations directory (false: recorded in the database only). */
  local: boolean;
  noTransaction: boolean;
  startedAt: Date | null;
  finishedAt: Date | null;
  logs: string | null;
};

export type MigrationStatus = {
  hasTable: boolean;
  /** Every local migration applied unchanged, nothing failed. */
  upToDate: boolean;
  migrations: MigrationStatusEntry[];
};

/**
 * `prisma migrate status`: every migration in the directory, and every one the database recorded
 * that the directory lacks, with its state. A migration marked rolled back and not applied since
 * is pending. Reads only; takes no lock and creates nothing.
 */
export async function migrationStatus(url: string, opts: Opts = {}): Promise<MigrationStatus> {
  const files = listMigrations(opts.dir);
  return withClient(url, opts, async (client) => {
    const table = await hasTable(client);
    const rows = table ? await records(client) : [];
    const entry = (name: string, m: Migration | undefined): MigrationStatusEntry => {
      const mine = rows.filter((r) => r.migration_name === name);
      const failed = mine.find(isFailed);
      const applied = mine.filter(isApplied).at(-1);
      const row = failed ?? applied;
      let state: MigrationState = "pending";
      if (failed) state = "failed";
      else if (applied) state = m && !checksumMatches(m.sql, applied.checksum) ? "modified" : "applied";
      return {
        name,
        state,
        local: m !== undefined,
        noTransaction: m?.noTransaction ?? false,
        startedAt: row?.started_at ?? null,
        finishedAt: row?.finished_at ?? null,
        logs: row?.logs ?? null,
      };
    };
    const local = new Set(files.map((m) => m.name));
    const migrations = files.map((m) => entry(m.name, m));
    for (const name of new Set(rows.map((r) => r.migration_name))) {
      if (local.has(name)) continue;
      const e = entry(name, undefined);
      // A name rolled back and never applied again is history, not something the database has.
      if (e.state !== "pending") migrations.push(e);
    }
    const upToDate = table && migrations.every((e) => e.state === "applied");
    return { hasTable: table, upToDate, migrations };
  });
}

/**
 * `prisma migrate resolve`, with Prisma's rules. `--applied NAME`: records the local migration as
 * applied without running it (a hotfix made by hand, or a baseline); refused if it is already
 * applied; a failed record of it is marked rolled back. `--rolled-back NAME`: marks its failed
 * record rolled back, so the next migrate applies it anew; refused if it never ran or succeeded.
 */
export async function resolveMigration(
  url: string,
  action: { applied: string } | { rolledBack: string },
  opts: Opts = {},
): Promise<void> {
  const files = listMigrations(opts.dir);
  await withClient(url, opts, (client) =>
    withLock(client, async () => {
      if ("applied" in action) {
        const name = action.applied;
        const m = files.find((f) => f.name === name);
        if (!m)
          throw new MigrationError(
            "MIGRATION_NOT_FOUND",
            `migration ${name} is not in ${opts.dir ?? migrationsDir()} (as Prisma's P3017)`,
          );
        await client.query(CREATE_TABLE);
        const mine = (await records(client)).filter((r) => r.migration_name === name);
        if (mine.some((r) => r.finished_at !== null))
          throw new MigrationError(
            "MIGRATION_ALREADY_APPLIED",
            `migration ${name} is already recorded as applied (as Prisma's P3008)`,
          );
        await client.query("BEGIN");
        try {
          await client.query(
            `UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = $1 AND finished_at IS NULL AND rolled_back_at IS NULL`,
            [name],
          );
          await client.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, logs, started_at, finished_at, applied_steps_count) VALUES ($1, $2, $3, '', now(), now(), 0)`,
            [randomUUID(), m.checksum, name],
          );
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw err;
        }
        return;
      }
      const name = action.rolledBack;
      const mine = (await hasTable(client)) ? (await records(client)).filter((r) => r.migration_name === name) : [];
      if (mine.length === 0)
        throw new MigrationError(
          "MIGRATION_NOT_APPLIED",
          `migration ${name} cannot be rolled back: it was never applied to this database (as Prisma's P3011)`,
        );
      if (mine.every((r) => r.finished_at !== null))
        throw new MigrationError(
          "MIGRATION_NOT_FAILED",
          `migration ${name} cannot be rolled back: it is not in a failed state (as Prisma's P3012)`,
        );
      await client.query(
        `UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = $1 AND finished_at IS NULL AND rolled_back_at IS NULL`,
        [name],
      );
    }),
  );
}
