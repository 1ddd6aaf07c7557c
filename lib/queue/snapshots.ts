import type pg from "pg";

/**
 * Append one backlog snapshot for the charts, at most one per ~minute across all workers (the
 * NOT EXISTS guard makes concurrent workers race harmlessly). Counts read the partial indexes.
 */
export async function takeBacklogSnapshot(pool: pg.Pool, minIntervalSeconds = 55): Promise<boolean> {
  const r = await pool.query(
    `INSERT INTO backlog_snapshots (pending, retry_wait, running, dead, due, oldest_due_age_seconds, drift_count)
     SELECT
       (SELECT count(*) FROM index_tasks WHERE status = 'PENDING'),
       (SELECT count(*) FROM index_tasks WHERE status = 'RETRY_WAIT'),
       (SELECT count(*) FROM index_tasks WHERE status = 'RUNNING'),
       (SELECT count(*) FROM index_tasks WHERE status = 'DEAD'),
       (SELECT count(*) FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now()),
       (SELECT extract(epoch FROM now() - min(next_attempt_at)) FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') AND next_attempt_at <= now()),
       (SELECT count(*) FROM documents WHERE drifted)
     WHERE NOT EXISTS (SELECT 1 FROM backlog_snapshots WHERE taken_at > now() - make_interval(secs => $1::double precision))`,
    [minIntervalSeconds],
  );
  return (r.rowCount ?? 0) > 0;
}
