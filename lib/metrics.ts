import "server-only";
import { Registry, Gauge, Counter, Histogram } from "prom-client";
import { collectProcessMetrics } from "./process-metrics";
import { log } from "./log";
import { replicaStatus } from "./db/replica";
import { overview } from "./operations/repository";
import { PRIORITY_NAMES, tenantQueueHeads, type TenantQueueHead } from "./queue/waits";
import type { Priority } from "./queue/sql";
import type pg from "pg";
import { latestFigures } from "./evaluation/sql";
import { freshnessMetrics, METRIC_WINDOWS, reachFor, ROLLED_REACH, SLI_SETTINGS, type MetricRow } from "./slo/sql";

const LONGEST_METRIC_WINDOW = Math.max(...METRIC_WINDOWS.map(([, s]) => s));
import {
  budgetRemaining,
  DEFAULT_OBJECTIVE,
  DEFAULT_TARGET_SECONDS,
  DEFAULT_WINDOW_DAYS,
  type SloDefaults,
} from "./slo/limits";

const SLO_DEFAULTS: SloDefaults = {
  objective: DEFAULT_OBJECTIVE,
  targetSeconds: DEFAULT_TARGET_SECONDS,
  windowDays: DEFAULT_WINDOW_DAYS,
};

// Labels stay low-cardinality: state, error code, worker pool — never task or document ids, and
// tenant only on figures whose meaning is per tenant (a fleet mean of nDCG@10 says nothing): the
// evaluation figures are at most two spaces (active, an open migration's shadow) × three modes per
// tenant, the queue wait at most three classes per tenant, on this authenticated fleet-wide endpoint
// only, never on a worker's unauthenticated /metrics.
const registry = new Registry();
collectProcessMetrics(registry, "indexwright_web_");
const g = (name: string, help: string, labelNames: string[] = []) =>
  new Gauge({ name, help, labelNames, registers: [registry] });
const due = g("indexwright_tasks_due", "Tasks due now (PENDING or RETRY_WAIT past next_attempt_at)");
const oldestDue = g("indexwright_oldest_due_task_age_seconds", "Age of the oldest due task");
const tenantsWaiting = g(
  "indexwright_queue_tenants_waiting",
  "Tenants with PENDING work queued, per priority class (interactive, bulk, migration)",
  ["priority"],
);
const oldestWait = g(
  "indexwright_queue_oldest_wait_seconds",
  "Per priority class, the longest any tenant's next queued task has been due (0 when none is queued); the fair claim serves tenants in turn",
  ["priority"],
);
const tenantWait = g(
  "indexwright_tenant_queue_wait_seconds",
  "How long a tenant's next queued task of a priority class has been due; only tenants with work queued",
  ["tenant", "priority"],
);
const replicaLag = g(
  "indexwright_read_replica_lag_seconds",
  "Upper bound of how old the read replica's view is (DATABASE_READ_URL); absent without a replica or while it does not answer",
);
const replicaServing = g(
  "indexwright_read_replica_serving",
  "1 while the dashboard's reads and search go to the read replica, 0 while they fall back to the primary (too far behind, not answering); absent without a replica",
);
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

const EVALUATION_LABELS = ["tenant", "space", "mode"];
const evalNdcg = g(
  "indexwright_evaluation_ndcg_at_10",
  "nDCG@10 of the newest finished evaluation run per tenant, index space (active or an open migration's shadow) and search mode",
  EVALUATION_LABELS,
);
const evalRecall = g(
  "indexwright_evaluation_recall_at_10",
  "recall@10 of the newest finished evaluation run per tenant, index space and search mode",
  EVALUATION_LABELS,
);
const evalMrr = g(
  "indexwright_evaluation_mrr_at_10",
  "MRR@10 of the newest finished evaluation run per tenant, index space and search mode",
  EVALUATION_LABELS,
);
const evalAge = g(
  "indexwright_evaluation_last_run_age_seconds",
  "Seconds since the newest finished evaluation run per tenant, index space and search mode finished",
  EVALUATION_LABELS,
);

/** The latest figures: series of a space the tenant no longer searches (nor migrates to) disappear. */
async function observeEvaluations(db: pg.Pool): Promise<void> {
  const s = latestFigures();
  const { rows } = await db.query<{
    tenant_id: string;
    space: string;
    mode: string;
    recall_at_10: number;
    mrr_at_10: number;
    ndcg_at_10: number;
    age_seconds: number;
  }>(s.text, s.values);
  for (const gauge of [evalNdcg, evalRecall, evalMrr, evalAge]) gauge.reset();
  for (const r of rows) {
    const labels = { tenant: r.tenant_id, space: r.space, mode: r.mode };
    evalNdcg.set(labels, r.ndcg_at_10);
    evalRecall.set(labels, r.recall_at_10);
    evalMrr.set(labels, r.mrr_at_10);
    evalAge.set(labels, Math.max(0, r.age_seconds));
  }
}

// The freshness SLO per tenant (docs/operations.md#freshness-slo), computed from the tasks at each
// scrape with the dashboard's own statement (lib/slo/sql.ts): per tenant a ratio and a count per
// window (seven burn-rate windows and the SLO's), its objective, target and budget left. Tenant is
// the only label beside window: 19 series a tenant, never a document or task.
const sloRatio = g(
  "indexwright_slo_freshness_ratio",
  "Share of the tenant's publishes decided in the window that were searchable within its target (absent with none decided)",
  ["tenant", "window"],
);
const sloEvents = g("indexwright_slo_freshness_events", "The tenant's publishes decided (good or bad) in the window", [
  "tenant",
  "window",
]);
const sloObjective = g(
  "indexwright_slo_freshness_objective",
  "The tenant's freshness objective in force (its own or the default), a ratio",
  ["tenant"],
);
const sloTarget = g(
  "indexwright_slo_freshness_target_seconds",
  "The tenant's freshness target in force: seconds from publish to searchable",
  ["tenant"],
);
const sloBudget = g(
  "indexwright_slo_freshness_error_budget_remaining",
  "Share of the tenant's error budget left over the SLO window: 1 untouched, 0 spent, below 0 overspent (absent with none decided)",
  ["tenant"],
);

/** Series of a tenant that no longer exists, or of a window with nothing decided, disappear. */
async function observeFreshness(db: pg.Pool, d: SloDefaults): Promise<void> {
  const c = await db.connect();
  let rows: MetricRow[];
  try {
    await c.query("BEGIN READ ONLY");
    await c.query(SLI_SETTINGS);
    const { behind } = (await c.query<{ behind: number | null }>(ROLLED_REACH, [null, d.targetSeconds])).rows[0];
    const s = freshnessMetrics(d, reachFor(d, behind, LONGEST_METRIC_WINDOW));
    rows = (await c.query<MetricRow>(s.text, s.values)).rows;
    await c.query("COMMIT");
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
  for (const gauge of [sloRatio, sloEvents, sloObjective, sloTarget, sloBudget]) gauge.reset();
  const windows = [...METRIC_WINDOWS.map(([name]) => name), `${d.windowDays}d`];
  for (const r of rows) {
    const tenant = r.tenant_id;
    sloObjective.set({ tenant }, r.objective);
    sloTarget.set({ tenant }, r.target_seconds);
    windows.forEach((window, i) => {
      const [good, bad] = [r.counts[2 * i], r.counts[2 * i + 1]];
      sloEvents.set({ tenant, window }, good + bad);
      if (good + bad > 0) sloRatio.set({ tenant, window }, good / (good + bad));
    });
    const n = windows.length - 1;
    const left = budgetRemaining(r.counts[2 * n], r.counts[2 * n + 1], r.objective);
    if (left !== null) sloBudget.set({ tenant }, left);
  }
}

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
    `SELECT (SELECT count(*)::int FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now() AND priority = 2) AS due,
            (SELECT count(*)::int FROM index_tasks WHERE status = 'DEAD' AND task_type = 'MIGRATE') AS dead`,
  );
  migrationDue.set(t.due);
  migrationDead.set(t.dead);
}

export async function renderMetrics(
  db: pg.Pool,
  opts: { leaseSeconds: number; heartbeatSeconds: number; slo?: SloDefaults },
): Promise<{ body: string; contentType: string }> {
  // Read once: the overview sums them up per class, and each tenant's is exported as it is.
  const headsSql = tenantQueueHeads();
  const heads = (await db.query<TenantQueueHead>(headsSql.text, headsSql.values)).rows;
  const o = await overview(db, { ...opts, heads });
  due.set(o.queue.due);
  oldestDue.set(o.queue.oldestDueAgeSeconds ?? 0);
  running.set(o.queue.running);
  for (const p of o.queue.byPriority) {
    tenantsWaiting.set({ priority: p.priority }, p.tenantsWaiting);
    oldestWait.set({ priority: p.priority }, p.oldestWaitSeconds ?? 0);
  }
  tenantWait.reset();
  for (const h of heads)
    tenantWait.set({ tenant: h.tenant_id, priority: PRIORITY_NAMES[Number(h.priority) as Priority] }, h.wait_seconds);
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
  replicaLag.reset();
  replicaServing.reset();
  const reads = await replicaStatus();
  if (reads.configured) {
    replicaServing.set(reads.servingReads === "replica" ? 1 : 0);
    if (reads.lagSeconds !== null) replicaLag.set(reads.lagSeconds);
  }
  // Per-tenant families read more than the rest: one that fails leaves its own series out of this
  // scrape (logged, and its gauges emptied rather than left stale), not the queue's and leases'.
  await observeEvaluations(db).catch((err: Error) => {
    for (const gauge of [evalNdcg, evalRecall, evalMrr, evalAge]) gauge.reset();
    log.warn({ err: err.message }, "evaluation metrics left out of this scrape");
  });
  await observeFreshness(db, opts.slo ?? SLO_DEFAULTS).catch((err: Error) => {
    for (const gauge of [sloRatio, sloEvents, sloObjective, sloTarget, sloBudget]) gauge.reset();
    log.warn({ err: err.message }, "freshness SLO metrics left out of this scrape");
  });
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
