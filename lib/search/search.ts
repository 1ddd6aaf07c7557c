import type pg from "pg";
import { withTransaction } from "../db/pool";
import type { Embedder } from "../embedding/types";
import { toVectorLiteral } from "../embedding/types";
import { vectorCast } from "../db/vector-index";

export type SearchHit = { documentKey: string; versionNumber: number; chunkId: string; sectionPath: string; text: string; score: number; level: number };

const MAX_CANDIDATES = 2000;
/** Tenants with at most this many chunks (of the dimension) are searched exactly. */
// Read the way the configuration reads it: unset or empty means the default (Number("") would be 0).
export const EXACT_SEARCH_MAX_CHUNKS = /^\d+$/.test(process.env.SEARCH_EXACT_MAX_CHUNKS ?? "") ? Number(process.env.SEARCH_EXACT_MAX_CHUNKS) : 20_000;

type HitRow = { key: string; version_number: number; chunk_id: string; section_path: string; text: string; level: number; distance: number };

export type SearchQuery = { tenant: string; query: string; topK: number; principals: string[]; level?: number; exactMaxChunks?: number };

export async function search(pool: pg.Pool, embedder: Embedder, q: SearchQuery): Promise<SearchHit[]> {
  return (await searchWithPlan(pool, embedder, q)).hits;
}

/**
 * Reads only chunks of the index version each document's search pointer names (so never a
 * half-built one), in one tenant, visible to the caller's principals (empty ACL = whole tenant),
 * and built in the query's embedding space (same model and dimensions): a vector from another
 * model is not comparable even when the dimensions agree.
 *
 * Candidates come from chunk-local filters only (tenant, dimension, level): a tenant with at most
 * `exactMaxChunks` chunks is scanned exactly through its btree index (perfect recall, a few ms);
 * a larger one walks the HNSW index, where pgvector's iterative scan keeps going until enough rows
 * pass the tenant filter. The outer query keeps candidates that are live and visible; when
 * visibility filters drop too many, the candidate pool doubles and the query runs again, up to
 * MAX_CANDIDATES.
 */
export async function searchWithPlan(pool: pg.Pool, embedder: Embedder, q: SearchQuery): Promise<{ hits: SearchHit[]; strategy: "exact" | "hnsw"; candidates: number }> {
  const [vec] = await embedder.embed([q.query], AbortSignal.timeout(30_000));
  const dims = embedder.dimensions;
  const literal = toVectorLiteral(vec);
  return withTransaction(pool, async (tx) => {
    await tx.query(`SET LOCAL hnsw.ef_search = 100`);
    await tx.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
    // Bounded count through the tenant index: small tenants get an exact scan (the "+ 0" keeps
    // the planner off the HNSW index), large ones the approximate index walk.
    const size = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM chunks WHERE tenant_id = $1 AND dims = ${dims} LIMIT $2) s`,
      [q.tenant, (q.exactMaxChunks ?? EXACT_SEARCH_MAX_CHUNKS) + 1],
    );
    const exact = size.rows[0].n <= (q.exactMaxChunks ?? EXACT_SEARCH_MAX_CHUNKS);
    // The same cast as the dimension's index expression (vector, or halfvec above 2,000
    // dimensions), so the planner can match the index.
    const cast = vectorCast(dims);
    const distance = `c.embedding${cast} <=> $2${cast}`;
    const order = exact ? `(${distance}) + 0` : distance;
    let candidates = Math.max(q.topK * 4, 40);
    for (;;) {
      const { rows } = await tx.query<{ scanned: number; hits: HitRow[] }>(
        `WITH candidates AS (
           SELECT c.index_version_id, c.document_id, c.chunk_id, c.section_path, c.text, c.level,
                  ${distance} AS distance
             FROM chunks c
            WHERE c.tenant_id = $1 AND c.dims = ${dims} AND ($4::int IS NULL OR c.level = $4::int)
            ORDER BY ${order}
            LIMIT $6),
         visible AS (
           SELECT d.key, sp.version_number, x.chunk_id, x.section_path, x.text, x.level, x.distance
             FROM candidates x
             JOIN search_pointers sp ON sp.index_version_id = x.index_version_id AND sp.document_id = x.document_id
             JOIN index_versions iv ON iv.id = sp.index_version_id AND iv.embedding_model = $7
             JOIN documents d ON d.id = x.document_id AND d.deleted_at IS NULL
             JOIN document_versions dv ON dv.document_id = sp.document_id AND dv.version_number = sp.version_number
            WHERE cardinality(dv.acl) = 0 OR dv.acl && $5::text[]
            ORDER BY x.distance
            LIMIT $3)
         SELECT (SELECT count(*) FROM candidates)::int AS scanned,
                coalesce((SELECT json_agg(v ORDER BY v.distance) FROM visible v), '[]'::json) AS hits`,
        [q.tenant, literal, q.topK, q.level ?? null, q.principals, candidates, embedder.model],
      );
      const { scanned, hits } = rows[0];
      // Fewer candidates than asked for means the tenant has no more chunks: nothing left to find.
      if (hits.length >= q.topK || scanned < candidates || candidates >= MAX_CANDIDATES) {
        return { strategy: exact ? "exact" : "hnsw", candidates, hits: hits.map((r) => ({
          documentKey: r.key,
          versionNumber: r.version_number,
          chunkId: r.chunk_id,
          sectionPath: r.section_path,
          text: r.text,
          level: r.level,
          score: 1 - Number(r.distance),
        })) };
      }
      candidates = Math.min(candidates * 2, MAX_CANDIDATES);
    }
  });
}
