import type pg from "pg";
import { namedStatementsOn, preparedSettingFromEnv, runNamed } from "../db/prepared";
import { setting } from "../config";
import type { Embedder } from "../embedding/types";
import { toVectorLiteral } from "../embedding/types";
import { asSpaceEmbedders, type SpaceEmbedders } from "../spaces/embedders";
import type { Space } from "../spaces/types";
import {
  TENANT_LANGUAGE_SQL,
  TENANT_SPACE_SQL,
  tenantSizeSql,
  textSearchSql,
  vectorSearchSql,
  type SqlSpace,
} from "./sql";
import { RRF_K, type SearchMode } from "./modes";

export type SearchHit = {
  documentKey: string;
  versionNumber: number;
  chunkId: string;
  sectionPath: string;
  text: string;
  score: number;
  level: number;
};

/** Tenants with at most this many chunks (of the dimension) are searched exactly. */
// Read the way the configuration reads it: unset or empty means the default (Number("") would be 0).
const exactMax = setting("SEARCH_EXACT_MAX_CHUNKS") ?? "";
export const EXACT_SEARCH_MAX_CHUNKS = /^\d+$/.test(exactMax) ? Number(exactMax) : 5_000;

/**
 * HNSW search settings. ef_search is the candidate list of each index walk; the iterative scan
 * (pgvector 0.8) resumes the walk while too few chunks have passed the visibility test, up to
 * max_scan_tuples index tuples, after which the search falls back to the exact ranking.
 */
export const HNSW_SEARCH = { efSearch: 100, maxScanTuples: 20_000 } as const;

/**
 * SEARCH_PREPARED_STATEMENTS (auto | true | false, parsed by lib/config.ts): search statements as
 * named statements, with the HNSW settings kept in the connection's session, so a search is one
 * round trip that the server neither parses nor, once it keeps a generic plan, plans again. On for
 * an external PostgreSQL unless "false", never on the embedded database (see lib/db/prepared.ts).
 * Session settings need session pooling: "false" behind a transaction-mode pooler.
 */
const PREPARED_SETTING = preparedSettingFromEnv("SEARCH_PREPARED_STATEMENTS");

/** The HNSW settings a connection's session holds (set by this module, outside any transaction). */
const sessionSettings = new WeakMap<pg.ClientBase, string>();

/** How long a tenant's size class (exact or HNSW) and text search configuration are reused. */
const SIZE_TTL_MS = 60_000;
const sizeCache = new WeakMap<pg.Pool, Map<string, { exact: boolean; at: number }>>();
const languageCache = new WeakMap<pg.Pool, Map<string, { language: string; at: number }>>();
/**
 * A tenant's active space is kept for a second: a search that used the old one after a switch
 * finds none of its versions served and runs again in the new one (search()), so the cache can
 * only cost that one extra statement, never a stale answer.
 */
const SPACE_TTL_MS = 1_000;
const spaceCache = new WeakMap<pg.Pool, Map<string, { id: number; at: number }>>();

/** The tenant's active space id; `fresh` reads it again. */
async function tenantSpaceId(pool: pg.Pool, tenant: string, fresh = false): Promise<number> {
  let cache = spaceCache.get(pool);
  if (!cache) spaceCache.set(pool, (cache = new Map()));
  const hit = cache.get(tenant);
  if (!fresh && hit && Date.now() - hit.at < SPACE_TTL_MS) return hit.id;
  const id = (await pool.query<{ space_id: number }>(TENANT_SPACE_SQL, [tenant])).rows[0].space_id;
  cache.set(tenant, { id, at: Date.now() });
  return id;
}

/**
 * Where a search reads: the tenant's active space and the embedder of its queries. `shadow`: the
 * space is the tenant's shadow space (a migration's candidate, or the previous space after its
 * switch), read through its `space_pointers` (evaluations and the gate of a switch; search never).
 */
export type SearchSpace = { space: Space; embedder: Embedder; shadow?: boolean };

/** A tenant's text search configuration, kept for a minute like its size class. */
async function tenantLanguage(pool: pg.Pool, tenant: string): Promise<string> {
  let cache = languageCache.get(pool);
  if (!cache) languageCache.set(pool, (cache = new Map()));
  const hit = cache.get(tenant);
  if (hit && Date.now() - hit.at < SIZE_TTL_MS) return hit.language;
  const language = (await pool.query<{ language: string }>(TENANT_LANGUAGE_SQL, [tenant])).rows[0].language;
  cache.set(tenant, { language, at: Date.now() });
  return language;
}

type HitRow = {
  key: string;
  version_number: number;
  chunk_id: string;
  section_path: string;
  text: string;
  level: number;
  score: number;
};

export type SearchQuery = {
  tenant: string;
  query: string;
  topK: number;
  principals: string[];
  level?: number;
  /** vector (the default here), text or hybrid; see SEARCH_MODES. */
  mode?: SearchMode;
  exactMaxChunks?: number;
  /** Override HNSW_SEARCH (benchmarks and tests). */
  efSearch?: number;
  maxScanTuples?: number;
  /** Override SEARCH_PREPARED_STATEMENTS (benchmarks and tests); never on the embedded database. */
  prepared?: boolean;
};

export type SearchPlan = { hits: SearchHit[]; strategy: "exact" | "hnsw" | "hnsw+exact" | "text" };

/**
 * Search the tenant's active index space (docs/decisions/039-index-spaces.md). The statement reads
 * only versions of the space the query was embedded in, so a switch that committed between the
 * embedding and the statement leaves it nothing to read: an answer shorter than asked is checked
 * against the tenant's space once more, and run again in the new one if it moved.
 */
export async function search(
  pool: pg.Pool,
  embedders: Embedder | SpaceEmbedders,
  q: SearchQuery,
): Promise<SearchHit[]> {
  return (await searchAnswer(pool, embedders, q)).hits;
}

/** search() with the space that answered. */
export async function searchAnswer(
  pool: pg.Pool,
  embedders: Embedder | SpaceEmbedders,
  q: SearchQuery,
): Promise<{ hits: SearchHit[]; space: Space }> {
  const spaces = asSpaceEmbedders(embedders);
  const at = async (id: number): Promise<SearchSpace> => {
    const space = await spaces.space(pool, id);
    return { space, embedder: spaces.embedderFor(space) };
  };
  const first = await at(await tenantSpaceId(pool, q.tenant));
  const hits = await searchIn(pool, first, q);
  if (hits.length >= q.topK) return { hits, space: first.space };
  const now = await tenantSpaceId(pool, q.tenant, true);
  if (now === first.space.id) return { hits, space: first.space };
  const again = await at(now);
  return { hits: await searchIn(pool, again, q), space: again.space };
}

/** One search in one space, by mode. */
export async function searchIn(pool: pg.Pool, where: SearchSpace, q: SearchQuery): Promise<SearchHit[]> {
  const mode = q.mode ?? "vector";
  if (mode === "vector") return (await searchWithPlan(pool, where, q)).hits;
  if (mode === "text") return textSearch(pool, where.space, q, where.shadow);
  return hybridSearch(pool, where, q);
}

/** The active space of a tenant and its embedder (benchmarks and tests that call searchWithPlan). */
export async function tenantSearchSpace(
  pool: pg.Pool,
  embedders: Embedder | SpaceEmbedders,
  tenant: string,
): Promise<SearchSpace> {
  const spaces = asSpaceEmbedders(embedders);
  const space = await spaces.space(pool, await tenantSpaceId(pool, tenant, true));
  return { space, embedder: spaces.embedderFor(space) };
}

/** Candidates each list of a hybrid search contributes to the fusion. */
export function hybridDepth(topK: number): number {
  return Math.min(Math.max(topK * 3, 30), 300);
}

/**
 * Full-text hits: the same visibility rules as vector search (search pointer, tenant, ACL,
 * embedding space), ranked by ts_rank_cd. Needs no embedding, so it answers while the provider is
 * down.
 */
export async function textSearch(pool: pg.Pool, space: Space, q: SearchQuery, shadow = false): Promise<SearchHit[]> {
  const language = await tenantLanguage(pool, q.tenant);
  // Unnamed on purpose: the query's words are a parameter, and how many chunks match them decides
  // the plan (the GIN index for a rare term); a generic plan cannot see that.
  const { rows } = await pool.query<HitRow>(textSearchSql(sqlSpace(space, shadow), limitClass(q.topK)), [
    q.tenant,
    q.query,
    q.level ?? null,
    q.principals,
    language,
  ]);
  return rows.slice(0, q.topK).map((r) => toHit(r, Number(r.score)));
}

/**
 * Vector and text hits fused by reciprocal rank fusion: each list ranks up to hybridDepth(topK)
 * chunks, a chunk scores the sum of 1 / (RRF_K + rank) over the lists it is in (k = 60, as in the
 * original paper: it damps the weight of the very top ranks so neither list dominates), and the
 * best topK are answered with that fused score. Ties keep the vector order. Ranks, not scores,
 * are fused: cosine similarity and ts_rank_cd are on unrelated scales.
 */
export async function hybridSearch(pool: pg.Pool, where: SearchSpace, q: SearchQuery): Promise<SearchHit[]> {
  const depth = hybridDepth(q.topK);
  // The text list needs no embedding: it runs while the query is embedded.
  const [vector, text] = await Promise.all([
    searchWithPlan(pool, where, { ...q, topK: depth }),
    textSearch(pool, where.space, { ...q, topK: depth }, where.shadow),
  ]);
  return fuse([vector.hits, text], q.topK);
}

/** Reciprocal rank fusion of ranked lists of hits (the first list wins ties). */
export function fuse(lists: SearchHit[][], topK: number): SearchHit[] {
  const fused = new Map<string, { hit: SearchHit; score: number; order: number }>();
  lists.forEach((list, l) =>
    list.forEach((hit, i) => {
      const key = `${hit.documentKey}\u0000${hit.chunkId}`;
      const add = 1 / (RRF_K + i + 1);
      const seen = fused.get(key);
      if (seen) seen.score += add;
      else fused.set(key, { hit, score: add, order: l * 1_000_000 + i });
    }),
  );
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, topK)
    .map((f) => ({ ...f.hit, score: f.score }));
}

/**
 * Reads only chunks of the index version each document's search pointer names (so never a
 * half-built or a retained rollback version), in one tenant, visible to the caller's principals
 * (empty ACL = whole tenant), and built in the query's index space: a vector from another model is
 * not comparable even when the dimensions agree.
 *
 * A tenant with at most `exactMaxChunks` chunks is ranked exactly (perfect recall, a few ms). A
 * larger one walks the HNSW index with the visibility test inside the walk (see
 * vectorCandidatesSql), so chunks the caller may not see never take a result slot. When the walk
 * stops short (the caller sees only a sliver of a large tenant), the exact ranking answers.
 */
export async function searchWithPlan(pool: pg.Pool, where: SearchSpace, q: SearchQuery): Promise<SearchPlan> {
  const { embedder } = where;
  const [[vec], named] = await Promise.all([
    embedder.embed([q.query], AbortSignal.timeout(30_000)),
    namedStatementsOn(pool, PREPARED_SETTING, q.prepared),
  ]);
  const dims = sqlSpace(where.space, where.shadow);
  const params = [q.tenant, toVectorLiteral(vec), q.level ?? null, q.principals];
  const client = await pool.connect();
  try {
    const ef = positiveInt(q.efSearch ?? HNSW_SEARCH.efSearch);
    const maxTuples = positiveInt(q.maxScanTuples ?? HNSW_SEARCH.maxScanTuples);
    // Simple protocol (several statements in one round trip); the integers are checked above.
    // jit off: the planner charges the visibility test to every row the walk may read, so a tenant
    // holding a small share of the table crossed jit_above_cost and each search spent ~55 ms
    // compiling for a 35 ms query (custom plans; the first five of a named statement too).
    const settings = `SET jit = off; SET hnsw.ef_search = ${ef}; SET hnsw.iterative_scan = relaxed_order; SET hnsw.max_scan_tuples = ${maxTuples}`;
    if (named && sessionSettings.get(client) !== settings) {
      // Session settings, sent only when this connection's differ: the search is then its one
      // statement. Nothing else reads hnsw.* (only search walks an HNSW index), and every search
      // sets its own before it runs. jit stays off for the pooled connection's other statements
      // too: the product's statements are short, and none is worth a compile.
      await client.query(settings);
      sessionSettings.set(client, settings);
    }
    if (await isExact(client, pool, q.tenant, dims.dims, q.exactMaxChunks ?? EXACT_SEARCH_MAX_CHUNKS, named)) {
      return { strategy: "exact", hits: await rank(client, dims, true, q.topK, params, named) };
    }
    // The walk, then the exact ranking where the walk stopped short of topK.
    const walk = async (): Promise<SearchPlan> => {
      const hits = await rank(client, dims, false, q.topK, params, named);
      return hits.length >= q.topK
        ? { strategy: "hnsw", hits }
        : { strategy: "hnsw+exact", hits: await rank(client, dims, true, q.topK, params, named) };
    };
    // A fallback to exact ranking reads a newer snapshot than the walk did; it answers from that
    // one snapshot alone.
    if (named) return await walk();
    // The embedded database's connections share one session: the settings stay inside a transaction.
    try {
      await client.query(`BEGIN READ ONLY; ${settings.replaceAll("SET ", "SET LOCAL ")}`);
      const plan = await walk();
      await client.query("COMMIT");
      return plan;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    }
  } finally {
    client.release();
  }
}

/** The space as the statements take it; `shadow` only when set, so the active space's object is as before. */
function sqlSpace(space: Space, shadow?: boolean): SqlSpace {
  return shadow ? { id: space.id, dims: space.dimensions, shadow: true } : { id: space.id, dims: space.dimensions };
}

function positiveInt(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive integer, got ${n}`);
  return n;
}

/**
 * Small tenants are ranked exactly. The size is a bounded count through the tenant index, kept
 * for a minute per tenant: near the threshold the count itself costs about as much as the search.
 */
async function isExact(
  client: pg.PoolClient,
  pool: pg.Pool,
  tenant: string,
  dims: number,
  exactMax: number,
  named: boolean,
): Promise<boolean> {
  let cache = sizeCache.get(pool);
  if (!cache) sizeCache.set(pool, (cache = new Map()));
  const key = `${tenant}\u0000${dims}\u0000${exactMax}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < SIZE_TTL_MS) return hit.exact;
  const size = await runNamed<{ n: number }>(
    client,
    { text: tenantSizeSql(dims), values: [tenant, exactMax + 1] },
    named,
  );
  const exact = size.rows[0].n <= exactMax;
  cache.set(key, { exact, at: Date.now() });
  return exact;
}

async function rank(
  client: pg.PoolClient,
  dims: SqlSpace,
  exact: boolean,
  limit: number,
  params: unknown[],
  named: boolean,
): Promise<SearchHit[]> {
  const { rows } = await runNamed<HitRow>(
    client,
    { text: vectorSearchSql(dims, exact, limitClass(limit)), values: params },
    named,
  );
  return rows.slice(0, limit).map((r) => toHit(r, 1 - Number(r.score)));
}

/**
 * The limit a statement is written with: the next of a few sizes at or above the one asked, and the
 * answer cut to what was asked (the ranking is total: distance, then chunk id). A handful of
 * statements per connection instead of one per topK and hybrid depth, each reaching its five calls
 * (and its generic plan) sooner.
 */
export function limitClass(limit: number): number {
  return LIMIT_CLASSES.find((c) => c >= limit) ?? limit;
}
const LIMIT_CLASSES = [10, 20, 50, 100, 200, 300];

function toHit(r: HitRow, score: number): SearchHit {
  return {
    documentKey: r.key,
    versionNumber: r.version_number,
    chunkId: r.chunk_id,
    sectionPath: r.section_path,
    text: r.text,
    level: r.level,
    score,
  };
}
