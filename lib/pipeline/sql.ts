// The index write path's SQL (INDEX and REINDEX), one exported function per statement, each
// returning {text, values}; test/pipeline/sql.snapshot.test.ts renders them all, so a change here
// is a reviewed snapshot diff. The fence, the lock order and the pointer moves stay in
// lib/queue/sql.ts; these statements only read chunks or write the new index version's own rows.
import type { Statement } from "../db/pool";

/** The index space a version is built in (embedding_spaces): vectors are reused only inside it. */
export type ReuseSpace = { id: number; model: string; dimensions: number; chunkerVersion: string };

// A vector is stored once per (document, content hash, embedding space) in chunk_vectors and
// referenced by the records of every index version holding that content. Its space is part of
// its key (docs/decisions/039-index-spaces.md), so finding it is one probe of the unique index.
// A stored vector is reusable whether or not a record still references it: it is the embedding
// of that text in that space either way (an unreferenced one is what a dropped build or garbage
// collection between two statements leaves, and collection removes it with its document's next sweep).
const SPACE = (n: number) => `v.space_id = $${n}`;

export type IndexVersionRow = {
  id: string;
  tenantId: string;
  documentId: string;
  versionNumber: number;
  taskId: string;
  expectedChunkCount: number;
};

/**
 * One record of a new version. `embedding` is a vector literal, or null to reference the stored
 * vector of the same content. `text` may be null when `embedding` is: the record then takes the
 * text stored with that vector, which has the same content hash (the integrity check recomputes
 * the hash from what was stored either way), so a re-publish sends only its new texts.
 */
export type ChunkRow = {
  indexVersionId: string;
  documentId: string;
  tenantId: string;
  ordinal: number;
  chunkId: string;
  level: number;
  sectionPath: string;
  text: string | null;
  contentHash: string;
  embedding: string | null;
};

/** The immutable versions a batch of tasks is bound to, one row per (document, version) found. */
export function loadVersions(refs: { documentId: string; versionNumber: number }[]): Statement {
  return {
    text: `SELECT v.document_id::text, v.version_number, v.content_type, v.content, v.abstract, v.overview
  FROM unnest($1::uuid[], $2::int[]) AS r(document_id, version_number)
  JOIN document_versions v ON v.document_id = r.document_id AND v.version_number = r.version_number`,
    values: [refs.map((r) => r.documentId), refs.map((r) => r.versionNumber)],
  };
}

/**
 * Which (document, content hash) pairs already have a vector stored in this space. Only the
 * hashes come back: new records reference the stored vectors in insertIndexVersions, so a
 * re-publish neither sends an unchanged chunk's vector through the worker nor stores it again.
 */
export function findReusableHashes(pairs: { documentId: string; contentHash: string }[], space: ReuseSpace): Statement {
  return {
    text: `SELECT v.document_id::text, v.content_hash
  FROM unnest($1::uuid[], $2::text[]) AS u(document_id, content_hash)
  JOIN chunk_vectors v ON v.document_id = u.document_id AND v.content_hash = u.content_hash AND ${SPACE(3)}`,
    values: [pairs.map((p) => p.documentId), pairs.map((p) => p.contentHash), space.id],
  };
}

/**
 * The new index versions (BUILDING) of a batch and all of their records in one statement. Records
 * embedded by this batch store their vector (unless the same content already has one); every
 * other record references the vector stored for its content hash in this space. A record's text
 * comes from this task's own parse, or (sent as null) from the stored vector of the same content
 * hash; the integrity check (content hash recomputed from the stored text and the parse's section
 * path, the manifest digest, the referenced vector's content and dimension) judges every record
 * alike. Returns one row per version with its `missing` records (stored vectors gone; not
 * written, and the caller must not switch it) and `inserted`, what the table took.
 *
 * The new vectors of the statement go into chunk_vectors with their text (the only rows that enter
 * the HNSW graph and the full-text GIN index; the text search terms are generated there),
 * at most one per (document, content hash); every record then references either one of them or
 * the vector already stored for its content. ON CONFLICT covers a vector stored since the reuse
 * lookup: the statement's snapshot does not see it, so that record counts as missing and the
 * caller's next round (reuse lookup, switch) finds it. The caller holds the document lock, which
 * garbage collection also takes first, so a stored vector found here stays until COMMIT.
 */
export function insertIndexVersions(ivs: IndexVersionRow[], space: ReuseSpace, rows: ChunkRow[]): Statement {
  return {
    text: `WITH created AS (
  INSERT INTO index_versions (id, tenant_id, document_id, version_number, task_id, status, chunker_version, embedding_model, embedding_dimensions, expected_chunk_count, space_id)
  SELECT v.id, v.tenant_id, v.document_id, v.version_number, v.task_id, 'BUILDING', $5, $3, $4, v.expected, $20
    FROM unnest($1::uuid[], $2::text[], $6::uuid[], $7::int[], $8::bigint[], $9::int[])
           AS v(id, tenant_id, document_id, version_number, task_id, expected)
  RETURNING id
), u AS (
  SELECT * FROM unnest($10::uuid[], $11::uuid[], $12::text[], $13::int[], $14::text[], $15::smallint[], $16::text[], $17::text[], $18::text[], $19::text[])
           AS u(index_version_id, document_id, tenant_id, ordinal, chunk_id, level, section_path, text, content_hash, embedding)
), new_vectors AS (
  INSERT INTO chunk_vectors (tenant_id, document_id, content_hash, embedding_model, dims, chunker_version, embedding, text, space_id)
  SELECT DISTINCT ON (u.document_id, u.content_hash) u.tenant_id, u.document_id, u.content_hash, $3, $4, $5, u.embedding::vector, u.text, $20
    FROM u
   WHERE u.embedding IS NOT NULL
   ORDER BY u.document_id, u.content_hash
  ON CONFLICT (document_id, content_hash, space_id) DO NOTHING
  RETURNING id, document_id, content_hash, text
), records AS (
  SELECT u.*, coalesce(nv.id, v.id) AS vector_id, coalesce(u.text, nv.text, v.text) AS stored_text
    FROM u
    LEFT JOIN new_vectors nv ON nv.document_id = u.document_id AND nv.content_hash = u.content_hash
    LEFT JOIN chunk_vectors v ON v.document_id = u.document_id AND v.content_hash = u.content_hash AND ${SPACE(20)}
), inserted AS (
  INSERT INTO chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, level, section_path, text, content_hash, dims, vector_id)
  SELECT r.index_version_id, r.ordinal, r.chunk_id, r.tenant_id, r.document_id, r.level, r.section_path, r.stored_text, r.content_hash, $4, r.vector_id
    FROM records r
   WHERE r.vector_id IS NOT NULL
  RETURNING index_version_id
)
SELECT v.id::text AS index_version_id,
       (SELECT count(*) FROM records r WHERE r.index_version_id = v.id AND r.vector_id IS NULL)::int AS missing,
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
      space.id,
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

/**
 * The verified versions become READY, and their documents' search pointers are locked for the move
 * (in document id order), in one round trip. Lock order: the pointer rows are taken here, after the
 * documents and the tasks; the READY update touches only versions this transaction created, which
 * no one else can see.
 */
export function markReadyAndLockPointers(
  ready: { indexVersionId: string; storedCount: number }[],
  documentIds: string[],
): Statement {
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
