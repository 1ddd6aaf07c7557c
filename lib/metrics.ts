import "server-only";
import { Registry, Gauge, Counter, Histogram } from "prom-client";
import { collectProcessMetrics } from "./process-metrics";
import { overview } from "./operations/repository";
import type pg from "pg";

// Labels stay low-cardinality: state, error code, worker pool — never task, document or tenant ids.
const registry = new Registry();
collectProcessMetrics(registry, "indexwright_web_");
const g = (name: string, help: string, labelNames: string[] = []) =>
  new Gauge({ name, help, labelNames, registers: [registry] });
const due = g("indexwright_tasks_due", "Tasks due now (PENDING or RETRY_WAIT past next_attempt_at)");
const oldestDue = g("indexwright_oldest_due_task_age_seconds", "Age of the oldest due task");
const running = g("indexwright_tasks_running", "Tasks RUNNING");
const leases = g("indexwright_leases", "RUNNING leases by condition", ["condition"]);
const dead = g("indexwright_tasks_dead", "Tasks DEAD");
const errors = g("indexwright_task_errors", "DEAD and RETRY_WAIT tasks by error code", ["error_code", "status"]);
const drift = g("indexwright_documents_drifted", "Documents whose search version differs from the business version", [
  "acknowledged",
]);
const driftAge = g("indexwright_oldest_drift_age_seconds", "Age of the oldest drift");
const otherSpace = g(
  "indexwright_documents_other_embedding_space",
  "Live documents served by an index version outside their tenant's active index space: invisible to search until rebuilt",
);
// A histogram, so latency can be aggregated and its quantiles computed over any window in
// Prometheus. Fed from the overview's own sample (the newest 1,000 successful INDEX/REINDEX tasks):
// each task is observed once per web process, the first time a scrape finds it there.
const latency = new Histogram({
  name: "indexwright_publish_to_searchable_seconds",
  help: "Publish → searchable latency of successful INDEX/REINDEX tasks (created → finished), counted once per task by this web process",
  buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 21600],
  registers: [registry],
});
/** Task ids of the latest sample already observed; a task leaves it only when 1,000 newer ones succeeded. */
let observedTasks = new Set<string>();
const reuse = g("indexwright_embedding_reuse_ratio", "Share of chunks whose embedding was reused (newest 1,000 tasks)");
const workers = g("indexwright_workers_live", "Workers with a recent heartbeat");
// Deliveries the webhook senders should be working on, as their claim reads them (lib/webhooks/sql.ts):
// waiting ones past their time and sends whose lease ran out; a disabled endpoint's wait on purpose.
const webhooksDue = g(
  "indexwright_webhook_deliveries_due",
  "Webhook deliveries of enabled endpoints due now (PENDING or RETRY_WAIT past next_attempt_at, or SENDING with an expired lease)",
);
const webhooksOldestDue = g(
  "indexwright_webhook_oldest_due_delivery_age_seconds",
  "Seconds the oldest due webhook delivery has been due (0 when none is)",
);
const reconcileFindings = g("indexwright_reconcile_findings", "Findings of the newest reconciler pass by kind", [
  "kind",
]);
const reconcilePassAge = g(
  "indexwright_reconcile_last_pass_age_seconds",
  "Seconds since the newest reconciler pass started (absent before the first)",
);
// Running totals are kept in the database by the passes (any worker may run one), so each scrape
// sets the counter to the stored total rather than counting in this process.
const reconcileActions = new Counter({
  name: "indexwright_reconcile_actions_total",
  help: "Reconciler findings recorded (REPORTED), repairs (REPAIRED) and repairs deferred by the per-pass cap (SKIPPED_CAP), by kind",
  labelNames: ["kind", "action"],
  registers: [registry],
});

const migrations = g(
  "indexwright_migrations_open",
  "Index-space migrations open, by state (BUILDING, READY, SWITCHED)",
  ["state"],
);
const migrationRemaining = g(
  "indexwright_migration_documents_remaining",
  "Live documents the shadow spaces of open migrations do not serve yet at the version search serves, summed over tenants",
);
const migrationDue = g(
  "indexwright_migration_tasks_due",
  "MIGRATE tasks due now (they yield to the work counted in indexwright_tasks_due)",
);
const migrationDead = g(
  "indexwright_migration_tasks_dead",
  "MIGRATE tasks DEAD (also counted in indexwright_tasks_dead)",
);
const migrationTokens = g(
  "indexwright_migration_tokens_embedded",
  "Tokens embedded by the open migrations so far, summed (cost = tokens × the space's price per million)",
);

// Scrapes that overlap take turns here, so none can put back an older sample and count a task twice.
let latencyTurn: Promise<void> = Promise.resolve();
function observeLatency(db: pg.Pool): Promise<void> {
  latencyTurn = latencyTurn.catch(() => undefined).then(() => observeNewLatencies(db));
  return latencyTurn;
}

async function observeNewLatencies(db: pg.Pool): Promise<void> {
  // The same rows as the overview's latency figures (lib/operations/repository.ts), with their ids.
  const { rows } = await db.query<{ task_id: string; s: number }>(
    `SELECT task_id::text, extract(epoch FROM finished_at - created_at)::float8 AS s
       FROM index_tasks WHERE status = 'SUCCEEDED' AND task_type IN ('INDEX', 'REINDEX')
      ORDER BY index_tasks.status, index_tasks.task_id DESC LIMIT 1000`,
  );
  for (const r of rows) if (!observedTasks.has(r.task_id)) latency.observe(Math.max(0, r.s));
  observedTasks = new Set(rows.map((r) => r.task_id));
}

/**
 * Open migrations and their remaining work. Coverage is counted per open migration (a few at a
 * time in practice) with the index probes the Migrations page uses; the task counts read the
 * MIGRATE due index and the DEAD index.
 */
async function observeMigrations(db: pg.Pool): Promise<void> {
  const { rows } = await db.query<{ state: string; n: number; remaining: number; tokens: number }>(
    `SELECT m.state, count(*)::int AS n, coalesce(sum(tokens_embedded), 0)::float8 AS tokens,
            coalesce(sum((SELECT count(*) FROM search_pointers sp JOIN documents d ON d.id = sp.document_id AND d.deleted_at IS NULL
                           WHERE sp.tenant_id = m.tenant_id
                             AND NOT EXISTS (SELECT 1 FROM space_pointers s
                                              WHERE s.space_id = CASE WHEN m.state = 'SWITCHED' THEN m.from_space_id ELSE m.to_space_id END
                                                AND s.document_id = sp.document_id AND s.version_number = sp.version_number AND s.pinned = sp.pinned))), 0)::int AS remaining
       FROM space_migrations m WHERE m.state IN ('BUILDING', 'READY', 'SWITCHED') GROUP BY m.state`,
  );
  migrations.reset();
  for (const st of ["BUILDING", "READY", "SWITCHED"])
    migrations.set({ state: st }, rows.find((r) => r.state === st)?.n ?? 0);
  migrationRemaining.set(rows.reduce((a, r) => a + r.remaining, 0));
  migrationTokens.set(rows.reduce((a, r) => a + r.tokens, 0));
  const {
    rows: [t],
  } = await db.query<{ due: number; dead: number }>(
    `SELECT (SELECT count(*)::int FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now() AND task_type = 'MIGRATE') AS due,
            (SELECT count(*)::int FROM index_tasks WHERE status = 'DEAD' AND task_type = 'MIGRATE') AS dead`,
  );
  migrationDue.set(t.due);
  migrationDead.set(t.dead);
}

export async function renderMetrics(
  db: pg.Pool,
  opts: { leaseSeconds: number; heartbeatSeconds: number },
): Promise<{ body: string; contentType: string }> {
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
  otherSpace.set(o.otherEmbeddingSpace.count);
  await observeLatency(db);
  if (o.embeddingReuseRate !== null) reuse.set(Number(o.embeddingReuseRate));
  workers.set(o.workers.length);
  const {
    rows: [wh],
  } = await db.query<{ due: number; age: number }>(
    `SELECT count(*)::int AS due, coalesce(extract(epoch FROM now() - min(CASE WHEN d.status = 'SENDING' THEN d.lease_until ELSE d.next_attempt_at END)), 0)::float8 AS age
       FROM webhook_deliveries d JOIN webhook_endpoints ep ON ep.id = d.endpoint_id AND ep.enabled
      WHERE (d.status IN ('PENDING', 'RETRY_WAIT') AND d.next_attempt_at <= now()) OR (d.status = 'SENDING' AND d.lease_until <= now())`,
  );
  webhooksDue.set(wh.due);
  webhooksOldestDue.set(Math.max(0, wh.age));
  await observeMigrations(db);
  // Metrics are rendered for the fleet only (the route refuses tenant-limited callers).
  const rec = o.reconciler!;
  for (const k of rec.kinds) reconcileFindings.set({ kind: k.kind }, k.found);
  reconcileActions.reset();
  for (const t of rec.totals) reconcileActions.inc({ kind: t.kind, action: t.action }, t.count);
  reconcilePassAge.reset();
  if (rec.lastPass)
    reconcilePassAge.set(Math.max(0, (Date.parse(o.generatedAt) - Date.parse(rec.lastPass.startedAt)) / 1000));
  return { body: await registry.metrics(), contentType: registry.contentType };
}
