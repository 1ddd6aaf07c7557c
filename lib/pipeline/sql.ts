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

// A batch of tasks (one worker slot, several documents): the same statements over several
// documents at once, so a batch of N documents costs one round trip where N tasks cost N.

/** The immutable versions a batch of tasks is bound to, one row per (document, version) found. */
export function loadVersions(refs: { documentId: string; versionNumber: number }[]): Statement {
  return {
    text: `SELECT v.document_id::text, v.version_number, v.content_type, v.content, v.abstract, v.overview
  FROM unnest($1::uuid[], $2::int[]) AS r(document_id, version_number)
  JOIN document_versions v ON v.document_id = r.document_id AND v.version_number = r.version_number`,
    values: [refs.map((r) => r.documentId), refs.map((r) => r.versionNumber)],
  };
}

// For a batch, the reusable versions of its documents are found once, as a materialized set, and
// each record is then looked up by (document, content hash) and checked against that set. Joined
// per record instead, a planner with stale statistics (a fresh or bulk-loaded table) took the
// embedding space's index on index_versions for one row and walked every version of the space for
// each record: 205 ms for 100 pairs at 1,300 versions, against 10 ms this way.
const REUSABLE_OF_BATCH = `reusable AS MATERIALIZED (
  SELECT iv.id FROM index_versions iv WHERE iv.document_id = ANY($6::uuid[]) AND ${REUSABLE}
)`;

/** findReusableHashes for several documents: which (document, content hash) pairs have a vector stored in this space. */
export function findReusableHashesMany(pairs: { documentId: string; contentHash: string }[], space: ReuseSpace): Statement {
  return {
    text: `WITH ${REUSABLE_OF_BATCH}
SELECT DISTINCT c.document_id::text, c.content_hash
  FROM unnest($1::uuid[], $2::text[]) AS u(document_id, content_hash)
  JOIN chunks c ON c.document_id = u.document_id AND c.content_hash = u.content_hash
 WHERE c.index_version_id IN (SELECT id FROM reusable)`,
    values: [pairs.map((p) => p.documentId), pairs.map((p) => p.contentHash), space.model, space.dimensions, space.chunkerVersion, [...new Set(pairs.map((p) => p.documentId))]],
  };
}

/** One record of a batch: the index version it belongs to, plus what ChunkRow holds. */
export type BatchChunkRow = ChunkRow & { indexVersionId: string; documentId: string; tenantId: string };

/**
 * insertIndexVersion for several documents in one statement: every new index version (BUILDING)
 * and every record, embedded or carried, exactly as insertIndexVersion does for one. Returns one
 * row per version with its `missing` records (stored vectors gone; not written) and `inserted`.
 */
export function insertIndexVersions(ivs: IndexVersionRow[], space: ReuseSpace, rows: BatchChunkRow[]): Statement {
  return {
    text: `WITH ${REUSABLE_OF_BATCH}, created AS (
  INSERT INTO index_versions (id, tenant_id, document_id, version_number, task_id, status, chunker_version, embedding_model, embedding_dimensions, expected_chunk_count)
  SELECT v.id, v.tenant_id, v.document_id, v.version_number, v.task_id, 'BUILDING', $5, $3, $4, v.expected
    FROM unnest($1::uuid[], $2::text[], $6::uuid[], $7::int[], $8::bigint[], $9::int[])
           AS v(id, tenant_id, document_id, version_number, task_id, expected)
  RETURNING id
), records AS (
  SELECT u.index_version_id, u.document_id, u.tenant_id, u.ordinal, u.chunk_id, u.level, u.section_path, u.text, u.content_hash,
         coalesce(u.embedding::vector, stored.embedding) AS embedding
    FROM unnest($10::uuid[], $11::uuid[], $12::text[], $13::int[], $14::text[], $15::smallint[], $16::text[], $17::text[], $18::text[], $19::text[])
           AS u(index_version_id, document_id, tenant_id, ordinal, chunk_id, level, section_path, text, content_hash, embedding)
    LEFT JOIN LATERAL (
      SELECT c.embedding
        FROM chunks c
       WHERE u.embedding IS NULL AND c.document_id = u.document_id AND c.content_hash = u.content_hash
         AND c.index_version_id IN (SELECT id FROM reusable)
       LIMIT 1
    ) stored ON true
), inserted AS (
  INSERT INTO chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, level, section_path, text, content_hash, dims, embedding)
  SELECT created.id, r.ordinal, r.chunk_id, r.tenant_id, r.document_id, r.level, r.section_path, r.text, r.content_hash, $4, r.embedding
    FROM records r JOIN created ON created.id = r.index_version_id
   WHERE r.embedding IS NOT NULL
  RETURNING index_version_id
)
SELECT v.id::text AS index_version_id,
       (SELECT count(*) FROM records r WHERE r.index_version_id = v.id AND r.embedding IS NULL)::int AS missing,
       (SELECT count(*) FROM inserted i WHERE i.index_version_id = v.id)::int AS inserted
  FROM unnest($1::uuid[]) AS v(id)`,
    values: [
      ivs.map((v) => v.id),
      ivs.map((v) => v.tenantId),
      space.model,
      space.dimensions,
      space.chunkerVersion,
      ivs.map((v) => v.documentId),
      ivs.map((v) => v.versionNumber),
      ivs.map((v) => v.taskId),
      ivs.map((v) => v.expectedChunkCount),
      rows.map((r) => r.indexVersionId),
      rows.map((r) => r.documentId),
      rows.map((r) => r.tenantId),
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

/** Index versions of a batch that failed their check or lost their stored vectors: removed before COMMIT, as a rollback would. */
export function dropBuildingVersions(indexVersionIds: string[]): Statement {
  return {
    text: `DELETE FROM index_versions WHERE id = ANY($1::uuid[]) AND status = 'BUILDING'`,
    values: [indexVersionIds],
  };
}

/** markReadyAndLockPointer for several documents: the verified versions become READY, their documents' pointers are locked in document id order. */
export function markReadyAndLockPointers(ready: { indexVersionId: string; storedCount: number }[], documentIds: string[]): Statement {
  return {
    text: `WITH ready AS (
  UPDATE index_versions iv SET status = 'READY', chunk_count = r.stored_count
    FROM unnest($1::uuid[], $2::int[]) AS r(id, stored_count)
   WHERE iv.id = r.id AND iv.status = 'BUILDING'
)
SELECT document_id::text, index_version_id::text, version_number, pinned
  FROM search_pointers
 WHERE document_id = ANY($3::uuid[])
 ORDER BY document_id
   FOR UPDATE`,
    values: [ready.map((r) => r.indexVersionId), ready.map((r) => r.storedCount), documentIds],
  };
}
