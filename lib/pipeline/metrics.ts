import { Counter, Histogram, Registry } from "prom-client";
import { collectProcessMetrics } from "../process-metrics";
import { STEP, type ErrorCode, type Step } from "../domain/constants";
import { classify } from "../queue/errors";

// A worker process's own metrics, served on WORKER_METRICS_PORT (worker/metrics-server.ts). They
// count what this process did since it started; Prometheus sums them over the fleet. Labels stay
// low-cardinality: task type, outcome, error code, step; never task, document or tenant ids.
export const workerRegistry = new Registry();
collectProcessMetrics(workerRegistry, "indexwright_worker_");

/** How a claimed task ended in this process; "unrecorded": it failed and the failure could not be written (the lease will lapse). */
export type TaskOutcome = "succeeded" | "superseded" | "retry_wait" | "dead" | "lost_lease" | "released" | "unrecorded";

// Seconds: a local embedding batch takes milliseconds, a provider call under back-off up to minutes.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

const tasks = new Counter({
  name: "indexwright_worker_tasks_total",
  help: "Tasks this worker finished, by type, outcome and error code (none unless the task failed)",
  labelNames: ["type", "outcome", "error_code"],
  registers: [workerRegistry],
});
const taskSeconds = new Histogram({
  name: "indexwright_worker_task_duration_seconds",
  help: "Time from claim to outcome, by type and outcome",
  labelNames: ["type", "outcome"],
  buckets: DURATION_BUCKETS,
  registers: [workerRegistry],
});
const stepSeconds = new Histogram({
  name: "indexwright_worker_step_duration_seconds",
  help: "Time spent in each pipeline step of INDEX and REINDEX tasks, counted when the step completes",
  labelNames: ["step"],
  buckets: DURATION_BUCKETS,
  registers: [workerRegistry],
});
const embedSeconds = new Histogram({
  name: "indexwright_worker_embedding_request_seconds",
  help: "Embedding calls (one batch each, the provider's own retries included), by outcome: ok, error, aborted",
  labelNames: ["outcome"],
  buckets: DURATION_BUCKETS,
  registers: [workerRegistry],
});
const embedErrors = new Counter({
  name: "indexwright_worker_embedding_errors_total",
  help: "Embedding calls that failed, by error code (aborted calls are not errors)",
  labelNames: ["error_code"],
  registers: [workerRegistry],
});

// Present at zero from the start, so a rate() over them has a baseline before the first task.
for (const step of Object.values(STEP)) stepSeconds.zero({ step });
for (const outcome of ["ok", "error", "aborted"]) embedSeconds.zero({ outcome });

export function recordTask(type: string, outcome: TaskOutcome, seconds: number, errorCode?: ErrorCode): void {
  tasks.inc({ type, outcome, error_code: errorCode ?? "none" });
  taskSeconds.observe({ type, outcome }, seconds);
}

/**
 * A step done once for `tasks` tasks together (a task batch): each task is counted with its share
 * of the time, so the step's sum stays wall time and its count stays tasks. `ms` defaults to the
 * time since `since`. Returns now.
 */
export function stepDoneFor(step: Step, since: number, tasks: number, ms = performance.now() - since): number {
  for (let i = 0; i < tasks; i++) stepSeconds.observe({ step }, ms / 1000 / tasks);
  return performance.now();
}

/** Times one embedding call and counts its failure by code; a call cut short by `signal` is "aborted". */
export async function timeEmbedding<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  const end = embedSeconds.startTimer();
  try {
    const out = await call();
    end({ outcome: "ok" });
    return out;
  } catch (err) {
    if (signal.aborted) {
      end({ outcome: "aborted" });
    } else {
      end({ outcome: "error" });
      embedErrors.inc({ error_code: classify(err).code });
    }
    throw err;
  }
}
