import type pg from "pg";
import type { Embedder } from "../embedding/types";
import { toVectorLiteral } from "../embedding/types";
import { tenantSizeSql, vectorSearchSql } from "./sql";

export type SearchHit = { documentKey: string; versionNumber: number; chunkId: string; sectionPath: string; text: string; score: number; level: number };

/** Tenants with at most this many chunks (of the dimension) are searched exactly. */
// Read the way the configuration reads it: unset or empty means the default (Number("") would be 0).
export const EXACT_SEARCH_MAX_CHUNKS = /^\d+$/.test(process.env.SEARCH_EXACT_MAX_CHUNKS ?? "") ? Number(process.env.SEARCH_EXACT_MAX_CHUNKS) : 20_000;

/**
 * HNSW search settings. ef_search is the candidate list of each index walk; the iterative scan
 * (pgvector 0.8) resumes the walk while too few chunks have passed the visibility test, up to
 * max_scan_tuples index tuples, after which the search falls back to the exact ranking.
 */
export const HNSW_SEARCH = { efSearch: 100, maxScanTuples: 20_000 } as const;

/** How long a tenant's size class (exact or HNSW) is reused before it is counted again. */
const SIZE_TTL_MS = 60_000;
const sizeCache = new WeakMap<pg.Pool, Map<string, { exact: boolean; at: number }>>();

type HitRow = { key: string; version_number: number; chunk_id: string; section_path: string; text: string; level: number; distance: number };

export type SearchQuery = {
  tenant: string;
  query: string;
  topK: number;
  principals: string[];
  level?: number;
  exactMaxChunks?: number;
  /** Override HNSW_SEARCH (benchmarks and tests). */
  efSearch?: number;
  maxScanTuples?: number;
};

export type SearchPlan = { hits: SearchHit[]; strategy: "exact" | "hnsw" | "hnsw+exact" };

export async function search(pool: pg.Pool, embedder: Embedder, q: SearchQuery): Promise<SearchHit[]> {
  return (await searchWithPlan(pool, embedder, q)).hits;
}

/**
 * Reads only chunks of the index version each document's search pointer names (so never a
 * half-built or a retained rollback version), in one tenant, visible to the caller's principals
 * (empty ACL = whole tenant), and built in the query's embedding space (same model and
 * dimensions): a vector from another model is not comparable even when the dimensions agree.
 *
 * A tenant with at most `exactMaxChunks` chunks is ranked exactly (perfect recall, a few ms). A
 * larger one walks the HNSW index with the visibility test inside the walk (see
 * vectorCandidatesSql), so chunks the caller may not see never take a result slot. When the walk
 * stops short (the caller sees only a sliver of a large tenant), the exact ranking answers.
 */
export async function searchWithPlan(pool: pg.Pool, embedder: Embedder, q: SearchQuery): Promise<SearchPlan> {
  const [vec] = await embedder.embed([q.query], AbortSignal.timeout(30_000));
  const dims = embedder.dimensions;
  const params = [q.tenant, toVectorLiteral(vec), q.topK, q.level ?? null, q.principals, embedder.model];
  const client = await pool.connect();
  try {
    if (await isExact(client, pool, q.tenant, dims, q.exactMaxChunks ?? EXACT_SEARCH_MAX_CHUNKS)) {
      return { strategy: "exact", hits: await rank(client, dims, true, params) };
    }
    const ef = positiveInt(q.efSearch ?? HNSW_SEARCH.efSearch);
    const maxTuples = positiveInt(q.maxScanTuples ?? HNSW_SEARCH.maxScanTuples);
    // One round trip for the transaction and its settings (simple protocol, integers checked above).
    await client.query(`BEGIN READ ONLY; SET LOCAL hnsw.ef_search = ${ef}; SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.max_scan_tuples = ${maxTuples}`);
    try {
      let hits = await rank(client, dims, false, params);
      const strategy = hits.length >= q.topK ? "hnsw" : "hnsw+exact";
      if (strategy === "hnsw+exact") hits = await rank(client, dims, true, params);
      await client.query("COMMIT");
      return { strategy, hits };
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    }
  } finally {
    client.release();
  }
}

function positiveInt(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive integer, got ${n}`);
  return n;
}

/**
 * Small tenants are ranked exactly. The size is a bounded count through the tenant index, kept
 * for a minute per tenant: at 20,000 chunks the count itself costs about as much as the search.
 */
async function isExact(client: pg.PoolClient, pool: pg.Pool, tenant: string, dims: number, exactMax: number): Promise<boolean> {
  let cache = sizeCache.get(pool);
  if (!cache) sizeCache.set(pool, (cache = new Map()));
  const key = `${tenant}\u0000${dims}\u0000${exactMax}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < SIZE_TTL_MS) return hit.exact;
  const size = await client.query<{ n: number }>(tenantSizeSql(dims), [tenant, exactMax + 1]);
  const exact = size.rows[0].n <= exactMax;
  cache.set(key, { exact, at: Date.now() });
  return exact;
}

async function rank(client: pg.PoolClient, dims: number, exact: boolean, params: unknown[]): Promise<SearchHit[]> {
  const { rows } = await client.query<HitRow>(vectorSearchSql(dims, exact), params);
  return rows.map((r) => ({
    documentKey: r.key,
    versionNumber: r.version_number,
    chunkId: r.chunk_id,
    sectionPath: r.section_path,
    text: r.text,
    level: r.level,
    score: 1 - Number(r.distance),
  }));
}
