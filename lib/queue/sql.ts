// Hot-path SQL of the task engine: one exported function per statement, each returning
// {text, values}. test/queue/sql.snapshot.test.ts renders them all, so every change here shows
// up as a reviewed snapshot diff. All time comes from the database clock (now()).
import type { Statement } from "../db/pool";

// The fence (docs/architecture.md, "Leases and fencing"): a statement guarded by it only touches
// the row while the caller still holds that exact lease. Zero rows back = lease lost.
const FENCE = `status = 'RUNNING' AND lease_owner = $2 AND attempts = $3 AND lease_until > now()`;

/**
 * Paused work (task_pauses: a tenant or a task type) is never claimed, whether due or held by an
 * expired lease. Every sub-select here is uncorrelated, so each is an InitPlan run once per
 * statement: with no pause (the usual case) the EXISTS gate makes the rest unevaluated and the
 * filter costs one probe of an empty table; with pauses the per-row test is an array compare on
 * the index-ordered LIMIT scan. A correlated NOT EXISTS instead would be planned as an anti-join
 * that reads every due row before the LIMIT (1.2 s at 100,000 due tasks), and an ungated array
 * test as a sequential scan and sort (0.2 s): bench/claim-pause.ts. A paused tenant's rows are
 * read and skipped, so a paused backlog ahead of runnable work costs a longer scan, never a
 * wrong pick.
 */
const NOT_PAUSED = `(NOT EXISTS (SELECT 1 FROM task_pauses)
          OR NOT (tenant_id = ANY (ARRAY(SELECT tenant_id FROM task_pauses WHERE tenant_id IS NOT NULL))
                  OR task_type = ANY (ARRAY(SELECT task_type FROM task_pauses WHERE task_type IS NOT NULL))))`;

/** Priority classes (docs/decisions/040-fair-claim.md); MIGRATE tasks are class 2 and nothing else is. */
export const PRIORITY = { INTERACTIVE: 0, BULK: 1, MIGRATION: 2 } as const;
export type Priority = (typeof PRIORITY)[keyof typeof PRIORITY];

/**
 * Due tasks of the priority classes `classes` (contiguous, ascending), in claim order, locked with
 * SKIP LOCKED: the two scans every claim shares. PENDING work in (priority, fair_at) order, one
 * range of index_tasks_fair_idx across the classes, where a trigger placed each task when it
 * joined the queue, after its tenant's other queued work (so tenants take turns: self-clocked fair
 * queuing) and the range gives interactive before bulk with no sort; RETRY_WAIT work by the time
 * it comes due from index_tasks_retry_idx, so a retry that is not due yet is never read. Each
 * scan has its own LIMIT; the caller merges them by (priority, fair_at). One scan per class would
 * lock rows of the later class that the batch cannot take (a fifth more database CPU per task in
 * bench:queue). Migration work (class 2) is claimed only by claimMigrationTasks, into slots the
 * rest leaves free, so a migration's backlog is never ahead of a publish.
 */
function dueScans(n: string, classes: readonly Priority[]): string[] {
  const lo = Math.min(...classes);
  const hi = Math.max(...classes);
  if (hi - lo + 1 !== classes.length)
    throw new RangeError(`claim classes must be contiguous, got ${classes.join(",")}`);
  const inClasses = lo === hi ? `priority = ${lo}` : `priority BETWEEN ${lo} AND ${hi}`;
  const scan = (where: string, order: string) => `SELECT task_id, status, lease_owner, priority, fair_at
    FROM index_tasks
   WHERE ${where}
     -- Never claim past the budget: one such row (left by an older release) would otherwise fail
     -- every claim on the attempts <= max_attempts constraint and stall the whole queue.
     AND attempts < max_attempts
     AND ${NOT_PAUSED}
   ORDER BY ${order}
   LIMIT ${n}
   FOR UPDATE SKIP LOCKED`;
  return [
    scan(`status = 'PENDING' AND ${inClasses} AND next_attempt_at <= now()`, "priority, fair_at, task_id"),
    scan(`status = 'RETRY_WAIT' AND next_attempt_at <= now() AND ${inClasses}`, "next_attempt_at, task_id"),
  ];
}

/**
 * The due scans of `classes` as CTEs (a locking scan cannot be a UNION's arm), then `due`: them
 * merged into claim order and cut to `n`. Opens the statement's WITH list; the caller goes on
 * with its next CTE.
 */
function dueTasks(n: string, classes: readonly Priority[]): string {
  const scans = dueScans(n, classes);
  return `${scans.map((sc, k) => `due_${k} AS (\n  ${sc}\n), `).join("")}due AS (
  SELECT * FROM (${scans.map((_, k) => `SELECT * FROM due_${k}`).join(" UNION ALL ")}) d
   ORDER BY priority, fair_at, task_id
   LIMIT ${n}
`;
}

/** The claim's update, its timeline events and its answer, over the picked rows `source`. */
function claimAndReturn(source: string): string {
  return `), claimed AS (
  UPDATE index_tasks t
     SET status = 'RUNNING', attempts = t.attempts + 1, lease_owner = $1,
         lease_until = now() + make_interval(secs => $2::double precision),
         started_at = coalesce(t.started_at, now()), updated_at = now()
    FROM ${source} p
   WHERE t.task_id = p.task_id
  RETURNING t.task_id, t.tenant_id, t.document_id, t.version_number, t.task_type, t.attempts,
            t.max_attempts, t.lease_until, t.trace_parent, p.status AS previous_status,
            p.lease_owner AS previous_owner
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
       c.max_attempts, c.lease_until, c.previous_status, c.trace_parent
  FROM claimed c CROSS JOIN async_commit
 ORDER BY c.task_id`;
}

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
  /** The creating publish's span (W3C traceparent); null when it was not traced. */
  trace_parent: string | null;
};

/**
 * Claim up to `limit` due tasks for `workerId`. In one statement: expired leases with no attempts
 * left become DEAD (LEASE_ATTEMPTS_EXHAUSTED); due PENDING/RETRY_WAIT tasks and RUNNING tasks
 * whose lease expired are locked with SKIP LOCKED, moved to RUNNING with attempts + 1 (the new
 * lease attempt = fencing token), and a timeline event is written for each. Rows come back in
 * numeric id order: the names are qualified because ORDER BY task_id would sort the ::text output.
 * Tasks of a paused tenant or task type are left where they are (NOT_PAUSED); an expired lease on
 * its last attempt still becomes DEAD, since that records a worker's loss, not new work.
 *
 * Its commit does not wait for the WAL flush (synchronous_commit off for this transaction only;
 * docs/decisions/003-asynchronous-claim.md). A claim lost in a crash leaves the task as
 * it was, due again, and every later write of that lease is fenced out; any durable commit after
 * it (a completion, a failure) flushes it too. Run it on its own, never inside a transaction
 * whose other writes must be durable at COMMIT.
 */
export function claimTasks(
  workerId: string,
  leaseSeconds: number,
  limit: number,
  opts: {
    takeOver?: boolean;
    /**
     * The classes whose due work it takes, interactive before bulk; `[PRIORITY.BULK]` is the
     * worker's aging claim (worker/loop.ts), so bulk work never starves behind interactive work.
     */
    classes?: readonly Priority[];
  } = {},
): Statement {
  // The batch size is part of the text, not a parameter: with a literal LIMIT a prepared claim can
  // keep one generic plan (a parameter there makes the planner re-plan every call, to size it).
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new RangeError(`claim limit must be an integer from 1 to 10000, got ${limit}`);
  const classes = opts.classes ?? [PRIORITY.INTERACTIVE, PRIORITY.BULK];
  return opts.takeOver === false
    ? claimDueTasks(workerId, leaseSeconds, limit, classes)
    : claimDueOrExpiredTasks(workerId, leaseSeconds, limit, classes);
}

function claimDueOrExpiredTasks(
  workerId: string,
  leaseSeconds: number,
  limit: number,
  classes: readonly Priority[],
): Statement {
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
), ${dueTasks(n, classes)}), expired AS (
  SELECT task_id, status, lease_owner, priority, fair_at
    FROM index_tasks
   WHERE status = 'RUNNING' AND lease_until <= now() AND attempts < max_attempts
     AND ${NOT_PAUSED}
   ORDER BY lease_until
   LIMIT ${n}
   FOR UPDATE SKIP LOCKED
), picked AS (
  SELECT * FROM (SELECT * FROM due UNION ALL SELECT * FROM expired) c
   ORDER BY priority, fair_at, task_id
   LIMIT ${n}
${claimAndReturn("picked")}`,
    values: [workerId, leaseSeconds],
  };
}

/**
 * The claim without its look for expired leases (no `exhausted`, no `expired`): due PENDING and
 * RETRY_WAIT tasks only. Those two scans were a tenth of a claimed task's database CPU in
 * bench:queue while finding nothing almost always; the worker runs this between the full claims
 * it still makes at least once a second and after every claim that came back short
 * (worker/loop.ts), so an expired lease waits at most about a second longer to be taken over.
 */
function claimDueTasks(workerId: string, leaseSeconds: number, limit: number, classes: readonly Priority[]): Statement {
  const n = String(limit);
  return {
    text: `WITH ${dueTasks(n, classes)}${claimAndReturn("due")}`,
    values: [workerId, leaseSeconds],
  };
}

/**
 * Due MIGRATE tasks only (docs/decisions/039-index-spaces.md): what a worker claims into the slots
 * publishes left free after a claim that came back short. Expired MIGRATE leases are taken over by
 * the full claim like any other.
 */
export function claimMigrationTasks(workerId: string, leaseSeconds: number, limit: number): Statement {
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new RangeError(`claim limit must be an integer from 1 to 10000, got ${limit}`);
  return {
    text: `WITH ${dueTasks(String(limit), [PRIORITY.MIGRATION])}${claimAndReturn("due")}`,
    values: [workerId, leaseSeconds],
  };
}

/** Extend a held lease and report progress. Zero rows = lease lost. */
export function renewLease(
  taskId: string,
  workerId: string,
  leaseAttempt: number,
  leaseSeconds: number,
  progressDone: number,
  progressTotal: number,
): Statement {
  return {
    text: `UPDATE index_tasks
   SET lease_until = now() + make_interval(secs => $4::double precision),
       progress_done = $5, progress_total = $6, updated_at = now()
 WHERE task_id = $1 AND ${FENCE}
RETURNING lease_until`,
    values: [taskId, workerId, leaseAttempt, leaseSeconds, progressDone, progressTotal],
  };
}

/** The timeline's note that a renewal was refused: the worker stops, and the task's status is whoever holds it now. */
export function recordRenewLost(taskId: string, tenantId: string, workerId: string, leaseAttempt: number): Statement {
  return {
    text: `INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt) VALUES ($1, $2, 'RENEW_LOST', $3, $4)`,
    values: [taskId, tenantId, workerId, leaseAttempt],
  };
}

/**
 * First statement of every transaction that touches a document and its tasks (docs/architecture.md, "Lock
 * order"). The document row is the mutex: publish, delete, rollback, unpin, reindex and the
 * worker's switch all take it before any task, pointer or index-version row, so two of them can
 * only queue behind each other, never deadlock.
 */
export function lockDocument(documentId: string): Statement {
  return {
    text: `SELECT id::text, business_version, deleted_at
  FROM documents
 WHERE id = $1
   FOR NO KEY UPDATE`,
    values: [documentId],
  };
}

export type CompleteStats = { chunksTotal: number; chunksReused: number; batchesSent: number };

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
         -- A retry queues behind its tenant's waiting work, in turn with the others (the fair claim).
         fair_at = CASE WHEN $4 = 'RETRY_WAIT' THEN indexwright_fair_at(tenant_id, priority) ELSE fair_at END,
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
         fair_at = indexwright_fair_at(tenant_id, priority), max_attempts = max_attempts + 1
   WHERE task_id = $1 AND ${FENCE}
  RETURNING task_id, tenant_id, attempts
)
INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt)
SELECT task_id, tenant_id, 'RELEASED', $2, attempts FROM released
RETURNING task_id::text`,
    values: [taskId, workerId, leaseAttempt],
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

// Held tasks, one or several at once (a worker slot runs a batch of INDEX/REINDEX tasks; a DELETE
// is a batch of one). Each task keeps its own fence: `HELD` is FENCE with the lease attempt taken
// per task from the `h` list, so a task whose lease was lost or superseded simply drops out of the
// result while its siblings go on.
const HELD = `t.status = 'RUNNING' AND t.lease_owner = $1 AND t.attempts = h.attempts AND t.lease_until > now()`;
const HELD_LIST = `unnest($2::bigint[], $3::int[]) AS h(task_id, attempts)`;

/**
 * Which of these leases are still held? Read before each embedding call, so a task that was
 * superseded or taken over stops calling the provider at once instead of at its next heartbeat.
 */
export function leasesHeld(workerId: string, tasks: { taskId: string; leaseAttempt: number }[]): Statement {
  return {
    text: `SELECT t.task_id::text
  FROM ${HELD_LIST}
  JOIN index_tasks t ON t.task_id = h.task_id
 WHERE ${HELD}`,
    values: [workerId, tasks.map((t) => t.taskId), tasks.map((t) => t.leaseAttempt)],
  };
}

/**
 * The documents of a task batch, locked in id order (docs/architecture.md, "Lock order", step 2; every statement
 * that locks several documents takes them in id order, so two of them cannot deadlock).
 */
export function lockDocuments(documentIds: string[]): Statement {
  return {
    text: `SELECT id::text, business_version, deleted_at
  FROM documents
 WHERE id = ANY($1::uuid[])
 ORDER BY id
   FOR NO KEY UPDATE`,
    values: [documentIds],
  };
}

/**
 * Lock the task rows for the switch transaction in ascending task id (lock order, step 3), each
 * under its own fence. Only the tasks whose lease is still held come back; the others must not switch.
 */
export function lockHeldTasks(workerId: string, tasks: { taskId: string; leaseAttempt: number }[]): Statement {
  return {
    text: `SELECT t.task_id::text
  FROM ${HELD_LIST}
  JOIN index_tasks t ON t.task_id = h.task_id
 WHERE ${HELD}
 ORDER BY t.task_id
   FOR UPDATE OF t`,
    values: [workerId, tasks.map((t) => t.taskId), tasks.map((t) => t.leaseAttempt)],
  };
}

/**
 * Held tasks found, inside their switch transaction, that the document moved on (re-published
 * after a DELETE, deleted under an INDEX): they end SUPERSEDED having changed nothing, and the
 * timeline says why (each its own reason). This is the recorded no-op of a late task. Returns the
 * task ids it ended.
 */
export function supersedeHeldTasks(
  workerId: string,
  tasks: { taskId: string; leaseAttempt: number; reason: string; businessVersion: number }[],
): Statement {
  return {
    text: `WITH h AS (
  SELECT * FROM unnest($2::bigint[], $3::int[], $4::text[], $5::int[]) AS h(task_id, attempts, reason, business_version)
), superseded AS (
  UPDATE index_tasks t
     SET status = 'SUPERSEDED', lease_until = NULL, finished_at = now(), updated_at = now()
    FROM h
   WHERE t.task_id = h.task_id AND ${HELD}
  RETURNING t.task_id, t.tenant_id, t.attempts, h.reason, h.business_version
)
INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, detail)
SELECT task_id, tenant_id, 'SUPERSEDED', $1, attempts, jsonb_build_object('reason', reason, 'businessVersion', business_version) FROM superseded
RETURNING task_id::text`,
    values: [
      workerId,
      tasks.map((t) => t.taskId),
      tasks.map((t) => t.leaseAttempt),
      tasks.map((t) => t.reason),
      tasks.map((t) => t.businessVersion),
    ],
  };
}

/**
 * Mark held tasks SUCCEEDED and append their events, each fenced and with its own statistics (null
 * for a DELETE or a no-op task: no detail). Returns the task ids it completed.
 */
export function completeTasks(
  workerId: string,
  tasks: { taskId: string; leaseAttempt: number; stats: CompleteStats | null }[],
): Statement {
  return {
    text: `WITH h AS (
  SELECT * FROM unnest($2::bigint[], $3::int[], $4::int[], $5::int[], $6::int[]) AS h(task_id, attempts, chunks_total, chunks_reused, batches_sent)
), done AS (
  UPDATE index_tasks t
     SET status = 'SUCCEEDED', lease_until = NULL, finished_at = now(), updated_at = now(),
         error_code = NULL, error_message = NULL, progress_done = t.progress_total,
         chunks_total = h.chunks_total, chunks_reused = h.chunks_reused, batches_sent = h.batches_sent
    FROM h
   WHERE t.task_id = h.task_id AND ${HELD}
  RETURNING t.task_id, t.tenant_id, t.attempts, h.chunks_total, h.chunks_reused, h.batches_sent
)
INSERT INTO task_events (task_id, tenant_id, kind, actor, lease_attempt, detail)
SELECT task_id, tenant_id, 'SUCCEEDED', $1, attempts,
       CASE WHEN chunks_total IS NULL THEN NULL
            ELSE jsonb_build_object('chunksTotal', chunks_total, 'chunksReused', chunks_reused, 'batchesSent', batches_sent) END
  FROM done
RETURNING task_id::text`,
    values: [
      workerId,
      tasks.map((t) => t.taskId),
      tasks.map((t) => t.leaseAttempt),
      tasks.map((t) => t.stats?.chunksTotal ?? null),
      tasks.map((t) => t.stats?.chunksReused ?? null),
      tasks.map((t) => t.stats?.batchesSent ?? null),
    ],
  };
}

export type PointerMove = {
  documentId: string;
  tenantId: string;
  indexVersionId: string;
  versionNumber: number;
  /** The version search read until now; it is retired if it was ACTIVE. */
  previousIndexVersionId: string | null;
  pin: { by: string; reason: string } | null;
};

/**
 * Move the search pointers of one or more documents in one statement; every writer of a pointer
 * goes through it (the switch, publish, rollback, unpin, the reconciler), and `pin` is set by
 * rollback only. Each pointer is upserted, its target becomes ACTIVE (a rolled-back-to version
 * loses its retirement) and the version it replaces RETIRED if it was ACTIVE (kept for rollback
 * until retention ends). The two index-version updates are one UPDATE:
 * they touch different rows (a document's target and its previous version), and a statement's
 * CTEs cannot update one row twice. Callers hold the documents' row locks and pass each document
 * once. Returns how many pointers and index versions it wrote.
 */
export function moveSearchPointers(moves: PointerMove[]): Statement {
  return {
    text: `WITH m AS (
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::int[], $5::uuid[], $6::boolean[], $7::text[], $8::text[])
    AS m(document_id, tenant_id, index_version_id, version_number, previous_id, pinned, pinned_by, pinned_reason)
), pointed AS (
  INSERT INTO search_pointers (document_id, tenant_id, index_version_id, version_number, pinned, pinned_by, pinned_reason, updated_at)
  SELECT document_id, tenant_id, index_version_id, version_number, pinned, pinned_by, pinned_reason, now() FROM m
  ON CONFLICT (document_id) DO UPDATE
     SET index_version_id = EXCLUDED.index_version_id, version_number = EXCLUDED.version_number,
         pinned = EXCLUDED.pinned, pinned_by = EXCLUDED.pinned_by, pinned_reason = EXCLUDED.pinned_reason, updated_at = now()
  RETURNING 1
), switched AS (
  UPDATE index_versions iv
     SET status = CASE WHEN iv.id = m.index_version_id THEN 'ACTIVE' ELSE 'RETIRED' END,
         activated_at = CASE WHEN iv.id = m.index_version_id THEN now() ELSE iv.activated_at END,
         retired_at = CASE WHEN iv.id = m.index_version_id THEN NULL ELSE now() END
    FROM m
   WHERE iv.id = m.index_version_id
      OR (iv.id = m.previous_id AND m.previous_id <> m.index_version_id AND iv.status = 'ACTIVE')
  RETURNING 1
)
SELECT (SELECT count(*) FROM pointed)::int AS pointers, (SELECT count(*) FROM switched)::int AS versions`,
    values: [
      moves.map((m) => m.documentId),
      moves.map((m) => m.tenantId),
      moves.map((m) => m.indexVersionId),
      moves.map((m) => m.versionNumber),
      moves.map((m) => m.previousIndexVersionId),
      moves.map((m) => m.pin !== null),
      moves.map((m) => m.pin?.by ?? null),
      moves.map((m) => m.pin?.reason ?? null),
    ],
  };
}
