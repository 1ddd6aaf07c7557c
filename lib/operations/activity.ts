import "server-only";
import type pg from "pg";
import { prisma, Prisma } from "../db/repository";
import { ACTIVITY_RANGES, OUTCOMES, type ActivityRange, type Outcome } from "./range";
import type { SnapshotRow } from "./repository";

type BucketRow = { bucket: Date; status: Outcome; n: number };
type NowRow = { now: Date };

export type ThroughputPoint = { at: string } & Record<Outcome, number>;

/**
 * Tasks finished per minute by outcome over a range, and (for all-tenant callers) the backlog
 * history over the same range. Buckets are aligned to the bucket size on the database clock, and
 * empty buckets are filled with zeros so a quiet period shows as zero, not as a gap a line
 * would bridge. A tenant-limited caller's throughput counts its tenants' tasks only; the backlog
 * history is fleet-wide, so it gets none (as on the overview).
 *
 * Cost: tasks are found by finished_at, which no index covers, so this reads the task table once
 * per call; the page asks every 30 s, not at the overview's 5 s.
 */
export async function activity(pool: pg.Pool, opts: { range: ActivityRange; tenants: string[] | null }) {
  const db = prisma(pool);
  const r = ACTIVITY_RANGES[opts.range];
  const fleet = opts.tenants === null;
  const bin = Prisma.sql`date_bin(make_interval(secs => ${r.bucketSeconds}::double precision), finished_at, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;
  const [[{ now }], buckets, history] = await Promise.all([
    db.$queryRaw<NowRow[]>`SELECT now() AS now`,
    db.$queryRaw<BucketRow[]>`SELECT ${bin} AS bucket, status, count(*)::int AS n
        FROM index_tasks
       WHERE finished_at > now() - make_interval(secs => ${r.seconds}::double precision)
         AND status = ANY(${[...OUTCOMES]}::text[])
         AND (${opts.tenants}::text[] IS NULL OR tenant_id = ANY(${opts.tenants}::text[]))
       GROUP BY 1, 2`,
    fleet
      ? db.$queryRaw<SnapshotRow[]>`SELECT DISTINCT ON (b) taken_at, pending, retry_wait, running, dead, due, oldest_due_age_seconds, drift_count, latency_p50_seconds, latency_p95_seconds
          FROM (SELECT s.*, date_bin(make_interval(secs => ${historyStep(opts.range)}::double precision), taken_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS b
                  FROM backlog_snapshots s
                 WHERE taken_at > now() - make_interval(secs => ${r.seconds}::double precision)) w
         ORDER BY b, taken_at DESC`
      : ([] as SnapshotRow[]),
  ]);

  const step = r.bucketSeconds * 1000;
  const end = Math.floor(now.getTime() / step) * step;
  const start = end - Math.ceil(r.seconds / r.bucketSeconds) * step + step;
  const perMinute = 60 / r.bucketSeconds;
  const byBucket = new Map<number, ThroughputPoint>();
  for (let t = start; t <= end; t += step) byBucket.set(t, { at: new Date(t).toISOString(), SUCCEEDED: 0, DEAD: 0, RESOLVED: 0, SUPERSEDED: 0 });
  const totals: Record<Outcome, number> = { SUCCEEDED: 0, DEAD: 0, RESOLVED: 0, SUPERSEDED: 0 };
  for (const b of buckets) {
    totals[b.status] += b.n;
    const point = byBucket.get(b.bucket.getTime());
    // The oldest, partly covered bucket falls before `start`: counted in the totals only.
    if (point) point[b.status] = round(b.n * perMinute);
  }

  return {
    range: opts.range,
    generatedAt: now.toISOString(),
    bucketSeconds: r.bucketSeconds,
    scope: fleet ? ("fleet" as const) : ("tenants" as const),
    totals,
    throughput: [...byBucket.values()],
    history: history.map((h) => ({
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
  };
}

/** Snapshot spacing kept per range: every snapshot for an hour and a day, one per 15 minutes for a week. */
function historyStep(range: ActivityRange): number {
  return range === "7d" ? 900 : 1;
}

/** Four significant digits: one task in a 2-hour bucket is 0.008333 per minute, not 0.008. */
const round = (n: number) => Number(n.toPrecision(4));
