import type { Statement } from "../db/pool";
import type { SloDefaults } from "./limits";

// The freshness SLI, in one place: which publishes count, when each is decided, good or bad
// (docs/operations.md#freshness-slo). Read by the dashboard's repository (lib/slo/repository.ts)
// and by /api/metrics (lib/metrics.ts), so the figures on the page and in Prometheus are the same
// statement. Plain SQL text and values, no Prisma: lib/metrics.ts runs on the pg pool.
//
// A publish is an INDEX task (publish creates one per new version, in the transaction that
// creates the version; REINDEX and MIGRATE are operator and migration work, not publishes). Its
// deadline is created_at + the tenant's target. It is decided:
//   good  when it SUCCEEDED by the deadline (at finished_at);
//   good  when it was SUPERSEDED and a newer INDEX of the same document SUCCEEDED by this one's
//         deadline (at that success): the newer content is searchable in time, which is what the
//         publisher waits for;
//   bad   when it SUCCEEDED late, or is still unfinished at the deadline, or was SUPERSEDED with no
//         newer version searchable by then (at the deadline: a miss is a miss once the time is up,
//         whatever happens later);
//   bad   when it ended DEAD, CANCELLED or RESOLVED (at the earlier of its end and its deadline):
//         none of them made the version searchable;
//   not counted when it was SUPERSEDED by a delete of the document before its deadline (withdrawn:
//         nobody waits for it any more), or while it is unfinished within its deadline (pending).
// An event belongs to the window its decision falls in, so a short window (the burn-rate alerts')
// sees a stuck publish as soon as its deadline passes, not 28 days later.

/** The windows /api/metrics exports the ratio over: the burn-rate alerts' pairs, and the SLO's own. */
export const METRIC_WINDOWS = [
  ["5m", 300],
  ["30m", 1_800],
  ["1h", 3_600],
  ["2h", 7_200],
  ["6h", 21_600],
  ["1d", 86_400],
  ["3d", 259_200],
] as const;

/**
 * Every judged (or pending) publish of the tenants in scope, created since `$reach` seconds before
 * now minus the tenant's target: a decision never comes later than the deadline, so nothing older
 * can fall in the window. Read per tenant, the ended ones through index_tasks_freshness_idx
 * (tenant, created_at of ended INDEX tasks) and the unfinished ones through the due and lease
 * indexes (the backlog, whoever's), so the scan is the window's publishes and the backlog. Values: $1 tenants (null =
 * all), $2 default objective, $3 default target seconds, $4 reach in seconds.
 */
const EVENTS = `scope AS (
  SELECT t.id AS tenant_id,
         coalesce(t.freshness_objective, $2::float8) AS objective,
         coalesce(t.freshness_target_seconds, $3::int) AS target_seconds,
         t.freshness_objective IS NOT NULL AS custom_objective,
         t.freshness_target_seconds IS NOT NULL AS custom_target,
         -- Hours before this are counted in freshness_hours (lib/slo/rollup.ts), when they were
         -- rolled up under the target in force now; else nothing is (null).
         CASE WHEN t.freshness_rolled_target = coalesce(t.freshness_target_seconds, $3::int)
              THEN t.freshness_rolled_until END AS rolled_until
    FROM tenants t
   WHERE $1::text[] IS NULL OR t.id = ANY($1::text[])
), events AS (
  SELECT s.tenant_id, e.outcome, e.decided_at
    FROM scope s
    CROSS JOIN LATERAL (
      -- Ended tasks through index_tasks_freshness_idx (which holds only them, so a claim writes no
      -- entry there), unfinished ones through the status and lease indexes.
      SELECT it.task_id, it.document_id, it.version_number, it.status, it.created_at, it.finished_at,
             it.created_at + make_interval(secs => s.target_seconds) AS deadline
        FROM index_tasks it
       WHERE it.tenant_id = s.tenant_id AND it.task_type = 'INDEX'
         AND it.status IN ('SUCCEEDED','DEAD','SUPERSEDED','RESOLVED','CANCELLED')
         AND it.created_at > now() - make_interval(secs => $4::float8 + s.target_seconds)
      -- Each unfinished branch states its partial index's own predicate (the due index: waiting,
      -- not MIGRATE; the lease index: RUNNING), or the planner cannot use it and reads the table.
      UNION ALL
      SELECT it.task_id, it.document_id, it.version_number, it.status, it.created_at, it.finished_at,
             it.created_at + make_interval(secs => s.target_seconds) AS deadline
        FROM index_tasks it
       WHERE it.status IN ('PENDING','RETRY_WAIT') AND it.task_type <> 'MIGRATE'
         AND it.tenant_id = s.tenant_id AND it.task_type = 'INDEX'
         AND it.created_at > now() - make_interval(secs => $4::float8 + s.target_seconds)
      UNION ALL
      SELECT it.task_id, it.document_id, it.version_number, it.status, it.created_at, it.finished_at,
             it.created_at + make_interval(secs => s.target_seconds) AS deadline
        FROM index_tasks it
       WHERE it.status = 'RUNNING'
         AND it.tenant_id = s.tenant_id AND it.task_type = 'INDEX'
         AND it.created_at > now() - make_interval(secs => $4::float8 + s.target_seconds)
    ) p
    CROSS JOIN LATERAL (
      -- Superseded after its deadline, it was a miss by then: no successor (created when it was
      -- superseded) can have been searchable in time, so neither probe is needed.
      SELECT CASE WHEN p.status = 'SUPERSEDED' AND p.finished_at <= p.deadline
                  THEN (SELECT min(n.finished_at) FROM index_tasks n
                         WHERE n.document_id = p.document_id AND n.task_type = 'INDEX'
                           AND n.version_number > p.version_number AND n.status = 'SUCCEEDED'
                           AND n.finished_at <= p.deadline) END AS successor_at,
             p.status = 'SUPERSEDED' AND p.finished_at <= p.deadline AND EXISTS (
               SELECT 1 FROM index_tasks x
                WHERE x.document_id = p.document_id AND x.task_type = 'DELETE'
                  AND x.version_number >= p.version_number AND x.created_at <= p.deadline) AS deleted_in_time
      -- OFFSET 0 keeps this a subquery of its own: flattened, each CASE below would carry (and the
      -- planner cost) its own copy of the two probes.
      OFFSET 0
    ) sup
    CROSS JOIN LATERAL (
      SELECT CASE
               WHEN p.status = 'SUCCEEDED' AND p.finished_at <= p.deadline THEN 'good'
               WHEN p.status = 'SUCCEEDED' THEN 'bad'
               WHEN p.status IN ('DEAD', 'CANCELLED', 'RESOLVED') THEN 'bad'
               WHEN p.status = 'SUPERSEDED' AND sup.successor_at IS NOT NULL THEN 'good'
               WHEN p.status = 'SUPERSEDED' AND sup.deleted_in_time THEN NULL
               WHEN now() >= p.deadline THEN 'bad'
               ELSE 'pending'
             END AS outcome,
             CASE
               WHEN p.status = 'SUCCEEDED' AND p.finished_at <= p.deadline THEN p.finished_at
               WHEN p.status IN ('DEAD', 'CANCELLED', 'RESOLVED') THEN least(p.finished_at, p.deadline)
               WHEN p.status = 'SUPERSEDED' AND sup.successor_at IS NOT NULL THEN sup.successor_at
               WHEN now() >= p.deadline THEN p.deadline
             END AS decided_at
    ) e
   WHERE e.outcome IS NOT NULL
)`;

/**
 * Run before the statements above, in their transaction. The planner prices the per-publish probes
 * as if each read many rows, which puts a month of a busy fleet over jit_above_cost: compiling
 * then took seconds for a statement whose execution takes milliseconds (as search found,
 * lib/search/search.ts).
 */
export const SLI_SETTINGS = "SET LOCAL jit = off";

const reach = (d: SloDefaults, atLeastSeconds = 0) => Math.max(d.windowDays * 86_400, atLeastSeconds);
const base = (tenants: string[] | null, d: SloDefaults, reachSeconds: number) => [
  tenants,
  d.objective,
  d.targetSeconds,
  reachSeconds,
];

export type SummaryRow = {
  tenant_id: string;
  objective: number;
  target_seconds: number;
  custom_objective: boolean;
  custom_target: boolean;
  good: number;
  bad: number;
  pending: number;
};

/**
 * Per tenant in scope (every one, with or without publishes): its objective and the window's
 * counts. Hours rolled up are read from freshness_hours, the rest from the tasks (ROLLED_REACH says
 * how far back that rest reaches); the window's first, partial hour is left out once rolled up.
 */
export function freshnessSummary(tenants: string[] | null, d: SloDefaults, reachSeconds = reach(d)): Statement {
  return {
    text: `WITH ${EVENTS}, ${ROLLED("$6")}
SELECT s.tenant_id, s.objective, s.target_seconds, s.custom_objective, s.custom_target,
       (coalesce(r.good[1], 0) + count(*) FILTER (WHERE e.outcome = 'good' AND ${LIVE("$5")}))::int AS good,
       (coalesce(r.bad[1], 0) + count(*) FILTER (WHERE e.outcome = 'bad' AND ${LIVE("$5")}))::int AS bad,
       count(*) FILTER (WHERE e.outcome = 'pending')::int AS pending
  FROM scope s LEFT JOIN events e ON e.tenant_id = s.tenant_id LEFT JOIN rolled r ON r.tenant_id = s.tenant_id
 GROUP BY s.tenant_id, s.objective, s.target_seconds, s.custom_objective, s.custom_target, r.good, r.bad
 ORDER BY s.tenant_id
 LIMIT 1000`,
    values: [...base(tenants, d, reachSeconds), d.windowDays * 86_400, [d.windowDays * 86_400]],
  };
}

export type DailyRow = { day: string; good: number; bad: number };

/** One tenant's decided publishes per UTC day of the window, oldest first; days without any are left out. */
export function freshnessDaily(tenant: string, d: SloDefaults): Statement {
  return {
    text: `WITH ${EVENTS}
SELECT to_char(date_trunc('day', e.decided_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day,
       count(*) FILTER (WHERE e.outcome = 'good')::int AS good,
       count(*) FILTER (WHERE e.outcome = 'bad')::int AS bad
  FROM events e
 WHERE e.outcome IN ('good', 'bad') AND e.decided_at > now() - make_interval(secs => $5::float8)
 GROUP BY 1 ORDER BY 1`,
    values: [...base([tenant], d, reach(d)), d.windowDays * 86_400],
  };
}

export type MetricRow = {
  tenant_id: string;
  objective: number;
  target_seconds: number;
  /** Good and bad per window, in METRIC_WINDOWS order, then the SLO window. */
  counts: number[];
};

/** Every tenant's counts over each metric window and the SLO window, for /api/metrics: one statement. */
export function freshnessMetrics(d: SloDefaults, reachSeconds = reach(d, LONGEST_WINDOW)): Statement {
  const windows = [...METRIC_WINDOWS.map(([, s]) => s), d.windowDays * 86_400];
  const long = windows.filter((w) => w >= ROLLED_FROM_SECONDS);
  const cols = windows.flatMap((w) =>
    ["good", "bad"].map((o) => {
      const live = `count(*) FILTER (WHERE e.outcome = '${o}' AND ${w >= ROLLED_FROM_SECONDS ? LIVE(String(w)) : `e.decided_at > now() - make_interval(secs => ${w})`})`;
      return w >= ROLLED_FROM_SECONDS ? `(coalesce(r.${o}[${long.indexOf(w) + 1}], 0) + ${live})::int` : `${live}::int`;
    }),
  );
  return {
    text: `WITH ${EVENTS}, ${ROLLED("$5")}
SELECT s.tenant_id, s.objective, s.target_seconds, ARRAY[${cols.join(", ")}] AS counts
  FROM scope s LEFT JOIN events e ON e.tenant_id = s.tenant_id LEFT JOIN rolled r ON r.tenant_id = s.tenant_id
 GROUP BY s.tenant_id, s.objective, s.target_seconds, r.good, r.bad
 ORDER BY s.tenant_id
 LIMIT 1000`,
    values: [...base(null, d, reachSeconds), long],
  };
}

// Windows of a day or more are counted from the hourly roll-ups where they exist (lib/slo/rollup.ts),
// shorter ones always from the tasks. The longest metric window reaches this far from the tasks
// when the roll-ups are current.
export const ROLLED_FROM_SECONDS = 86_400;
const LONGEST_WINDOW = Math.max(...METRIC_WINDOWS.map(([, s]) => s));
const SHORT_REACH = Math.max(...METRIC_WINDOWS.map(([, s]) => s).filter((s) => s < ROLLED_FROM_SECONDS));

/**
 * Per tenant, the rolled-up counts of the windows in `param` (seconds, an int array), good and bad
 * in that order: the whole hours from the window's start up to the tenant's rolled_until.
 */
const ROLLED = (param: string) => `rolled AS (
  SELECT h.tenant_id,
         array_agg(g ORDER BY w.ord) AS good, array_agg(b ORDER BY w.ord) AS bad
    FROM scope s
    JOIN LATERAL unnest(${param}::int[]) WITH ORDINALITY AS w(secs, ord) ON true
    CROSS JOIN LATERAL (
      SELECT s.tenant_id, coalesce(sum(h.good), 0)::int AS g, coalesce(sum(h.bad), 0)::int AS b
        FROM freshness_hours h
       WHERE h.tenant_id = s.tenant_id AND h.hour < s.rolled_until
         AND h.hour >= now() - make_interval(secs => w.secs)
    ) h
   WHERE s.rolled_until IS NOT NULL
   GROUP BY h.tenant_id
)`;

/** The part of a long window (of `secs` seconds) counted from the tasks: decisions since the roll-ups end. */
const LIVE = (secs: string) =>
  `e.decided_at > now() - make_interval(secs => ${secs}::float8) AND (s.rolled_until IS NULL OR e.decided_at >= s.rolled_until)`;

/**
 * How far back (seconds) the statements above must read the tasks for the tenants in scope: the
 * oldest end of their roll-ups, at least the short windows; null when one of them has none under
 * the target in force (then the whole window is read from the tasks). Values: $1 tenants (null =
 * all), $2 default target seconds.
 */
export const ROLLED_REACH = `SELECT CASE WHEN bool_and(t.freshness_rolled_until IS NOT NULL
                             AND t.freshness_rolled_target = coalesce(t.freshness_target_seconds, $2::int))
            THEN extract(epoch FROM now() - min(t.freshness_rolled_until))::float8 END AS behind
  FROM tenants t WHERE $1::text[] IS NULL OR t.id = ANY($1::text[])`;

/** The reach for the statements above given ROLLED_REACH's answer. */
export function reachFor(d: SloDefaults, behind: number | null, atLeastSeconds = 0): number {
  if (behind === null) return reach(d, atLeastSeconds);
  return Math.min(reach(d, atLeastSeconds), Math.max(SHORT_REACH, behind));
}

/**
 * One tenant's decided publishes per UTC hour with decisions in [from, until), to insert into
 * freshness_hours (lib/slo/rollup.ts). The tasks are read an hour further back than `from` needs:
 * the web process's clock and the database's may differ a little.
 */
export function freshnessHoursSql(tenant: string, d: SloDefaults, from: Date, until: Date): Statement {
  const reachSeconds = Math.max(0, (Date.now() - from.getTime()) / 1000) + 3_600;
  return {
    text: `WITH ${EVENTS}
INSERT INTO freshness_hours (tenant_id, hour, good, bad)
SELECT e.tenant_id, date_trunc('hour', e.decided_at, 'UTC'),
       count(*) FILTER (WHERE e.outcome = 'good')::int, count(*) FILTER (WHERE e.outcome = 'bad')::int
  FROM events e
 WHERE e.outcome IN ('good', 'bad') AND e.decided_at >= $5::timestamptz AND e.decided_at < $6::timestamptz
 GROUP BY 1, 2
ON CONFLICT (tenant_id, hour) DO UPDATE SET good = EXCLUDED.good, bad = EXCLUDED.bad`,
    values: [...base([tenant], d, reachSeconds), from, until],
  };
}
