import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { migrate } from "../../lib/db/migrate";
import { databaseBefore } from "../helpers/migrations";

// Before force-done did a DELETE's work, closing a DEAD DELETE kept its deleted document's pointer
// and ACTIVE index version for good. The migration finishes those deletes, and only those.
const CLEANUP = "20261201080000_resolved_delete_cleanup";
const db = databaseBefore(CLEANUP);

/** A document at version 1, served, with its DELETE(1) in `deleteStatus` (none: not deleted). */
async function seed(key: string, deleteStatus: "RESOLVED" | "DEAD" | null): Promise<string> {
  const doc = randomUUID();
  const iv = randomUUID();
  await db.t.pool.query(
    `INSERT INTO documents (id, tenant_id, key, title, business_version, deleted_at) VALUES ($1, 'mg', $2, 'D', 1, $3)`,
    [doc, key, deleteStatus ? new Date() : null],
  );
  await db.t.pool.query(
    `INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, published_by)
     VALUES ($1, 'mg', $2, 1, 'D', 'text/plain', 'x', 1, 'c', 't')`,
    [randomUUID(), doc],
  );
  await db.t.pool.query(
    `INSERT INTO index_versions (id, tenant_id, document_id, version_number, status, chunker_version, embedding_model, embedding_dimensions, expected_chunk_count)
     VALUES ($1, 'mg', $2, 1, 'ACTIVE', 'c', 'm', 3, 0)`,
    [iv, doc],
  );
  await db.t.pool.query(
    `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number) VALUES ($1, 'mg', $2, 1)`,
    [doc, iv],
  );
  await db.t.pool.query(
    `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, finished_at) VALUES ('mg', $1, 1, 'INDEX', 'SUCCEEDED', now())`,
    [doc],
  );
  if (deleteStatus) {
    await db.t.pool.query(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, error_code, finished_at) VALUES ('mg', $1, 1, 'DELETE', $2, 'INTERNAL_ERROR', now())`,
      [doc, deleteStatus],
    );
  }
  return doc;
}

describe("resolved-delete cleanup migration", () => {
  it("drops the pointer and retires the versions of deleted documents whose DELETE was force-closed; leaves DEAD deletes and live documents", async () => {
    await migrate(db.t.url, { dir: db.before });
    await db.t.pool.query(`INSERT INTO tenants (id, name) VALUES ('mg', 'mg')`);
    const closed = await seed("closed", "RESOLVED");
    const dead = await seed("dead", "DEAD");
    const live = await seed("live", null);
    const r = await migrate(db.t.url);
    expect(r.applied).toContain(CLEANUP);
    const state = async (doc: string) =>
      (
        await db.t.pool.query(
          `SELECT (SELECT count(*)::int FROM search_pointers WHERE document_id = $1) AS pointers,
                  (SELECT array_agg(status) FROM index_versions WHERE document_id = $1) AS versions,
                  (SELECT bool_and(retired_at IS NOT NULL) FROM index_versions WHERE document_id = $1 AND status = 'RETIRED') AS dated`,
          [doc],
        )
      ).rows[0];
    expect(await state(closed)).toEqual({ pointers: 0, versions: ["RETIRED"], dated: true });
    expect(await state(dead)).toEqual({ pointers: 1, versions: ["ACTIVE"], dated: null });
    expect(await state(live)).toEqual({ pointers: 1, versions: ["ACTIVE"], dated: null });
  });
});
