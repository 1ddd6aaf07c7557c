import "server-only";
import type pg from "pg";
import { transaction, iso, type Tx } from "../db/repository";
import { writeAudit } from "../audit/repository";
import { DomainError } from "../domain/errors";
import type { Principal } from "../auth/principal";
import { searchPrincipals } from "../auth/search-principals";
import { DEFAULT_SEARCH_MODE } from "../search/modes";
import * as q from "./sql";
import {
  setProblems,
  type EvaluationQuery,
  type EvaluationSetBody,
  type EvaluationSetView,
  type NewRunBody,
  type QueryResult,
  type RunSummary,
  type RunView,
} from "./schemas";

// Golden sets and evaluation runs for the API, the dashboard and the CLI (docs/evaluation.md).
// Each write is one transaction with its audit row. Runs are executed by a worker's maintenance
// (lib/evaluation/runner.ts); this module asks for them and reads them.

/**
 * Who may search as whom decides who may define, run and read an evaluation query that names
 * principals: exactly the rule of search (lib/auth/search-principals.ts). Own principals (or a
 * subset), an application token with search:principals, or a person of role operator or above
 * (audited); anyone else is refused with PRINCIPALS_NOT_ALLOWED.
 */
function checkPrincipals(p: Principal, queries: EvaluationQuery[]): { named: string[]; audited: boolean } {
  const named = new Set<string>();
  let audited = false;
  for (const qq of queries) {
    if (!qq.principals) continue;
    const as = searchPrincipals(p, qq.principals);
    if (as.audited) {
      audited = true;
      for (const n of as.principals) if (!p.principals.includes(n)) named.add(n);
    }
  }
  return { named: [...named].sort(), audited };
}

/** Whether the reader may see a query's results: it could search as the query's principals itself. */
function mayRead(p: Principal, principals: string[]): boolean {
  try {
    searchPrincipals(p, principals);
    return true;
  } catch (err) {
    if (err instanceof DomainError && err.code === "PRINCIPALS_NOT_ALLOWED") return false;
    throw err;
  }
}

type SetRow = { version: number; queries: EvaluationQuery[]; created_by: string; created_at: Date };

async function setView(tx: Tx, tenant: string): Promise<EvaluationSetView | null> {
  const rows = await tx.$queryRaw<(SetRow & { query_count: number })[]>`
    SELECT version, CASE WHEN version = max(version) OVER () THEN queries END AS queries, query_count, created_by, created_at
      FROM evaluation_sets WHERE tenant_id = ${tenant} ORDER BY version DESC LIMIT 200`;
  if (!rows.length) return null;
  const [latest] = rows;
  return {
    tenant,
    version: latest.version,
    queries: latest.queries,
    createdBy: latest.created_by,
    createdAt: latest.created_at.toISOString(),
    versions: rows.map((r) => ({
      version: r.version,
      queryCount: r.query_count,
      createdBy: r.created_by,
      createdAt: r.created_at.toISOString(),
    })),
  };
}

export async function getEvaluationSet(pool: pg.Pool, tenant: string): Promise<EvaluationSetView> {
  const view = await transaction(pool, (tx) => setView(tx, tenant));
  if (!view) throw new DomainError("NOT_FOUND", `tenant ${tenant} has no evaluation set`);
  return view;
}

/**
 * A new version of the tenant's set. Every problem the shape cannot catch is reported at once with
 * its own code (400 EVALUATION_SET_INVALID) and nothing is written; queries naming principals the
 * caller may not search as are refused (403 PRINCIPALS_NOT_ALLOWED).
 */
export async function putEvaluationSet(
  pool: pg.Pool,
  p: Principal,
  tenant: string,
  body: EvaluationSetBody,
): Promise<EvaluationSetView> {
  const problems = setProblems(body);
  if (problems.length)
    throw new DomainError(
      "EVALUATION_SET_INVALID",
      `${problems.length} problem${problems.length === 1 ? "" : "s"} in the set; the first: ${problems[0].message}`,
      { problems },
    );
  const as = checkPrincipals(p, body.queries);
  return transaction(pool, async (tx) => {
    // The tenant row, locked: two writers of one set take versions one after the other.
    const [t] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM tenants WHERE id = ${tenant} FOR UPDATE`;
    if (!t) throw new DomainError("NOT_FOUND", `tenant ${tenant} not found (it has never published)`);
    const [{ version }] = await tx.$queryRaw<{ version: number }[]>`
      INSERT INTO evaluation_sets (tenant_id, version, queries, query_count, created_by)
      SELECT ${tenant}, coalesce(max(version), 0) + 1, ${JSON.stringify(body.queries)}::jsonb, ${body.queries.length}::int, ${p.subject}
        FROM evaluation_sets WHERE tenant_id = ${tenant}
      RETURNING version`;
    await writeAudit(tx, {
      actor: p.subject,
      action: "evaluation_set.update",
      tenant,
      targetType: "evaluation_set",
      targetId: tenant,
      detail: { version, queries: body.queries.length, ...(as.named.length ? { principals: as.named } : {}) },
    });
    return (await setView(tx, tenant))!;
  });
}

type RunRow = {
  id: string;
  tenant_id: string;
  set_version: number;
  space_id: number;
  space_name: string;
  mode: RunSummary["mode"];
  top_k: number;
  trigger: RunSummary["trigger"];
  migration_id: string | null;
  state: RunSummary["state"];
  done: number;
  total: number;
  recall_at_10: number | null;
  mrr_at_10: number | null;
  ndcg_at_10: number | null;
  settings: Record<string, unknown>;
  error: string | null;
  requested_by: string;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  results?: QueryResult[] | null;
};

const RUN_SELECT = `SELECT r.id::text, r.tenant_id, r.set_version, r.space_id, s.name AS space_name, r.mode, r.top_k, r.trigger,
       r.migration_id::text, r.state, r.done, r.total, r.recall_at_10, r.mrr_at_10, r.ndcg_at_10, r.settings, r.error,
       r.requested_by, r.created_at, r.started_at, r.finished_at`;

function summaryOf(r: RunRow): RunSummary {
  return {
    id: r.id,
    tenant: r.tenant_id,
    state: r.state,
    trigger: r.trigger,
    migrationId: r.migration_id,
    setVersion: r.set_version,
    space: r.space_name,
    mode: r.mode,
    topK: r.top_k,
    progress: { done: r.done, total: r.total },
    figures:
      r.state === "DONE" && r.recall_at_10 !== null
        ? { recallAt10: r.recall_at_10, mrrAt10: r.mrr_at_10!, ndcgAt10: r.ndcg_at_10! }
        : null,
    error: r.error,
    requestedBy: r.requested_by,
    createdAt: r.created_at.toISOString(),
    startedAt: iso(r.started_at),
    finishedAt: iso(r.finished_at),
  };
}

/**
 * Asks for a run of the tenant's newest set (202: a worker's maintenance runs it). The space must be
 * the tenant's active one (the default) or its open migration's shadow (409 INVALID_STATE), and
 * the caller must be allowed to search as every query's principals; a run that searches as
 * principals beyond the caller's own is audited with them, as a search as them is.
 */
export async function startEvaluationRun(
  pool: pg.Pool,
  p: Principal,
  tenant: string,
  body: NewRunBody,
): Promise<RunSummary> {
  return transaction(pool, async (tx) => {
    const [set] = await tx.$queryRaw<{ version: number; queries: EvaluationQuery[] }[]>`
      SELECT version, queries FROM evaluation_sets WHERE tenant_id = ${tenant} ORDER BY version DESC LIMIT 1`;
    if (!set) throw new DomainError("NOT_FOUND", `tenant ${tenant} has no evaluation set: PUT one first`);
    const as = checkPrincipals(p, set.queries);
    const [space] = body.space
      ? await tx.$queryRaw<
          { id: number; name: string }[]
        >`SELECT id, name FROM embedding_spaces WHERE name = ${body.space}`
      : await tx.$queryRaw<{ id: number; name: string }[]>`
          SELECT s.id, s.name FROM embedding_spaces s
           WHERE s.id = coalesce((SELECT active_space_id FROM tenants WHERE id = ${tenant}), indexwright_default_space())`;
    if (!space) throw new DomainError("NOT_FOUND", `index space ${body.space} not found`);
    const role = q.spaceRole(tenant, space.id);
    const [{ role: where }] = await tx.$queryRawUnsafe<{ role: string | null }[]>(role.text, ...role.values);
    if (!where)
      throw new DomainError(
        "INVALID_STATE",
        `index space ${space.name} is neither tenant ${tenant}'s active space nor the shadow of its open migration`,
      );
    const mode = body.mode ?? DEFAULT_SEARCH_MODE;
    const topK = body.topK ?? 10;
    const [{ id }] = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO evaluation_runs (tenant_id, set_version, space_id, mode, top_k, total, settings, requested_by)
      VALUES (${tenant}, ${set.version}::int, ${space.id}::int, ${mode}, ${topK}::int, ${set.queries.length}::int,
              ${JSON.stringify({ space: { name: space.name }, pointers: where, mode, topK })}::jsonb, ${p.subject})
      RETURNING id::text`;
    await writeAudit(tx, {
      actor: p.subject,
      action: "evaluation.run",
      tenant,
      targetType: "evaluation_run",
      targetId: id,
      detail: {
        setVersion: set.version,
        space: space.name,
        mode,
        topK,
        ...(as.audited ? { principals: as.named } : {}),
      },
    });
    const [row] = await tx.$queryRawUnsafe<RunRow[]>(
      `${RUN_SELECT} FROM evaluation_runs r JOIN embedding_spaces s ON s.id = r.space_id WHERE r.id = $1::bigint`,
      id,
    );
    return summaryOf(row);
  });
}

/** The tenant's runs, newest first (figures only: what the history chart draws). */
export async function listEvaluationRuns(pool: pg.Pool, tenant: string, limit = 100): Promise<RunSummary[]> {
  return transaction(pool, async (tx) => {
    const rows = await tx.$queryRawUnsafe<RunRow[]>(
      `${RUN_SELECT} FROM evaluation_runs r JOIN embedding_spaces s ON s.id = r.space_id
        WHERE r.tenant_id = $1 ORDER BY r.id DESC LIMIT $2::int`,
      tenant,
      limit,
    );
    return rows.map(summaryOf);
  });
}

/**
 * One run with its per-query results. A query that searched as principals the reader may not
 * search as is `{index, hidden: true}`: its ranks and diagnoses are a search as those principals
 * (docs/evaluation.md#trust). The figures are the run's, over every query.
 */
export async function getEvaluationRun(pool: pg.Pool, p: Principal, tenant: string, id: string): Promise<RunView> {
  return transaction(pool, async (tx) => {
    const [row] = await tx.$queryRawUnsafe<RunRow[]>(
      `${RUN_SELECT}, r.results FROM evaluation_runs r JOIN embedding_spaces s ON s.id = r.space_id
        WHERE r.tenant_id = $1 AND r.id = $2::bigint`,
      tenant,
      id,
    );
    if (!row) throw new DomainError("NOT_FOUND", `evaluation run ${id} of tenant ${tenant} not found`);
    return {
      ...summaryOf(row),
      settings: row.settings,
      queries:
        row.results?.map((r) => (mayRead(p, r.principals) ? r : { index: r.index, hidden: true as const })) ?? null,
    };
  });
}
