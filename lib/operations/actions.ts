import type pg from "pg";
import { withTransaction, run } from "../db/pool";
import { notifyTasks } from "../queue/sql";
import { lockDocument as lockDocumentRow } from "../queue/engine";
import { ApiError } from "../http/errors";
import { movePointer } from "../pipeline/pointer";

import type { EmbeddingSpace } from "../embedding/types";

/**
 * A DEAD task is obsolete when the document moved on without it: an INDEX/REINDEX of a version
 * that is no longer the business version (or of a deleted document), a DELETE of a document that
 * was published again. Reviving one would redo work nobody wants (or undo a publish).
 */
const OBSOLETE_SQL = `(CASE WHEN t.task_type = 'DELETE' THEN d.deleted_at IS NULL OR t.version_number < d.business_version
       ELSE d.deleted_at IS NOT NULL OR t.version_number < d.business_version END)`;

/** Lock order: the task's document row first, then the task row (see docs/design.md). */
async function lockTaskDocument(tx: pg.PoolClient, taskId: string, tenants: string[] | null): Promise<{ tenant_id: string; document_id: string } | null> {
  const t = (
    await tx.query<{ tenant_id: string; document_id: string }>(
      `SELECT tenant_id, document_id::text FROM index_tasks WHERE task_id = $1 AND ($2::text[] IS NULL OR tenant_id = ANY($2::text[]))`,
      [taskId, tenants],
    )
  ).rows[0];
  if (!t) return null;
  await lockDocumentRow(tx, t.document_id);
  return t;
}

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
 * An obsolete task (see OBSOLETE_SQL) is refused with 409 TASK_SUPERSEDED.
 */
export async function retryTask(pool: pg.Pool, taskId: string, actor: Actor, reason: string | null, budget: number, tenants: string[] | null) {
  return withTransaction(pool, async (tx) => {
    const owner = await lockTaskDocument(tx, taskId, tenants);
    if (!owner) throw new ApiError(404, "NOT_FOUND", `task ${taskId} not found`);
    const cur = (
      await tx.query<{ status: string; obsolete: boolean; version_number: number; task_type: string; business_version: number }>(
        `SELECT t.status, ${OBSOLETE_SQL} AS obsolete, t.version_number, t.task_type, d.business_version
           FROM index_tasks t JOIN documents d ON d.id = t.document_id
          WHERE t.task_id = $1
            FOR UPDATE OF t`,
        [taskId],
      )
    ).rows[0];
    if (cur.status !== "DEAD") return notDead(tx, taskId, tenants, "retried");
    if (cur.obsolete) {
      throw new ApiError(
        409,
        "TASK_SUPERSEDED",
        `task ${taskId} (${cur.task_type} of v${cur.version_number}) is obsolete: the document has moved on (business version v${cur.business_version}); publish, reindex or delete instead`,
      );
    }
    await tx.query(
      `UPDATE index_tasks SET status = 'PENDING', next_attempt_at = now(), max_attempts = attempts + $2, finished_at = NULL, lease_until = NULL, updated_at = now()
        WHERE task_id = $1`,
      [taskId, budget],
    );
    await tx.query(`INSERT INTO task_events (task_id, tenant_id, kind, actor, detail) VALUES ($1, $2, 'OPERATOR_RETRY', $3, $4)`, [taskId, owner.tenant_id, actor.subject, { reason }]);
    await audit(tx, actor, "task.retry", { type: "task", id: taskId, tenant: owner.tenant_id }, reason, undefined);
    await run(tx, notifyTasks());
    return { taskId, status: "PENDING" };
  });
}

/** Every matching DEAD task that is not obsolete goes back to PENDING; obsolete ones are counted as skipped. */
export async function bulkRetry(pool: pg.Pool, filter: { errorCode?: string; tenant?: string; type?: string }, actor: Actor, reason: string | null, budget: number, tenants: string[] | null) {
  return withTransaction(pool, async (tx) => {
    const match = `t.status = 'DEAD' AND ($1::text IS NULL OR t.error_code = $1) AND ($2::text IS NULL OR t.tenant_id = $2)
          AND ($3::text[] IS NULL OR t.tenant_id = ANY($3::text[])) AND ($4::text IS NULL OR t.task_type = $4)`;
    const args = [filter.errorCode ?? null, filter.tenant ?? null, tenants, filter.type ?? null];
    // Lock order: every affected document, in id order, before any task row.
    const locked = await tx.query<{ id: string }>(`SELECT id::text FROM documents WHERE id IN (SELECT t.document_id FROM index_tasks t WHERE ${match}) ORDER BY id FOR UPDATE`, args);
    // Only tasks of documents locked above: a task that turned DEAD after that statement's
    // snapshot belongs to a document nobody locked, and a publish could move it on meanwhile.
    const lockedIds = locked.rows.map((d) => d.id);
    const r = await tx.query<{ task_id: string; tenant_id: string; obsolete: boolean }>(
      `WITH candidates AS (
         SELECT t.task_id, t.tenant_id, ${OBSOLETE_SQL} AS obsolete
           FROM index_tasks t JOIN documents d ON d.id = t.document_id
          WHERE ${match} AND t.document_id = ANY($6::uuid[])
          ORDER BY t.task_id
            FOR UPDATE OF t),
       revived AS (
         UPDATE index_tasks t SET status = 'PENDING', next_attempt_at = now(), max_attempts = t.attempts + $5, finished_at = NULL, lease_until = NULL, updated_at = now()
           FROM candidates c
          WHERE t.task_id = c.task_id AND NOT c.obsolete
         RETURNING t.task_id)
       SELECT c.task_id::text, c.tenant_id, c.obsolete FROM candidates c`,
      [...args, budget, lockedIds],
    );
    const revived = r.rows.filter((x) => !x.obsolete);
    const skipped = r.rows.length - revived.length;
    if (revived.length > 0) {
      await tx.query(
        `INSERT INTO task_events (task_id, tenant_id, kind, actor, detail)
         SELECT u.task_id::bigint, u.tenant_id, 'OPERATOR_RETRY', $3, $4 FROM unnest($1::text[], $2::text[]) AS u(task_id, tenant_id)`,
        [revived.map((x) => x.task_id), revived.map((x) => x.tenant_id), actor.subject, { reason, bulk: true }],
      );
      await run(tx, notifyTasks());
    }
    await audit(tx, actor, "task.bulk_retry", { type: "tasks", id: "*", tenant: filter.tenant ?? null }, reason, { filter, retried: revived.length, skipped });
    return { retried: revived.length, skipped };
  });
}

/** DEAD → RESOLVED with a reason. Not a success: the drift it leaves shows as acknowledged. */
export async function forceDone(pool: pg.Pool, taskId: string, actor: Actor, reason: string, tenants: string[] | null) {
  return withTransaction(pool, async (tx) => {
    if (!(await lockTaskDocument(tx, taskId, tenants))) throw new ApiError(404, "NOT_FOUND", `task ${taskId} not found`);
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

/** A complete index version of `version` in `space`, newest first, still within retention. */
async function completeIndexVersion(tx: pg.PoolClient, documentId: string, version: number, space: EmbeddingSpace, retentionHours: number) {
  return (
    await tx.query<{ id: string; status: string }>(
      `SELECT id, status FROM index_versions
        WHERE document_id = $1 AND version_number = $2 AND status IN ('READY', 'RETIRED', 'ACTIVE') AND chunk_count = expected_chunk_count
          AND embedding_model = $4 AND embedding_dimensions = $5
          AND (status = 'ACTIVE' OR coalesce(retired_at, created_at) > now() - make_interval(secs => $3::double precision))
        ORDER BY created_at DESC LIMIT 1`,
      [documentId, version, retentionHours * 3600, space.model, space.dimensions],
    )
  ).rows[0];
}

/**
 * Point search back at an earlier complete index version still within retention, and pin it
 * there until the next publish (or an explicit unpin). Only versions built in the embedding
 * space queries use now (model + dimensions) qualify: any other would be invisible to search or
 * mix spaces, so it answers 409 ROLLBACK_INCOMPATIBLE.
 */
export async function rollback(pool: pg.Pool, tenant: string, key: string, toVersion: number, reason: string, actor: Actor, retentionHours: number, space: EmbeddingSpace) {
  return withTransaction(pool, async (tx) => {
    const d = await lockDocument(tx, tenant, key);
    if (d.deleted_at) throw new ApiError(409, "INVALID_STATE", "document is deleted");
    const cur = (await tx.query<{ index_version_id: string; version_number: number }>(`SELECT index_version_id, version_number FROM search_pointers WHERE document_id = $1 FOR UPDATE`, [d.id])).rows[0];
    const target = await completeIndexVersion(tx, d.id, toVersion, space, retentionHours);
    if (!target) {
      const other = await tx.query<{ embedding_model: string; embedding_dimensions: number }>(
        `SELECT embedding_model, embedding_dimensions FROM index_versions
          WHERE document_id = $1 AND version_number = $2 AND status IN ('READY', 'RETIRED', 'ACTIVE') AND chunk_count = expected_chunk_count
            AND (status = 'ACTIVE' OR coalesce(retired_at, created_at) > now() - make_interval(secs => $3::double precision))
          ORDER BY created_at DESC LIMIT 1`,
        [d.id, toVersion, retentionHours * 3600],
      );
      if (other.rows[0]) {
        const o = other.rows[0];
        throw new ApiError(
          409,
          "ROLLBACK_INCOMPATIBLE",
          `v${toVersion} was indexed with ${o.embedding_model} (${o.embedding_dimensions} dimensions); search now embeds with ${space.model} (${space.dimensions}), so it could not serve it`,
        );
      }
      throw new ApiError(409, "ROLLBACK_UNAVAILABLE", `no complete index version of v${toVersion} is within retention`);
    }
    await movePointer(tx, { id: d.id, tenantId: tenant }, { indexVersionId: target.id, versionNumber: toVersion }, cur?.index_version_id ?? null, { by: actor.subject, reason });
    await audit(tx, actor, "document.rollback", { type: "document", id: `${tenant}/${key}`, tenant }, reason, { from: cur?.version_number ?? null, to: toVersion });
    return { tenant, key, searchVersion: toVersion, pinned: true };
  });
}

/**
 * Release a rollback pin and return search to the business version: the newest complete index
 * version of it in the current embedding space serves at once (one that finished while pinned
 * stayed READY for this). Without one, the document keeps serving what it serves, unpinned, and
 * the task that builds the business version takes over when it switches: an unfinished one is left
 * to run, a DEAD one is left for the operator (the document reads FAILED with its error), and
 * otherwise a REINDEX is enqueued. Repeating an unpin changes nothing and is still audited.
 */
export async function unpin(pool: pg.Pool, tenant: string, key: string, actor: Actor, opts: { space: EmbeddingSpace; retentionHours: number; maxAttempts: number }) {
  return withTransaction(pool, async (tx) => {
    const d = await lockDocument(tx, tenant, key);
    if (d.deleted_at) throw new ApiError(409, "INVALID_STATE", "document is deleted");
    const target = { id: `${tenant}/${key}`, type: "document", tenant };
    // Reads only: the document lock already serialises every writer of these rows.
    const cur = (
      await tx.query<{ index_version_id: string; version_number: number; pinned: boolean }>(`SELECT index_version_id, version_number, pinned FROM search_pointers WHERE document_id = $1`, [d.id])
    ).rows[0];
    if (!cur?.pinned) {
      await audit(tx, actor, "document.unpin", target, null, { wasPinned: false });
      return { tenant, key, pinned: false, searchVersion: cur?.version_number ?? null, taskId: null };
    }
    const best = await completeIndexVersion(tx, d.id, d.business_version, opts.space, opts.retentionHours);
    let taskId: string | null = null;
    if (!best) {
      // Lock order: task rows before the pointer and index versions.
      const tasks = (
        await tx.query<{ task_id: string; status: string }>(
          `SELECT task_id::text, status FROM index_tasks
            WHERE document_id = $1 AND version_number = $2 AND task_type IN ('INDEX', 'REINDEX')
            ORDER BY index_tasks.task_id DESC`,
          [d.id, d.business_version],
        )
      ).rows;
      const waiting = tasks.find((x) => ["PENDING", "RUNNING", "RETRY_WAIT"].includes(x.status));
      if (waiting) taskId = waiting.task_id;
      else if (tasks[0]?.status === "DEAD") taskId = tasks[0].task_id;
      else taskId = await enqueueReindex(tx, tenant, d.id, d.business_version, actor, opts.maxAttempts);
    }
    await tx.query(`UPDATE search_pointers SET pinned = false, pinned_by = NULL, pinned_reason = NULL WHERE document_id = $1`, [d.id]);
    let searchVersion = cur.version_number;
    if (best) {
      if (best.id !== cur.index_version_id) await movePointer(tx, { id: d.id, tenantId: tenant }, { indexVersionId: best.id, versionNumber: d.business_version }, cur.index_version_id);
      searchVersion = d.business_version;
    }
    await audit(tx, actor, "document.unpin", target, null, { wasPinned: true, from: cur.version_number, to: searchVersion, taskId });
    return { tenant, key, pinned: false, searchVersion, taskId };
  });
}

/** Upsert the REINDEX task of `version`: an unfinished one is kept, a finished one starts over with a fresh budget. */
async function enqueueReindex(tx: pg.PoolClient, tenant: string, documentId: string, version: number, actor: Actor, maxAttempts: number): Promise<string> {
  const before = (
    await tx.query<{ status: string }>(`SELECT status FROM index_tasks WHERE tenant_id = $1 AND document_id = $2 AND version_number = $3 AND task_type = 'REINDEX'`, [tenant, documentId, version])
  ).rows[0];
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
    [tenant, documentId, version, maxAttempts],
  );
  const taskId = r.rows[0].task_id;
  // An unfinished REINDEX is kept as it is; only a new or restarted one gets a CREATED event.
  if (!before || !["PENDING", "RUNNING", "RETRY_WAIT"].includes(before.status)) {
    await tx.query(`INSERT INTO task_events (task_id, tenant_id, kind, actor, detail) VALUES ($1, $2, 'CREATED', $3, $4)`, [taskId, tenant, actor.subject, before ? { restartedFrom: before.status } : null]);
    await run(tx, notifyTasks());
  }
  return taskId;
}

/** A REINDEX task for the business version (e.g. after a model change); reuses a finished one. */
export async function reindex(pool: pg.Pool, tenant: string, key: string, actor: Actor, maxAttempts: number) {
  return withTransaction(pool, async (tx) => {
    const d = await lockDocument(tx, tenant, key);
    if (d.deleted_at || d.business_version === 0) throw new ApiError(409, "INVALID_STATE", "nothing to reindex");
    const taskId = await enqueueReindex(tx, tenant, d.id, d.business_version, actor, maxAttempts);
    await audit(tx, actor, "document.reindex", { type: "document", id: `${tenant}/${key}`, tenant }, null, { taskId, versionNumber: d.business_version });
    return { taskId };
  });
}

/** Move a document to a new key in its tenant. Chunks hang off the document id: nothing is re-embedded. */
export async function rename(pool: pg.Pool, tenant: string, key: string, newKey: string, actor: Actor) {
  return withTransaction(pool, async (tx) => {
    const d = (await tx.query<{ id: string }>(`SELECT id FROM documents WHERE tenant_id = $1 AND key = $2 FOR UPDATE`, [tenant, key])).rows[0];
    if (!d) {
      // Repeating a finished rename is harmless, but only that exact rename: the document now at
      // newKey must be the one the audit log says was renamed from key. Anything else is a 404.
      const done = await tx.query(
        `SELECT 1 FROM audit_log a JOIN documents nd ON nd.tenant_id = $1 AND nd.key = $3
          WHERE a.action = 'document.rename' AND a.tenant_id = $1 AND a.target_id = $1 || '/' || $3
            AND a.detail->>'from' = $2 AND a.detail->>'to' = $3 AND a.detail->>'documentId' = nd.id::text
          LIMIT 1`,
        [tenant, key, newKey],
      );
      if (done.rows[0]) return { tenant, key: newKey, renamed: false };
      throw new ApiError(404, "NOT_FOUND", `document ${tenant}/${key} not found`);
    }
    if (key === newKey) return { tenant, key: newKey, renamed: false };
    const taken = await tx.query(`SELECT 1 FROM documents WHERE tenant_id = $1 AND key = $2`, [tenant, newKey]);
    if (taken.rows[0]) throw new ApiError(409, "KEY_TAKEN", `${tenant}/${newKey} already exists`);
    await tx.query(`UPDATE documents SET key = $2, updated_at = now() WHERE id = $1`, [d.id, newKey]);
    await audit(tx, actor, "document.rename", { type: "document", id: `${tenant}/${newKey}`, tenant }, null, { from: key, to: newKey, documentId: d.id });
    return { tenant, key: newKey, renamed: true };
  });
}
