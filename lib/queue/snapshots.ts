import type pg from "pg";
import { withTransaction } from "../db/pool";

/** Each snapshot's latency percentiles cover index tasks that finished in this window before it. */
export const LATENCY_WINDOW_SECONDS = 15 * 60;

/** Snapshots needed in the last 10 minutes before the cadence relaxes from warm-up to steady. */
export const WARM_UP_SNAPSHOTS = 8;

/**
 * Append one backlog snapshot for the charts across all workers (the NOT EXISTS guard makes
 * concurrent workers race harmlessly). Counts read the partial indexes. Until the last 10 minutes
 * hold WARM_UP_SNAPSHOTS, snapshots come every `warmUpIntervalSeconds`, so a fresh install (or one
 * back from a long stop) draws its charts within a minute; then every `minIntervalSeconds`.
 */
export async function takeBacklogSnapshot(
  pool: pg.Pool,
  minIntervalSeconds = 55,
  warmUpIntervalSeconds = 12,
): Promise<boolean> {
  const r = await pool.query(
    `WITH recent AS (
       -- Publish → searchable of index tasks that finished in the last LATENCY_WINDOW. Read through
       -- the (status, task_id) index, newest first and bounded, so a busy history costs the same.
       SELECT extract(epoch FROM finished_at - created_at) AS s
         FROM (SELECT task_type, created_at, finished_at FROM index_tasks WHERE status = 'SUCCEEDED' ORDER BY status, task_id DESC LIMIT 2000) t
        WHERE task_type IN ('INDEX', 'REINDEX') AND finished_at > now() - make_interval(secs => $2::double precision))
     INSERT INTO backlog_snapshots (pending, retry_wait, running, dead, due, oldest_due_age_seconds, drift_count, latency_p50_seconds, latency_p95_seconds)
     SELECT
       (SELECT count(*) FROM index_tasks WHERE status = 'PENDING'),
       (SELECT count(*) FROM index_tasks WHERE status = 'RETRY_WAIT'),
       (SELECT count(*) FROM index_tasks WHERE status = 'RUNNING'),
       (SELECT count(*) FROM index_tasks WHERE status = 'DEAD'),
       -- Due and its age count the work publishes wait for; a migration's backlog yields to it by design.
       (SELECT count(*) FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now() AND task_type <> 'MIGRATE'),
       (SELECT extract(epoch FROM now() - min(next_attempt_at)) FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now() AND task_type <> 'MIGRATE'),
       (SELECT count(*) FROM documents WHERE drifted),
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FROM recent),
       (SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY s) FROM recent)
     WHERE NOT EXISTS (
       SELECT 1 FROM backlog_snapshots
        WHERE taken_at > now() - make_interval(secs => CASE
                WHEN (SELECT count(*) FROM (SELECT 1 FROM backlog_snapshots WHERE taken_at > now() - interval '10 minutes' LIMIT $4) w) < $4
                THEN $3::double precision ELSE $1::double precision END))`,
    [minIntervalSeconds, LATENCY_WINDOW_SECONDS, warmUpIntervalSeconds, WARM_UP_SNAPSHOTS],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Granularity of task_outcome_counts; activity ranges whose bucket is a multiple of it read them. */
export const OUTCOME_BUCKET_SECONDS = 900;
/**
 * A bucket is sealed this long after it ends, and never while a transaction that started in it (or
 * before) is still open: finished_at is the finishing transaction's start time, so a task is
 * counted only if that transaction has committed by then. The open transactions are read from
 * pg_stat_activity (this database's client backends; those of another role are visible only with
 * pg_read_all_stats or the same role, which a deployment with one application role has).
 */
export const OUTCOME_SEAL_LAG_SECONDS = 300;
/** How far back the first roll-up (or one after a long stop) starts: the longest range plus a day. */
export const OUTCOME_KEEP_SECONDS = 8 * 86_400;
/** Counts older than this are deleted by the roll-up. */
export const OUTCOME_RETAIN_SECONDS = 35 * 86_400;

const BIN = `make_interval(secs => ${OUTCOME_BUCKET_SECONDS})`;
const ORIGIN = `TIMESTAMPTZ '2000-01-01 00:00:00+00'`;

/**
 * Counts the tasks finished in the buckets sealed since the last roll-up into task_outcome_counts,
 * per bucket, tenant and status, and moves the watermark past them: one transaction holding the
 * watermark row, so a bucket is counted exactly once however many workers try (the others skip).
 * A sealed bucket keeps the outcome each task had when it was counted: a DEAD task retried later
 * stays a death in its bucket and its success is counted where it finishes, both things that
 * happened. Returns the new watermark, or null when another worker holds it or nothing was sealed.
 */
export async function rollUpTaskOutcomes(pool: pg.Pool, opts: { asOf?: Date } = {}): Promise<Date | null> {
  // asOf stands in for the clock (tests that need buckets to have ended); otherwise the database's.
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ lo: Date; hi: Date }>(
      `SELECT greatest(coalesce(sealed_until, '-infinity'), date_bin(${BIN}, coalesce($3, now()) - make_interval(secs => $1), ${ORIGIN})) AS lo,
              least(date_bin(${BIN}, coalesce($3, now()) - make_interval(secs => $2), ${ORIGIN}),
                    date_bin(${BIN}, (SELECT min(xact_start) FROM pg_stat_activity
                                       WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()), ${ORIGIN})) AS hi
         FROM task_outcome_rollup WHERE id FOR UPDATE SKIP LOCKED`,
      [OUTCOME_KEEP_SECONDS, OUTCOME_SEAL_LAG_SECONDS, opts.asOf ?? null],
    );
    const w = rows[0];
    if (!w || w.hi <= w.lo) return null;
    await client.query(
      `INSERT INTO task_outcome_counts (bucket_start, tenant_id, status, n)
       SELECT date_bin(${BIN}, finished_at, ${ORIGIN}), tenant_id, status, count(*)
         FROM index_tasks WHERE finished_at >= $1 AND finished_at < $2
        GROUP BY 1, 2, 3
       -- Buckets are whole and aligned, so a bucket counted again (a watermark restored from a
       -- backup) is counted whole again: the new count replaces the old.
       ON CONFLICT (bucket_start, tenant_id, status) DO UPDATE SET n = excluded.n`,
      [w.lo, w.hi],
    );
    await client.query(`UPDATE task_outcome_rollup SET sealed_until = $1 WHERE id`, [w.hi]);
    await client.query(`DELETE FROM task_outcome_counts WHERE bucket_start < now() - make_interval(secs => $1)`, [
      OUTCOME_RETAIN_SECONDS,
    ]);
    return w.hi;
  });
}
