import type pg from "pg";

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
export async function takeBacklogSnapshot(pool: pg.Pool, minIntervalSeconds = 55, warmUpIntervalSeconds = 12): Promise<boolean> {
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
       (SELECT count(*) FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now()),
       (SELECT extract(epoch FROM now() - min(next_attempt_at)) FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now()),
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
