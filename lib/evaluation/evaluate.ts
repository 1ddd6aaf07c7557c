// Running a golden set against one index space and search mode, and the diagnosis of every miss
// (docs/evaluation.md). Search is the product's own (lib/search/search.ts searchIn), over the
// tenant's active space or over its shadow space's pointers, so a run measures what a caller of
// the search API would get. On raw pg: a worker's maintenance and a switch's gate run it.
import type pg from "pg";
import type { Embedder } from "../embedding/types";
import { toVectorLiteral } from "../embedding/types";
import { searchIn, type SearchSpace } from "../search/search";
import { TENANT_LANGUAGE_SQL, TENANT_SPACE_SQL } from "../search/sql";
import type { SearchMode } from "../search/modes";
import { asSpaceEmbedders, type SpaceEmbedders } from "../spaces/embedders";
import type { Space } from "../spaces/types";
import { DomainError } from "../domain/errors";
import { documentRanking, K, meanFigures, queryFigures, type Judged, type RankedDocument } from "./metrics";
import * as q from "./sql";
import type { Diagnosis, EvaluationQuery, QueryResult, WhyResult } from "./schemas";

/** Chunks the search for ranks past the answer reads (the search API's own largest hybrid depth). */
export const DEEP_CHUNKS = 300;

/** Where an evaluation searches: a space of the tenant, read as search reads it (active) or through its shadow pointers. */
export type EvaluationTarget = { tenant: string; space: Space; shadow: boolean; mode: SearchMode; topK: number };

export type EvaluationOutcome = {
  figures: { recallAt10: number; mrrAt10: number; ndcgAt10: number };
  results: QueryResult[];
  settings: Record<string, unknown>;
};

/**
 * The space a tenant's evaluation may read: its active space, or its open migration's shadow.
 * Any other is refused (INVALID_STATE): nothing keeps its pointers in step with what was published.
 */
export async function targetFor(
  pool: pg.Pool | pg.PoolClient,
  spaces: SpaceEmbedders,
  tenant: string,
  spaceId: number,
): Promise<{ space: Space; shadow: boolean }> {
  const space = await spaces.space(pool, spaceId);
  const { rows } = await pool.query<{ role: "active" | "shadow" | null }>(
    q.spaceRole(tenant, spaceId).text,
    q.spaceRole(tenant, spaceId).values,
  );
  const role = rows[0]?.role ?? null;
  if (!role)
    throw new DomainError(
      "INVALID_STATE",
      `index space ${space.name} is neither tenant ${tenant}'s active space nor the shadow of its open migration: nothing there follows what was published`,
    );
  return { space, shadow: role === "shadow" };
}

/** What a run records as the settings it used. */
export function settingsOf(t: EvaluationTarget): Record<string, unknown> {
  return {
    space: {
      id: t.space.id,
      name: t.space.name,
      provider: t.space.provider,
      model: t.space.model,
      dimensions: t.space.dimensions,
      chunker: { version: t.space.chunkerVersion, targetChars: t.space.chunkTargetChars },
    },
    pointers: t.shadow ? "shadow" : "active",
    mode: t.mode,
    topK: t.topK,
    k: K,
    deepChunks: DEEP_CHUNKS,
    level: "all",
  };
}

/** One embedding per distinct text for the length of an evaluation: the answer, the deep search and the closest chunk share it. */
function memo(e: Embedder): Embedder {
  const seen = new Map<string, Promise<number[]>>();
  return {
    model: e.model,
    dimensions: e.dimensions,
    embed: async (texts, signal) =>
      Promise.all(
        texts.map((t) => {
          let v = seen.get(t);
          if (!v) {
            v = e.embed([t], signal).then((r) => r[0]);
            seen.set(t, v);
            v.catch(() => seen.delete(t));
          }
          return v;
        }),
      ),
    unavailableForMs: e.unavailableForMs?.bind(e),
  };
}

type Ctx = {
  pool: pg.Pool;
  target: EvaluationTarget;
  where: SearchSpace;
  language: () => Promise<string>;
};

function contextOf(pool: pg.Pool, embedders: SpaceEmbedders, target: EvaluationTarget): Ctx {
  const where: SearchSpace = {
    space: target.space,
    embedder: memo(embedders.embedderFor(target.space)),
    shadow: target.shadow,
  };
  let lang: Promise<string> | null = null;
  return {
    pool,
    target,
    where,
    language: () =>
      (lang ??= pool.query<{ language: string }>(TENANT_LANGUAGE_SQL, [target.tenant]).then((r) => r.rows[0].language)),
  };
}

async function searchDocuments(ctx: Ctx, query: string, principals: string[], topK: number): Promise<RankedDocument[]> {
  const hits = await searchIn(ctx.pool, ctx.where, {
    tenant: ctx.target.tenant,
    query,
    topK,
    principals,
    mode: ctx.target.mode,
  });
  return documentRanking(hits);
}

type Facts = {
  key: string;
  document_id: string | null;
  deleted: boolean | null;
  business_version: number | null;
  state: string | null;
  task_id: string | null;
  task_type: string | null;
  task_status: string | null;
  task_error_code: string | null;
  task_error_message: string | null;
  index_version_id: string | null;
  space_version: number | null;
  built: boolean | null;
  served_acl: string[] | null;
  latest_acl: string[] | null;
  migrate_task_id: string | null;
  migrate_status: string | null;
  migrate_error_code: string | null;
  migrate_error_message: string | null;
};

const admits = (acl: string[] | null, principals: string[]) =>
  !acl || acl.length === 0 || acl.some((a) => principals.includes(a));

/**
 * Why each of `keys` is not among the first K documents of `answer`, judged stage by stage from the
 * product's own facts, the first stage that explains it winning: unknown or deleted; not
 * SEARCHABLE (its newest build's status and error code); not built in the space searched; excluded
 * by its ACL for the query's principals; no chunk shares a term of the query (the closest chunk
 * shown); else ranked at N (past the answer, or past K within it), with its score beside the K-th
 * document's.
 */
async function diagnose(
  ctx: Ctx,
  query: string,
  principals: string[],
  answer: RankedDocument[],
  keys: string[],
): Promise<Map<string, Diagnosis>> {
  const out = new Map<string, Diagnosis>();
  if (keys.length === 0) return out;
  const { target } = ctx;
  const facts = (
    await ctx.pool.query<Facts>(
      q.documentFacts(target.tenant, keys, target.space.id, target.shadow).text,
      q.documentFacts(target.tenant, keys, target.space.id, target.shadow).values,
    )
  ).rows;
  let deep: Promise<RankedDocument[]> | null = null;
  const kth = answer[Math.min(K, answer.length) - 1]?.score ?? null;
  for (const f of facts) {
    out.set(f.key, await stageOf(ctx, f, query, principals, answer, kth, () => (deep ??= deepSearch())));
  }
  return out;
  function deepSearch() {
    return searchDocuments(ctx, query, principals, DEEP_CHUNKS);
  }
}

async function stageOf(
  ctx: Ctx,
  f: Facts,
  query: string,
  principals: string[],
  answer: RankedDocument[],
  kthScore: number | null,
  deep: () => Promise<RankedDocument[]>,
): Promise<Diagnosis> {
  const { target } = ctx;
  if (!f.document_id)
    return {
      stage: "UNKNOWN",
      message: `no document ${f.key} in tenant ${target.tenant} (never published, or renamed)`,
    };
  if (f.deleted) return { stage: "DELETED", message: `${f.key} is deleted` };
  if (f.state !== "SEARCHABLE" && f.state !== "UPDATING") {
    const task = f.task_id
      ? {
          taskId: f.task_id,
          type: f.task_type ?? "INDEX",
          status: f.task_status ?? "",
          errorCode: f.task_error_code,
          errorMessage: f.task_error_message,
        }
      : null;
    return {
      stage: "NOT_SEARCHABLE",
      message: `${f.key} is ${f.state}${task ? `: its newest build (task ${task.taskId}) is ${task.status}${task.errorCode ? ` with ${task.errorCode}` : ""}` : ""}`,
      state: f.state ?? "NOT_INDEXED",
      task,
    };
  }
  if (!f.index_version_id || !f.built) {
    const task = f.migrate_task_id
      ? {
          taskId: f.migrate_task_id,
          type: "MIGRATE",
          status: f.migrate_status ?? "",
          errorCode: f.migrate_error_code,
          errorMessage: f.migrate_error_message,
        }
      : null;
    return {
      stage: "NOT_BUILT",
      message: `${f.key} is not built in index space ${target.space.name}${task && target.shadow ? ` yet (its MIGRATE task ${task.taskId} is ${task.status}${task.errorCode ? ` with ${task.errorCode}` : ""})` : ""}`,
      space: target.space.name,
      task: target.shadow ? task : null,
    };
  }
  const servedOk = admits(f.served_acl, principals);
  const latestOk = f.business_version === f.space_version || admits(f.latest_acl, principals);
  if (!servedOk || !latestOk)
    return {
      stage: "ACL_EXCLUDED",
      message: `${f.key}'s ${!servedOk ? "served" : "latest"} version's ACL admits none of ${principals.length ? principals.join(", ") : "(no principals: only documents open to the whole tenant)"}`,
      principals,
      acl: { served: f.served_acl ?? [], latest: f.latest_acl ?? [] },
    };
  const terms = await ctx.pool.query<{ has_terms: boolean; shares: boolean }>(
    q.sharesTerms(f.index_version_id, await ctx.language(), query).text,
    q.sharesTerms(f.index_version_id, await ctx.language(), query).values,
  );
  const vectorOf = async () =>
    toVectorLiteral((await ctx.where.embedder.embed([query], AbortSignal.timeout(30_000)))[0]);
  if (terms.rows[0].has_terms && !terms.rows[0].shares) {
    const s = q.closestChunk(f.index_version_id, target.space.dimensions, await vectorOf());
    const [c] = (
      await ctx.pool.query<{ chunk_id: string; section_path: string; text: string; similarity: number }>(
        s.text,
        s.values,
      )
    ).rows;
    return {
      stage: "NO_SHARED_TERMS",
      message: `no chunk of ${f.key} (version ${f.space_version}) holds any word of the query: parsing or chunking lost it, or the query asks in other words`,
      closestChunk: c
        ? { chunkId: c.chunk_id, sectionPath: c.section_path, text: c.text, similarity: Number(c.similarity) }
        : null,
    };
  }
  const inAnswer = answer.findIndex((d) => d.key === f.key);
  let rank: number | null = inAnswer >= 0 ? inAnswer + 1 : null;
  let score: number | null = inAnswer >= 0 ? answer[inAnswer].score : null;
  if (rank === null) {
    const ranked = await deep();
    const i = ranked.findIndex((d) => d.key === f.key);
    if (i >= 0) {
      rank = i + 1;
      score = ranked[i].score;
    } else if (target.mode === "text") {
      const s = q.bestTextRank(f.index_version_id, await ctx.language(), query);
      const r = (await ctx.pool.query<{ score: number | null }>(s.text, s.values)).rows[0];
      score = r?.score === null || r?.score === undefined ? null : Number(r.score);
    } else {
      const s = q.closestChunk(f.index_version_id, target.space.dimensions, await vectorOf());
      const [c] = (await ctx.pool.query<{ similarity: number }>(s.text, s.values)).rows;
      score = c ? Number(c.similarity) : null;
    }
  }
  return {
    stage: "RANKED_LOW",
    message:
      rank === null
        ? `${f.key} is not within the first ${DEEP_CHUNKS} chunks of a ${target.mode} search`
        : `${f.key} ranks at ${rank} among the answer's documents (the first ${K} count)`,
    rank,
    score,
    kthScore,
    depth: DEEP_CHUNKS,
  };
}

/** One query: the answer, each relevant document's rank, the query's figures and a diagnosis of each miss. */
export async function evaluateQuery(ctx: Ctx, index: number, eq: EvaluationQuery): Promise<QueryResult> {
  const principals = [...new Set(eq.principals ?? [])];
  const answer = await searchDocuments(ctx, eq.query, principals, ctx.target.topK);
  const relevant = eq.relevant.map((key) => {
    const i = answer.findIndex((d) => d.key === key);
    return { key, grade: eq.grades?.[key] ?? 1, rank: i >= 0 ? i + 1 : null, score: i >= 0 ? answer[i].score : null };
  });
  const judged: Judged[] = relevant.map((r) => ({ grade: r.grade, rank: r.rank }));
  const misses = relevant.filter((r) => r.grade >= 1 && (r.rank === null || r.rank > K)).map((r) => r.key);
  const diagnoses = await diagnose(ctx, eq.query, principals, answer, misses);
  return {
    index,
    query: eq.query,
    principals,
    graded: eq.grades !== undefined && Object.keys(eq.grades).length > 0,
    relevant: relevant.map((r) => ({ ...r, diagnosis: diagnoses.get(r.key) ?? null })),
    answer: answer.slice(0, K),
    ...queryFigures(judged),
  };
}

/** A whole set, query by query in order; `progress` after each (a worker beats and counts with it). */
export async function evaluateSet(
  pool: pg.Pool,
  embedders: SpaceEmbedders | Embedder,
  target: EvaluationTarget,
  queries: EvaluationQuery[],
  progress?: (done: number) => Promise<void>,
): Promise<EvaluationOutcome> {
  const ctx = contextOf(pool, asSpaceEmbedders(embedders), target);
  const results: QueryResult[] = [];
  for (const [i, eq] of queries.entries()) {
    results.push(await evaluateQuery(ctx, i, eq));
    await progress?.(i + 1);
  }
  return { figures: meanFigures(results), results, settings: settingsOf(target) };
}

/**
 * "Why isn't this document in my results?": one document, one query, as `principals`, with the
 * same stages as a run's misses; null diagnosis when it is in the first K.
 */
export async function whyNot(
  pool: pg.Pool,
  embedders: SpaceEmbedders | Embedder,
  target: EvaluationTarget,
  input: { key: string; query: string; principals: string[] },
): Promise<{ rank: number | null; answer: RankedDocument[]; diagnosis: Diagnosis | null }> {
  const ctx = contextOf(pool, asSpaceEmbedders(embedders), target);
  const answer = await searchDocuments(ctx, input.query, input.principals, target.topK);
  const i = answer.findIndex((d) => d.key === input.key);
  const rank = i >= 0 ? i + 1 : null;
  if (rank !== null && rank <= K) return { rank, answer: answer.slice(0, K), diagnosis: null };
  const d = await diagnose(ctx, input.query, input.principals, answer, [input.key]);
  return { rank, answer: answer.slice(0, K), diagnosis: d.get(input.key)! };
}

/** whyNot in the tenant's active space, as the why route answers it. */
export async function whyNotInActiveSpace(
  pool: pg.Pool,
  embedders: SpaceEmbedders | Embedder,
  input: { tenant: string; key: string; query: string; principals: string[]; mode: SearchMode; topK: number },
): Promise<WhyResult> {
  const spaces = asSpaceEmbedders(embedders);
  const { rows } = await pool.query<{ space_id: number }>(TENANT_SPACE_SQL, [input.tenant]);
  const space = await spaces.space(pool, rows[0].space_id);
  const r = await whyNot(
    pool,
    spaces,
    { tenant: input.tenant, space, shadow: false, mode: input.mode, topK: input.topK },
    input,
  );
  return {
    tenant: input.tenant,
    key: input.key,
    query: input.query,
    searchedAs: input.principals,
    space: space.name,
    mode: input.mode,
    topK: input.topK,
    rank: r.rank,
    found: r.rank !== null && r.rank <= K,
    diagnosis: r.diagnosis,
    answer: r.answer,
  };
}
