// The index write path's SQL (INDEX and REINDEX), one exported function per statement, each
// returning {text, values}; test/pipeline/sql.snapshot.test.ts renders them all, so a change here
// is a reviewed snapshot diff. The fence, the lock order and the pointer moves stay in
// lib/queue/sql.ts; these statements only read chunks or write the new index version's own rows.
import type { Statement } from "../db/pool";

/** Which embedding space a stored vector belongs to: reuse needs all three to match. */
export type ReuseSpace = { model: string; dimensions: number; chunkerVersion: string };

// Complete index versions of the document in the same space: the only ones whose vectors may be
// reused. BUILDING versions never commit, so they are never seen here. Each statement also names
// the document on index_versions: without it, a planner with stale statistics (a fresh or just
// bulk-loaded table) drove the lookup from index_versions and scanned every version in the table
// once per task (13.7 ms and 5,000 buffers at 1,000 documents, against 0.15 ms and 215 with it).
const REUSABLE = `iv.status IN ('READY', 'ACTIVE', 'RETIRED')
     AND iv.embedding_model = $3 AND iv.embedding_dimensions = $4 AND iv.chunker_version = $5`;

/**
 * Which of these content hashes already have a vector stored for this document in this space.
 * Only the hashes come back: the vectors stay in the database and are copied there by
 * insertIndexVersion, so a re-publish does not send every unchanged chunk's vector to the worker
 * and back.
 */
export function findReusableHashes(documentId: string, hashes: string[], space: ReuseSpace): Statement {
  return {
    text: `SELECT DISTINCT c.content_hash
  FROM chunks c
  JOIN index_versions iv ON iv.id = c.index_version_id
 WHERE c.document_id = $1 AND c.content_hash = ANY($2::text[])
   AND iv.document_id = $1 AND ${REUSABLE}`,
    values: [documentId, hashes, space.model, space.dimensions, space.chunkerVersion],
  };
}

export type IndexVersionRow = {
  id: string;
  tenantId: string;
  documentId: string;
  versionNumber: number;
  taskId: string;
  expectedChunkCount: number;
};

/** One record of the new version. `embedding` is a vector literal, or null to copy the stored vector of the same content. */
export type ChunkRow = { ordinal: number; chunkId: string; level: number; sectionPath: string; text: string; contentHash: string; embedding: string | null };

/**
 * The new index version (BUILDING) and all of its records in one statement. Records embedded by
 * this task carry their vector; every other record gets the vector stored for the same content
 * hash in a complete version of this document in the same space, copied inside the database. The
 * text always comes from this task's own parse, so the integrity check (content hash recomputed
 * from the stored text, the manifest digest) judges every record as before. The caller holds the
 * document row lock, which garbage collection also takes first, so a vector found here cannot
 * disappear before COMMIT. Returns `missing`, the records whose stored vector is gone altogether
 * (not written; the caller must not switch), and `inserted`, what the table took.
 */
export function insertIndexVersion(iv: IndexVersionRow, space: ReuseSpace, rows: ChunkRow[]): Statement {
  return {
    text: `WITH created AS (
  INSERT INTO index_versions (id, tenant_id, document_id, version_number, task_id, status, chunker_version, embedding_model, embedding_dimensions, expected_chunk_count)
  VALUES ($1, $2, $6, $7, $8, 'BUILDING', $5, $3, $4, $9)
  RETURNING id
), records AS (
  SELECT u.ordinal, u.chunk_id, u.level, u.section_path, u.text, u.content_hash,
         coalesce(u.embedding::vector, stored.embedding) AS embedding
    FROM unnest($10::int[], $11::text[], $12::smallint[], $13::text[], $14::text[], $15::text[], $16::text[])
           AS u(ordinal, chunk_id, level, section_path, text, content_hash, embedding)
    LEFT JOIN LATERAL (
      SELECT c.embedding
        FROM chunks c
        JOIN index_versions iv ON iv.id = c.index_version_id
       WHERE u.embedding IS NULL AND c.document_id = $6 AND c.content_hash = u.content_hash
         AND iv.document_id = $6 AND ${REUSABLE}
       LIMIT 1
    ) stored ON true
), inserted AS (
  INSERT INTO chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, level, section_path, text, content_hash, dims, embedding)
  SELECT created.id, r.ordinal, r.chunk_id, $2, $6, r.level, r.section_path, r.text, r.content_hash, $4, r.embedding
    FROM created CROSS JOIN records r
   WHERE r.embedding IS NOT NULL
  RETURNING 1
)
SELECT (SELECT count(*) FROM records WHERE embedding IS NULL)::int AS missing,
       (SELECT count(*) FROM inserted)::int AS inserted`,
    values: [
      iv.id,
      iv.tenantId,
      space.model,
      space.dimensions,
      space.chunkerVersion,
      iv.documentId,
      iv.versionNumber,
      iv.taskId,
      iv.expectedChunkCount,
      rows.map((r) => r.ordinal),
      rows.map((r) => r.chunkId),
      rows.map((r) => r.level),
      rows.map((r) => r.sectionPath),
      rows.map((r) => r.text),
      rows.map((r) => r.contentHash),
      rows.map((r) => r.embedding),
    ],
  };
}

/**
 * The verified version becomes READY, and the document's search pointer is locked for the move,
 * in one round trip. Lock order: the pointer row is taken here, after the document and the task;
 * the READY update touches only the version this transaction created, which no one else can see.
 */
export function markReadyAndLockPointer(indexVersionId: string, storedCount: number, documentId: string): Statement {
  return {
    text: `WITH ready AS (
  UPDATE index_versions SET status = 'READY', chunk_count = $2 WHERE id = $1 AND status = 'BUILDING'
)
SELECT index_version_id::text, version_number, pinned
  FROM search_pointers
 WHERE document_id = $3
   FOR UPDATE`,
    values: [indexVersionId, storedCount, documentId],
  };
}
