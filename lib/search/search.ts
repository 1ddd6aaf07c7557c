import type pg from "pg";
import { withTransaction } from "../db/pool";
import type { Embedder } from "../embedding/types";
import { toVectorLiteral } from "../embedding/types";

export type SearchHit = { documentKey: string; versionNumber: number; chunkId: string; sectionPath: string; text: string; score: number; level: number };

/**
 * Reads only chunks of the index version each document's search pointer names (so never a
 * half-built one), in one tenant, visible to the caller's principals (empty ACL = whole tenant).
 * HNSW iterative scans keep filtered queries from losing recall.
 */
export async function search(
  pool: pg.Pool,
  embedder: Embedder,
  q: { tenant: string; query: string; topK: number; principals: string[]; level?: number },
): Promise<SearchHit[]> {
  const [vec] = await embedder.embed([q.query], AbortSignal.timeout(30_000));
  const dims = embedder.dimensions;
  return withTransaction(pool, async (tx) => {
    await tx.query(`SET LOCAL hnsw.ef_search = 100`);
    await tx.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
    const { rows } = await tx.query(
      `SELECT x.key, x.version_number, x.chunk_id, x.section_path, x.text, x.level, 1 - x.distance AS score
         FROM (
           SELECT d.key, sp.version_number, c.chunk_id, c.section_path, c.text, c.level,
                  c.embedding::vector(${dims}) <=> $2::vector(${dims}) AS distance
             FROM chunks c
             JOIN search_pointers sp ON sp.index_version_id = c.index_version_id
             JOIN documents d ON d.id = c.document_id AND d.deleted_at IS NULL
             JOIN document_versions dv ON dv.document_id = sp.document_id AND dv.version_number = sp.version_number
            WHERE c.tenant_id = $1 AND c.dims = ${dims}
              AND ($4::int IS NULL OR c.level = $4::int)
              AND (cardinality(dv.acl) = 0 OR dv.acl && $5::text[])
            ORDER BY c.embedding::vector(${dims}) <=> $2::vector(${dims})
            LIMIT $3) x
        ORDER BY x.distance`,
      [q.tenant, toVectorLiteral(vec), q.topK, q.level ?? null, q.principals],
    );
    return rows.map((r) => ({
      documentKey: r.key,
      versionNumber: r.version_number,
      chunkId: r.chunk_id,
      sectionPath: r.section_path,
      text: r.text,
      level: r.level,
      score: Number(r.score),
    }));
  });
}
