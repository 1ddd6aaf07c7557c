import "server-only";
import type pg from "pg";
import { ACTIVITY_RANGES, type ActivityRange, type Outcome } from "./range";
import { activityRows } from "./repository";

export type ThroughputPoint = { at: string } & Record<Outcome, number>;

/**
 * Tasks finished per minute by outcome over a range, and (for all-tenant callers) the backlog
 * history over the same range. Empty buckets are filled with zeros so a quiet period shows as
 * zero, not as a gap a line would bridge. A tenant-limited caller's throughput counts its
 * tenants' tasks only; the backlog history is fleet-wide, so it gets none (as on the overview).
 * The reads, and what they cost, are activityRows' in ./repository.ts.
 */
export async function activity(pool: pg.Pool, opts: { range: ActivityRange; tenants: string[] | null }) {
  const r = ACTIVITY_RANGES[opts.range];
  const fleet = opts.tenants === null;
  const { now, buckets, history } = await activityRows(pool, {
    seconds: r.seconds,
    bucketSeconds: r.bucketSeconds,
    historyStepSeconds: historyStep(opts.range),
    tenants: opts.tenants,
  });

  const step = r.bucketSeconds * 1000;
  const end = Math.floor(now.getTime() / step) * step;
  const start = end - Math.ceil(r.seconds / r.bucketSeconds) * step + step;
  const perMinute = 60 / r.bucketSeconds;
  const byBucket = new Map<number, ThroughputPoint>();
  for (let t = start; t <= end; t += step)
    byBucket.set(t, { at: new Date(t).toISOString(), SUCCEEDED: 0, DEAD: 0, RESOLVED: 0, SUPERSEDED: 0 });
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

/** Snapshot spacing kept per range before its newest hour (which keeps every snapshot): 5 minutes for a day, 15 for a week. */
function historyStep(range: ActivityRange): number {
  return range === "7d" ? 900 : range === "24h" ? 300 : 1;
}

/** Four significant digits: one task in a 2-hour bucket is 0.008333 per minute, not 0.008. */
const round = (n: number) => Number(n.toPrecision(4));
