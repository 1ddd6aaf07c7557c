// Hot-path SQL of the task engine: one exported function per statement, each returning
// {text, values}. test/queue/sql.snapshot.test.ts renders them all, so every change here shows
// up as a reviewed snapshot diff. All time comes from the database clock (now()).
import type { Statement } from "../db/pool";

// The fence of design §3: a statement guarded by it only touches the row while the caller
// still holds that exact lease. Zero rows back = lease lost.
const FENCE = `status = 'RUNNING' AND lease_owner = $2 AND attempts = $3 AND lease_until > now()`;

export type ClaimedRow = {
  task_id: string;
  tenant_id: string;
  document_id: string;
  version_number: number;
  task_type: string;
  attempts: number;
  max_attempts: number;
  lease_until: Date;
  previous_status: string;
};

/**
 * Claim up to `limit` due tasks for `workerId`. In one statement: expired leases with no attempts
 * left become DEAD (LEASE_ATTEMPTS_EXHAUSTED); due PENDING/RETRY_WAIT tasks and RUNNING tasks
 * whose lease expired are locked with SKIP LOCKED, moved to RUNNING with attempts + 1 (the new
 * lease attempt = fencing token), and a timeline event is written for each. Rows come back in
 * numeric id order: the names are qualified because ORDER BY task_id would sort the ::text output.
 *
 * Its commit does not wait for the WAL flush (synchronous_commit off for this transaction only;
 * design: "Asynchronous claim, durable completion"). A claim lost in a crash leaves the task as
 * it was, due again, and every later write of that lease is fenced out; any durable commit after
 * it (a completion, a failure) flushes it too. Run it on its own, never inside a transaction
 * whose other writes must be durable at COMMIT.
 */
export function claimTasks(workerId: string, leaseSeconds: number, limit: number): Statement {
  // The batch size is part of the text, not a parameter: with a literal LIMIT a prepared claim can
  // keep one generic plan (a parameter there makes the planner re-plan every call, to size it).
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new RangeError(`claim limit must be an integer from 1 to 10000, got ${limit}`);
  const n = String(limit);
  return {
    text: `WITH exhausted AS (
  UPDATE index_tasks t
     SET status = 'DEAD', error_code = 'LEASE_ATTEMPTS_EXHAUSTED',
         error_message = 'lease expired on the last allowed attempt',
         lease_until = NULL, finished_at = now(), updated_at = now()
   WHERE t.task_id IN (
     SELECT task_id FROM index_tasks
      WHERE status = 'RUNNING' AND lease_until <= now() AND attempts >= max_attempts
      ORDER BY lease_until
      LIMIT 100
      FOR UPDATE SKIP LOCKED)
  RETURNING t.task_id, t.tenant_id, t.attempts, t.lease_owner
), exhausted_events AS (
  INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, error_code, detail)
  SELECT task_id, tenant_id, 'LEASE_EXPIRED_DEAD', $1, attempts, 'LEASE_ATTEMPTS_EXHAUSTED',
         jsonb_build_object('previousOwner', lease_owner)
    FROM exhausted
), due AS (
  SELECT task_id, status, lease_owner, next_attempt_at, created_at
    FROM index_tasks
   WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now()
     -- Never claim past the budget: one such row (left by an older release) would otherwise fail
     -- every claim on the attempts <= max_attempts constraint and stall the whole queue.
     AND attempts < max_attempts
   ORDER BY next_attempt_at, created_at, task_id
   LIMIT ${n}
   FOR UPDATE SKIP LOCKED
), expired AS (
  SELECT task_id, status, lease_owner, next_attempt_at, created_at
    FROM index_tasks
   WHERE status = 'RUNNING' AND lease_until <= now() AND attempts < max_attempts
   ORDER BY lease_until
   LIMIT ${n}
   FOR UPDATE SKIP LOCKED
), picked AS (
  SELECT * FROM (SELECT * FROM due UNION ALL SELECT * FROM expired) c
   ORDER BY next_attempt_at, created_at, task_id
   LIMIT ${n}
), claimed AS (
  UPDATE index_tasks t
     SET status = 'RUNNING', attempts = t.attempts + 1, lease_owner = $1,
         lease_until = now() + make_interval(secs => $2::double precision),
         started_at = coalesce(t.started_at, now()), updated_at = now()
    FROM picked p
   WHERE t.task_id = p.task_id
  RETURNING t.task_id, t.tenant_id, t.document_id, t.version_number, t.task_type, t.attempts,
            t.max_attempts, t.lease_until, p.status AS previous_status, p.lease_owner AS previous_owner
), claim_events AS (
  INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, detail)
  SELECT task_id, tenant_id,
         CASE WHEN previous_status = 'RUNNING' THEN 'LEASE_TAKEN_OVER' ELSE 'CLAIMED' END,
         $1, attempts,
         CASE WHEN previous_status = 'RUNNING' THEN jsonb_build_object('previousOwner', previous_owner) END
    FROM claimed
), async_commit AS (
  SELECT set_config('synchronous_commit', 'off', true)
)
SELECT c.task_id::text, c.tenant_id, c.document_id::text, c.version_number, c.task_type, c.attempts,
       c.max_attempts, c.lease_until, c.previous_status
  FROM claimed c CROSS JOIN async_commit
 ORDER BY c.task_id`,
    values: [workerId, leaseSeconds],
  };
}

/** Extend a held lease and report progress. Zero rows = lease lost. */
export function renewLease(taskId: string, workerId: string, leaseAttempt: number, leaseSeconds: number, progressDone: number, progressTotal: number): Statement {
  return {
    text: `UPDATE index_tasks
   SET lease_until = now() + make_interval(secs => $4::double precision),
       progress_done = $5, progress_total = $6, updated_at = now()
 WHERE task_id = $1 AND ${FENCE}
RETURNING lease_until`,
    values: [taskId, workerId, leaseAttempt, leaseSeconds, progressDone, progressTotal],
  };
}

/**
 * First statement of every transaction that touches a document and its tasks (design: lock
 * order). The document row is the mutex: publish, delete, rollback, unpin, reindex and the
 * worker's switch all take it before any task, pointer or index-version row, so two of them can
 * only queue behind each other, never deadlock.
 */
export function lockDocument(documentId: string): Statement {
  return {
    text: `SELECT id::text, business_version, deleted_at
  FROM documents
 WHERE id = $1
   FOR UPDATE`,
    values: [documentId],
  };
}

/** Lock the task row for the index-switch transaction, proving the lease is still held. */
export function lockHeldTask(taskId: string, workerId: string, leaseAttempt: number): Statement {
  return {
    text: `SELECT task_id::text, document_id::text, version_number, task_type
  FROM index_tasks
 WHERE task_id = $1 AND ${FENCE}
   FOR UPDATE`,
    values: [taskId, workerId, leaseAttempt],
  };
}

/**
 * Is the lease still held? Read before each embedding batch, so a task that was superseded or
 * taken over stops calling the provider at once instead of at its next heartbeat.
 */
export function leaseHeld(taskId: string, workerId: string, leaseAttempt: number): Statement {
  return {
    text: `SELECT 1 AS held FROM index_tasks WHERE task_id = $1 AND ${FENCE}`,
    values: [taskId, workerId, leaseAttempt],
  };
}

/**
 * A held task found, inside its switch transaction, that the document moved on (re-published
 * after a DELETE, deleted under an INDEX): it ends SUPERSEDED having changed nothing, and the
 * timeline says why. This is the recorded no-op of a late task.
 */
export function supersedeHeldTask(taskId: string, workerId: string, leaseAttempt: number, reason: string, businessVersion: number): Statement {
  return {
    text: `WITH superseded AS (
  UPDATE index_tasks
     SET status = 'SUPERSEDED', lease_until = NULL, finished_at = now(), updated_at = now()
   WHERE task_id = $1 AND ${FENCE}
  RETURNING task_id, tenant_id, attempts
)
INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, detail)
SELECT task_id, tenant_id, 'SUPERSEDED', $2, attempts, jsonb_build_object('reason', $4::text, 'businessVersion', $5::int) FROM superseded
RETURNING task_id::text`,
    values: [taskId, workerId, leaseAttempt, reason, businessVersion],
  };
}

export type CompleteStats = { chunksTotal: number; chunksReused: number; batchesSent: number };

/** Mark a held task SUCCEEDED and append its event, fenced. */
export function completeTask(taskId: string, workerId: string, leaseAttempt: number, stats: CompleteStats | null): Statement {
  return {
    text: `WITH done AS (
  UPDATE index_tasks
     SET status = 'SUCCEEDED', lease_until = NULL, finished_at = now(), updated_at = now(),
         error_code = NULL, error_message = NULL, progress_done = progress_total,
         chunks_total = $4, chunks_reused = $5, batches_sent = $6
   WHERE task_id = $1 AND ${FENCE}
  RETURNING task_id, tenant_id, attempts
)
INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, detail)
SELECT task_id, tenant_id, 'SUCCEEDED', $2, attempts,
       CASE WHEN $4::int IS NULL THEN NULL
            ELSE jsonb_build_object('chunksTotal', $4::int, 'chunksReused', $5::int, 'batchesSent', $6::int) END
  FROM done
RETURNING task_id::text`,
    values: [taskId, workerId, leaseAttempt, stats?.chunksTotal ?? null, stats?.chunksReused ?? null, stats?.batchesSent ?? null],
  };
}

/**
 * Record a failure of a held task. `nextStatus` is decided by the retry policy (RETRY_WAIT with a
 * delay, or DEAD); the statement only applies it under the fence and logs FAILED plus the outcome.
 */
export function failTask(
  taskId: string,
  workerId: string,
  leaseAttempt: number,
  nextStatus: "RETRY_WAIT" | "DEAD",
  delaySeconds: number,
  errorCode: string,
  errorMessage: string,
): Statement {
  return {
    text: `WITH failed AS (
  UPDATE index_tasks
     SET status = $4, lease_until = NULL, updated_at = now(),
         next_attempt_at = CASE WHEN $4 = 'RETRY_WAIT' THEN now() + make_interval(secs => $5::double precision) ELSE next_attempt_at END,
         finished_at = CASE WHEN $4 = 'DEAD' THEN now() ELSE NULL END,
         error_code = $6, error_message = $7
   WHERE task_id = $1 AND ${FENCE}
  RETURNING task_id, tenant_id, attempts, status, next_attempt_at
), events AS (
  INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, error_code, detail)
  SELECT task_id, tenant_id, 'FAILED', $2, attempts, $6, jsonb_build_object('message', $7::text) FROM failed
  UNION ALL
  SELECT task_id, tenant_id, CASE WHEN status = 'DEAD' THEN 'DEAD' ELSE 'RETRY_SCHEDULED' END, $2, attempts, $6,
         CASE WHEN status = 'RETRY_WAIT' THEN jsonb_build_object('nextAttemptAt', next_attempt_at) END
    FROM failed
)
SELECT task_id::text, status, next_attempt_at FROM failed`,
    values: [taskId, workerId, leaseAttempt, nextStatus, delaySeconds, errorCode, errorMessage],
  };
}

/**
 * Give a held task back (shutdown grace expired): due again at once, lease cleared. The attempt
 * is refunded by raising max_attempts, not by lowering attempts: the lease attempt is the fencing
 * token and must only grow, and attempts <= max_attempts must keep holding for the next claim.
 */
export function releaseTask(taskId: string, workerId: string, leaseAttempt: number): Statement {
  return {
    text: `WITH released AS (
  UPDATE index_tasks
     SET status = 'RETRY_WAIT', lease_until = NULL, next_attempt_at = now(), updated_at = now(),
         max_attempts = max_attempts + 1
   WHERE task_id = $1 AND ${FENCE}
  RETURNING task_id, tenant_id, attempts
)
INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt)
SELECT task_id, tenant_id, 'RELEASED', $2, attempts FROM released
RETURNING task_id::text`,
    values: [taskId, workerId, leaseAttempt],
  };
}

/**
 * Unfinished tasks of `types` for versions older than `newerVersion` become SUPERSEDED: a publish
 * supersedes INDEX, REINDEX and DELETE (a re-publish wins over a pending delete); a delete
 * supersedes INDEX and REINDEX. A RUNNING one loses its fence here, so its holder stops at its
 * next check. Callers hold the document row lock (lock order), so this never waits on a switch.
 */
export function supersedeOlderTasks(documentId: string, newerVersion: number, actor: string, types: readonly string[]): Statement {
  return {
    text: `WITH superseded AS (
  UPDATE index_tasks
     SET status = 'SUPERSEDED', lease_until = NULL, finished_at = now(), updated_at = now()
   WHERE document_id = $1 AND version_number < $2
     AND status IN ('PENDING', 'RETRY_WAIT', 'RUNNING')
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
 * Point a document's search at an index version. Every writer of the pointer goes through this
 * one statement (the switch, rollback, unpin, the reconciler); `pinned` is set by rollback only.
 * Callers hold the document row lock (lock order), which is what makes the move atomic for readers.
 */
export function pointSearchAt(documentId: string, tenantId: string, indexVersionId: string, versionNumber: number, pin: { by: string; reason: string } | null): Statement {
  return {
    text: `INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number, pinned, pinned_by, pinned_reason, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, now())
ON CONFLICT (document_id) DO UPDATE
   SET index_version_id = EXCLUDED.index_version_id, version_number = EXCLUDED.version_number,
       pinned = EXCLUDED.pinned, pinned_by = EXCLUDED.pinned_by, pinned_reason = EXCLUDED.pinned_reason, updated_at = now()`,
    values: [documentId, tenantId, indexVersionId, versionNumber, pin !== null, pin?.by ?? null, pin?.reason ?? null],
  };
}

/** The version search now reads becomes ACTIVE (a rolled-back-to version loses its retirement). */
export function activateIndexVersion(indexVersionId: string): Statement {
  return {
    text: `UPDATE index_versions SET status = 'ACTIVE', activated_at = now(), retired_at = NULL WHERE id = $1`,
    values: [indexVersionId],
  };
}

/** The version search stopped reading is kept for rollback until retention ends. */
export function retireIndexVersion(indexVersionId: string): Statement {
  return {
    text: `UPDATE index_versions SET status = 'RETIRED', retired_at = now() WHERE id = $1 AND status = 'ACTIVE'`,
    values: [indexVersionId],
  };
}

/** Take a document out of search (DELETE, or a publish that supersedes a pending one). */
export function dropSearchPointer(documentId: string): Statement {
  return { text: `DELETE FROM search_pointers WHERE document_id = $1`, values: [documentId] };
}

/** Every index version of a removed document is retired (kept for the retention window). */
export function retireDocumentIndexVersions(documentId: string): Statement {
  return {
    text: `UPDATE index_versions SET status = 'RETIRED', retired_at = now() WHERE document_id = $1 AND status IN ('ACTIVE', 'READY', 'BUILDING')`,
    values: [documentId],
  };
}

/** Wake idle workers at once; polling remains the fallback where NOTIFY does not arrive. */
export function notifyTasks(): Statement {
  return { text: `SELECT pg_notify('indexwright_tasks', '')`, values: [] };
}

export const NOTIFY_CHANNEL = "indexwright_tasks";
