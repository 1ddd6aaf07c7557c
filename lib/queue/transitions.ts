// The task state machine: every move of index_tasks.status that any statement makes, who makes it
// and the timeline events written with it. The statements live in lib/queue/sql.ts (the worker)
// and lib/queue/actions-sql.ts (everyone else); test/queue/transitions.test.ts runs each of them
// from every status on a real database and fails on a move not listed here or a row none makes.
// docs/state-machine.md is drawn from this table (npm run docs:states).
import type { EventKind, TaskStatus } from "../domain/constants";

/**
 * worker: a claim, or the holder of a lease (lib/queue/sql.ts). publisher: a publish, delete,
 * reindex or unpin of a document. operator: retry, force-done, cancel. reconciler: its repairs.
 * migration: an index-space migration's start and end (MIGRATE tasks; the trigger on search_pointers
 * queues the same way as queueMigrationTasks).
 */
export type TransitionActor = "worker" | "publisher" | "operator" | "reconciler" | "migration";

export type Transition = {
  /** null: the task did not exist. */
  readonly from: TaskStatus | null;
  readonly to: TaskStatus;
  readonly actor: TransitionActor;
  /** The task_events kinds written with the move, in order. */
  readonly events: readonly EventKind[];
};

const row = (from: TaskStatus | null, to: TaskStatus, actor: TransitionActor, ...events: EventKind[]): Transition =>
  Object.freeze({ from, to, actor, events: Object.freeze(events) });

export const TRANSITIONS: readonly Transition[] = Object.freeze([
  row("PENDING", "RUNNING", "worker", "CLAIMED"),
  row("RETRY_WAIT", "RUNNING", "worker", "CLAIMED"),
  // An expired lease taken over: the attempt (the fencing token) grows, the status stays.
  row("RUNNING", "RUNNING", "worker", "LEASE_TAKEN_OVER"),
  row("RUNNING", "DEAD", "worker", "LEASE_EXPIRED_DEAD"),
  row("RUNNING", "SUCCEEDED", "worker", "SUCCEEDED"),
  row("RUNNING", "RETRY_WAIT", "worker", "FAILED", "RETRY_SCHEDULED"),
  row("RUNNING", "DEAD", "worker", "FAILED", "DEAD"),
  row("RUNNING", "RETRY_WAIT", "worker", "RELEASED"),
  row("RUNNING", "SUPERSEDED", "worker", "SUPERSEDED"),

  row(null, "PENDING", "publisher", "CREATED"),
  row("PENDING", "SUPERSEDED", "publisher", "SUPERSEDED"),
  row("RETRY_WAIT", "SUPERSEDED", "publisher", "SUPERSEDED"),
  row("RUNNING", "SUPERSEDED", "publisher", "SUPERSEDED"),
  // A reindex (or an unpin that needs one) starts a finished REINDEX over.
  row("SUCCEEDED", "PENDING", "publisher", "CREATED"),
  row("DEAD", "PENDING", "publisher", "CREATED"),
  row("SUPERSEDED", "PENDING", "publisher", "CREATED"),
  row("RESOLVED", "PENDING", "publisher", "CREATED"),
  row("CANCELLED", "PENDING", "publisher", "CREATED"),

  row("DEAD", "PENDING", "operator", "OPERATOR_RETRY"),
  row("CANCELLED", "PENDING", "operator", "OPERATOR_RETRY"),
  row("DEAD", "RESOLVED", "operator", "OPERATOR_FORCE_DONE"),
  row("CANCELLED", "RESOLVED", "operator", "OPERATOR_FORCE_DONE"),
  row("PENDING", "CANCELLED", "operator", "OPERATOR_CANCEL"),
  row("RETRY_WAIT", "CANCELLED", "operator", "OPERATOR_CANCEL"),

  row(null, "PENDING", "reconciler", "CREATED"),
  row("SUCCEEDED", "PENDING", "reconciler", "CREATED"),
  row("SUPERSEDED", "PENDING", "reconciler", "CREATED"),
  row("RUNNING", "DEAD", "reconciler", "LEASE_EXPIRED_DEAD"),

  // MIGRATE work queued for a migration's shadow space, a finished one started over, and queued work
  // superseded when the migration ends.
  row(null, "PENDING", "migration", "CREATED"),
  row("SUCCEEDED", "PENDING", "migration", "CREATED"),
  row("DEAD", "PENDING", "migration", "CREATED"),
  row("SUPERSEDED", "PENDING", "migration", "CREATED"),
  row("RESOLVED", "PENDING", "migration", "CREATED"),
  row("CANCELLED", "PENDING", "migration", "CREATED"),
  row("PENDING", "SUPERSEDED", "migration", "SUPERSEDED"),
  row("RETRY_WAIT", "SUPERSEDED", "migration", "SUPERSEDED"),
]);
