import "server-only";
import { summariseWaits, tenantQueueHeads, type TenantQueueHead } from "../queue/waits";
import type pg from "pg";
import {
  prisma,
  transaction,
  asQueryable,
  execute,
  queryRows,
  iso,
  pointersOutsideActiveSpace,
  Prisma,
  type Tx,
} from "../db/repository";
import type { TaskEvent } from "../generated/prisma/client";
import { notifyTasks } from "../queue/sql";
import {
  OBSOLETE,
  cancelTask as cancelTaskSql,
  forceDoneTask,
  lockDeadTaskDocuments,
  retryDeadTasks,
  retryTask as retryTaskSql,
  type DeadFilter,
} from "../queue/actions-sql";
import { lockDocument as lockDocumentRow } from "../queue/engine";
import { removeFromSearch } from "../pipeline/pointer";
import { latestPass } from "../reconcile/overview";
import { DomainError } from "../domain/errors";
import { writeAudit } from "../audit/repository";
import { CANCELLABLE_STATUSES, REVIVABLE_STATUSES } from "../domain/constants";
import { OUTCOMES, type Outcome } from "./range";
import { OUTCOME_BUCKET_SECONDS } from "../queue/snapshots";

// Tasks, the fleet overview and workers for the dashboard, the operator actions on tasks (retry,
// bulk retry, force-done, cancel) and on the queue (pause, resume). Model queries where a read is
// filters, order and a page over one table (a task's timeline, look-ups inside actions); SQL
// (tagged templates) for joins the schema has no relation for, aggregates, row locks, and every
// write that stamps a time, since times come from the database clock (Prisma would fill them from
// the application's).

type Actor = { subject: string };
const tenantIn = (tenants: string[] | null) => (tenants ? { tenantId: { in: tenants } } : {});

type TaskRow = {
  task_id: string;
  tenant_id: string;
  document_key: string;
  version_number: number;
  task_type: string;
  status: string;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_until: Date | null;
  next_attempt_at: Date;
  error_code: string | null;
  error_message: string | null;
  progress_done: number;
  progress_total: number;
  chunks_total: number | null;
  chunks_reused: number | null;
  batches_sent: number | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  pause_target: string | null;
  pause_by: string | null;
  pause_reason: string | null;
  pause_since: Date | null;
};

/**
 * The pause that keeps a task waiting: only for a task the claim would otherwise take (due or
 * waiting, or an expired lease), so a running or finished task never reads "paused". The tenant's
 * own pause is named before a task-type pause.
 */
const PAUSE_JOIN = Prisma.raw(`LEFT JOIN LATERAL (
  SELECT CASE WHEN p.tenant_id IS NOT NULL THEN 'tenant ' || p.tenant_id ELSE 'task type ' || p.task_type END AS target, p.paused_by, p.reason, p.paused_at
    FROM task_pauses p
   WHERE (p.tenant_id = t.tenant_id OR p.task_type = t.task_type)
     AND (t.status IN ('PENDING', 'RETRY_WAIT') OR (t.status = 'RUNNING' AND t.lease_until <= now()))
   ORDER BY p.tenant_id NULLS LAST
   LIMIT 1) pz ON true`);

/**
 * A task with its document's key. SQL rather than a model query: the schema declares no relation
 * from tasks to documents, and the model form (a page of tasks, then their documents' keys) was two
 * round trips and about twice the time of this one join on the tasks list (bench/dashboard.ts).
 */
const TASK_SELECT = Prisma.sql`SELECT t.task_id::text, t.tenant_id, d.key AS document_key, t.version_number, t.task_type, t.status, t.attempts, t.max_attempts,
  t.lease_owner, t.lease_until, t.next_attempt_at, t.error_code, t.error_message, t.progress_done, t.progress_total,
  t.chunks_total, t.chunks_reused, t.batches_sent, t.created_at, t.updated_at, t.started_at, t.finished_at,
  pz.target AS pause_target, pz.paused_by AS pause_by, pz.reason AS pause_reason, pz.paused_at AS pause_since
  FROM index_tasks t JOIN documents d ON d.id = t.document_id
  ${PAUSE_JOIN}`;

function taskView(r: TaskRow) {
  return {
    taskId: r.task_id,
    tenant: r.tenant_id,
    documentKey: r.document_key,
    versionNumber: r.version_number,
    taskType: r.task_type,
    status: r.status,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    leaseOwner: r.lease_owner,
    leaseUntil: iso(r.lease_until),
    nextAttemptAt: iso(r.next_attempt_at),
    errorCode: r.error_code,
    errorMessage: r.error_message,
    progress: r.status === "RUNNING" ? { done: r.progress_done, total: r.progress_total } : null,
    stats:
      r.chunks_total === null
        ? null
        : { chunksTotal: r.chunks_total, chunksReused: r.chunks_reused, batchesSent: r.batches_sent },
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    startedAt: iso(r.started_at),
    finishedAt: iso(r.finished_at),
    paused:
      r.pause_target === null
        ? null
        : { target: r.pause_target, by: r.pause_by, reason: r.pause_reason, since: iso(r.pause_since) },
  };
}

/** Newest first, keyset-paginated on task_id; filters map onto the partial/status indexes. */
export async function listTasks(
  pool: pg.Pool,
  f: {
    status?: string;
    errorCode?: string;
    type?: string;
    tenant?: string;
    cursor?: string;
    limit: number;
    tenants: string[] | null;
  },
) {
  const status = f.status ?? null;
  const errorCode = f.errorCode ?? null;
  const type = f.type ?? null;
  const tenant = f.tenant ?? null;
  const cursor = f.cursor ?? null;
  const rows = await prisma(pool).$queryRaw<TaskRow[]>`${TASK_SELECT}
    WHERE (${status}::text IS NULL OR t.status = ${status}) AND (${errorCode}::text IS NULL OR t.error_code = ${errorCode}) AND (${type}::text IS NULL OR t.task_type = ${type})
      AND (${tenant}::text IS NULL OR t.tenant_id = ${tenant}) AND (${cursor}::bigint IS NULL OR t.task_id < ${cursor}::bigint) AND (${f.tenants}::text[] IS NULL OR t.tenant_id = ANY(${f.tenants}::text[]))
    ORDER BY t.task_id DESC LIMIT ${f.limit + 1}`;
  const more = rows.length > f.limit;
  const page = rows.slice(0, f.limit).map(taskView);
  return { items: page, nextCursor: more ? page[page.length - 1].taskId : null };
}

function eventView(e: TaskEvent, checksums: boolean) {
  const detail =
    !checksums &&
    e.detail !== null &&
    typeof e.detail === "object" &&
    !Array.isArray(e.detail) &&
    "checksum" in e.detail
      ? Object.fromEntries(Object.entries(e.detail).filter(([k]) => k !== "checksum"))
      : e.detail;
  return {
    id: e.id.toString(),
    at: e.at.toISOString(),
    kind: e.kind,
    actor: e.actor,
    leaseAttempt: e.leaseAttempt,
    errorCode: e.errorCode,
    detail,
  };
}

/**
 * The task with its document's key, and its timeline (a model query: one table, filtered and
 * ordered). A publish's CREATED event carries the version's checksum, which confirms a guessed
 * text: it is left out unless `checksums` (callers who may publish; the document detail shows it
 * to the others only where the ACLs let them read the text).
 */
export async function getTask(pool: pg.Pool, taskId: string, tenants: string[] | null, checksums = true) {
  const db = prisma(pool);
  const [t] = await db.$queryRaw<
    TaskRow[]
  >`${TASK_SELECT} WHERE t.task_id = ${taskId}::bigint AND (${tenants}::text[] IS NULL OR t.tenant_id = ANY(${tenants}::text[]))`;
  if (!t) return null;
  const events = await db.taskEvent.findMany({ where: { taskId: BigInt(taskId) }, orderBy: { id: "asc" }, take: 1000 });
  return { ...taskView(t), events: events.map((e) => eventView(e, checksums)) };
}

type QueueRow = {
  due: number;
  oldest_due_age: number | null;
  waiting: number;
  running: number;
  leases_expiring: number;
  leases_expired: number;
  dead: number;
};
type ErrorRow = { error_code: string; status: string; n: number };
type DriftRow = { drift: number; acknowledged: number; oldest_drift_age: number | null };
type LatencyRow = {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  samples: number;
  chunks_per_task: number | null;
  batches_per_task: number | null;
  reuse_rate: number | null;
};
type WorkerRow = {
  id: string;
  host: string;
  pid: number;
  concurrency: number;
  started_at: Date;
  last_heartbeat_at: Date;
  current_tasks: string[];
};
/** Rows that arrive inside a JSON array: timestamps are strings there. */
type Json<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] };
/** One queue snapshot row (the Overview's history; the activity range reads the same rows). */
export type SnapshotRow = {
  taken_at: Date;
  pending: number;
  retry_wait: number;
  running: number;
  dead: number;
  due: number;
  oldest_due_age_seconds: number | null;
  drift_count: number;
  latency_p50_seconds: number | null;
  latency_p95_seconds: number | null;
};
type OverviewRow = QueueRow &
  DriftRow &
  LatencyRow & {
    other_space: number;
    one_space: { model: string; dimensions: number } | null;
    errors: ErrorRow[];
    workers: Json<WorkerRow>[];
    history: Json<SnapshotRow>[];
  };

/**
 * The overview for a principal: all-tenant principals see the fleet (workers, backlog history, the
 * reconciler); a tenant-limited one sees task and document figures over its own tenants only,
 * since fleet-wide figures tell it about other tenants' work. Every count reads a partial index
 * (due, running, dead) or a bounded window (the newest 1,000 finished tasks), never an unbounded
 * count over all tasks. Aggregates, percentiles and the database clock: SQL throughout.
 */
export async function overview(
  pool: pg.Pool,
  opts: {
    leaseSeconds: number;
    heartbeatSeconds: number;
    tenants?: string[] | null;
    /** Each tenant's next task in line, when the caller read them already (the metrics, which export each one). */
    heads?: TenantQueueHead[];
  },
) {
  const db = prisma(pool);
  const tenants = opts.tenants ?? null;
  const fleet = tenants === null;
  const scoped = (col: Prisma.Sql) => Prisma.sql`(${tenants}::text[] IS NULL OR ${col} = ANY(${tenants}::text[]))`;
  const tenantId = scoped(Prisma.raw("tenant_id"));
  const expiringSecs = opts.leaseSeconds / 3;
  // One statement for every figure but the reconciler's: as seven statements the client's work per
  // statement (and seven pooled connections per request) made most of the overview's cost. The
  // lists (errors, workers, history) come back as JSON arrays. Before it, the few rows that say
  // where a document outside its tenant's active space can be (pointersOutsideActiveSpace).
  const [rows, reconciler] = await Promise.all([
    pointersOutsideActiveSpace(db, tenants).then(
      (outside) => db.$queryRaw<OverviewRow[]>`SELECT q.*, dr.*, l.*,
       -- Live documents served by an index version outside their tenant's active space: search
       -- finds nothing of them (they read NOT_INDEXED).
       -- Each one's document looked up by key: they are normally none, and a join would be
       -- planned for the estimate and read every document.
       (SELECT count(*)::int FROM (${outside}) o
         WHERE (SELECT d.deleted_at IS NULL FROM documents d WHERE d.id = o.document_id)) AS other_space,
       -- The space the tenants in scope are on, when they are all on one (new tenants' default
       -- when there are none): the model the dashboard names as the one search uses.
       (SELECT json_build_object('model', s.model, 'dimensions', s.dimensions) FROM embedding_spaces s
         WHERE s.id = (SELECT CASE WHEN count(DISTINCT t.active_space_id) <= 1 THEN coalesce(min(t.active_space_id), indexwright_default_space()) END
                         FROM tenants t WHERE ${scoped(Prisma.raw("t.id"))})) AS one_space,
       (SELECT coalesce(json_agg(e ORDER BY e.n DESC), '[]'::json) FROM (
          SELECT error_code, status, count(*)::int AS n FROM index_tasks
           WHERE status IN ('DEAD', 'RETRY_WAIT') AND error_code IS NOT NULL AND ${tenantId}
           GROUP BY error_code, status) e) AS errors,
       ${
         fleet
           ? Prisma.sql`(SELECT coalesce(json_agg(w ORDER BY w.id), '[]'::json) FROM (
          SELECT id, host, pid, concurrency, started_at, last_heartbeat_at, current_tasks::text[] AS current_tasks
            FROM workers WHERE stopped_at IS NULL AND last_heartbeat_at > now() - make_interval(secs => ${Math.max(opts.heartbeatSeconds * 3, 30)}::double precision)
           ORDER BY id LIMIT 500) w)`
           : Prisma.sql`'[]'::json`
       } AS workers,
       ${
         fleet
           ? Prisma.sql`(SELECT coalesce(json_agg(h ORDER BY h.taken_at), '[]'::json) FROM (
          SELECT DISTINCT ON (b) taken_at, pending, retry_wait, running, dead, due, oldest_due_age_seconds, drift_count, latency_p50_seconds, latency_p95_seconds
            FROM (SELECT s.*, ${historyPoint(OVERVIEW_HISTORY_STEP_SECONDS)} AS b FROM backlog_snapshots s WHERE taken_at > now() - interval '24 hours') w
           ORDER BY b, taken_at DESC) h)`
           : Prisma.sql`'[]'::json`
       } AS history
     FROM (SELECT
       -- Due work that publishes wait for: a migration's MIGRATE backlog yields to it by design and
       -- is shown on its Migrations page, so it must not read as a queue falling behind.
       (SELECT count(*)::int FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now() AND task_type <> 'MIGRATE' AND ${tenantId}) AS due,
       (SELECT extract(epoch FROM now() - min(next_attempt_at))::float FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now() AND task_type <> 'MIGRATE' AND ${tenantId}) AS oldest_due_age,
       (SELECT count(*)::int FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at > now() AND ${tenantId}) AS waiting,
       (SELECT count(*)::int FROM index_tasks WHERE status = 'RUNNING' AND ${tenantId}) AS running,
       (SELECT count(*)::int FROM index_tasks WHERE status = 'RUNNING' AND lease_until > now() AND lease_until <= now() + make_interval(secs => ${expiringSecs}::double precision) AND ${tenantId}) AS leases_expiring,
       (SELECT count(*)::int FROM index_tasks WHERE status = 'RUNNING' AND lease_until <= now() AND ${tenantId}) AS leases_expired,
       (SELECT count(*)::int FROM index_tasks WHERE status = 'DEAD' AND ${tenantId}) AS dead) q,
     -- Acknowledged drift: the newest INDEX/REINDEX task of the business version is RESOLVED. Found
     -- from the RESOLVED tasks (few, through the status index) rather than by looking up the newest
     -- task of every drifted document, which was most of the overview's database time.
     (SELECT count(*)::int AS drift,
            (SELECT count(*)::int
               FROM index_tasks r
               JOIN documents rd ON rd.id = r.document_id AND rd.business_version = r.version_number
              WHERE r.status = 'RESOLVED' AND r.task_type IN ('INDEX', 'REINDEX') AND rd.drifted AND ${scoped(Prisma.raw("rd.tenant_id"))}
                AND EXISTS (SELECT 1 FROM document_versions rv WHERE rv.document_id = rd.id AND rv.version_number = rd.business_version)
                AND NOT EXISTS (SELECT 1 FROM index_tasks n
                                 WHERE n.document_id = r.document_id AND n.version_number = r.version_number AND n.task_type IN ('INDEX', 'REINDEX') AND n.task_id > r.task_id)) AS acknowledged,
            extract(epoch FROM now() - min(dv.published_at))::float AS oldest_drift_age
       FROM documents d
       JOIN document_versions dv ON dv.document_id = d.id AND dv.version_number = d.business_version
      WHERE d.drifted AND ${scoped(Prisma.raw("d.tenant_id"))}) dr,
     (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) AS p50, percentile_cont(0.95) WITHIN GROUP (ORDER BY s) AS p95,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY s) AS p99, count(*)::int AS samples,
            avg(chunks_total)::float AS chunks_per_task, avg(batches_sent)::float AS batches_per_task,
            CASE WHEN sum(chunks_total) > 0 THEN sum(chunks_reused)::float / sum(chunks_total) END AS reuse_rate
       FROM (SELECT extract(epoch FROM t.finished_at - t.created_at) AS s, t.chunks_total, t.chunks_reused, t.batches_sent
               FROM index_tasks t WHERE t.status = 'SUCCEEDED' AND t.task_type IN ('INDEX', 'REINDEX') AND ${scoped(Prisma.raw("t.tenant_id"))}
              ORDER BY t.status, t.task_id DESC LIMIT 1000) recent) l`,
    ),
    // The newest reconciler pass: one row by primary key, whatever the history holds. Its
    // statement lives with the reconciler; it runs on this client's connections.
    fleet ? latestPass(asQueryable(db)) : null,
  ]);
  // Each tenant's next task in line (one index probe per tenant and class): the fair claim's
  // longest waits, which a single oldest-due figure no longer is (docs/decisions/040-fair-claim.md).
  const heads = opts.heads ?? (await readQueueHeads(db));
  const waits = summariseWaits(heads, tenants);
  const r = rows[0];
  // JSON renders timestamps with the session's offset; the API's are UTC ISO strings.
  const utc = (s: string) => new Date(s).toISOString();
  return {
    generatedAt: new Date().toISOString(),
    scope: fleet ? ("fleet" as const) : ("tenants" as const),
    queue: {
      due: r.due,
      oldestDueAgeSeconds: r.oldest_due_age,
      waitingForRetry: r.waiting,
      running: r.running,
      leasesExpiringSoon: r.leases_expiring,
      leasesExpired: r.leases_expired,
      dead: r.dead,
      byPriority: waits.byPriority,
      longestWaits: waits.longest,
    },
    errors: r.errors.map((e) => ({ errorCode: e.error_code, status: e.status, count: e.n })),
    drift: { count: r.drift, acknowledged: r.acknowledged, oldestAgeSeconds: r.oldest_drift_age },
    otherEmbeddingSpace: {
      count: r.other_space,
      model: r.one_space?.model ?? null,
      dimensions: r.one_space?.dimensions ?? null,
    },
    publishToSearchableSeconds: { p50: r.p50, p95: r.p95, p99: r.p99, samples: r.samples },
    perTask: { chunks: r.chunks_per_task, embeddingBatches: r.batches_per_task },
    embeddingReuseRate: r.reuse_rate,
    workers: r.workers.map((w) => ({
      id: w.id,
      host: w.host,
      pid: w.pid,
      concurrency: w.concurrency,
      startedAt: utc(w.started_at),
      lastHeartbeatAt: utc(w.last_heartbeat_at),
      currentTasks: w.current_tasks,
    })),
    history: r.history.map((h) => ({
      at: utc(h.taken_at),
      pending: h.pending,
      retryWait: h.retry_wait,
      running: h.running,
      dead: h.dead,
      due: h.due,
      oldestDueAgeSeconds: h.oldest_due_age_seconds,
      drift: h.drift_count,
      latencyP50Seconds: h.latency_p50_seconds,
      latencyP95Seconds: h.latency_p95_seconds,
    })),
    reconciler,
  };
}

async function readQueueHeads(db: ReturnType<typeof prisma>): Promise<TenantQueueHead[]> {
  const s = tenantQueueHeads();
  return db.$queryRawUnsafe<TenantQueueHead[]>(s.text, ...s.values);
}

type ThroughputRow = { bucket: Date; status: Outcome; n: number };

/** The overview's day of backlog history: one snapshot per 5 minutes before its newest hour. */
export const OVERVIEW_HISTORY_STEP_SECONDS = 300;

/**
 * Which backlog snapshots a history keeps: every one of the newest hour (so a fresh install draws a
 * line within a minute and the right edge is live), then the newest per `stepSeconds`. A chart
 * cannot draw more points than it has pixels, and a day of snapshots every 55 s (1,571) was 267 KB
 * of overview polled every 5 s; the charts' time axis places the points where they were taken.
 */
function historyPoint(stepSeconds: number): Prisma.Sql {
  return Prisma.sql`CASE WHEN taken_at > now() - interval '1 hour' THEN taken_at
            ELSE date_bin(make_interval(secs => ${stepSeconds}::double precision), taken_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') END`;
}

/**
 * The rows behind the overview's activity range (lib/operations/activity.ts shapes them): the
 * database clock, finished tasks counted per bucket and outcome, and for all-tenant callers the
 * newest backlog snapshot per history step. Buckets are aligned to their size on the database
 * clock, so the caller can lay out empty ones on the same grid.
 *
 * Cost: a range whose bucket is a multiple of OUTCOME_BUCKET_SECONDS (24 h, 7 d) reads the counts
 * rolled up per sealed 15-minute bucket (rollUpTaskOutcomes) and counts tasks only where no sealed
 * bucket covers: the partial 15 minutes at the range's start and the unsealed tail (about 20
 * minutes while workers run; all of it if none has rolled up). The 1-hour range counts its tasks,
 * through index_tasks_finished_at_idx. A sealed bucket counts each task as it finished then (see
 * rollUpTaskOutcomes).
 */
export async function activityRows(
  pool: pg.Pool,
  opts: { seconds: number; bucketSeconds: number; historyStepSeconds: number; tenants: string[] | null },
) {
  const db = prisma(pool);
  const binOf = (column: Prisma.Sql) =>
    Prisma.sql`date_bin(make_interval(secs => ${opts.bucketSeconds}::double precision), ${column}, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;
  const bin = binOf(Prisma.sql`finished_at`);
  const [[{ now }], buckets, history] = await Promise.all([
    db.$queryRaw<{ now: Date }[]>`SELECT now() AS now`,
    opts.bucketSeconds % OUTCOME_BUCKET_SECONDS === 0
      ? db.$queryRaw<ThroughputRow[]>`WITH w AS MATERIALIZED (
           SELECT start, lo, greatest(lo, coalesce((SELECT sealed_until FROM task_outcome_rollup WHERE id), lo)) AS hi
             FROM (SELECT start, date_bin(make_interval(secs => ${OUTCOME_BUCKET_SECONDS}::double precision), start - interval '1 microsecond', TIMESTAMPTZ '2000-01-01 00:00:00+00')
                                   + make_interval(secs => ${OUTCOME_BUCKET_SECONDS}::double precision) AS lo
                     FROM (SELECT now() - make_interval(secs => ${opts.seconds}::double precision) AS start) s) b)
        SELECT bucket, status, sum(n)::int AS n FROM (
          SELECT ${bin} AS bucket, status, count(*) AS n
            FROM index_tasks
           WHERE finished_at > (SELECT start FROM w) AND finished_at < (SELECT lo FROM w)
             AND status = ANY(${[...OUTCOMES]}::text[]) AND (${opts.tenants}::text[] IS NULL OR tenant_id = ANY(${opts.tenants}::text[]))
           GROUP BY 1, 2
          UNION ALL
          SELECT ${binOf(Prisma.sql`bucket_start`)}, status, sum(n)
            FROM task_outcome_counts
           WHERE bucket_start >= (SELECT lo FROM w) AND bucket_start < (SELECT hi FROM w)
             AND status = ANY(${[...OUTCOMES]}::text[]) AND (${opts.tenants}::text[] IS NULL OR tenant_id = ANY(${opts.tenants}::text[]))
           GROUP BY 1, 2
          UNION ALL
          SELECT ${bin}, status, count(*)
            FROM index_tasks
           WHERE finished_at >= (SELECT hi FROM w)
             AND status = ANY(${[...OUTCOMES]}::text[]) AND (${opts.tenants}::text[] IS NULL OR tenant_id = ANY(${opts.tenants}::text[]))
           GROUP BY 1, 2) x
         GROUP BY 1, 2`
      : db.$queryRaw<ThroughputRow[]>`SELECT ${bin} AS bucket, status, count(*)::int AS n
        FROM index_tasks
       WHERE finished_at > now() - make_interval(secs => ${opts.seconds}::double precision)
         AND status = ANY(${[...OUTCOMES]}::text[])
         AND (${opts.tenants}::text[] IS NULL OR tenant_id = ANY(${opts.tenants}::text[]))
       GROUP BY 1, 2`,
    opts.tenants === null
      ? db.$queryRaw<
          SnapshotRow[]
        >`SELECT DISTINCT ON (b) taken_at, pending, retry_wait, running, dead, due, oldest_due_age_seconds, drift_count, latency_p50_seconds, latency_p95_seconds
          FROM (SELECT s.*, ${historyPoint(opts.historyStepSeconds)} AS b
                  FROM backlog_snapshots s
                 WHERE taken_at > now() - make_interval(secs => ${opts.seconds}::double precision)) w
         ORDER BY b, taken_at DESC`
      : ([] as SnapshotRow[]),
  ]);
  return { now, buckets, history };
}

/** Live workers first, then those stopped or silent in the last 24 hours ("live" is by the database clock). */
export async function listWorkers(pool: pg.Pool, heartbeatSeconds: number) {
  const rows = await prisma(pool).$queryRaw<(WorkerRow & { stopped_at: Date | null; live: boolean })[]>`
    SELECT id, host, pid, concurrency, started_at, last_heartbeat_at, stopped_at, current_tasks::text[] AS current_tasks,
           (stopped_at IS NULL AND last_heartbeat_at > now() - make_interval(secs => ${Math.max(heartbeatSeconds * 3, 30)}::double precision)) AS live
      FROM workers WHERE stopped_at IS NULL OR stopped_at > now() - interval '24 hours'
     ORDER BY live DESC, last_heartbeat_at DESC LIMIT 500`;
  return {
    items: rows.map((w) => ({
      id: w.id,
      host: w.host,
      pid: w.pid,
      concurrency: w.concurrency,
      live: w.live,
      startedAt: w.started_at.toISOString(),
      lastHeartbeatAt: w.last_heartbeat_at.toISOString(),
      stoppedAt: iso(w.stopped_at),
      currentTasks: w.current_tasks,
    })),
  };
}

// ---- Operator actions on tasks. Each runs in one transaction with its audit row, so an action
// either happened and is audited, or neither. Lock order (docs/architecture.md, "Lock order"): the task's document
// row first, then the task row.

/** Lock order: the task's document row first (the statement shared with the worker's switch), then the task row. */
async function lockTaskDocument(
  tx: Tx,
  taskId: string,
  tenants: string[] | null,
): Promise<{ tenantId: string; documentId: string } | null> {
  const t = await tx.indexTask.findFirst({
    where: { taskId: BigInt(taskId), ...tenantIn(tenants) },
    select: { tenantId: true, documentId: true },
  });
  if (!t) return null;
  await lockDocumentRow(asQueryable(tx), t.documentId);
  return t;
}

/** Explains why a DEAD/CANCELLED-only action touched no row: the task is unknown (404) or in another state (409). */
async function notDead(tx: Tx, taskId: string, tenants: string[] | null, verb: string): Promise<never> {
  const cur = await tx.indexTask.findFirst({
    where: { taskId: BigInt(taskId), ...tenantIn(tenants) },
    select: { status: true },
  });
  if (!cur) throw new DomainError("NOT_FOUND", `task ${taskId} not found`);
  throw new DomainError(
    "INVALID_STATE",
    `only DEAD or CANCELLED tasks can be ${verb}; task ${taskId} is ${cur.status}`,
  );
}

/** DEAD or CANCELLED → PENDING (lib/queue/actions-sql.ts retryTask). An obsolete task (OBSOLETE) is refused with 409 TASK_SUPERSEDED. */
export async function retryTask(
  pool: pg.Pool,
  taskId: string,
  actor: Actor,
  reason: string | null,
  budget: number,
  tenants: string[] | null,
) {
  return transaction(pool, async (tx) => {
    const owner = await lockTaskDocument(tx, taskId, tenants);
    if (!owner) throw new DomainError("NOT_FOUND", `task ${taskId} not found`);
    const [cur] = await tx.$queryRaw<
      { status: string; obsolete: boolean; version_number: number; task_type: string; business_version: number }[]
    >`
      SELECT t.status, ${Prisma.raw(OBSOLETE)} AS obsolete, t.version_number, t.task_type, d.business_version
        FROM index_tasks t JOIN documents d ON d.id = t.document_id
       WHERE t.task_id = ${taskId}::bigint
         FOR UPDATE OF t`;
    if (!REVIVABLE_STATUSES.includes(cur.status as never)) return notDead(tx, taskId, tenants, "retried");
    if (cur.obsolete) {
      throw new DomainError(
        "TASK_SUPERSEDED",
        `task ${taskId} (${cur.task_type} of v${cur.version_number}) is obsolete: the document has moved on (business version v${cur.business_version}); publish, reindex or delete instead`,
      );
    }
    await execute(tx, retryTaskSql(taskId, budget, actor.subject, { reason, from: cur.status }));
    await writeAudit(tx, {
      actor: actor.subject,
      action: "task.retry",
      tenant: owner.tenantId,
      targetType: "task",
      targetId: taskId,
      reason,
    });
    await execute(tx, notifyTasks());
    return { taskId, status: "PENDING" };
  });
}

/** Every matching DEAD task that is not obsolete goes back to PENDING; obsolete ones are counted as skipped. */
export async function bulkRetry(
  pool: pg.Pool,
  filter: { errorCode?: string; tenant?: string; type?: string },
  actor: Actor,
  reason: string | null,
  budget: number,
  tenants: string[] | null,
) {
  // A tenant outside the caller's grant is refused, not answered with "0 retried": the audit row
  // below is filed under that tenant and would put the caller's words in another tenant's log.
  if (filter.tenant && tenants !== null && !tenants.includes(filter.tenant))
    throw new DomainError("FORBIDDEN", `no access to tenant ${filter.tenant}`);
  return transaction(pool, async (tx) => {
    const match: DeadFilter = {
      errorCode: filter.errorCode ?? null,
      tenant: filter.tenant ?? null,
      type: filter.type ?? null,
      tenants,
    };
    const locked = await queryRows<{ id: string }>(tx, lockDeadTaskDocuments(match));
    const rows = await queryRows<{ task_id: string; tenant_id: string; obsolete: boolean }>(
      tx,
      retryDeadTasks(
        match,
        locked.map((d) => d.id),
        budget,
        actor.subject,
        { reason, bulk: true },
      ),
    );
    const revived = rows.filter((x) => !x.obsolete);
    const skipped = rows.length - revived.length;
    if (revived.length > 0) await execute(tx, notifyTasks());
    // One row per tenant the retry touched (or the filter named), so each tenant's log shows what
    // happened to its tasks and a tenant-limited operator can see their own action.
    const touched = [...new Set([...(filter.tenant ? [filter.tenant] : []), ...rows.map((x) => x.tenant_id)])];
    for (const tenant of touched.length ? touched : [tenants?.length === 1 ? tenants[0] : null]) {
      const mine = rows.filter((x) => x.tenant_id === tenant);
      await writeAudit(tx, {
        actor: actor.subject,
        action: "task.bulk_retry",
        tenant,
        targetType: "tasks",
        targetId: "*",
        reason,
        detail: {
          filter,
          retried: mine.filter((x) => !x.obsolete).length,
          skipped: mine.filter((x) => x.obsolete).length,
        },
      });
    }
    return { retried: revived.length, skipped };
  });
}

/**
 * DEAD or CANCELLED → RESOLVED with a reason. Not a success: the drift it leaves shows as
 * acknowledged. A DELETE is the exception, since closing it must not keep the document's chunks
 * for good: when the document still stands deleted at the task's version, the force-done does the
 * DELETE's work itself (pointer dropped, versions retired for garbage collection) under the
 * document lock it holds, as the worker's DELETE would have.
 */
export async function forceDone(pool: pg.Pool, taskId: string, actor: Actor, reason: string, tenants: string[] | null) {
  return transaction(pool, async (tx) => {
    const owner = await lockTaskDocument(tx, taskId, tenants);
    if (!owner) throw new DomainError("NOT_FOUND", `task ${taskId} not found`);
    const [done] = await queryRows<{ tenant_id: string; removes: boolean }>(
      tx,
      forceDoneTask(taskId, tenants, actor.subject, reason),
    );
    if (!done) return notDead(tx, taskId, tenants, "force-closed");
    if (done.removes) await removeFromSearch(asQueryable(tx), owner.documentId);
    await writeAudit(tx, {
      actor: actor.subject,
      action: "task.force_done",
      tenant: done.tenant_id,
      targetType: "task",
      targetId: taskId,
      reason,
      detail: done.removes ? { removedFromSearch: true } : undefined,
    });
    return { taskId, status: "RESOLVED" };
  });
}

/** Why a task that is not PENDING or RETRY_WAIT cannot be cancelled, in the words of the 409. */
function notCancellableWhy(t: { status: string; lapsed: boolean }): string {
  if (t.status !== "RUNNING") return "it has ended";
  // A lapsed lease is no worker's: the next claim takes it over (a paused one, once resumed).
  if (t.lapsed)
    return "its worker's lease has lapsed; the next claim takes it over (in a paused tenant or type, once resumed), and on its last attempt the claim or the reconciler marks it DEAD";
  return "a worker holds it; wait for it to finish or fail";
}

/**
 * PENDING or RETRY_WAIT → CANCELLED, with the operator's reason on the task (its error message,
 * which the document shows as its last error), its timeline and the audit log. Lock order: the
 * document row, then the task row FOR UPDATE, and only then the status is read: a claim that
 * committed meanwhile has made it RUNNING (409), and a claim still in flight cannot take the row
 * this transaction holds (SKIP LOCKED). A DELETE is never cancelled: the document already reads
 * deleted, and cancelling would leave its chunks stored, served to nobody and never removed.
 */
export async function cancelTask(
  pool: pg.Pool,
  taskId: string,
  actor: Actor,
  reason: string,
  tenants: string[] | null,
) {
  return transaction(pool, async (tx) => {
    const owner = await lockTaskDocument(tx, taskId, tenants);
    if (!owner) throw new DomainError("NOT_FOUND", `task ${taskId} not found`);
    const [cur] = await tx.$queryRaw<{ status: string; task_type: string; version_number: number; lapsed: boolean }[]>`
      SELECT status, task_type, version_number, coalesce(lease_until <= now(), false) AS lapsed FROM index_tasks WHERE task_id = ${taskId}::bigint FOR UPDATE`;
    if (cur.task_type === "DELETE") {
      throw new DomainError(
        "TASK_NOT_CANCELLABLE",
        `task ${taskId} is a DELETE: the document already reads deleted, and cancelling would leave its chunks stored and never removed`,
      );
    }
    if (!CANCELLABLE_STATUSES.includes(cur.status as never)) {
      throw new DomainError(
        "TASK_NOT_CANCELLABLE",
        `only PENDING or RETRY_WAIT tasks can be cancelled; task ${taskId} is ${cur.status} (${notCancellableWhy(cur)})`,
      );
    }
    const message = `Cancelled by ${actor.subject}: ${reason}`;
    await execute(tx, cancelTaskSql(taskId, message, actor.subject, { reason, from: cur.status }));
    await writeAudit(tx, {
      actor: actor.subject,
      action: "task.cancel",
      tenant: owner.tenantId,
      targetType: "task",
      targetId: taskId,
      reason,
      detail: { from: cur.status, taskType: cur.task_type, versionNumber: cur.version_number },
    });
    return { taskId, status: "CANCELLED" };
  });
}

// ---- Pauses. A pause row makes the claim skip a tenant's or a task type's tasks (lib/queue/sql.ts,
// NOT_PAUSED); nothing else about the tasks changes, so resuming is deleting the row. A task-type
// pause stops every tenant's work of that type: it is fleet-wide and needs an all-tenant operator.

type PauseRow = {
  id: string;
  tenant_id: string | null;
  task_type: string | null;
  paused_by: string;
  reason: string;
  paused_at: Date;
  waiting: number;
};

function pauseView(r: PauseRow) {
  return {
    id: r.id,
    tenant: r.tenant_id,
    taskType: r.task_type,
    pausedBy: r.paused_by,
    reason: r.reason,
    since: r.paused_at.toISOString(),
    waiting: r.waiting,
  };
}

/**
 * The pauses a caller is affected by: its tenants' pauses and every task-type pause (those hold its
 * work too). `waiting` counts the held tasks the caller may see, through the due index (bounded).
 */
export async function listPauses(pool: pg.Pool, tenants: string[] | null) {
  const rows = await prisma(pool).$queryRaw<PauseRow[]>`
    SELECT p.id::text, p.tenant_id, p.task_type, p.paused_by, p.reason, p.paused_at,
           (SELECT count(*)::int FROM (SELECT 1 FROM index_tasks t
              WHERE t.status IN ('PENDING', 'RETRY_WAIT') AND t.next_attempt_at <= now()
                AND (t.tenant_id = p.tenant_id OR t.task_type = p.task_type)
                AND (${tenants}::text[] IS NULL OR t.tenant_id = ANY(${tenants}::text[]))
              LIMIT 10000) w) AS waiting
      FROM task_pauses p
     WHERE p.task_type IS NOT NULL OR ${tenants}::text[] IS NULL OR p.tenant_id = ANY(${tenants}::text[])
     ORDER BY p.paused_at, p.id`;
  return { items: rows.map(pauseView) };
}

const fleetOnly = () =>
  new DomainError(
    "FLEET_SCOPE_REQUIRED",
    "a task-type pause holds every tenant's work: it needs an all-tenant operator",
  );

/** Pause a tenant or a task type. Pausing what is already paused is 409 ALREADY_PAUSED (the first pause keeps its author and reason). */
export async function pauseQueue(
  pool: pg.Pool,
  target: { tenant?: string; taskType?: string },
  actor: Actor,
  reason: string,
  tenants: string[] | null,
) {
  const tenant = target.tenant ?? null;
  const taskType = target.taskType ?? null;
  if (taskType !== null && tenants !== null) throw fleetOnly();
  if (tenant !== null && tenants !== null && !tenants.includes(tenant))
    throw new DomainError("FORBIDDEN", `no access to tenant ${tenant}`);
  return transaction(pool, async (tx) => {
    if (tenant !== null && !(await tx.tenant.findUnique({ where: { id: tenant }, select: { id: true } })))
      throw new DomainError("NOT_FOUND", `tenant ${tenant} not found`);
    const [row] = await tx.$queryRaw<PauseRow[]>`
      INSERT INTO task_pauses (tenant_id, task_type, paused_by, reason) VALUES (${tenant}, ${taskType}, ${actor.subject}, ${reason})
      ON CONFLICT DO NOTHING
      RETURNING id::text, tenant_id, task_type, paused_by, reason, paused_at, 0 AS waiting`;
    if (!row)
      throw new DomainError(
        "ALREADY_PAUSED",
        tenant !== null ? `tenant ${tenant} is already paused` : `task type ${taskType} is already paused`,
      );
    await writeAudit(tx, {
      actor: actor.subject,
      action: "queue.pause",
      tenant,
      targetType: tenant !== null ? "tenant" : "task_type",
      targetId: tenant ?? taskType!,
      reason,
    });
    return pauseView(row);
  });
}

/** Resume: delete the pause and wake the workers, so held work is claimed at once. */
export async function resumeQueue(
  pool: pg.Pool,
  pauseId: string,
  actor: Actor,
  reason: string | null,
  tenants: string[] | null,
) {
  return transaction(pool, async (tx) => {
    const [p] = await tx.$queryRaw<
      PauseRow[]
    >`SELECT id::text, tenant_id, task_type, paused_by, reason, paused_at, 0 AS waiting FROM task_pauses WHERE id = ${pauseId}::bigint FOR UPDATE`;
    // A pause of another tenant is not revealed to exist; a task-type pause is visible to all but fleet-wide to lift.
    if (!p || (p.tenant_id !== null && tenants !== null && !tenants.includes(p.tenant_id)))
      throw new DomainError("NOT_FOUND", `pause ${pauseId} not found`);
    if (p.task_type !== null && tenants !== null) throw fleetOnly();
    await tx.$executeRaw`DELETE FROM task_pauses WHERE id = ${pauseId}::bigint`;
    await writeAudit(tx, {
      actor: actor.subject,
      action: "queue.resume",
      tenant: p.tenant_id,
      targetType: p.tenant_id !== null ? "tenant" : "task_type",
      targetId: p.tenant_id ?? p.task_type!,
      reason,
      detail: { pausedBy: p.paused_by, pausedAt: p.paused_at.toISOString(), pauseReason: p.reason },
    });
    await execute(tx, notifyTasks());
    return { id: p.id, tenant: p.tenant_id, taskType: p.task_type, resumed: true };
  });
}
