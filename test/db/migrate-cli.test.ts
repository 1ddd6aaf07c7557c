import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
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

// Asynchronous on purpose: without TEST_DATABASE_URL the embedded database is served from this
// very process, so a synchronous spawn would stop it answering the CLI it waits for.
function cli(...args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", path.join(ROOT, "cli/main.ts"), "migrate", ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: t.url }, encoding: "utf8", timeout: 150_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
        resolve({ code, out: stdout + stderr });
      },
    );
  });
}

describe("migrate CLI", () => {
  it("status exits 1 until the database is up to date; resolve refuses by Prisma's rules with a stable code", async () => {
    const names = listMigrations().map((m) => m.name);
    const before = await cli("status");
    expect(before.code).toBe(1);
    expect(before.out).toContain("the database has no migrations table yet");
    expect(before.out).toMatch(new RegExp(`pending +${names[0]}`));

    const deploy = await cli();
    expect(deploy.code).toBe(0);
    expect(deploy.out).toContain(`applied ${names.length} migration(s)`);

    const after = await cli("status", "--json");
    expect(after.code).toBe(0);
    const status = JSON.parse(after.out) as { upToDate: boolean; migrations: { name: string; state: string }[] };
    expect(status.upToDate).toBe(true);
    expect(status.migrations.map((m) => m.state)).toEqual(names.map(() => "applied"));

    const refused = await cli("resolve", "--rolled-back", names[0]);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(`MIGRATION_NOT_FAILED: migration ${names[0]} cannot be rolled back`);
    const both = await cli("resolve", "--applied", names[0], "--rolled-back", names[0]);
    expect(both.code).toBe(1);
    expect(both.out).toContain("exactly one of --applied NAME or --rolled-back NAME");
  }, 600_000);
});
