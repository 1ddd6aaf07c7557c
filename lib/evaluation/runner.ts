// Evaluation runs in the background: a worker's maintenance (worker/loop.ts maintain()) claims
// waiting runs with FOR UPDATE SKIP LOCKED and executes them, counting progress; and the quality
// gate of an index-space switch, which runs the tenant's set on both spaces itself
// (docs/evaluation.md#the-gate). Raw pg only: the worker must not reach Prisma.
import type pg from "pg";
import { log } from "../log";
import { DEFAULT_SEARCH_MODE, type SearchMode } from "../search/modes";
import { SpaceEmbedders } from "../spaces/embedders";
import { coverageOf, shadowOf, type MigrationRow } from "../spaces/migrations";
import { hasSpaceIndex } from "../spaces/indexes";
import { evaluateSet, targetFor, type EvaluationOutcome } from "./evaluate";
import type { EvaluationQuery, GateVerdict, QueryLoss, QueryResult } from "./schemas";
import * as q from "./sql";

type RunRow = {
  id: string;
  tenant_id: string;
  set_version: number;
  space_id: number;
  mode: SearchMode;
  top_k: number;
  attempts: number;
  total: number;
};

const exec = (c: pg.Pool | pg.PoolClient, s: { text: string; values: unknown[] }) => c.query(s.text, s.values);

/** Progress is written at most this often (and after the last query). */
const PROGRESS_EVERY_MS = 1_000;

/**
 * Claims and runs waiting runs until none is left or `budgetMs` has passed; the number run. A run
 * whose worker went quiet (no beat for RUN_STALE_SECONDS) is taken over; one claimed
 * RUN_MAX_ATTEMPTS times is FAILED instead, so a run that kills its worker stops there.
 */
export async function runPendingEvaluations(
  pool: pg.Pool,
  embedders: SpaceEmbedders,
  worker: string,
  budgetMs = 60_000,
): Promise<number> {
  const until = Date.now() + budgetMs;
  let ran = 0;
  while (Date.now() < until) {
    const [run] = (await exec(pool, q.claimRun(worker))).rows as RunRow[];
    if (!run) break;
    ran++;
    if (run.attempts > q.RUN_MAX_ATTEMPTS) {
      await exec(pool, q.failRun(run.id, worker, run.attempts, `abandoned by ${q.RUN_MAX_ATTEMPTS} workers`));
      continue;
    }
    try {
      const [set] = (await exec(pool, q.setQueries(run.tenant_id, run.set_version))).rows as {
        queries: EvaluationQuery[];
      }[];
      const { space, shadow } = await targetFor(pool, embedders, run.tenant_id, run.space_id);
      let last = 0;
      const out = await evaluateSet(
        pool,
        embedders,
        { tenant: run.tenant_id, space, shadow, mode: run.mode, topK: run.top_k },
        set.queries,
        async (done) => {
          if (Date.now() - last < PROGRESS_EVERY_MS) return;
          last = Date.now();
          await exec(pool, q.runProgress(run.id, worker, run.attempts, done));
        },
      );
      await exec(pool, q.finishRun(run.id, worker, run.attempts, { ...out.figures, ...out, total: run.total }));
      log.info({ run: run.id, tenant: run.tenant_id, ...out.figures }, "evaluation run done");
    } catch (err) {
      log.warn({ run: run.id, err: (err as Error).message }, "evaluation run failed");
      await exec(pool, q.failRun(run.id, worker, run.attempts, (err as Error).message));
    }
  }
  return ran;
}

/**
 * The schedule (EVALUATION_SCHEDULE_MINUTES, 0 = off): queues a run of each tenant's newest set
 * against its active space in `mode` when the tenant's newest scheduled run was asked for at least
 * `minutes` ago; the same pass's runPendingEvaluations (or any worker's) runs it. Safe on every
 * worker at once: the statement's unique partial index lets one run per tenant wait or run
 * (lib/evaluation/sql.ts enqueueScheduledRuns). The runs queued, by tenant.
 */
export async function scheduleEvaluations(
  pool: pg.Pool,
  input: { minutes: number; worker: string; mode?: SearchMode },
): Promise<{ id: string; tenant: string }[]> {
  if (!(input.minutes > 0)) return [];
  const { rows } = await exec(
    pool,
    q.enqueueScheduledRuns(Math.round(input.minutes), input.mode ?? DEFAULT_SEARCH_MODE, `${input.worker} (schedule)`),
  );
  const queued = (rows as { id: string; tenant_id: string }[]).map((r) => ({ id: r.id, tenant: r.tenant_id }));
  if (queued.length)
    log.info({ runs: queued.length, tenants: queued.map((r) => r.tenant) }, "scheduled evaluation runs queued");
  return queued;
}

/**
 * The mode a switch's gate judges in by default (EVALUATION_GATE_MODE): vector, the one a change of
 * space changes most. The text list's terms are the same in every space (lib/search/sql.ts), so in
 * hybrid a small tenant's text matches carry the fused ranking and hide an embedding that answers
 * noise (measured: a noise candidate scored the active space's nDCG@10 of 1.0 in hybrid, 12
 * documents); vector mode still reflects the chunking as well as the model.
 */
export const GATE_MODE: SearchMode = "vector";
export const GATE_TOP_K = 10;

/** Per-query losses: queries whose nDCG@10 the candidate lowers, with the documents it ranks worse. */
export function lossesOf(active: QueryResult[], candidate: QueryResult[]): { wins: number; losses: QueryLoss[] } {
  let wins = 0;
  const losses: QueryLoss[] = [];
  active.forEach((a, i) => {
    const c = candidate[i];
    if (c.ndcg > a.ndcg + 1e-12) wins++;
    if (c.ndcg >= a.ndcg - 1e-12) return;
    const worse = (r: number | null) => (r === null ? Number.POSITIVE_INFINITY : r);
    losses.push({
      index: i,
      query: a.query,
      active: a.ndcg,
      candidate: c.ndcg,
      lost: a.relevant
        .map((r, j) => ({ key: r.key, activeRank: r.rank, candidateRank: c.relevant[j].rank }))
        .filter((r) => worse(r.candidateRank) > worse(r.activeRank)),
    });
  });
  losses.sort((x, y) => x.candidate - x.active - (y.candidate - y.active));
  return { wins, losses };
}

/**
 * The gate of a switch: the tenant's newest set run on the migration's active space (search's own
 * pointers) and its candidate (its shadow pointers), each stored as a run (trigger `gate`), and the
 * verdict: regressed when the candidate's nDCG@10 is lower by more than `tolerance`. Null when the
 * switch could not happen now anyway (not READY or BUILDING, not every document built, no index):
 * the switch refuses on its own terms and nothing is evaluated.
 */
export async function gateForSwitch(
  pool: pg.Pool,
  embedders: SpaceEmbedders,
  input: { tenant: string; migrationId: string; actor: string; tolerance: number; mode?: SearchMode },
): Promise<GateVerdict | null> {
  const mode = input.mode ?? GATE_MODE;
  // Read under no lock: the switch locks and checks again (lib/spaces/migrations.ts switchIn).
  const [row] = (await exec(pool, q.migrationRow(input.tenant, input.migrationId))).rows as MigrationRow[];
  if (!row || (row.state !== "READY" && row.state !== "BUILDING")) return null;
  const cover = await coverageOf(
    {
      rows: async <T>(s: { text: string; values: unknown[] }) => (await pool.query(s.text, s.values)).rows as T[],
      exec: async (s) => void (await pool.query(s.text, s.values)),
    },
    row.tenant_id,
    shadowOf(row),
  );
  if (cover.built < cover.total || cover.unverified > 0) return null;
  if (!(await hasSpaceIndex(pool, row.to_space_id))) return null;
  const [set] = (await exec(pool, q.latestSet(row.tenant_id))).rows as {
    version: number;
    queries: EvaluationQuery[];
  }[];
  if (!set) return { evaluated: false, reason: "NO_EVALUATION_SET" };
  const one = async (spaceId: number, shadow: boolean) => {
    const space = await embedders.space(pool, spaceId);
    const target = { tenant: row.tenant_id, space, shadow, mode, topK: GATE_TOP_K };
    const [{ id }] = (
      await exec(
        pool,
        q.insertOwnRun({
          tenantId: row.tenant_id,
          setVersion: set.version,
          spaceId,
          mode,
          topK: GATE_TOP_K,
          migrationId: row.id,
          total: set.queries.length,
          settings: { gate: true },
          requestedBy: input.actor,
          worker: "switch",
        }),
      )
    ).rows as { id: string }[];
    let out: EvaluationOutcome;
    try {
      out = await evaluateSet(pool, embedders, target, set.queries);
    } catch (err) {
      await exec(pool, q.failRun(id, "switch", 1, (err as Error).message));
      throw err;
    }
    await exec(pool, q.finishRun(id, "switch", 1, { ...out.figures, ...out, total: set.queries.length }));
    return { id, space, out };
  };
  const active = await one(row.from_space_id, false);
  const candidate = await one(row.to_space_id, true);
  const delta = candidate.out.figures.ndcgAt10 - active.out.figures.ndcgAt10;
  const { wins, losses } = lossesOf(active.out.results, candidate.out.results);
  const fig = (r: typeof active) => ({ space: r.space.name, runId: r.id, ...r.out.figures });
  return {
    evaluated: true,
    setVersion: set.version,
    mode,
    topK: GATE_TOP_K,
    tolerance: input.tolerance,
    active: fig(active),
    candidate: fig(candidate),
    delta,
    regressed: -delta > input.tolerance,
    wins,
    losses: losses.slice(0, 50),
  };
}

export { SpaceEmbedders };
