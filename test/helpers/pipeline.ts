import type pg from "pg";
import type { Embedder } from "../../lib/embedding/types";
import type { Lease } from "../../lib/queue/engine";
import type { CompleteStats } from "../../lib/queue/sql";
import { executeTasks } from "../../lib/pipeline/run";
import type { PipelineHooks, PipelineOptions } from "../../lib/pipeline/member";

/**
 * Run one held task to completion, as the worker runs a slot of one (executeTasks). Resolves with
 * the index statistics (null for a DELETE or a recorded no-op); throws the task's failure.
 */
export async function executeTask(
  pool: pg.Pool,
  embedder: Embedder,
  lease: Lease,
  hooks: PipelineHooks,
  opts: PipelineOptions,
): Promise<CompleteStats | null> {
  const [r] = await executeTasks(pool, embedder, [{ lease, hooks }], opts);
  if (r.status === "rejected") throw r.reason;
  return r.value;
}
