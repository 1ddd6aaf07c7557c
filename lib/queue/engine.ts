import type pg from "pg";
import type { Queryable, Statement } from "../db/pool";
import { run } from "../db/pool";
import { isEmbeddedServer, preparedStatementsFor, runNamed } from "../db/prepared";
import * as sql from "./sql";
import { decide, type RetryPolicyOptions } from "./retry-policy";
import { LeaseLostError } from "./errors";
import type { ErrorCode } from "../domain/constants";

/** A task as held by one worker under one lease attempt. */
export type Lease = {
  taskId: string;
  tenantId: string;
  documentId: string;
  versionNumber: number;
  taskType: string;
  leaseAttempt: number;
  maxAttempts: number;
  workerId: string;
  takenOver: boolean;
  /** The creating publish's span (W3C traceparent), which this task's spans continue; null or absent: none. */
  traceParent?: string | null;
};

/**
 * The two statements every task runs (claim, complete) can be sent as named statements, which the
 * server parses once per connection instead of on every call: that parsing and planning is most
 * of their database CPU (bench/queue.ts). Off unless the worker turns it on, because it needs one
 * server session per connection: the embedded database (PGlite) shares a single session among all
 * connections, and PgBouncer in transaction mode (without its max_prepared_statements support)
 * moves a connection's statements between server sessions; both fail a named statement there.
 */
let preparedStatements = false;
export { isEmbeddedServer, preparedStatementsFor };
export function setPreparedStatements(on: boolean): void {
  preparedStatements = on;
}

/**
 * A statement of the worker's hot path (claim, complete, and the index pipeline's statements, whose
 * text never varies): named when the worker turned named statements on, unnamed otherwise and in
 * every other process.
 */
export function runHot<T extends pg.QueryResultRow = pg.QueryResultRow>(
  db: Queryable,
  stmt: Statement,
): Promise<pg.QueryResult<T>> {
  return runNamed<T>(db, stmt, preparedStatements);
}

/** `takeOver: false` claims due tasks only, without looking for expired leases (sql.claimTasks). */
export async function claim(
  db: Queryable,
  workerId: string,
  leaseSeconds: number,
  limit: number,
  opts: { takeOver?: boolean; migrate?: boolean; classes?: readonly sql.Priority[] } = {},
): Promise<Lease[]> {
  const { rows } = await runHot<sql.ClaimedRow>(
    db,
    opts.migrate
      ? sql.claimMigrationTasks(workerId, leaseSeconds, limit)
      : sql.claimTasks(workerId, leaseSeconds, limit, opts),
  );
  return rows.map((r) => ({
    taskId: r.task_id,
    tenantId: r.tenant_id,
    documentId: r.document_id,
    versionNumber: r.version_number,
    taskType: r.task_type,
    leaseAttempt: r.attempts,
    maxAttempts: r.max_attempts,
    workerId,
    takenOver: r.previous_status === "RUNNING",
    traceParent: r.trace_parent,
  }));
}

export async function renew(
  db: Queryable,
  lease: Lease,
  leaseSeconds: number,
  progress: { done: number; total: number },
): Promise<void> {
  const r = await run(
    db,
    sql.renewLease(lease.taskId, lease.workerId, lease.leaseAttempt, leaseSeconds, progress.done, progress.total),
  );
  if (r.rowCount === 0) throw new LeaseLostError(lease.taskId, "renew");
}

export async function complete(db: Queryable, lease: Lease, stats: sql.CompleteStats | null = null): Promise<void> {
  const r = await runHot(db, sql.completeTasks(lease.workerId, [{ ...lease, stats }]));
  if (r.rowCount === 0) throw new LeaseLostError(lease.taskId, "complete");
}

export async function fail(
  db: Queryable,
  lease: Lease,
  code: ErrorCode,
  message: string,
  policy: RetryPolicyOptions,
  /** A floor for the retry delay, e.g. the provider's Retry-After (seconds). */
  minDelaySeconds?: number,
): Promise<{ status: "RETRY_WAIT" | "DEAD"; nextAttemptAt: Date }> {
  const d = decide(code, lease.leaseAttempt, lease.maxAttempts, policy, undefined, minDelaySeconds);
  const r = await run<{ status: "RETRY_WAIT" | "DEAD"; next_attempt_at: Date }>(
    db,
    sql.failTask(lease.taskId, lease.workerId, lease.leaseAttempt, d.status, d.delaySeconds, code, message),
  );
  if (r.rowCount === 0) throw new LeaseLostError(lease.taskId, "fail");
  return { status: r.rows[0].status, nextAttemptAt: r.rows[0].next_attempt_at };
}

export async function release(db: Queryable, lease: Lease): Promise<boolean> {
  const r = await run(db, sql.releaseTask(lease.taskId, lease.workerId, lease.leaseAttempt));
  return (r.rowCount ?? 0) > 0;
}

/** Inside a transaction: lock the task row, proving the lease; throws LeaseLostError otherwise. */
export async function lockHeld(db: Queryable, lease: Lease): Promise<void> {
  const r = await run(db, sql.lockHeldTasks(lease.workerId, [lease]));
  if (r.rowCount === 0) throw new LeaseLostError(lease.taskId, "index write");
}

export type LockedDocument = { id: string; business_version: number; deleted_at: Date | null };

/** Inside a transaction: take the document row lock (always first: docs/architecture.md, "Lock order"). */
export async function lockDocument(db: Queryable, documentId: string): Promise<LockedDocument | null> {
  const r = await run<LockedDocument>(db, sql.lockDocument(documentId));
  return r.rows[0] ?? null;
}

/** Inside the switch transaction: end a held task as a recorded no-op (the document moved on). */
export async function supersedeHeld(
  db: Queryable,
  lease: Lease,
  reason: string,
  businessVersion: number,
): Promise<void> {
  const r = await run(db, sql.supersedeHeldTasks(lease.workerId, [{ ...lease, reason, businessVersion }]));
  if (r.rowCount === 0) throw new LeaseLostError(lease.taskId, "supersede");
}
