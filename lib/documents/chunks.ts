import "server-only";
import type pg from "pg";
import { prisma } from "../db/repository";
import { notFound } from "../http/errors";
import type { ChunkListQuery } from "./chunk-schemas";

// The chunk browser of one document: which index versions it has, and the chunks of one of them
// (section, level, text, whether the vector was reused), a page at a time in reading order.

type DocRow = { id: string; served_id: string | null };
type VersionRow = {
  id: string;
  version_number: number;
  status: string;
  chunker_version: string;
  embedding_model: string;
  embedding_dimensions: number;
  chunk_count: number;
  created_at: Date;
  serving: boolean;
  readable: boolean;
  chunks_reused: number | null;
};
type ChunkRow = { ordinal: number; chunk_id: string; level: number; section_path: string; text: string; chars: number; content_hash: string; reused: boolean };

/**
 * `principals` are the caller's own (a person's email and groups; an application has none). Text
 * is shown only where the version's ACL lets those principals read it, by the same rule search
 * applies (an empty ACL is the whole tenant), so browsing chunks shows no more than searching
 * would; the structure (sections, levels, sizes, reuse) is shown either way.
 *
 * `reused` says whether a complete, still stored, earlier index version of this document in the
 * same embedding space (model, dimensions, chunker version) holds the same text: the rule the
 * indexer reuses a vector by. Versions removed since by garbage collection no longer count, so
 * the task's own chunksReused (also returned) is the figure at the time it was built.
 */
export async function listChunks(pool: pg.Pool, tenant: string, key: string, principals: string[], q: ChunkListQuery) {
  const db = prisma(pool);
  const [doc] = await db.$queryRaw<DocRow[]>`SELECT d.id, sp.index_version_id AS served_id
      FROM documents d LEFT JOIN search_pointers sp ON sp.document_id = d.id
     WHERE d.tenant_id = ${tenant} AND d.key = ${key}`;
  if (!doc) throw notFound(`document ${tenant}/${key}`);

  const versions = await db.$queryRaw<VersionRow[]>`SELECT iv.id, iv.version_number, iv.status, iv.chunker_version, iv.embedding_model, iv.embedding_dimensions,
           iv.chunk_count, iv.created_at, iv.id = ${doc.served_id}::uuid AS serving,
           (cardinality(dv.acl) = 0 OR dv.acl && ${principals}::text[]) AS readable, t.chunks_reused
      FROM index_versions iv
      JOIN document_versions dv ON dv.document_id = iv.document_id AND dv.version_number = iv.version_number
      LEFT JOIN index_tasks t ON t.task_id = iv.task_id
     WHERE iv.document_id = ${doc.id}::uuid
     ORDER BY iv.created_at DESC LIMIT 50`;

  const chosen = q.indexVersion ? versions.find((v) => v.id === q.indexVersion) : (versions.find((v) => v.serving) ?? versions[0]);
  if (q.indexVersion && !chosen) throw notFound(`index version ${q.indexVersion} of ${tenant}/${key}`);

  let chunks: ChunkRow[] = [];
  if (chosen) {
    const level = q.level === undefined ? null : Number(q.level);
    const after = q.cursor === undefined ? -1 : Number(q.cursor);
    chunks = await db.$queryRaw<ChunkRow[]>`SELECT c.ordinal, c.chunk_id, c.level, c.section_path, c.text, char_length(c.text) AS chars, c.content_hash,
             EXISTS (SELECT 1 FROM chunks p JOIN index_versions piv ON piv.id = p.index_version_id
                      WHERE p.document_id = c.document_id AND p.content_hash = c.content_hash
                        AND piv.document_id = c.document_id AND piv.created_at < ${chosen.created_at}
                        AND piv.status IN ('READY', 'ACTIVE', 'RETIRED')
                        AND piv.embedding_model = ${chosen.embedding_model} AND piv.embedding_dimensions = ${chosen.embedding_dimensions}
                        AND piv.chunker_version = ${chosen.chunker_version}) AS reused
        FROM chunks c
       WHERE c.index_version_id = ${chosen.id}::uuid AND c.ordinal > ${after}::int AND (${level}::int IS NULL OR c.level = ${level}::int)
       ORDER BY c.ordinal LIMIT ${q.limit + 1}`;
  }
  const more = chunks.length > q.limit;
  const page = chunks.slice(0, q.limit);
  const readable = chosen?.readable ?? false;

  return {
    indexVersions: versions.map((v) => ({
      id: v.id,
      versionNumber: v.version_number,
      status: v.status,
      chunkerVersion: v.chunker_version,
      embeddingModel: v.embedding_model,
      embeddingDimensions: v.embedding_dimensions,
      chunkCount: v.chunk_count,
      chunksReusedAtBuild: v.chunks_reused,
      createdAt: v.created_at.toISOString(),
      serving: v.serving,
    })),
    indexVersionId: chosen?.id ?? null,
    textHidden: chosen ? !readable : false,
    items: page.map((c) => ({
      ordinal: c.ordinal,
      chunkId: c.chunk_id,
      level: c.level,
      sectionPath: c.section_path,
      text: readable ? c.text : null,
      chars: c.chars,
      contentHash: c.content_hash,
      reused: c.reused,
    })),
    nextCursor: more ? String(page[page.length - 1].ordinal) : null,
  };
}
