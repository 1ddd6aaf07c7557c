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
         t.freshness_target_seconds IS NOT NULL AS custom_target
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

/** Per tenant in scope (every one, with or without publishes): its objective and the window's counts. */
export function freshnessSummary(tenants: string[] | null, d: SloDefaults): Statement {
  return {
    text: `WITH ${EVENTS}
SELECT s.tenant_id, s.objective, s.target_seconds, s.custom_objective, s.custom_target,
       count(*) FILTER (WHERE e.outcome = 'good' AND e.decided_at > now() - make_interval(secs => $5::float8))::int AS good,
       count(*) FILTER (WHERE e.outcome = 'bad' AND e.decided_at > now() - make_interval(secs => $5::float8))::int AS bad,
       count(*) FILTER (WHERE e.outcome = 'pending')::int AS pending
  FROM scope s LEFT JOIN events e ON e.tenant_id = s.tenant_id
 GROUP BY s.tenant_id, s.objective, s.target_seconds, s.custom_objective, s.custom_target
 ORDER BY s.tenant_id
 LIMIT 1000`,
    values: [...base(tenants, d, reach(d)), d.windowDays * 86_400],
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
export function freshnessMetrics(d: SloDefaults): Statement {
  const windows = [...METRIC_WINDOWS.map(([, s]) => s), d.windowDays * 86_400];
  const cols = windows.flatMap((s) =>
    ["good", "bad"].map(
      (o) => `count(*) FILTER (WHERE e.outcome = '${o}' AND e.decided_at > now() - make_interval(secs => ${s}))::int`,
    ),
  );
  return {
    text: `WITH ${EVENTS}
SELECT s.tenant_id, s.objective, s.target_seconds, ARRAY[${cols.join(", ")}] AS counts
  FROM scope s LEFT JOIN events e ON e.tenant_id = s.tenant_id
 GROUP BY s.tenant_id, s.objective, s.target_seconds
 ORDER BY s.tenant_id
 LIMIT 1000`,
    values: base(null, d, reach(d, Math.max(...windows))),
  };
}
