import type pg from "pg";
import { withTransaction, run } from "../db/pool";
import { notifyTasks } from "../queue/sql";
import { ApiError } from "../http/errors";

// Operator actions of design §7. Each runs in one transaction with its audit record, so an
// action either happened and is audited, or neither.

type Actor = { subject: string };

async function audit(tx: pg.PoolClient, actor: Actor, action: string, target: { type: string; id: string; tenant: string | null }, reason: string | null, detail: unknown) {
  await tx.query(`INSERT INTO audit_log (actor, action, tenant_id, target_type, target_id, reason, detail) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    actor.subject,
    action,
    target.tenant,
    target.type,
    target.id,
    reason,
    detail === undefined ? null : JSON.stringify(detail),
  ]);
}

/** Explains why a DEAD-only action touched no row: the task is unknown (404) or not DEAD (409). */
async function notDead(tx: pg.PoolClient, taskId: string, tenants: string[] | null, verb: string): Promise<never> {
  const cur = await tx.query(`SELECT status FROM index_tasks WHERE task_id = $1 AND ($2::text[] IS NULL OR tenant_id = ANY($2::text[]))`, [taskId, tenants]);
  if (!cur.rows[0]) throw new ApiError(404, "NOT_FOUND", `task ${taskId} not found`);
  throw new ApiError(409, "INVALID_STATE", `only DEAD tasks can be ${verb}; task ${taskId} is ${cur.rows[0].status}`);
}

/**
 * DEAD → PENDING, due now, with a fresh attempt budget. The budget grows (max = attempts + N)
 * instead of resetting attempts, so the lease attempt stays monotonic and old zombies stay fenced.
 */
export async function retryTask(pool: pg.Pool, taskId: string, actor: Actor, reason: string | null, budget: number, tenants: string[] | null) {
  return withTransaction(pool, async (tx) => {
    const r = await tx.query<{ task_id: string; tenant_id: string }>(
      `UPDATE index_tasks SET status = 'PENDING', next_attempt_at = now(), max_attempts = attempts + $2, finished_at = NULL, lease_until = NULL, updated_at = now()
        WHERE task_id = $1 AND status = 'DEAD' AND ($3::text[] IS NULL OR tenant_id = ANY($3::text[]))
        RETURNING task_id::text, tenant_id`,
      [taskId, budget, tenants],
    );
    if (!r.rows[0]) return notDead(tx, taskId, tenants, "retried");
    await tx.query(`INSERT INTO task_events (task_id, tenant_id, kind, actor, detail) VALUES ($1, $2, 'OPERATOR_RETRY', $3, $4)`, [taskId, r.rows[0].tenant_id, actor.subject, { reason }]);
    await audit(tx, actor, "task.retry", { type: "task", id: taskId, tenant: r.rows[0].tenant_id }, reason, undefined);
    await run(tx, notifyTasks());
    return { taskId, status: "PENDING" };
  });
}

export async function bulkRetry(pool: pg.Pool, filter: { errorCode?: string; tenant?: string; type?: string }, actor: Actor, reason: string | null, budget: number, tenants: string[] | null) {
  return withTransaction(pool, async (tx) => {
    const r = await tx.query<{ task_id: string; tenant_id: string }>(
      `UPDATE index_tasks SET status = 'PENDING', next_attempt_at = now(), max_attempts = attempts + $1, finished_at = NULL, updated_at = now()
        WHERE status = 'DEAD' AND ($2::text IS NULL OR error_code = $2) AND ($3::text IS NULL OR tenant_id = $3)
          AND ($4::text[] IS NULL OR tenant_id = ANY($4::text[])) AND ($5::text IS NULL OR task_type = $5)
        RETURNING task_id::text, tenant_id`,
      [budget, filter.errorCode ?? null, filter.tenant ?? null, tenants, filter.type ?? null],
    );
    if (r.rows.length > 0) {
      await tx.query(
        `INSERT INTO task_events (task_id, tenant_id, kind, actor, detail)
         SELECT u.task_id::bigint, u.tenant_id, 'OPERATOR_RETRY', $3, $4 FROM unnest($1::text[], $2::text[]) AS u(task_id, tenant_id)`,
        [r.rows.map((x) => x.task_id), r.rows.map((x) => x.tenant_id), actor.subject, { reason, bulk: true }],
      );
      await run(tx, notifyTasks());
    }
    await audit(tx, actor, "task.bulk_retry", { type: "tasks", id: "*", tenant: filter.tenant ?? null }, reason, { filter, retried: r.rows.length });
    return { retried: r.rows.length };
  });
}

/** DEAD → RESOLVED with a reason. Not a success: the drift it leaves shows as acknowledged. */
export async function forceDone(pool: pg.Pool, taskId: string, actor: Actor, reason: string, tenants: string[] | null) {
  return withTransaction(pool, async (tx) => {
    const r = await tx.query<{ tenant_id: string }>(
      `UPDATE index_tasks SET status = 'RESOLVED', finished_at = now(), updated_at = now()
        WHERE task_id = $1 AND status = 'DEAD' AND ($2::text[] IS NULL OR tenant_id = ANY($2::text[])) RETURNING tenant_id`,
      [taskId, tenants],
    );
    if (!r.rows[0]) return notDead(tx, taskId, tenants, "force-closed");
    await tx.query(`INSERT INTO task_events (task_id, tenant_id, kind, actor, detail) VALUES ($1, $2, 'OPERATOR_FORCE_DONE', $3, $4)`, [taskId, r.rows[0].tenant_id, actor.subject, { reason }]);
    await audit(tx, actor, "task.force_done", { type: "task", id: taskId, tenant: r.rows[0].tenant_id }, reason, undefined);
    return { taskId, status: "RESOLVED" };
  });
}

async function lockDocument(tx: pg.PoolClient, tenant: string, key: string) {
  const d = (await tx.query<{ id: string; business_version: number; deleted_at: Date | null }>(`SELECT id, business_version, deleted_at FROM documents WHERE tenant_id = $1 AND key = $2 FOR UPDATE`, [tenant, key])).rows[0];
  if (!d) throw new ApiError(404, "NOT_FOUND", `document ${tenant}/${key} not found`);
  return d;
}

/**
 * Point search back at an earlier complete index version still within retention, and pin it
 * there until the next publish (or an explicit unpin).
 */
export async function rollback(pool: pg.Pool, tenant: string, key: string, toVersion: number, reason: string, actor: Actor, retentionHours: number) {
  return withTransaction(pool, async (tx) => {
    const d = await lockDocument(tx, tenant, key);
    if (d.deleted_at) throw new ApiError(409, "INVALID_STATE", "document is deleted");
    const target = (
      await tx.query<{ id: string; status: string }>(
        `SELECT id, status FROM index_versions
          WHERE document_id = $1 AND version_number = $2 AND status IN ('READY', 'RETIRED', 'ACTIVE') AND chunk_count = expected_chunk_count
            AND (retired_at IS NULL OR retired_at > now() - make_interval(secs => $3::double precision))
          ORDER BY created_at DESC LIMIT 1`,
        [d.id, toVersion, retentionHours * 3600],
      )
    ).rows[0];
    if (!target) throw new ApiError(409, "ROLLBACK_UNAVAILABLE", `no complete index version of v${toVersion} is within retention`);
    const cur = (await tx.query<{ index_version_id: string; version_number: number }>(`SELECT index_version_id, version_number FROM search_pointers WHERE document_id = $1 FOR UPDATE`, [d.id])).rows[0];
    await tx.query(
      `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number, pinned, pinned_by, pinned_reason, updated_at)
       VALUES ($1, $2, $3, $4, true, $5, $6, now())
       ON CONFLICT (document_id) DO UPDATE SET index_version_id = EXCLUDED.index_version_id, version_number = EXCLUDED.version_number,
         pinned = true, pinned_by = EXCLUDED.pinned_by, pinned_reason = EXCLUDED.pinned_reason, updated_at = now()`,
      [d.id, tenant, target.id, toVersion, actor.subject, reason],
    );
    if (cur && cur.index_version_id !== target.id) {
      await tx.query(`UPDATE index_versions SET status = 'RETIRED', retired_at = now() WHERE id = $1 AND status = 'ACTIVE'`, [cur.index_version_id]);
    }
    await tx.query(`UPDATE index_versions SET status = 'ACTIVE', activated_at = now(), retired_at = NULL WHERE id = $1`, [target.id]);
    await audit(tx, actor, "document.rollback", { type: "document", id: `${tenant}/${key}`, tenant }, reason, { from: cur?.version_number ?? null, to: toVersion });
    return { tenant, key, searchVersion: toVersion, pinned: true };
  });
}

export async function unpin(pool: pg.Pool, tenant: string, key: string, actor: Actor) {
  return withTransaction(pool, async (tx) => {
    const d = await lockDocument(tx, tenant, key);
    await tx.query(`UPDATE search_pointers SET pinned = false, pinned_by = NULL, pinned_reason = NULL WHERE document_id = $1`, [d.id]);
    await audit(tx, actor, "document.unpin", { type: "document", id: `${tenant}/${key}`, tenant }, null, undefined);
    return { tenant, key, pinned: false };
  });
}

/** A REINDEX task for the business version (e.g. after a model change); reuses a finished one. */
export async function reindex(pool: pg.Pool, tenant: string, key: string, actor: Actor, maxAttempts: number) {
  return withTransaction(pool, async (tx) => {
    const d = await lockDocument(tx, tenant, key);
    if (d.deleted_at || d.business_version === 0) throw new ApiError(409, "INVALID_STATE", "nothing to reindex");
    const r = await tx.query<{ task_id: string; status: string }>(
      `INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, max_attempts)
       VALUES ($1, $2, $3, 'REINDEX', $4)
       ON CONFLICT (tenant_id, document_id, version_number, task_type) DO UPDATE
         SET status = CASE WHEN index_tasks.status IN ('PENDING', 'RUNNING', 'RETRY_WAIT') THEN index_tasks.status ELSE 'PENDING' END,
             next_attempt_at = CASE WHEN index_tasks.status IN ('PENDING', 'RUNNING', 'RETRY_WAIT') THEN index_tasks.next_attempt_at ELSE now() END,
             max_attempts = CASE WHEN index_tasks.status IN ('PENDING', 'RUNNING', 'RETRY_WAIT') THEN index_tasks.max_attempts ELSE index_tasks.attempts + $4 END,
             finished_at = CASE WHEN index_tasks.status IN ('PENDING', 'RUNNING', 'RETRY_WAIT') THEN index_tasks.finished_at END,
             error_code = CASE WHEN index_tasks.status IN ('PENDING', 'RUNNING', 'RETRY_WAIT') THEN index_tasks.error_code END,
             error_message = CASE WHEN index_tasks.status IN ('PENDING', 'RUNNING', 'RETRY_WAIT') THEN index_tasks.error_message END,
             updated_at = now()
       RETURNING task_id::text, status`,
      [tenant, d.id, d.business_version, maxAttempts],
    );
    const taskId = r.rows[0].task_id;
    await tx.query(`INSERT INTO task_events (task_id, tenant_id, kind, actor) VALUES ($1, $2, 'CREATED', $3)`, [taskId, tenant, actor.subject]);
    await audit(tx, actor, "document.reindex", { type: "document", id: `${tenant}/${key}`, tenant }, null, { taskId, versionNumber: d.business_version });
    await run(tx, notifyTasks());
    return { taskId };
  });
}

/** Move a document to a new key in its tenant. Chunks hang off the document id: nothing is re-embedded. */
export async function rename(pool: pg.Pool, tenant: string, key: string, newKey: string, actor: Actor) {
  return withTransaction(pool, async (tx) => {
    const d = (await tx.query<{ id: string }>(`SELECT id FROM documents WHERE tenant_id = $1 AND key = $2 FOR UPDATE`, [tenant, key])).rows[0];
    if (!d) {
      // Repeating a finished rename is harmless: the document already carries the new key.
      const done = await tx.query(`SELECT 1 FROM documents WHERE tenant_id = $1 AND key = $2`, [tenant, newKey]);
      if (done.rows[0]) return { tenant, key: newKey, renamed: false };
      throw new ApiError(404, "NOT_FOUND", `document ${tenant}/${key} not found`);
    }
    if (key === newKey) return { tenant, key: newKey, renamed: false };
    const taken = await tx.query(`SELECT 1 FROM documents WHERE tenant_id = $1 AND key = $2`, [tenant, newKey]);
    if (taken.rows[0]) throw new ApiError(409, "KEY_TAKEN", `${tenant}/${newKey} already exists`);
    await tx.query(`UPDATE documents SET key = $2, updated_at = now() WHERE id = $1`, [d.id, newKey]);
    await audit(tx, actor, "document.rename", { type: "document", id: `${tenant}/${newKey}`, tenant }, null, { from: key, to: newKey });
    return { tenant, key: newKey, renamed: true };
  });
}
