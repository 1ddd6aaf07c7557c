// Statements of evaluation runs and of the diagnosis of a miss (docs/evaluation.md), one function
// per statement, on raw pg: the worker runs them (worker/loop.ts maintain()), so does a switch's
// gate; neither may reach Prisma. test/evaluation/sql.snapshot.test.ts renders each one.
import type { Statement } from "../db/pool";
import { vectorCast } from "../db/vector-index";
import { DOCUMENT_STATE_SQL, LATEST_TASK_JOIN, POINTER_JOIN } from "../documents/state";
import { MIGRATION_COLUMNS } from "../spaces/actions-sql";

/** A run whose worker stopped beating this long ago is taken over by the next claim. */
export const RUN_STALE_SECONDS = 120;
/** Claims of one run before it is FAILED (a run that kills its worker must not kill every worker). */
export const RUN_MAX_ATTEMPTS = 3;

export const RUN_COLUMNS = `r.id::text, r.tenant_id, r.set_version, r.space_id, r.mode, r.top_k, r.trigger, r.migration_id::text,
       r.state, r.done, r.total, r.attempts, r.claimed_by, r.recall_at_10, r.mrr_at_10, r.ndcg_at_10, r.settings,
       r.error, r.requested_by, r.created_at, r.started_at, r.finished_at`;

/**
 * Takes the oldest waiting run (or one whose worker went quiet) for `worker`: RUNNING, one more
 * attempt, progress from zero. SKIP LOCKED: workers whose maintenance runs at once take different
 * runs. The attempt is the run's fence: progress and the result are written only under it.
 */
export function claimRun(worker: string): Statement {
  return {
    text: `UPDATE evaluation_runs r
   SET state = 'RUNNING', attempts = r.attempts + 1, claimed_by = $1, heartbeat_at = now(), done = 0,
       started_at = coalesce(r.started_at, now())
 WHERE r.id = (SELECT id FROM evaluation_runs
                WHERE trigger <> 'gate'
                  AND (state = 'PENDING' OR (state = 'RUNNING' AND heartbeat_at < now() - interval '${RUN_STALE_SECONDS} seconds'))
                ORDER BY id
                LIMIT 1
                FOR UPDATE SKIP LOCKED)
RETURNING ${RUN_COLUMNS}`,
    values: [worker],
  };
}

/**
 * Queues a scheduled run (newest set, the tenant's active space, `mode`, topK 10) for every tenant
 * with a set whose newest scheduled run was asked for `minutes` ago or longer (or never). Every
 * worker's maintenance offers it; the partial unique index evaluation_runs_one_open_scheduled keeps
 * one open per tenant: two passes at once both find no recent run, and the second insert waits
 * for the first's and then does nothing. A pass that starts after another committed sees its run.
 * Returns the runs queued (id, tenant).
 */
export function enqueueScheduledRuns(minutes: number, mode: string, requestedBy: string): Statement {
  return {
    text: `INSERT INTO evaluation_runs (tenant_id, set_version, space_id, mode, top_k, trigger, total, settings, requested_by)
SELECT s.tenant_id, s.version, sp.id, $2, 10, 'scheduled', s.query_count,
       jsonb_build_object('space', jsonb_build_object('name', sp.name), 'pointers', 'active', 'mode', $2::text, 'topK', 10), $3
  FROM (SELECT DISTINCT ON (tenant_id) tenant_id, version, query_count FROM evaluation_sets
         ORDER BY tenant_id, version DESC) s
  JOIN tenants t ON t.id = s.tenant_id
  JOIN embedding_spaces sp ON sp.id = coalesce(t.active_space_id, indexwright_default_space())
 WHERE NOT EXISTS (SELECT 1 FROM evaluation_runs r
                    WHERE r.tenant_id = s.tenant_id AND r.trigger = 'scheduled'
                      AND r.created_at > now() - make_interval(mins => $1::int))
ON CONFLICT (tenant_id) WHERE trigger = 'scheduled' AND state IN ('PENDING', 'RUNNING') DO NOTHING
RETURNING id::text, tenant_id`,
    values: [minutes, mode, requestedBy],
  };
}

/**
 * Queues a run of the tenant's newest set (if it has one) against `spaceId`, the space a switch or
 * switch-back just made active, in the switch's own transaction: it commits with the switch or not
 * at all. A worker's maintenance runs it (search's own pointers by then). Returns its id, if any.
 */
export function enqueueSwitchRun(
  tenantId: string,
  spaceId: number,
  migrationId: string,
  mode: string,
  requestedBy: string,
): Statement {
  return {
    text: `INSERT INTO evaluation_runs (tenant_id, set_version, space_id, mode, top_k, trigger, migration_id, total, settings, requested_by)
SELECT s.tenant_id, s.version, sp.id, $3, 10, 'switch', $4::bigint, s.query_count,
       jsonb_build_object('space', jsonb_build_object('name', sp.name), 'pointers', 'active', 'mode', $3::text, 'topK', 10), $5
  FROM (SELECT tenant_id, version, query_count FROM evaluation_sets WHERE tenant_id = $1 ORDER BY version DESC LIMIT 1) s
  JOIN embedding_spaces sp ON sp.id = $2
RETURNING id::text`,
    values: [tenantId, spaceId, mode, migrationId, requestedBy],
  };
}

/**
 * The newest finished run of every tenant, space and mode where the space is one search can read
 * for the tenant (its active space, or its open migration's shadow): what the metrics export. A
 * space the tenant left stops being a series, so a tenant is at most two spaces × three modes.
 */
export function latestFigures(): Statement {
  return {
    text: `SELECT DISTINCT ON (r.tenant_id, r.space_id, r.mode)
       r.tenant_id, sp.name AS space, r.mode, r.recall_at_10, r.mrr_at_10, r.ndcg_at_10,
       extract(epoch FROM now() - r.finished_at)::float8 AS age_seconds
  FROM evaluation_runs r
  JOIN tenants t ON t.id = r.tenant_id
  JOIN embedding_spaces sp ON sp.id = r.space_id
 WHERE r.state = 'DONE'
   AND (r.space_id = t.active_space_id
        OR EXISTS (SELECT 1 FROM space_migrations m WHERE m.tenant_id = r.tenant_id AND m.state IN ('BUILDING','READY','SWITCHED')
                     AND (CASE WHEN m.state = 'SWITCHED' THEN m.from_space_id ELSE m.to_space_id END) = r.space_id))
 ORDER BY r.tenant_id, r.space_id, r.mode, r.finished_at DESC, r.id DESC`,
    values: [],
  };
}

/** A run's set version's queries. */
export function setQueries(tenantId: string, version: number): Statement {
  return {
    text: `SELECT queries FROM evaluation_sets WHERE tenant_id = $1 AND version = $2`,
    values: [tenantId, version],
  };
}

/** The tenant's newest set version, with its queries (none: no row). */
export function latestSet(tenantId: string): Statement {
  return {
    text: `SELECT version, queries FROM evaluation_sets WHERE tenant_id = $1 ORDER BY version DESC LIMIT 1`,
    values: [tenantId],
  };
}

/** Progress, and the heartbeat that keeps the run from being taken over; fenced by the claim's attempt. */
export function runProgress(id: string, worker: string, attempt: number, done: number): Statement {
  return {
    text: `UPDATE evaluation_runs SET done = $4, heartbeat_at = now()
 WHERE id = $1::bigint AND claimed_by = $2 AND attempts = $3 AND state = 'RUNNING'`,
    values: [id, worker, attempt, done],
  };
}

export function finishRun(
  id: string,
  worker: string,
  attempt: number,
  out: { recallAt10: number; mrrAt10: number; ndcgAt10: number; results: unknown; settings: unknown; total: number },
): Statement {
  return {
    text: `UPDATE evaluation_runs
   SET state = 'DONE', done = $8, recall_at_10 = $4, mrr_at_10 = $5, ndcg_at_10 = $6, results = $7::jsonb,
       settings = $9::jsonb, finished_at = now(), heartbeat_at = now(), error = NULL
 WHERE id = $1::bigint AND claimed_by = $2 AND attempts = $3 AND state = 'RUNNING'`,
    values: [
      id,
      worker,
      attempt,
      out.recallAt10,
      out.mrrAt10,
      out.ndcgAt10,
      JSON.stringify(out.results),
      out.total,
      JSON.stringify(out.settings),
    ],
  };
}

/** FAILED with the reason; fenced like the rest (null attempt: a run refused before its claim counted). */
export function failRun(id: string, worker: string, attempt: number, error: string): Statement {
  return {
    text: `UPDATE evaluation_runs SET state = 'FAILED', error = $4, finished_at = now()
 WHERE id = $1::bigint AND claimed_by = $2 AND attempts = $3 AND state = 'RUNNING'`,
    values: [id, worker, attempt, error.slice(0, 2000)],
  };
}

/** A run the caller executes itself (a switch's gate): RUNNING from the start, claimed by `worker`. */
export function insertOwnRun(r: {
  tenantId: string;
  setVersion: number;
  spaceId: number;
  mode: string;
  topK: number;
  migrationId: string | null;
  total: number;
  settings: unknown;
  requestedBy: string;
  worker: string;
}): Statement {
  return {
    text: `INSERT INTO evaluation_runs (tenant_id, set_version, space_id, mode, top_k, trigger, migration_id, state, total, attempts,
                             claimed_by, heartbeat_at, settings, requested_by, started_at)
VALUES ($1, $2, $3, $4, $5, 'gate', $6::bigint, 'RUNNING', $7, 1, $8, now(), $9::jsonb, $10, now())
RETURNING id::text`,
    values: [
      r.tenantId,
      r.setVersion,
      r.spaceId,
      r.mode,
      r.topK,
      r.migrationId,
      r.total,
      r.worker,
      JSON.stringify(r.settings),
      r.requestedBy,
    ],
  };
}

/**
 * What the product knows of each document a query should have found, in the order of `keys`, for
 * the diagnosis of a miss (lib/evaluation/diagnose.ts): whether it exists or is deleted, its
 * state and newest build (the document state rule, lib/documents/state.ts), the version the
 * searched space serves and whether that build is complete and ACTIVE, the ACLs of that version and
 * of the latest, and its newest MIGRATE task (a shadow space's builds). `shadow`: the space is read
 * through its space_pointers rows, as search over it does.
 * Parameters: $1 tenant, $2 keys, $3 space id.
 */
export function documentFacts(tenantId: string, keys: string[], spaceId: number, shadow: boolean): Statement {
  const pointer = shadow
    ? `SELECT p.index_version_id, p.version_number FROM space_pointers p JOIN index_versions iv ON iv.id = p.index_version_id
        WHERE p.document_id = d.id AND p.space_id = $3 AND iv.space_id = $3`
    : `SELECT p.index_version_id, p.version_number FROM search_pointers p JOIN index_versions iv ON iv.id = p.index_version_id
        WHERE p.document_id = d.id AND iv.space_id = $3`;
  return {
    text: `SELECT k.key, d.id AS document_id, d.deleted_at IS NOT NULL AS deleted, d.business_version,
       ${DOCUMENT_STATE_SQL} AS state,
       lt.task_id::text AS task_id, (SELECT t.task_type FROM index_tasks t WHERE t.task_id = lt.task_id) AS task_type,
       lt.status AS task_status, lt.error_code AS task_error_code, lt.error_message AS task_error_message,
       x.index_version_id::text AS index_version_id, x.version_number AS space_version,
       (xv.status = 'ACTIVE' AND xv.chunk_count = xv.expected_chunk_count) AS built,
       dv.acl AS served_acl, bv.acl AS latest_acl,
       mt.task_id::text AS migrate_task_id, mt.status AS migrate_status, mt.error_code AS migrate_error_code,
       mt.error_message AS migrate_error_message
  FROM unnest($2::text[]) WITH ORDINALITY k(key, ord)
  LEFT JOIN documents d ON d.tenant_id = $1 AND d.key = k.key
  ${POINTER_JOIN}
  ${LATEST_TASK_JOIN}
  LEFT JOIN LATERAL (${pointer}) x ON true
  LEFT JOIN index_versions xv ON xv.id = x.index_version_id
  LEFT JOIN document_versions dv ON dv.document_id = d.id AND dv.version_number = x.version_number
  LEFT JOIN document_versions bv ON bv.document_id = d.id AND bv.version_number = d.business_version
  LEFT JOIN LATERAL (
    SELECT t.task_id, t.status, t.error_code, t.error_message FROM index_tasks t
     WHERE t.document_id = d.id AND t.task_type = 'MIGRATE' ORDER BY t.task_id DESC LIMIT 1) mt ON true
 ORDER BY k.ord`,
    values: [tenantId, keys, spaceId],
  };
}

/**
 * Whether any chunk of an index version shares a term with the query: its words as the tenant's
 * text search configuration parses them (stemmed, stop words dropped), any one of them (the
 * search's own text query needs them all; a document that holds none of them was lost before
 * ranking, by parsing or chunking). `has_terms` false: the query has no searchable word at all.
 * Parameters: $1 index version, $2 text search configuration, $3 query.
 */
export function sharesTerms(indexVersionId: string, language: string, query: string): Statement {
  return {
    text: `SELECT numnode(q.tsq) > 0 AS has_terms,
       numnode(q.tsq) > 0 AND EXISTS (
         SELECT 1 FROM chunks c JOIN chunk_vectors v ON v.id = c.vector_id
          WHERE c.index_version_id = $1::uuid AND v.tsv @@ replace(q.tsq::text, ' & ', ' | ')::tsquery) AS shares
  FROM (SELECT plainto_tsquery($2::regconfig, $3) AS tsq) q`,
    values: [indexVersionId, language, query],
  };
}

/** The chunk of an index version nearest the query's vector, with its cosine similarity. $2: the vector. */
export function closestChunk(indexVersionId: string, dims: number, vector: string): Statement {
  const cast = vectorCast(dims);
  return {
    text: `SELECT c.chunk_id, c.section_path, left(c.text, 400) AS text, 1 - (v.embedding${cast} <=> $2${cast}) AS similarity
  FROM chunks c JOIN chunk_vectors v ON v.id = c.vector_id
 WHERE c.index_version_id = $1::uuid
 ORDER BY v.embedding${cast} <=> $2${cast}, c.chunk_id
 LIMIT 1`,
    values: [indexVersionId, vector],
  };
}

/** The best text rank (ts_rank_cd, as text search scores) of an index version's chunks for the query. */
export function bestTextRank(indexVersionId: string, language: string, query: string): Statement {
  return {
    text: `SELECT max(ts_rank_cd(v.tsv, q.tsq))::float8 AS score
  FROM (SELECT websearch_to_tsquery($2::regconfig, $3) AS tsq) q, chunks c JOIN chunk_vectors v ON v.id = c.vector_id
 WHERE c.index_version_id = $1::uuid AND v.tsv @@ q.tsq`,
    values: [indexVersionId, language, query],
  };
}

/**
 * Where a tenant's space is searched from: `active` when it is the tenant's active space, `shadow`
 * when it is its open migration's shadow (the candidate, or the previous space after the switch),
 * null when search cannot read it at all.
 */
export function spaceRole(tenantId: string, spaceId: number): Statement {
  return {
    text: `SELECT CASE WHEN coalesce((SELECT active_space_id FROM tenants WHERE id = $1), indexwright_default_space()) = $2 THEN 'active'
            WHEN EXISTS (SELECT 1 FROM space_migrations m WHERE m.tenant_id = $1 AND m.state IN ('BUILDING','READY','SWITCHED')
                           AND (CASE WHEN m.state = 'SWITCHED' THEN m.from_space_id ELSE m.to_space_id END) = $2) THEN 'shadow'
       END AS role`,
    values: [tenantId, spaceId],
  };
}

/** Records what a switch's gate judged on the migration (the auto-switch's refusals, read by its next pass). */
export function recordGate(migrationId: string, gate: unknown): Statement {
  return {
    text: `UPDATE space_migrations SET gate = $2::jsonb WHERE id = $1::bigint AND state IN ('BUILDING','READY')`,
    values: [migrationId, JSON.stringify(gate)],
  };
}

/** One migration of the tenant, unlocked (the gate reads it before the switch locks it). */
export function migrationRow(tenantId: string, id: string): Statement {
  return {
    text: `SELECT ${MIGRATION_COLUMNS} FROM space_migrations m WHERE m.tenant_id = $1 AND m.id = $2::bigint`,
    values: [tenantId, id],
  };
}
