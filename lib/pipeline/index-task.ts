import { createHash, randomUUID } from "node:crypto";
import { withTransaction } from "../db/pool";
import { assertHeld, complete, lockDocument, lockHeld, supersedeHeld, type Lease } from "../queue/engine";
import { TaskError } from "../queue/errors";
import type { CompleteStats } from "../queue/sql";
import { toVectorLiteral } from "../embedding/types";
import { parseDocumentAsync } from "./parse";
import { chunkSections, CHUNKER_VERSION, type Chunk } from "./chunker";
import { faultOn } from "../config";
import { manifestOf, verifyIndexVersion } from "./integrity";
import { movePointer } from "./pointer";
import type { TaskContext } from "./run";
import { STEP } from "../domain/constants";
import { log } from "../log";
import { stepDone, timeEmbedding } from "./metrics";

type Record_ = Chunk & { level: number };

/** Process-wide count of embedding batches, for FAULT_AFTER_CHUNK_BATCH. */
let batchesThisProcess = 0;

function die(reason: string): never {
  // A fault switch simulates a crash: no cleanup, no lease release, no answer.
  log.fatal({ fault: reason }, `fault switch ${reason}: exiting abruptly`);
  process.exit(137);
}

function levelRecord(lease: Lease, level: 0 | 1, text: string, ordinal: number): Record_ {
  const sectionPath = level === 0 ? "abstract" : "overview";
  const contentHash = createHash("sha256").update(`${sectionPath}\n${text}`).digest("hex");
  // Named like every other chunk (design §5.3): tenant, document, version, chunker version,
  // ordinal and content hash. A summary id shared across versions would let a hit of v1 and a hit
  // of v2 look like the same chunk; its embedding is still reused through the content hash.
  const chunkId = createHash("sha256")
    .update([lease.tenantId, lease.documentId, String(lease.versionNumber), CHUNKER_VERSION, `level${level}`, String(ordinal), contentHash].join("\u0000"))
    .digest("hex")
    .slice(0, 32);
  return { ordinal, sectionPath, text, contentHash, chunkId, level };
}

/**
 * INDEX and REINDEX (design §5): parse, chunk, reuse, embed with no transaction open, then one
 * short fenced transaction that writes, verifies against the parse manifest and switches.
 */
export async function runIndexTask({ pool, embedder, lease, hooks, opts }: TaskContext): Promise<CompleteStats | null> {
  // Step durations for the worker's metrics; each step is counted when it completes.
  let t = performance.now();
  // 1. The immutable version this task is bound to, never "the latest content".
  const version = (
    await pool.query<{ content_type: string; content: Buffer; abstract: string | null; overview: string | null }>(
      `SELECT content_type, content, abstract, overview FROM document_versions WHERE document_id = $1 AND version_number = $2`,
      [lease.documentId, lease.versionNumber],
    )
  ).rows[0];
  if (!version) throw new TaskError("INTERNAL_ERROR", `document version ${lease.versionNumber} not found`);
  hooks.signal.throwIfAborted();
  t = stepDone(STEP.LOAD, t);

  // 2–3. Parse and chunk deterministically.
  const sections = await parseDocumentAsync(version.content_type, new Uint8Array(version.content), { signal: hooks.signal });
  t = stepDone(STEP.PARSE, t);
  const chunks: Record_[] = chunkSections(sections, { tenantId: lease.tenantId, documentId: lease.documentId, versionNumber: lease.versionNumber }).map(
    (c) => ({ ...c, level: 2 }),
  );
  if (version.abstract?.trim()) chunks.push(levelRecord(lease, 0, version.abstract.trim(), chunks.length));
  if (version.overview?.trim()) chunks.push(levelRecord(lease, 1, version.overview.trim(), chunks.length));
  if (chunks.length === 0) throw new TaskError("EMPTY_DOCUMENT", "the document has no indexable text");
  const manifest = manifestOf(chunks);
  t = stepDone(STEP.CHUNK, t);

  // 4. Reuse embeddings of unchanged text from earlier complete index versions of this document.
  const hashes = [...new Set(chunks.map((c) => c.contentHash))];
  const reused = new Map<string, string>();
  const prior = await pool.query<{ content_hash: string; embedding: string }>(
    `SELECT DISTINCT ON (c.content_hash) c.content_hash, c.embedding::text AS embedding
       FROM chunks c JOIN index_versions iv ON iv.id = c.index_version_id
      WHERE c.document_id = $1 AND c.content_hash = ANY($2::text[])
        AND iv.status IN ('READY', 'ACTIVE', 'RETIRED')
        AND iv.embedding_model = $3 AND iv.embedding_dimensions = $4 AND iv.chunker_version = $5`,
    [lease.documentId, hashes, embedder.model, embedder.dimensions, CHUNKER_VERSION],
  );
  for (const r of prior.rows) reused.set(r.content_hash, r.embedding);

  // 5. Embed what is new, in batches bounded by count and bytes; no transaction is open here.
  const todo = hashes.filter((h) => !reused.has(h));
  const textOf = new Map(chunks.map((c) => [c.contentHash, c.text]));
  const vectors = new Map<string, string>(reused);
  const total = chunks.length;
  const reusedChunks = chunks.filter((c) => reused.has(c.contentHash)).length;
  hooks.progress(reusedChunks, total);
  let batches = 0;
  let i = 0;
  while (i < todo.length) {
    hooks.signal.throwIfAborted();
    // A superseded or taken-over task must not spend another provider call.
    await assertHeld(pool, lease);
    const batch: string[] = [];
    let bytes = 0;
    while (i < todo.length && batch.length < opts.batchSize) {
      const len = Buffer.byteLength(textOf.get(todo[i])!);
      if (batch.length > 0 && bytes + len > opts.batchMaxBytes) break;
      batch.push(todo[i]);
      bytes += len;
      i++;
    }
    const out = await timeEmbedding(hooks.signal, () => embedder.embed(batch.map((h) => textOf.get(h)!), hooks.signal));
    if (out.length !== batch.length) throw new TaskError("EMBEDDING_INVALID_RESPONSE", `asked for ${batch.length} embeddings, got ${out.length}`);
    out.forEach((v, k) => {
      if (v.length !== embedder.dimensions) throw new TaskError("EMBEDDING_INVALID_RESPONSE", `embedding has ${v.length} dimensions, expected ${embedder.dimensions}`);
      vectors.set(batch[k], toVectorLiteral(v));
    });
    batches++;
    batchesThisProcess++;
    if (opts.faultAfterChunkBatch && batchesThisProcess >= opts.faultAfterChunkBatch) die(`FAULT_AFTER_CHUNK_BATCH=${opts.faultAfterChunkBatch}`);
    const done = chunks.filter((c) => vectors.has(c.contentHash)).length;
    hooks.progress(done, total);
  }
  hooks.signal.throwIfAborted();
  t = stepDone(STEP.EMBED, t);

  // 6. One short fenced transaction: write, verify, switch, retire, complete.
  const stats: CompleteStats = { chunksTotal: total, chunksReused: reusedChunks, batchesSent: batches };
  let outcome: CompleteStats | null = stats;
  await withTransaction(pool, async (tx) => {
    // Lock order: the document row first, then the task (see docs/design.md).
    const doc = await lockDocument(tx, lease.documentId);
    await lockHeld(tx, lease);
    // Heartbeats go on while the switch waits for the document lock (a long wait must not let
    // the lease lapse); from here the task row is ours and this transaction's fence decides.
    hooks.beforeSwitch?.();
    if (!doc || doc.deleted_at !== null || doc.business_version > lease.versionNumber) {
      const reason = doc?.deleted_at ? "document deleted" : "a newer version was published";
      await supersedeHeld(tx, lease, reason, doc?.business_version ?? 0);
      hooks.superseded?.(reason);
      outcome = null;
      return;
    }
    const ivId = randomUUID();
    await tx.query(
      `INSERT INTO index_versions (id, tenant_id, document_id, version_number, task_id, status, chunker_version, embedding_model, embedding_dimensions, expected_chunk_count)
       VALUES ($1, $2, $3, $4, $5, 'BUILDING', $6, $7, $8, $9)`,
      [ivId, lease.tenantId, lease.documentId, lease.versionNumber, lease.taskId, CHUNKER_VERSION, embedder.model, embedder.dimensions, manifest.count],
    );
    await tx.query(
      `INSERT INTO chunks (index_version_id, ordinal, chunk_id, tenant_id, document_id, level, section_path, text, content_hash, dims, embedding)
       SELECT $1, u.ordinal, u.chunk_id, $2, $3, u.level, u.section_path, u.text, u.content_hash, $4, u.embedding::vector
         FROM unnest($5::int[], $6::text[], $7::smallint[], $8::text[], $9::text[], $10::text[], $11::text[])
           AS u(ordinal, chunk_id, level, section_path, text, content_hash, embedding)`,
      [
        ivId,
        lease.tenantId,
        lease.documentId,
        embedder.dimensions,
        chunks.map((c) => c.ordinal),
        chunks.map((c) => c.chunkId),
        chunks.map((c) => c.level),
        chunks.map((c) => c.sectionPath),
        chunks.map((c) => c.text),
        chunks.map((c) => c.contentHash),
        chunks.map((c) => vectors.get(c.contentHash)!),
      ],
    );
    const stored = await verifyIndexVersion(tx, ivId, manifest, embedder.dimensions);
    await tx.query(`UPDATE index_versions SET status = 'READY', chunk_count = $2 WHERE id = $1`, [ivId, stored]);
    t = stepDone(STEP.WRITE, t);

    const ptr = (
      await tx.query<{ index_version_id: string; version_number: number; pinned: boolean }>(
        `SELECT index_version_id, version_number, pinned FROM search_pointers WHERE document_id = $1 FOR UPDATE`,
        [lease.documentId],
      )
    ).rows[0];
    // Forward only: never to a version older than the one shown, and never over an operator pin.
    const move = !ptr || (!ptr.pinned && ptr.version_number <= lease.versionNumber);
    if (move) await movePointer(tx, { id: lease.documentId, tenantId: lease.tenantId }, { indexVersionId: ivId, versionNumber: lease.versionNumber }, ptr?.index_version_id ?? null);
    if (faultOn(opts.faultBeforeIndexSwitch)) die("FAULT_BEFORE_INDEX_SWITCH");
    await complete(tx, lease, stats);
  });
  if (outcome) stepDone(STEP.SWITCH, t);
  hooks.progress(total, total);
  return outcome;
}
