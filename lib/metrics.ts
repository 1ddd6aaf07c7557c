import "server-only";
import { Registry, Gauge, Counter, collectDefaultMetrics } from "prom-client";
import { overview } from "./operations/queries";
import type pg from "pg";

// Labels stay low-cardinality: state, error code, worker pool — never task, document or tenant ids.
const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: "indexwright_web_" });
const g = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers: [registry] });
const due = g("indexwright_tasks_due", "Tasks due now (PENDING or RETRY_WAIT past next_attempt_at)");
const oldestDue = g("indexwright_oldest_due_task_age_seconds", "Age of the oldest due task");
const running = g("indexwright_tasks_running", "Tasks RUNNING");
const leases = g("indexwright_leases", "RUNNING leases by condition", ["condition"]);
const dead = g("indexwright_tasks_dead", "Tasks DEAD");
const errors = g("indexwright_task_errors", "DEAD and RETRY_WAIT tasks by error code", ["error_code", "status"]);
const drift = g("indexwright_documents_drifted", "Documents whose search version differs from the business version", ["acknowledged"]);
const driftAge = g("indexwright_oldest_drift_age_seconds", "Age of the oldest drift");
const latency = g("indexwright_publish_to_searchable_seconds", "Publish → searchable latency over the newest 1,000 finished tasks", ["quantile"]);
const reuse = g("indexwright_embedding_reuse_ratio", "Share of chunks whose embedding was reused (newest 1,000 tasks)");
const workers = g("indexwright_workers_live", "Workers with a recent heartbeat");
const reconcileFindings = g("indexwright_reconcile_findings", "Findings of the newest reconciler pass by kind", ["kind"]);
const reconcilePassAge = g("indexwright_reconcile_last_pass_age_seconds", "Seconds since the newest reconciler pass started (absent before the first)");
// Running totals are kept in the database by the passes (any worker may run one), so each scrape
// sets the counter to the stored total rather than counting in this process.
const reconcileActions = new Counter({
  name: "indexwright_reconcile_actions_total",
  help: "Reconciler findings recorded (REPORTED), repairs (REPAIRED) and repairs deferred by the per-pass cap (SKIPPED_CAP), by kind",
  labelNames: ["kind", "action"],
  registers: [registry],
});

export async function renderMetrics(db: pg.Pool, opts: { leaseSeconds: number; heartbeatSeconds: number }): Promise<{ body: string; contentType: string }> {
  const o = await overview(db, opts);
  due.set(o.queue.due);
  oldestDue.set(o.queue.oldestDueAgeSeconds ?? 0);
  running.set(o.queue.running);
  leases.set({ condition: "expiring_soon" }, o.queue.leasesExpiringSoon);
  leases.set({ condition: "expired" }, o.queue.leasesExpired);
  dead.set(o.queue.dead);
  errors.reset();
  for (const e of o.errors) errors.set({ error_code: e.errorCode, status: e.status }, e.count);
  drift.set({ acknowledged: "false" }, o.drift.count - o.drift.acknowledged);
  drift.set({ acknowledged: "true" }, o.drift.acknowledged);
  driftAge.set(o.drift.oldestAgeSeconds ?? 0);
  for (const q of ["p50", "p95", "p99"] as const) {
    const v = o.publishToSearchableSeconds[q];
    if (v !== null && v !== undefined) latency.set({ quantile: q }, Number(v));
  }
  if (o.embeddingReuseRate !== null) reuse.set(Number(o.embeddingReuseRate));
  workers.set(o.workers.length);
  // Metrics are rendered for the fleet only (the route refuses tenant-limited callers).
  const rec = o.reconciler!;
  for (const k of rec.kinds) reconcileFindings.set({ kind: k.kind }, k.found);
  reconcileActions.reset();
  for (const t of rec.totals) reconcileActions.inc({ kind: t.kind, action: t.action }, t.count);
  reconcilePassAge.reset();
  if (rec.lastPass) reconcilePassAge.set(Math.max(0, (Date.parse(o.generatedAt) - Date.parse(rec.lastPass.startedAt)) / 1000));
  return { body: await registry.metrics(), contentType: registry.contentType };
}
