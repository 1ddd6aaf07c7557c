import { randomUUID } from "node:crypto";
import type pg from "pg";

/** Inserts `n` PENDING INDEX tasks (one document version each) in one statement per table. */
export async function seedTasks(
  pool: pg.Pool,
  n: number,
  opts: { tenant?: string; maxAttempts?: number } = {},
): Promise<string[]> {
  const tenant = opts.tenant ?? "t1";
  await pool.query(`INSERT INTO tenants (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [tenant]);
  const ids = Array.from({ length: n }, () => randomUUID());
  await pool.query(
    `INSERT INTO documents (id, tenant_id, key, title, business_version)
     SELECT id, $1, 'doc-' || substr(id::text, 1, 8) || '-' || i, 'Doc', 1 FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, i)`,
    [tenant, ids],
  );
  const { rows } = await pool.query<{ task_id: string }>(
    `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, max_attempts)
     SELECT $1, id, 1, 'INDEX', $3 FROM unnest($2::uuid[]) AS u(id)
     RETURNING task_id::text`,
    [tenant, ids, opts.maxAttempts ?? 8],
  );
  return rows.map((r) => r.task_id);
}

export async function expireLease(pool: pg.Pool, taskId: string): Promise<void> {
  await pool.query(`UPDATE index_tasks SET lease_until = now() - interval '1 second' WHERE task_id = $1`, [taskId]);
}

export async function taskRow(pool: pg.Pool, taskId: string) {
  return (await pool.query(`SELECT * FROM index_tasks WHERE task_id = $1`, [taskId])).rows[0];
}

/** Empties every content table between tests of one file (its database stays migrated). */
export async function resetContent(pool: pg.Pool): Promise<void> {
  await pool.query(
    `TRUNCATE chunks, search_pointers, index_versions, task_events, index_tasks, document_versions, documents, tenants CASCADE`,
  );
}
