import type pg from "pg";
import { latestPass } from "../reconcile/overview";

const TASK_COLUMNS = `t.task_id::text, t.tenant_id, d.key AS document_key, t.version_number, t.task_type, t.status, t.attempts, t.max_attempts,
  t.lease_owner, t.lease_until, t.next_attempt_at, t.error_code, t.error_message, t.progress_done, t.progress_total,
  t.chunks_total, t.chunks_reused, t.batches_sent, t.created_at, t.updated_at, t.started_at, t.finished_at`;

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
  next_attempt_at: Date | null;
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
};

function task(r: TaskRow) {
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
    leaseUntil: r.lease_until?.toISOString() ?? null,
    nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    progress: r.status === "RUNNING" ? { done: r.progress_done, total: r.progress_total } : null,
    stats: r.chunks_total === null ? null : { chunksTotal: r.chunks_total, chunksReused: r.chunks_reused, batchesSent: r.batches_sent },
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    startedAt: r.started_at?.toISOString() ?? null,
    finishedAt: r.finished_at?.toISOString() ?? null,
  };
}

/** Newest first, keyset-paginated on task_id; filters map onto the partial/status indexes. */
export async function listTasks(db: pg.Pool, f: { status?: string; errorCode?: string; type?: string; tenant?: string; cursor?: string; limit: number; tenants: string[] | null }) {
  const { rows } = await db.query<TaskRow>(
    `SELECT ${TASK_COLUMNS} FROM index_tasks t JOIN documents d ON d.id = t.document_id
      WHERE ($1::text IS NULL OR t.status = $1) AND ($2::text IS NULL OR t.error_code = $2) AND ($3::text IS NULL OR t.task_type = $3)
        AND ($4::text IS NULL OR t.tenant_id = $4) AND ($5::bigint IS NULL OR t.task_id < $5) AND ($6::text[] IS NULL OR t.tenant_id = ANY($6::text[]))
      ORDER BY t.task_id DESC LIMIT $7`,
    [f.status ?? null, f.errorCode ?? null, f.type ?? null, f.tenant ?? null, f.cursor ?? null, f.tenants, f.limit + 1],
  );
  const more = rows.length > f.limit;
  const page = rows.slice(0, f.limit).map(task);
  return { items: page, nextCursor: more ? page[page.length - 1].taskId : null };
}

export async function getTask(db: pg.Pool, taskId: string, tenants: string[] | null) {
  const { rows } = await db.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM index_tasks t JOIN documents d ON d.id = t.document_id WHERE t.task_id = $1 AND ($2::text[] IS NULL OR t.tenant_id = ANY($2::text[]))`, [taskId, tenants]);
  if (!rows[0]) return null;
  const ev = await db.query(`SELECT e.id::text, e.at, e.kind, e.actor, e.lease_attempt, e.error_code, e.detail FROM task_events e WHERE e.task_id = $1 ORDER BY e.id LIMIT 1000`, [taskId]);
  return {
    ...task(rows[0]),
    events: ev.rows.map((e) => ({ id: e.id, at: e.at.toISOString(), kind: e.kind, actor: e.actor, leaseAttempt: e.lease_attempt, errorCode: e.error_code, detail: e.detail })),
  };
}

/**
 * Fleet figures of design §7. Every count reads a partial index (due, running, dead) or a bounded
 * window (the newest 1,000 finished tasks), never an unbounded count over all tasks.
 */
/**
 * The overview for a principal: all-tenant principals see the fleet (workers, backlog history, the
 * reconciler); a tenant-limited one sees task and document figures over its own tenants only,
 * since fleet-wide figures tell it about other tenants' work.
 */
export async function overview(db: pg.Pool, opts: { leaseSeconds: number; heartbeatSeconds: number; tenants?: string[] | null }) {
  const tenants = opts.tenants ?? null;
  const fleet = tenants === null;
  const none = { rows: [] as never[] };
  const [queue, errors, drift, latency, workers, history, reconciler] = await Promise.all([
    db.query(
      `SELECT
         (SELECT count(*)::int FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now() AND ($2::text[] IS NULL OR tenant_id = ANY($2::text[]))) AS due,
         (SELECT extract(epoch FROM now() - min(next_attempt_at))::float FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now() AND ($2::text[] IS NULL OR tenant_id = ANY($2::text[]))) AS oldest_due_age,
         (SELECT count(*)::int FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at > now() AND ($2::text[] IS NULL OR tenant_id = ANY($2::text[]))) AS waiting,
         (SELECT count(*)::int FROM index_tasks WHERE status = 'RUNNING' AND ($2::text[] IS NULL OR tenant_id = ANY($2::text[]))) AS running,
         (SELECT count(*)::int FROM index_tasks WHERE status = 'RUNNING' AND lease_until > now() AND lease_until <= now() + make_interval(secs => $1::double precision) AND ($2::text[] IS NULL OR tenant_id = ANY($2::text[]))) AS leases_expiring,
         (SELECT count(*)::int FROM index_tasks WHERE status = 'RUNNING' AND lease_until <= now() AND ($2::text[] IS NULL OR tenant_id = ANY($2::text[]))) AS leases_expired,
         (SELECT count(*)::int FROM index_tasks WHERE status = 'DEAD' AND ($2::text[] IS NULL OR tenant_id = ANY($2::text[]))) AS dead`,
      [opts.leaseSeconds / 3, tenants],
    ),
    db.query(
      `SELECT error_code, status, count(*)::int AS n FROM index_tasks
        WHERE status IN ('DEAD', 'RETRY_WAIT') AND error_code IS NOT NULL AND ($1::text[] IS NULL OR tenant_id = ANY($1::text[]))
        GROUP BY error_code, status ORDER BY n DESC`,
      [tenants],
    ),
    db.query(
      `SELECT count(*)::int AS drift,
              count(*) FILTER (WHERE lt.status = 'RESOLVED')::int AS acknowledged,
              extract(epoch FROM now() - min(dv.published_at))::float AS oldest_drift_age
         FROM documents d
         JOIN document_versions dv ON dv.document_id = d.id AND dv.version_number = d.business_version
         LEFT JOIN LATERAL (SELECT status FROM index_tasks t WHERE t.document_id = d.id AND t.version_number = d.business_version AND t.task_type IN ('INDEX', 'REINDEX') ORDER BY t.task_id DESC LIMIT 1) lt ON true
        WHERE d.drifted AND ($1::text[] IS NULL OR d.tenant_id = ANY($1::text[]))`,
      [tenants],
    ),
    db.query(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) AS p50, percentile_cont(0.95) WITHIN GROUP (ORDER BY s) AS p95,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY s) AS p99, count(*)::int AS samples,
              avg(chunks_total)::float AS chunks_per_task, avg(batches_sent)::float AS batches_per_task,
              CASE WHEN sum(chunks_total) > 0 THEN sum(chunks_reused)::float / sum(chunks_total) END AS reuse_rate
         FROM (SELECT extract(epoch FROM t.finished_at - t.created_at) AS s, t.chunks_total, t.chunks_reused, t.batches_sent
                 FROM index_tasks t WHERE t.status = 'SUCCEEDED' AND t.task_type IN ('INDEX', 'REINDEX') AND ($1::text[] IS NULL OR t.tenant_id = ANY($1::text[]))
                ORDER BY t.status, t.task_id DESC LIMIT 1000) recent`,
      [tenants],
    ),
    fleet ? db.query(
      `SELECT id, host, pid, concurrency, started_at, last_heartbeat_at, current_tasks::text[] AS current_tasks
         FROM workers WHERE stopped_at IS NULL AND last_heartbeat_at > now() - make_interval(secs => $1::double precision)
        ORDER BY id LIMIT 500`,
      [Math.max(opts.heartbeatSeconds * 3, 30)],
    ) : none,
    fleet ? db.query(`SELECT taken_at, pending, retry_wait, running, dead, due, oldest_due_age_seconds, drift_count, latency_p50_seconds, latency_p95_seconds FROM backlog_snapshots WHERE taken_at > now() - interval '24 hours' ORDER BY taken_at LIMIT 1500`) : none,
    // The newest reconciler pass: one row by primary key, whatever the history holds.
    fleet ? latestPass(db) : null,
  ]);
  const q = queue.rows[0];
  const l = latency.rows[0];
  const dr = drift.rows[0];
  return {
    generatedAt: new Date().toISOString(),
    scope: fleet ? ("fleet" as const) : ("tenants" as const),
    queue: {
      due: q.due,
      oldestDueAgeSeconds: q.oldest_due_age,
      waitingForRetry: q.waiting,
      running: q.running,
      leasesExpiringSoon: q.leases_expiring,
      leasesExpired: q.leases_expired,
      dead: q.dead,
    },
    errors: errors.rows.map((r) => ({ errorCode: r.error_code, status: r.status, count: r.n })),
    drift: { count: dr.drift, acknowledged: dr.acknowledged, oldestAgeSeconds: dr.oldest_drift_age },
    publishToSearchableSeconds: { p50: l.p50, p95: l.p95, p99: l.p99, samples: l.samples },
    perTask: { chunks: l.chunks_per_task, embeddingBatches: l.batches_per_task },
    embeddingReuseRate: l.reuse_rate,
    workers: workers.rows.map((w) => ({
      id: w.id,
      host: w.host,
      pid: w.pid,
      concurrency: w.concurrency,
      startedAt: w.started_at.toISOString(),
      lastHeartbeatAt: w.last_heartbeat_at.toISOString(),
      currentTasks: w.current_tasks,
    })),
    history: history.rows.map((h) => ({
      at: h.taken_at.toISOString(),
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

export async function listAudit(db: pg.Pool, f: { cursor?: string; limit: number; tenants: string[] | null }) {
  const { rows } = await db.query(
    // Qualified names throughout: an unqualified ORDER BY id would sort the id::text output column.
    `SELECT a.id::text, a.at, a.actor, a.action, a.tenant_id, a.target_type, a.target_id, a.reason, a.detail FROM audit_log a
      WHERE ($1::bigint IS NULL OR a.id < $1) AND ($2::text[] IS NULL OR a.tenant_id = ANY($2::text[]))
      ORDER BY a.id DESC LIMIT $3`,
    [f.cursor ?? null, f.tenants, f.limit + 1],
  );
  const more = rows.length > f.limit;
  const items = rows.slice(0, f.limit).map((r) => ({
    id: r.id,
    at: r.at.toISOString(),
    actor: r.actor,
    action: r.action,
    tenant: r.tenant_id,
    targetType: r.target_type,
    targetId: r.target_id,
    reason: r.reason,
    detail: r.detail,
  }));
  return { items, nextCursor: more ? items[items.length - 1].id : null };
}

/** Live workers first, then those stopped or silent in the last 24 hours. */
export async function listWorkers(db: pg.Pool, heartbeatSeconds: number) {
  const { rows } = await db.query(
    `SELECT id, host, pid, concurrency, started_at, last_heartbeat_at, stopped_at, current_tasks::text[] AS current_tasks,
            (stopped_at IS NULL AND last_heartbeat_at > now() - make_interval(secs => $1::double precision)) AS live
       FROM workers WHERE stopped_at IS NULL OR stopped_at > now() - interval '24 hours'
      ORDER BY live DESC, last_heartbeat_at DESC LIMIT 500`,
    [Math.max(heartbeatSeconds * 3, 30)],
  );
  return {
    items: rows.map((w) => ({
      id: w.id,
      host: w.host,
      pid: w.pid,
      concurrency: w.concurrency,
      live: w.live,
      startedAt: w.started_at.toISOString(),
      lastHeartbeatAt: w.last_heartbeat_at.toISOString(),
      stoppedAt: w.stopped_at?.toISOString() ?? null,
      currentTasks: w.current_tasks,
    })),
  };
}
