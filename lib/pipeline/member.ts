// What run.ts and the task modules share: a held task as the pipeline runs it (its lease, its
// heartbeat hooks, how it is told its outcome), the pipeline's options, and the one rule for a
// task whose switch finds that the document moved on.
import type { Lease, LockedDocument } from "../queue/engine";
import type { CompleteStats } from "../queue/sql";
import type { FaultSwitches } from "../faults";
import type { TaskTrace } from "../tracing";

export type PipelineOptions = {
  batchSize: number;
  batchMaxBytes: number;
  faults?: FaultSwitches;
};

export type PipelineHooks = {
  signal: AbortSignal;
  progress: (done: number, total: number) => void;
  /**
   * Called inside the final fenced transaction, once the task row is locked. From here its fence
   * decides; a heartbeat racing with it (and losing to its commit) must not count as lease loss.
   */
  beforeSwitch?: () => void;
  /**
   * The switch that beforeSwitch announced did not decide the task (its transaction rolled back or
   * left the task RUNNING) and the task runs on, a new round or on its own: renewals must resume,
   * or a second round longer than the lease lets it lapse under a live worker.
   */
  switchUndone?: () => void;
  /** The task ended as a recorded no-op (SUPERSEDED under the document lock), with the reason. */
  superseded?: (reason: string) => void;
  /** The task's step spans, only while tracing is on (lib/tracing.ts); absent, no step records one. */
  trace?: TaskTrace;
};

export type BatchMember = {
  lease: Lease;
  hooks: PipelineHooks;
  /**
   * Told the member's outcome the moment it is decided, before the batch's other members end: the
   * worker records a failure then, while the lease still holds (the run stops renewing a task at its
   * switch, and the rest of the slot may outlast the lease).
   */
  settled?: (result: MemberResult) => void;
};

export type MemberResult = PromiseSettledResult<CompleteStats | null>;

/**
 * Why a held task, under its document's lock, must end SUPERSEDED instead of switching, or null
 * if it may switch. A task is bound to the business version it was created for: a newer publish
 * wins over both kinds, a delete wins over an index task, a re-publish over a delete.
 */
export function supersededBecause(doc: LockedDocument | null | undefined, lease: Lease): string | null {
  const deletes = lease.taskType === "DELETE";
  if (!doc || doc.business_version > lease.versionNumber || (doc.deleted_at === null) === deletes) {
    if (deletes) return "document republished after the delete was requested";
    return doc?.deleted_at ? "document deleted" : "a newer version was published";
  }
  return null;
}
