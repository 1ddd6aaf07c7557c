import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { listMigrations, migrationsDir } from "../../lib/db/migrate";

/**
 * A directory holding every migration older than `name`: migrating a database from it leaves the
 * schema as it was just before that migration, so a test can seed rows the way older code wrote
 * them and then apply the rest. `remove()` when done.
 */
export function migrationsBefore(name: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "iw-migrations-"));
  for (const m of listMigrations().filter((m) => m.name < name)) cpSync(path.join(migrationsDir(), m.name), path.join(dir, m.name), { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
