// The task writes made outside the worker's hot path: creation by a publish, delete, reindex or the
// reconciler, the operator actions, the reconciler's repairs. Like lib/queue/sql.ts, one exported
// function per statement returning {text, values}, snapshot-tested, time from the database clock.
// Each statement that moves a status writes its timeline event in the same statement, and moves
// only along rows of TRANSITIONS (lib/queue/transitions.ts; test/queue/transitions.test.ts).
// Prisma repositories run them through the transaction (lib/db/repository.ts execute/queryRows),
// the reconciler through pg (run). Every caller holds the document row lock (lock order).
import type { Statement } from "../db/pool";
import { PRIORITY, type Priority } from "./sql";
import { CANCELLABLE_STATUSES, REVIVABLE_STATUSES, UNFINISHED_STATUSES, sqlList } from "../domain/constants";

const REVIVABLE = sqlList(REVIVABLE_STATUSES);
const UNFINISHED = sqlList(UNFINISHED_STATUSES);
const json = (detail: unknown) => (detail == null ? null : JSON.stringify(detail));

/**
 * A task (alias `t`, its document `d`) is obsolete when the document moved on without it: an
 * INDEX/REINDEX of a version that is no longer the business version (or of a deleted document), a
 * DELETE of a document that was published again, a MIGRATE of a version search no longer serves (or
 * of a tenant whose migration ended). Reviving one would redo work nobody wants (or undo a
 * publish); force-closing an obsolete DELETE must not remove the newer version from search.
 */
export const OBSOLETE = `(CASE WHEN t.task_type = 'DELETE' THEN d.deleted_at IS NULL OR t.version_number < d.business_version
       WHEN t.task_type = 'MIGRATE' THEN d.deleted_at IS NOT NULL
         OR NOT EXISTS (SELECT 1 FROM search_pointers p WHERE p.document_id = t.document_id AND p.version_number = t.version_number)
         OR NOT EXISTS (SELECT 1 FROM space_migrations m WHERE m.tenant_id = t.tenant_id AND m.state IN ('BUILDING', 'READY', 'SWITCHED'))
       ELSE d.deleted_at IS NOT NULL OR t.version_number < d.business_version END)`;

/**
 * A new task of `taskType` for a version, with its CREATED event; none if that version already has
 * one (the business key allows one task per type and version), and then nothing comes back. The
 * configured attempt budget is written, like every other task (the column default is a fallback).
 * `traceparent`: the creating request's span (lib/tracing.ts), which the worker's spans continue.
 */
export function createTask(
  tenantId: string,
  documentId: string,
  versionNumber: number,
  taskType: string,
  maxAttempts: number,
  actor: string,
  detail: unknown,
  traceparent: string | null = null,
  /** Interactive unless the caller's work is bulk (docs/decisions/040-fair-claim.md). */
  priority: Priority = PRIORITY.INTERACTIVE,
): Statement {
  return {
    text: `WITH task AS (
  INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, max_attempts, trace_parent, priority)
  VALUES ($1, $2::uuid, $3::int, $4, $5::int, $8::text, $9::smallint)
  ON CONFLICT (tenant_id, document_id, version_number, task_type) DO NOTHING
  RETURNING task_id, tenant_id
), created AS (
  INSERT INTO task_events (task_id, tenant_id, kind, actor, detail)
  SELECT task_id, tenant_id, 'CREATED', $6, $7::jsonb FROM task
)
SELECT task_id::text FROM task`,
    values: [tenantId, documentId, versionNumber, taskType, maxAttempts, actor, json(detail), traceparent, priority],
  };
}

/**
 * Unfinished tasks of `types` for versions older than `newerVersion` become SUPERSEDED: a publish
 * supersedes INDEX, REINDEX and DELETE (a re-publish wins over a pending delete); a delete
 * supersedes INDEX and REINDEX. A RUNNING one loses its fence here, so its holder stops at its
 * next check. Callers hold the document row lock (lock order), so this never waits on a switch.
 */
export function supersedeOlderTasks(
  documentId: string,
  newerVersion: number,
  actor: string,
  types: readonly string[],
): Statement {
  return {
    text: `WITH superseded AS (
  UPDATE index_tasks
     SET status = 'SUPERSEDED', lease_until = NULL, finished_at = now(), updated_at = now()
   WHERE document_id = $1 AND version_number < $2
     AND status IN ${UNFINISHED}
     AND task_type = ANY($4::text[])
  RETURNING task_id, tenant_id, attempts
)
INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, detail)
SELECT task_id, tenant_id, 'SUPERSEDED', $3, attempts, jsonb_build_object('byVersion', $2::int) FROM superseded
RETURNING task_id::text`,
    values: [documentId, newerVersion, actor, [...types]],
  };
}

/**
 * The operator's (or unpin's) REINDEX of a version: an unfinished one is kept as it is; a finished
 * one starts over with a fresh budget, and only a new or restarted one gets a CREATED event.
 * `before` is the status the caller read under FOR UPDATE (null: no such task), so it is the one
 * the upsert meets: a worker or the claim may end the task without the document lock.
 */
export function reopenReindexTask(
  tenantId: string,
  documentId: string,
  versionNumber: number,
  maxAttempts: number,
  actor: string,
  before: string | null,
  priority: Priority = PRIORITY.INTERACTIVE,
): Statement {
  const kept = `index_tasks.status IN ${UNFINISHED}`;
  return {
    text: `WITH task AS (
  INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, max_attempts, priority)
  VALUES ($1, $2::uuid, $3::int, 'REINDEX', $4::int, $7::smallint)
  ON CONFLICT (tenant_id, document_id, version_number, task_type) DO UPDATE
    SET status = CASE WHEN ${kept} THEN index_tasks.status ELSE 'PENDING' END,
        priority = CASE WHEN ${kept} THEN index_tasks.priority ELSE EXCLUDED.priority END,
        fair_at = CASE WHEN ${kept} THEN index_tasks.fair_at ELSE EXCLUDED.fair_at END,
        next_attempt_at = CASE WHEN ${kept} THEN index_tasks.next_attempt_at ELSE now() END,
        max_attempts = CASE WHEN ${kept} THEN index_tasks.max_attempts ELSE index_tasks.attempts + $4::int END,
        finished_at = CASE WHEN ${kept} THEN index_tasks.finished_at END,
        error_code = CASE WHEN ${kept} THEN index_tasks.error_code END,
        error_message = CASE WHEN ${kept} THEN index_tasks.error_message END,
        updated_at = now()
  RETURNING task_id, tenant_id
), created AS (
  INSERT INTO task_events (task_id, tenant_id, kind, actor, detail)
  SELECT task_id, tenant_id, 'CREATED', $5, CASE WHEN $6::text IS NULL THEN NULL ELSE jsonb_build_object('restartedFrom', $6::text) END
    FROM task
   WHERE $6::text IS NULL OR $6::text NOT IN ${UNFINISHED}
)
SELECT task_id::text FROM task`,
    values: [tenantId, documentId, versionNumber, maxAttempts, actor, before, priority],
  };
}

/**
 * The reconciler's REINDEX of a version whose INDEX exists: a new one, or a SUCCEEDED/SUPERSEDED
 * one started over (errors cleared, fresh budget), with its CREATED event. Any other existing
 * REINDEX is left alone and nothing comes back.
 */
export function restartReindexTask(
  tenantId: string,
  documentId: string,
  versionNumber: number,
  maxAttempts: number,
  actor: string,
  detail: unknown,
): Statement {
  return {
    text: `WITH task AS (
  INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, max_attempts, priority)
  VALUES ($1, $2, $3, 'REINDEX', $4, ${PRIORITY.BULK})
  ON CONFLICT (tenant_id, document_id, version_number, task_type) DO UPDATE
    SET status = 'PENDING', priority = ${PRIORITY.BULK}, fair_at = EXCLUDED.fair_at, next_attempt_at = now(), max_attempts = index_tasks.attempts + $4, finished_at = NULL,
        lease_until = NULL, error_code = NULL, error_message = NULL, updated_at = now()
    WHERE index_tasks.status IN ('SUCCEEDED', 'SUPERSEDED')
  RETURNING task_id, tenant_id
), created AS (
  INSERT INTO task_events (task_id, tenant_id, kind, actor, detail)
  SELECT task_id, tenant_id, 'CREATED', $5, $6::jsonb FROM task
)
SELECT task_id::text FROM task`,
    values: [tenantId, documentId, versionNumber, maxAttempts, actor, json(detail)],
  };
}

/**
 * Operator retry: DEAD or CANCELLED → PENDING, due now. The budget grows (max = attempts + N)
 * instead of resetting attempts, so the lease attempt stays monotonic and old zombies stay fenced.
 * A DEAD task keeps its last error for context; a cancel was no error of the work, and left
 * standing it would read as the document's last error while it indexes again.
 */
export function retryTask(taskId: string, budget: number, actor: string, detail: unknown): Statement {
  return {
    text: `WITH retried AS (
  UPDATE index_tasks
     SET status = 'PENDING', next_attempt_at = now(), fair_at = indexwright_fair_at(tenant_id, priority),
         max_attempts = attempts + $2::int, finished_at = NULL, lease_until = NULL, updated_at = now(),
         error_code = CASE WHEN status = 'CANCELLED' THEN NULL ELSE error_code END,
         error_message = CASE WHEN status = 'CANCELLED' THEN NULL ELSE error_message END
   WHERE task_id = $1::bigint AND status IN ${REVIVABLE}
  RETURNING task_id, tenant_id
)
INSERT INTO task_events (task_id, tenant_id, kind, actor, detail)
SELECT task_id, tenant_id, 'OPERATOR_RETRY', $3, $4::jsonb FROM retried
RETURNING task_id::text`,
    values: [taskId, budget, actor, json(detail)],
  };
}

export type DeadFilter = {
  errorCode: string | null;
  tenant: string | null;
  type: string | null;
  tenants: string[] | null;
};

// The DEAD tasks a bulk retry matches ($1 error code, $2 tenant, $3 the caller's tenants, $4 type; null = any).
const DEAD_MATCH = `t.status = 'DEAD' AND ($1::text IS NULL OR t.error_code = $1) AND ($2::text IS NULL OR t.tenant_id = $2)
     AND ($3::text[] IS NULL OR t.tenant_id = ANY($3::text[])) AND ($4::text IS NULL OR t.task_type = $4)`;
const deadValues = (f: DeadFilter) => [f.errorCode, f.tenant, f.tenants, f.type];

/** Lock order for a bulk retry: every document with a matching DEAD task, in id order, before any task row. */
export function lockDeadTaskDocuments(filter: DeadFilter): Statement {
  return {
    text: `SELECT id::text FROM documents WHERE id IN (SELECT t.document_id FROM index_tasks t WHERE ${DEAD_MATCH}) ORDER BY id FOR NO KEY UPDATE`,
    values: deadValues(filter),
  };
}

/**
 * Bulk retry: every matching DEAD task of the locked documents that is not obsolete goes back to
 * PENDING with its OPERATOR_RETRY event; every candidate comes back, obsolete ones to be counted as
 * skipped. Only documents locked first: a task that turned DEAD after that lock's snapshot belongs
 * to a document nobody locked, and a publish could move it on meanwhile.
 */
export function retryDeadTasks(
  filter: DeadFilter,
  lockedDocumentIds: string[],
  budget: number,
  actor: string,
  detail: unknown,
): Statement {
  return {
    text: `WITH candidates AS (
  SELECT t.task_id, t.tenant_id, ${OBSOLETE} AS obsolete
    FROM index_tasks t JOIN documents d ON d.id = t.document_id
   WHERE ${DEAD_MATCH} AND t.document_id = ANY($5::uuid[])
   ORDER BY t.task_id
     FOR UPDATE OF t
), revived AS (
  UPDATE index_tasks t SET status = 'PENDING', next_attempt_at = now(), fair_at = indexwright_fair_at(t.tenant_id, t.priority),
         max_attempts = t.attempts + $6::int, finished_at = NULL, lease_until = NULL, updated_at = now()
    FROM candidates c
   WHERE t.task_id = c.task_id AND NOT c.obsolete
  RETURNING t.task_id, t.tenant_id
), events AS (
  INSERT INTO task_events (task_id, tenant_id, kind, actor, detail)
  SELECT task_id, tenant_id, 'OPERATOR_RETRY', $7, $8::jsonb FROM revived
)
SELECT c.task_id::text, c.tenant_id, c.obsolete FROM candidates c`,
    values: [...deadValues(filter), lockedDocumentIds, budget, actor, json(detail)],
  };
}

/**
 * Force-done: DEAD or CANCELLED → RESOLVED with the operator's reason. `removes` says the task is
 * a DELETE the document still stands deleted for, whose work the caller then does itself.
 */
export function forceDoneTask(taskId: string, tenants: string[] | null, actor: string, reason: string): Statement {
  return {
    text: `WITH done AS (
  UPDATE index_tasks t SET status = 'RESOLVED', finished_at = now(), updated_at = now()
    FROM documents d
   WHERE t.task_id = $1::bigint AND d.id = t.document_id AND t.status IN ${REVIVABLE} AND ($2::text[] IS NULL OR t.tenant_id = ANY($2::text[]))
  RETURNING t.task_id, t.tenant_id, (t.task_type = 'DELETE' AND NOT ${OBSOLETE}) AS removes
), events AS (
  INSERT INTO task_events (task_id, tenant_id, kind, actor, detail)
  SELECT task_id, tenant_id, 'OPERATOR_FORCE_DONE', $3,
         CASE WHEN removes THEN jsonb_build_object('reason', $4::text, 'removedFromSearch', true) ELSE jsonb_build_object('reason', $4::text) END
    FROM done
)
SELECT tenant_id, removes FROM done`,
    values: [taskId, tenants, actor, reason],
  };
}

/** Operator cancel: PENDING or RETRY_WAIT → CANCELLED, the operator's words as its error message. */
export function cancelTask(taskId: string, message: string, actor: string, detail: unknown): Statement {
  return {
    text: `WITH cancelled AS (
  UPDATE index_tasks
     SET status = 'CANCELLED', error_code = 'OPERATOR_CANCELLED', error_message = $2,
         lease_until = NULL, finished_at = now(), updated_at = now()
   WHERE task_id = $1::bigint AND status IN ${sqlList(CANCELLABLE_STATUSES)}
  RETURNING task_id, tenant_id
)
INSERT INTO task_events (task_id, tenant_id, kind, actor, detail)
SELECT task_id, tenant_id, 'OPERATOR_CANCEL', $3, $4::jsonb FROM cancelled
RETURNING task_id::text`,
    values: [taskId, message, actor, json(detail)],
  };
}

/**
 * The reconciler's repair of an expired lease on its last attempt, exactly as the claim would do it
 * (no claim may ever come for it): DEAD with LEASE_ATTEMPTS_EXHAUSTED, if still the same attempt
 * and expired past the grace; a row some claim holds is skipped.
 */
export function expireExhaustedLease(
  taskId: string,
  leaseAttempt: number,
  graceSeconds: number,
  actor: string,
): Statement {
  return {
    text: `WITH dead AS (
  UPDATE index_tasks t
     SET status = 'DEAD', error_code = 'LEASE_ATTEMPTS_EXHAUSTED', error_message = 'lease expired on the last allowed attempt',
         lease_until = NULL, finished_at = now(), updated_at = now()
   WHERE t.task_id = (SELECT task_id FROM index_tasks
                       WHERE task_id = $1 AND status = 'RUNNING' AND attempts = $2 AND attempts >= max_attempts
                         AND lease_until <= now() - make_interval(secs => $3::double precision)
                         FOR UPDATE SKIP LOCKED)
  RETURNING t.task_id, t.tenant_id, t.attempts, t.lease_owner)
INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, error_code, detail)
SELECT task_id, tenant_id, 'LEASE_EXPIRED_DEAD', $4, attempts, 'LEASE_ATTEMPTS_EXHAUSTED', jsonb_build_object('previousOwner', lease_owner)
  FROM dead
RETURNING task_id::text`,
    values: [taskId, leaseAttempt, graceSeconds, actor],
  };
}

/**
 * A migration's work for a whole tenant (docs/decisions/039-index-spaces.md): one MIGRATE task per
 * live document that search serves, for the version (and pin) it serves, unless the shadow space
 * serves it already; a finished one for that version is started over (attempts kept, fresh budget),
 * an unfinished one left as it is. The set form of the trigger function indexwright_queue_migrate,
 * which queues the same task for a single pointer move. The caller holds the tenant's space lock
 * exclusive, so no pointer moves while this reads them. Returns how many tasks were queued.
 */
export function queueMigrationTasks(
  tenantId: string,
  spaceId: number,
  migrationId: string,
  maxAttempts: number,
  actor: string,
): Statement {
  return {
    text: `WITH wanted AS (
  SELECT sp.tenant_id, sp.document_id, sp.version_number
    FROM search_pointers sp
    JOIN documents d ON d.id = sp.document_id AND d.deleted_at IS NULL
   WHERE sp.tenant_id = $1
     AND NOT EXISTS (SELECT 1 FROM space_pointers s
                      WHERE s.space_id = $2 AND s.document_id = sp.document_id AND s.version_number = sp.version_number)
), task AS (
  INSERT INTO index_tasks (tenant_id, document_id, version_number, task_type, max_attempts, space_id, priority)
  SELECT tenant_id, document_id, version_number, 'MIGRATE', $4::int, $2, ${PRIORITY.MIGRATION} FROM wanted
  ON CONFLICT (tenant_id, document_id, version_number, task_type) DO UPDATE
    SET status = 'PENDING', next_attempt_at = now(), fair_at = EXCLUDED.fair_at, max_attempts = index_tasks.attempts + $4::int, space_id = EXCLUDED.space_id,
        lease_owner = NULL, lease_until = NULL, error_code = NULL, error_message = NULL, progress_done = 0, progress_total = 0,
        chunks_total = NULL, chunks_reused = NULL, batches_sent = NULL, started_at = NULL, finished_at = NULL,
        created_at = now(), updated_at = now()
    WHERE index_tasks.status NOT IN ${UNFINISHED}
  RETURNING task_id, tenant_id
), created AS (
  INSERT INTO task_events (task_id, tenant_id, kind, actor, detail)
  SELECT task_id, tenant_id, 'CREATED', $5, jsonb_build_object('migration', $3::bigint, 'spaceId', $2::int) FROM task
)
SELECT count(*)::int AS queued FROM task`,
    values: [tenantId, spaceId, migrationId, maxAttempts, actor],
  };
}

/**
 * The tenant's queued MIGRATE work becomes SUPERSEDED when its migration ends (abort, switch-back,
 * finish): the shadow it was for is gone. A RUNNING one is left to its holder, whose switch finds no
 * migration open and ends it SUPERSEDED itself.
 */
export function supersedeMigrationTasks(tenantId: string, actor: string, reason: string): Statement {
  return {
    text: `WITH superseded AS (
  UPDATE index_tasks
     SET status = 'SUPERSEDED', lease_until = NULL, finished_at = now(), updated_at = now()
   WHERE tenant_id = $1 AND task_type = 'MIGRATE' AND status IN ('PENDING', 'RETRY_WAIT')
  RETURNING task_id, tenant_id, attempts
)
INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, detail)
SELECT task_id, tenant_id, 'SUPERSEDED', $2, attempts, jsonb_build_object('reason', $3::text) FROM superseded
RETURNING task_id::text`,
    values: [tenantId, actor, reason],
  };
}
