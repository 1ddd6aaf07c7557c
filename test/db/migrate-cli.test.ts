import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { createTestDb, type TestDb } from "../helpers/db";
import { listMigrations } from "../../lib/db/migrate";

// `indexwright migrate …` as an operator runs it: exit codes and what it prints.
const ROOT = path.resolve(import.meta.dirname, "../..");
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb({ migrate: false });
});
afterAll(async () => t?.close());

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ["--conditions=react-server", "--import", "tsx", path.join(ROOT, "cli/main.ts"), "migrate", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: t.url },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe("migrate CLI", () => {
  it("status exits 1 until the database is up to date; resolve refuses by Prisma's rules with a stable code", () => {
    const names = listMigrations().map((m) => m.name);
    const before = cli("status");
    expect(before.code).toBe(1);
    expect(before.out).toContain("the database has no migrations table yet");
    expect(before.out).toMatch(new RegExp(`pending +${names[0]}`));

    const deploy = cli();
    expect(deploy.code).toBe(0);
    expect(deploy.out).toContain(`applied ${names.length} migration(s)`);

    const after = cli("status", "--json");
    expect(after.code).toBe(0);
    const status = JSON.parse(after.out) as { upToDate: boolean; migrations: { name: string; state: string }[] };
    expect(status.upToDate).toBe(true);
    expect(status.migrations.map((m) => m.state)).toEqual(names.map(() => "applied"));

    const refused = cli("resolve", "--rolled-back", names[0]);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(`MIGRATION_NOT_FAILED: migration ${names[0]} cannot be rolled back`);
    const both = cli("resolve", "--applied", names[0], "--rolled-back", names[0]);
    expect(both.code).toBe(1);
    expect(both.out).toContain("exactly one of --applied NAME or --rolled-back NAME");
  });
});
