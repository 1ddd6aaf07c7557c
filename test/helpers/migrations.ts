import { afterAll, beforeAll } from "vitest";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { listMigrations, migrationsDir } from "../../lib/db/migrate";
import { createTestDb, type TestDb } from "./db";

/**
 * A directory holding every migration older than `name`: migrating a database from it leaves the
 * schema as it was just before that migration, so a test can seed rows the way older code wrote
 * them and then apply the rest. `remove()` when done.
 */
export function migrationsBefore(name: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "iw-migrations-"));
  for (const m of listMigrations().filter((m) => m.name < name))
    cpSync(path.join(migrationsDir(), m.name), path.join(dir, m.name), { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A test database brought to the state just before migration `name` by the test itself
 * (`migrate(db.t.url, { dir: db.before })`), created before the file's tests and dropped after.
 */
export function databaseBefore(name: string): { readonly t: TestDb; readonly before: string } {
  let t: TestDb | undefined;
  let staged: ReturnType<typeof migrationsBefore> | undefined;
  beforeAll(async () => {
    t = await createTestDb({ migrate: false });
    staged = migrationsBefore(name);
  });
  afterAll(async () => {
    staged?.remove();
    await t?.close();
  });
  return {
    get t() {
      return t!;
    },
    get before() {
      return staged!.dir;
    },
  };
}
