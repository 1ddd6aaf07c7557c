import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createTestDb, type TestDb } from "../helpers/db";
import { listMigrations, migrate } from "../../lib/db/migrate";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb({ migrate: false });
});
afterAll(async () => t?.close());

describe("migration runner", () => {
  it("applies every migration once and records it the way prisma migrate deploy does", async () => {
    const first = await migrate(t.url);
    const all = listMigrations();
    expect(first.applied).toEqual(all.map((m) => m.name));
    const { rows } = await t.pool.query(`SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at, length(id) AS id_len FROM _prisma_migrations ORDER BY migration_name`);
    expect(rows).toHaveLength(all.length);
    for (const [i, r] of rows.entries()) {
      const sql = readFileSync(`prisma/migrations/${all[i].name}/migration.sql`, "utf8");
      expect(r.migration_name).toBe(all[i].name);
      expect(r.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
      expect(r.finished_at).toBeInstanceOf(Date);
      expect(r.applied_steps_count).toBe(1);
      expect(r.rolled_back_at).toBeNull();
      expect(r.id_len).toBe(36);
    }
    const second = await migrate(t.url);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toBe(all.length);
  });

  it("refuses to run when an applied migration's file was edited", async () => {
    await t.pool.query(`UPDATE _prisma_migrations SET checksum = repeat('0', 64) WHERE migration_name = $1`, [listMigrations()[0].name]);
    await expect(migrate(t.url)).rejects.toThrow(/checksum mismatch/);
    await t.pool.query(`UPDATE _prisma_migrations SET checksum = $2 WHERE migration_name = $1`, [listMigrations()[0].name, listMigrations()[0].checksum]);
  });

  it("creates pgvector and the HNSW index for the default dimension", async () => {
    const ext = await t.pool.query(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`);
    expect(ext.rows).toHaveLength(1);
    const idx = await t.pool.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_embedding_384_hnsw'`);
    expect(idx.rows[0].indexdef).toMatch(/USING hnsw/);
    expect(idx.rows[0].indexdef).toMatch(/WHERE \(dims = 384\)/);
  });
});
