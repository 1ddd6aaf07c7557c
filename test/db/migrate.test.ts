import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDb, type TestDb } from "../helpers/db";
import {
  checksumMatches,
  listMigrations,
  migrate,
  migrationsDir,
  migrationStatus,
  NO_TRANSACTION_MARKER,
  resolveMigration,
} from "../../lib/db/migrate";

const sha = (s: string | Buffer) => createHash("sha256").update(s).digest("hex");
const temps: string[] = [];
const dbs: TestDb[] = [];

/** A copy of the project's migrations (optionally transformed) plus extra ones, in a temp dir. */
function migrationsCopy(opts: { transform?: (sql: string) => string; extra?: Record<string, string> } = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), "iw-migrations-"));
  temps.push(dir);
  for (const m of listMigrations()) {
    mkdirSync(path.join(dir, m.name));
    writeFileSync(path.join(dir, m.name, "migration.sql"), opts.transform ? opts.transform(m.sql) : m.sql);
  }
  for (const [name, sql] of Object.entries(opts.extra ?? {})) writeMigration(dir, name, sql);
  return dir;
}

function writeMigration(dir: string, name: string, sql: string): void {
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(path.join(dir, name, "migration.sql"), sql);
}

async function freshDb(): Promise<TestDb> {
  const t = await createTestDb({ migrate: false });
  dbs.push(t);
  return t;
}

async function rowsOf(t: TestDb, name: string) {
  return (
    await t.pool.query(
      `SELECT checksum, logs, started_at, finished_at, rolled_back_at, applied_steps_count FROM _prisma_migrations WHERE migration_name = $1 ORDER BY started_at`,
      [name],
    )
  ).rows;
}

afterAll(async () => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
  for (const t of dbs) await t.close();
});

describe("migration runner", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb();
  });

  it("applies every migration once and records it the way prisma migrate deploy does", async () => {
    const first = await migrate(t.url);
    const all = listMigrations();
    expect(first.applied).toEqual(all.map((m) => m.name));
    const { rows } = await t.pool.query(
      `SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at, length(id) AS id_len FROM _prisma_migrations ORDER BY migration_name`,
    );
    expect(rows).toHaveLength(all.length);
    for (const [i, r] of rows.entries()) {
      const bytes = readFileSync(`prisma/migrations/${all[i].name}/migration.sql`);
      expect(r.migration_name).toBe(all[i].name);
      expect(r.checksum).toBe(sha(bytes));
      expect(r.finished_at).toBeInstanceOf(Date);
      expect(r.applied_steps_count).toBe(1);
      expect(r.rolled_back_at).toBeNull();
      expect(r.id_len).toBe(36);
    }
    const second = await migrate(t.url);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toBe(all.length);
    const status = await migrationStatus(t.url);
    expect(status.upToDate).toBe(true);
    expect(status.migrations.map((m) => m.state)).toEqual(all.map(() => "applied"));
  });

  it("refuses to run when an applied migration's file was edited, and status calls it modified", async () => {
    const name = listMigrations()[0].name;
    await t.pool.query(`UPDATE _prisma_migrations SET checksum = repeat('0', 64) WHERE migration_name = $1`, [name]);
    await expect(migrate(t.url)).rejects.toThrow(/MIGRATION_MODIFIED: .*checksum mismatch/);
    const status = await migrationStatus(t.url);
    expect(status.upToDate).toBe(false);
    expect(status.migrations.find((m) => m.name === name)?.state).toBe("modified");
    await t.pool.query(`UPDATE _prisma_migrations SET checksum = $2 WHERE migration_name = $1`, [
      name,
      listMigrations()[0].checksum,
    ]);
    expect((await migrationStatus(t.url)).upToDate).toBe(true);
  });

  it("creates pgvector, the default index space and its HNSW index", async () => {
    const ext = await t.pool.query(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`);
    expect(ext.rows).toHaveLength(1);
    const space = await t.pool.query(`SELECT id, name, dimensions FROM embedding_spaces WHERE is_default`);
    expect(space.rows).toEqual([{ id: 1, name: "local", dimensions: 384 }]);
    const idx = await t.pool.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'chunk_vectors_space_1_hnsw'`);
    expect(idx.rows[0].indexdef).toMatch(/USING hnsw \(\(\(embedding\)::vector\(384\)\) vector_cosine_ops\)/);
    expect(idx.rows[0].indexdef).toMatch(/WHERE \(space_id = 1\)/);
  });
});

describe("checksums, by Prisma's rule", () => {
  // The schema engine's own test vectors (schema-connector/src/checksum.rs).
  it("matches across LF and CRLF, and not across real edits", () => {
    expect(sha("hello")).toBe("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    for (const pair of [
      ["ab\ncd\nef\ngh\rab", "ab\r\ncd\r\nef\r\ngh\rab"],
      ["ab\ncd\nef\ngh\rab\n", "ab\r\ncd\r\nef\r\ngh\rab\r\n"],
    ]) {
      for (const a of pair) for (const b of pair) expect(checksumMatches(a, sha(b))).toBe(true);
    }
    expect(checksumMatches("abc", sha("abcd"))).toBe(false);
    expect(checksumMatches("abc\n", sha("abc"))).toBe(false);
  });

  it("accepts the unpadded checksums an early schema engine recorded", () => {
    // Find a script whose digest has a byte below 0x10, so the old rendering is shorter than 64.
    let script = "";
    for (let i = 0; ; i++) {
      script = `SELECT ${i};\n`;
      if (
        createHash("sha256")
          .update(script)
          .digest()
          .some((b) => b < 16)
      )
        break;
    }
    const old = Array.from(createHash("sha256").update(script).digest(), (b) => b.toString(16)).join("");
    expect(old.length).toBeLessThan(64);
    expect(checksumMatches(script, old)).toBe(true);
    expect(checksumMatches(script.replace("\n", "\r\n"), old)).toBe(true);
    expect(checksumMatches(`${script} `, old)).toBe(false);
  });

  it("a CRLF checkout of applied migrations is up to date; one applied from CRLF matches an LF checkout", async () => {
    const crlf = migrationsCopy({ transform: (sql) => sql.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n") });
    const sample = readFileSync(path.join(crlf, listMigrations()[0].name, "migration.sql"), "utf8");
    expect(sample).toContain("\r\n");

    // Applied from LF files (this checkout), then run from a Windows-style checkout.
    const a = await freshDb();
    await migrate(a.url);
    expect((await migrate(a.url, { dir: crlf })).applied).toEqual([]);
    expect((await migrationStatus(a.url, { dir: crlf })).upToDate).toBe(true);

    // Applied from CRLF files: Prisma records the file as read, so does the runner.
    const b = await freshDb();
    await migrate(b.url, { dir: crlf });
    const first = listMigrations(crlf)[0];
    expect((await rowsOf(b, first.name))[0].checksum).toBe(
      sha(readFileSync(path.join(crlf, first.name, "migration.sql"))),
    );
    expect((await migrate(b.url)).applied).toEqual([]);
    expect((await migrationStatus(b.url)).upToDate).toBe(true);

    // An edit is still an edit, whatever the line endings.
    const edited = migrationsCopy({ transform: (sql) => sql.replaceAll("\n", "\r\n") });
    const file = path.join(edited, first.name, "migration.sql");
    writeFileSync(file, readFileSync(file, "utf8") + "-- changed\r\n");
    await expect(migrate(b.url, { dir: edited })).rejects.toThrow(/MIGRATION_MODIFIED/);
    expect((await migrationStatus(b.url, { dir: edited })).migrations.find((m) => m.name === first.name)?.state).toBe(
      "modified",
    );
  });
});

describe("failed migrations (Prisma's P3009) and migrate resolve", () => {
  const BROKEN = "20991231000000_broken";
  const LATER = "20991231000100_later";

  it("records a failure with its logs, blocks later runs naming it, and resolve --rolled-back lets a fixed version apply", async () => {
    const t = await freshDb();
    const dir = migrationsCopy({
      extra: { [BROKEN]: "CREATE TABLE widgets (id int);\n\nSELECT * FROM no_such_table;\n" },
    });
    const err = await migrate(t.url, { dir }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(new RegExp(`^MIGRATION_APPLY_FAILED: migration ${BROKEN} failed to apply`));
    expect((err as Error).message).toContain(`resolve --rolled-back ${BROKEN}`);
    expect((err as Error).message).toContain("Position: line 3: SELECT * FROM no_such_table;");
    const [row] = await rowsOf(t, BROKEN);
    expect(row.finished_at).toBeNull();
    expect(row.rolled_back_at).toBeNull();
    expect(row.applied_steps_count).toBe(0);
    expect(row.logs).toContain(`Migration name: ${BROKEN}`);
    expect(row.logs).toContain("Database error code: 42P01");
    expect(row.logs).toMatch(/relation "no_such_table" does not exist/);
    // The migration ran in one transaction: its first statement is gone too.
    expect((await t.pool.query(`SELECT to_regclass('widgets') AS r`)).rows[0].r).toBeNull();

    // A later run applies nothing, not even a new migration, and says what to do.
    writeMigration(dir, LATER, "CREATE TABLE later_things (id int);\n");
    const blocked = await migrate(t.url, { dir }).catch((e: Error) => e);
    expect((blocked as Error).message).toMatch(
      /^MIGRATION_FAILED: found a failed migration in the database, so no new migrations were applied/,
    );
    expect((blocked as Error).message).toContain(`The \`${BROKEN}\` migration started at`);
    expect((blocked as Error).message).toContain('relation "no_such_table" does not exist');
    expect((blocked as Error).message).toContain(`npm run migrate -- resolve --rolled-back ${BROKEN}`);
    expect((blocked as Error).message).toContain(`npm run migrate -- resolve --applied ${BROKEN}`);
    expect((await t.pool.query(`SELECT to_regclass('later_things') AS r`)).rows[0].r).toBeNull();

    const status = await migrationStatus(t.url, { dir });
    expect(status.upToDate).toBe(false);
    expect(status.migrations.find((m) => m.name === BROKEN)).toMatchObject({ state: "failed", local: true });
    expect(status.migrations.find((m) => m.name === BROKEN)?.logs).toContain("42P01");
    expect(status.migrations.find((m) => m.name === LATER)?.state).toBe("pending");

    // Prisma's refusals.
    await expect(resolveMigration(t.url, { rolledBack: LATER }, { dir })).rejects.toThrow(
      /^MIGRATION_NOT_APPLIED: .*never applied/,
    );
    await expect(resolveMigration(t.url, { rolledBack: listMigrations()[0].name }, { dir })).rejects.toThrow(
      /^MIGRATION_NOT_FAILED: /,
    );
    await expect(resolveMigration(t.url, { applied: "20991231999999_nowhere" }, { dir })).rejects.toThrow(
      /^MIGRATION_NOT_FOUND: /,
    );
    await expect(resolveMigration(t.url, { applied: listMigrations()[0].name }, { dir })).rejects.toThrow(
      /^MIGRATION_ALREADY_APPLIED: /,
    );

    await resolveMigration(t.url, { rolledBack: BROKEN }, { dir });
    expect((await rowsOf(t, BROKEN))[0].rolled_back_at).toBeInstanceOf(Date);
    expect((await migrationStatus(t.url, { dir })).migrations.find((m) => m.name === BROKEN)?.state).toBe("pending");

    // The fixed file applies anew; the rolled-back record stays as history.
    writeMigration(dir, BROKEN, "CREATE TABLE widgets (id int);\n");
    const r = await migrate(t.url, { dir });
    expect(r.applied).toEqual([BROKEN, LATER]);
    const rows = await rowsOf(t, BROKEN);
    expect(rows).toHaveLength(2);
    expect(rows[0].rolled_back_at).toBeInstanceOf(Date);
    expect(rows[1]).toMatchObject({ rolled_back_at: null, applied_steps_count: 1 });
    expect(rows[1].checksum).toBe(sha("CREATE TABLE widgets (id int);\n"));
    expect((await migrationStatus(t.url, { dir })).upToDate).toBe(true);
  });

  it("resolve --applied records a migration fixed by hand as applied, and later ones run", async () => {
    const t = await freshDb();
    const dir = migrationsCopy({ extra: { [BROKEN]: "ALTER TABLE documents ADD COLUMN hotfix text;\nSELECT 1/0;\n" } });
    await expect(migrate(t.url, { dir })).rejects.toThrow(/MIGRATION_APPLY_FAILED/);
    // The operator makes the intended change by hand.
    await t.pool.query(`ALTER TABLE documents ADD COLUMN hotfix text`);
    await resolveMigration(t.url, { applied: BROKEN }, { dir });
    const rows = await rowsOf(t, BROKEN);
    expect(rows).toHaveLength(2);
    expect(rows[0].rolled_back_at).toBeInstanceOf(Date); // the failed attempt
    expect(rows[1]).toMatchObject({ logs: "", rolled_back_at: null, applied_steps_count: 0 });
    expect(rows[1].finished_at).toBeInstanceOf(Date);
    writeMigration(dir, LATER, "CREATE TABLE later_things (id int);\n");
    expect((await migrate(t.url, { dir })).applied).toEqual([LATER]);
    expect((await migrationStatus(t.url, { dir })).upToDate).toBe(true);
  });

  it("lists a migration the database has but this checkout lacks", async () => {
    const t = await freshDb();
    const dir = migrationsCopy({ extra: { [LATER]: "CREATE TABLE later_things (id int);\n" } });
    await migrate(t.url, { dir });
    const status = await migrationStatus(t.url, { dir: migrationsDir() });
    expect(status.migrations.find((m) => m.name === LATER)).toMatchObject({ state: "applied", local: false });
  });
});

describe("migrations outside a transaction", () => {
  const CONCURRENT = "20991231000000_documents_title_concurrently";

  it("runs a marked migration statement by statement, so CREATE INDEX CONCURRENTLY works", async () => {
    const t = await freshDb();
    const sql = [
      NO_TRANSACTION_MARKER,
      "-- Large table: build without blocking writes.",
      "CREATE INDEX CONCURRENTLY IF NOT EXISTS documents_title_idx ON documents (title);",
      "COMMENT ON INDEX documents_title_idx IS 'titles; for lookups';",
      "DO $$ BEGIN PERFORM 1; END $$;",
      "",
    ].join("\r\n");
    const dir = migrationsCopy({ extra: { [CONCURRENT]: sql } });
    expect(listMigrations(dir).find((m) => m.name === CONCURRENT)?.noTransaction).toBe(true);
    const r = await migrate(t.url, { dir });
    expect(r.applied.at(-1)).toBe(CONCURRENT);
    const idx = await t.pool.query(
      `SELECT i.indisvalid, obj_description(i.indexrelid, 'pg_class') AS comment FROM pg_index i WHERE i.indexrelid = to_regclass('documents_title_idx')`,
    );
    expect(idx.rows).toEqual([{ indisvalid: true, comment: "titles; for lookups" }]);
    expect((await rowsOf(t, CONCURRENT))[0]).toMatchObject({ applied_steps_count: 1, rolled_back_at: null });
    expect((await migrationStatus(t.url, { dir })).upToDate).toBe(true);
  });

  it("without the marker, CREATE INDEX CONCURRENTLY fails and the logs say to use it", async () => {
    const t = await freshDb();
    const dir = migrationsCopy({
      extra: { [CONCURRENT]: "CREATE INDEX CONCURRENTLY documents_title_idx ON documents (title);\nSELECT 1;\n" },
    });
    await expect(migrate(t.url, { dir })).rejects.toThrow(/cannot run inside a transaction block/);
    expect((await rowsOf(t, CONCURRENT))[0].logs).toContain(`first line is \`${NO_TRANSACTION_MARKER}\``);
  });

  it("a failure half way keeps the earlier statements, names the INVALID index, and a re-run refuses to accept it until dropped", async () => {
    const t = await freshDb();
    const TABLE = "20991230000000_codes";
    const UNIQUE = "20991231000000_codes_unique";
    const dir = migrationsCopy({
      extra: {
        [TABLE]: "CREATE TABLE codes (code text);\nINSERT INTO codes VALUES ('a'), ('a');\n",
        [UNIQUE]: `${NO_TRANSACTION_MARKER}\nALTER TABLE codes ADD COLUMN IF NOT EXISTS note text;\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS codes_code_key ON codes (code);\n`,
      },
    });
    const err = (await migrate(t.url, { dir }).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/^MIGRATION_APPLY_FAILED: migration 20991231000000_codes_unique failed/);
    expect(err.message).toContain("statement 2 of 2 (line 3) failed. Statement 1 ran and committed; it stays applied.");
    expect(err.message).toContain(
      "It left the INVALID index codes_code_key; remove it with: DROP INDEX CONCURRENTLY IF EXISTS codes_code_key;",
    );
    expect(err.message).toContain("Database error code: 23505");
    // Statement 1 committed; the index exists, INVALID (the planner never uses it, writes still maintain it).
    expect(
      (
        await t.pool.query(
          `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'codes' AND column_name = 'note'`,
        )
      ).rows[0].n,
    ).toBe(1);
    expect(
      (await t.pool.query(`SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('codes_code_key')`)).rows,
    ).toEqual([{ indisvalid: false }]);
    const [row] = await rowsOf(t, UNIQUE);
    expect(row).toMatchObject({ finished_at: null, rolled_back_at: null });
    expect(row.logs).toContain("INVALID index codes_code_key");

    // Fix the data and mark it rolled back, but forget the INVALID index: IF NOT EXISTS would skip
    // it, so the runner checks and refuses to call the migration applied.
    await t.pool.query(`DELETE FROM codes WHERE ctid = (SELECT max(ctid) FROM codes)`);
    await resolveMigration(t.url, { rolledBack: UNIQUE }, { dir });
    const again = (await migrate(t.url, { dir }).catch((e: Error) => e)) as Error;
    expect(again.message).toContain("completed, but the index is INVALID");
    expect(again.message).toContain("DROP INDEX CONCURRENTLY IF EXISTS codes_code_key;");

    // The documented recovery: drop it, mark rolled back, migrate.
    await t.pool.query(`DROP INDEX CONCURRENTLY IF EXISTS codes_code_key`);
    await resolveMigration(t.url, { rolledBack: UNIQUE }, { dir });
    expect((await migrate(t.url, { dir })).applied).toEqual([UNIQUE]);
    expect(
      (await t.pool.query(`SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('codes_code_key')`)).rows,
    ).toEqual([{ indisvalid: true }]);
    const rows = await rowsOf(t, UNIQUE);
    expect(rows.map((r) => r.rolled_back_at === null)).toEqual([false, false, true]);
    expect((await migrationStatus(t.url, { dir })).upToDate).toBe(true);
  });

  it("a marked migration that does not parse runs nothing and is recorded as failed", async () => {
    const t = await freshDb();
    const dir = migrationsCopy({
      extra: { [CONCURRENT]: `${NO_TRANSACTION_MARKER}\nCREATE TABLE parsed_first (id int);\nCREAT INDEX oops;\n` },
    });
    const err = (await migrate(t.url, { dir }).catch((e: Error) => e)) as Error;
    expect(err.message).toContain("could not be parsed, so none of its statements ran");
    expect((await t.pool.query(`SELECT to_regclass('parsed_first') AS r`)).rows[0].r).toBeNull();
    expect((await rowsOf(t, CONCURRENT))[0]).toMatchObject({ finished_at: null, rolled_back_at: null });
  });
});
