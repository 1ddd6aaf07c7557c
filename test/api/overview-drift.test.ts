import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../helpers/db";
import { overview } from "../../lib/operations/repository";

// Acknowledged drift is a drifted document whose newest INDEX/REINDEX task of the business version
// is RESOLVED. The overview finds it from the RESOLVED tasks; a RESOLVED task that a newer task of
// the same version followed (a REINDEX, a retry's successor), one of an older version, or a
// DELETE does not acknowledge anything. Checked per tenant against the rule as written: the newest
// such task, looked up for every drifted document.

let t: TestDb;
const q = (text: string, values: unknown[] = []) => t.pool.query(text, values);

/** Tasks of one document as [version, type, status] in creation order; the document is drifted (no pointer). */
async function doc(
  tenant: string,
  key: string,
  businessVersion: number,
  tasks: [number, string, string][],
): Promise<void> {
  const { rows } = await q(
    `INSERT INTO documents (id, tenant_id, key, title, business_version) VALUES (gen_random_uuid(), $1, $2, 't', $3) RETURNING id`,
    [tenant, key, businessVersion],
  );
  const id = rows[0].id;
  for (let v = 1; v <= businessVersion; v++) {
    await q(
      `INSERT INTO document_versions (id, tenant_id, document_id, version_number, title, content_type, content, content_bytes, checksum, published_by, published_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 't', 'text/plain', '\\x00', 1, 'x', 'test', now() - make_interval(mins => $4))`,
      [tenant, id, v, 100 - v - key.length],
    );
  }
  for (const [v, type, status] of tasks) {
    await q(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, status, lease_owner, lease_until)
       VALUES ($1, $2, $3, $4, $5, CASE WHEN $5 = 'RUNNING' THEN 'w' END, CASE WHEN $5 = 'RUNNING' THEN now() + interval '1 minute' END)`,
      [tenant, id, v, type, status],
    );
  }
}

beforeAll(async () => {
  t = await createTestDb();
  await q(`INSERT INTO tenants (id, name) VALUES ('da', 'A'), ('db', 'B')`);
  await doc("da", "resolved", 2, [
    [1, "INDEX", "SUCCEEDED"],
    [2, "INDEX", "RESOLVED"],
  ]);
  await doc("da", "resolved-then-reindex", 2, [
    [2, "INDEX", "RESOLVED"],
    [2, "REINDEX", "PENDING"],
  ]);
  await doc("da", "reindex-resolved", 2, [
    [2, "INDEX", "DEAD"],
    [2, "REINDEX", "RESOLVED"],
  ]);
  await doc("da", "resolved-older-version", 3, [
    [2, "INDEX", "RESOLVED"],
    [3, "INDEX", "DEAD"],
  ]);
  await doc("da", "resolved-then-delete", 2, [
    [2, "INDEX", "RESOLVED"],
    [2, "DELETE", "PENDING"],
  ]);
  await doc("db", "resolved-b", 1, [[1, "INDEX", "RESOLVED"]]);
  await doc("db", "running-b", 1, [[1, "INDEX", "RUNNING"]]);
  // Not drifted: deleted, so a RESOLVED task of it acknowledges nothing.
  await doc("db", "deleted-b", 1, [[1, "INDEX", "RESOLVED"]]);
  await q(`UPDATE documents SET deleted_at = now() WHERE key = 'deleted-b'`);
});
afterAll(async () => t?.close());

async function truth(tenants: string[] | null) {
  const { rows } = await q(
    `SELECT count(*)::int AS drift, count(*) FILTER (WHERE lt.status = 'RESOLVED')::int AS acknowledged
       FROM documents d
       JOIN document_versions dv ON dv.document_id = d.id AND dv.version_number = d.business_version
       LEFT JOIN LATERAL (SELECT status FROM index_tasks x WHERE x.document_id = d.id AND x.version_number = d.business_version AND x.task_type IN ('INDEX', 'REINDEX')
                           ORDER BY x.task_id DESC LIMIT 1) lt ON true
      WHERE d.drifted AND ($1::text[] IS NULL OR d.tenant_id = ANY($1::text[]))`,
    [tenants],
  );
  return { count: rows[0].drift as number, acknowledged: rows[0].acknowledged as number };
}

describe("overview: acknowledged drift", () => {
  it("counts documents whose newest INDEX/REINDEX task of the business version is RESOLVED, and no others", async () => {
    const all = await overview(t.pool, { leaseSeconds: 60, heartbeatSeconds: 20, tenants: null });
    expect(all.drift).toMatchObject({ count: 7, acknowledged: 4 });
    expect(all.drift).toMatchObject(await truth(null));
  });

  it("within a tenant-limited caller's tenants only", async () => {
    const a = await overview(t.pool, { leaseSeconds: 60, heartbeatSeconds: 20, tenants: ["da"] });
    expect(a.drift).toMatchObject({ count: 5, acknowledged: 3 });
    expect(a.drift).toMatchObject(await truth(["da"]));
    const b = await overview(t.pool, { leaseSeconds: 60, heartbeatSeconds: 20, tenants: ["db"] });
    expect(b.drift).toMatchObject({ count: 2, acknowledged: 1 });
    expect(b.drift).toMatchObject(await truth(["db"]));
  });
});
