import type pg from "pg";
import { withTransaction, run } from "../db/pool";
import { notifyTasks, supersedeOlderTasks } from "../queue/sql";
import { TASK_TYPE } from "../domain/constants";

/**
 * Removing a document from search is a DELETE task bound to the business version at this moment
 * (its version_number). Idempotent: asking again returns the same task (the business key is per
 * version). A publish after this supersedes the DELETE, and a DELETE that runs late anyway finds
 * the newer version under the document lock and changes nothing (lib/pipeline/delete-task.ts).
 */
export async function requestDelete(pool: pg.Pool, tenant: string, key: string, actor: string, maxAttempts: number): Promise<{ taskId: string } | null> {
  return withTransaction(pool, async (tx) => {
    const doc = (
      await tx.query<{ id: string; business_version: number }>(`SELECT id, business_version FROM documents WHERE tenant_id = $1 AND key = $2 FOR UPDATE`, [tenant, key])
    ).rows[0];
    if (!doc) return null;
    await tx.query(`UPDATE documents SET deleted_at = coalesce(deleted_at, now()), updated_at = now() WHERE id = $1`, [doc.id]);
    await tx.query(`INSERT INTO audit_log (actor, action, tenant_id, target_type, target_id) VALUES ($1, 'document.delete', $2, 'document', $3)`, [actor, tenant, `${tenant}/${key}`]);
    await run(tx, supersedeOlderTasks(doc.id, doc.business_version + 1, actor, [TASK_TYPE.INDEX, TASK_TYPE.REINDEX]));
    // The configured attempt budget, like every other task (the column default is only a fallback).
    const ins = await tx.query<{ task_id: string }>(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, max_attempts) VALUES ($1, $2, $3, 'DELETE', $4)
       ON CONFLICT (tenant_id, document_id, version_number, task_type) DO NOTHING RETURNING task_id::text`,
      [tenant, doc.id, doc.business_version, maxAttempts],
    );
    if (ins.rows[0]) {
      await tx.query(`INSERT INTO task_events (task_id, tenant_id, kind, actor) VALUES ($1, $2, 'CREATED', $3)`, [ins.rows[0].task_id, tenant, actor]);
      await run(tx, notifyTasks());
      return { taskId: ins.rows[0].task_id };
    }
    const existing = await tx.query<{ task_id: string }>(
      `SELECT task_id::text FROM index_tasks WHERE document_id = $1 AND version_number = $2 AND task_type = 'DELETE'`,
      [doc.id, doc.business_version],
    );
    return { taskId: existing.rows[0].task_id };
  });
}
