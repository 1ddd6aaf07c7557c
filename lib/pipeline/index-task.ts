import { createHash, randomUUID } from "node:crypto";
import { run, withTransaction } from "../db/pool";
import { assertHeld, complete, lockDocument, lockHeld, supersedeHeld, type Lease } from "../queue/engine";
import { TaskError } from "../queue/errors";
import type { CompleteStats } from "../queue/sql";
import { toVectorLiteral } from "../embedding/types";
import { parseDocumentAsync } from "./parse";
import { chunkSections, CHUNKER_VERSION, type Chunk } from "./chunker";
import { faultOn } from "../config";
import { manifestOf, verifyIndexVersion } from "./integrity";
import { movePointer } from "./pointer";
import type { PipelineOptions, TaskContext } from "./run";
import { STEP } from "../domain/constants";
import { log } from "../log";
import { stepDone, timeEmbedding } from "./metrics";
import * as sql from "./sql";

export type Record_ = Chunk & { level: number };

/** Process-wide count of embedding batches, for FAULT_AFTER_CHUNK_BATCH. */
let batchesThisProcess = 0;

/** Counts one embedding batch sent; FAULT_AFTER_CHUNK_BATCH crashes the process after the configured one. */
export function embeddingBatchSent(opts: PipelineOptions): void {
  batchesThisProcess++;
  if (opts.faultAfterChunkBatch && batchesThisProcess >= opts.faultAfterChunkBatch) die(`FAULT_AFTER_CHUNK_BATCH=${opts.faultAfterChunkBatch}`);
}

export function die(reason: string): never {
  // A fault switch simulates a crash: no cleanup, no lease release, no answer.
  log.fatal({ fault: reason }, `fault switch ${reason}: exiting abruptly`);
  process.exit(137);
}

function levelRecord(lease: Lease, level: 0 | 1, text: string, ordinal: number): Record_ {
  const sectionPath = level === 0 ? "abstract" : "overview";
  const contentHash = createHash("sha256").update(`${sectionPath}\n${text}`).digest("hex");
  // Named like every other chunk (docs/parsing.md, "Chunk ids"): tenant, document, version, chunker version,
  // ordinal and content hash. A summary id shared across versions would let a hit of v1 and a hit
  // of v2 look like the same chunk; its embedding is still reused through the content hash.
  const chunkId = createHash("sha256")
    .update([lease.tenantId, lease.documentId, String(lease.versionNumber), CHUNKER_VERSION, `level${level}`, String(ordinal), contentHash].join("\u0000"))
    .digest("hex")
    .slice(0, 32);
  return { ordinal, sectionPath, text, contentHash, chunkId, level };
}

export type LoadedVersion = { content_type: string; content: Buffer; abstract: string | null; overview: string | null };

/** Every record of the version, in ordinal order: its chunks, then the abstract and overview if given. */
export function recordsOf(lease: Lease, version: LoadedVersion, sections: Awaited<ReturnType<typeof parseDocumentAsync>>, embeddingModel: string): Record_[] {
  const chunks: Record_[] = chunkSections(sections, { tenantId: lease.tenantId, documentId: lease.documentId, versionNumber: lease.versionNumber }, { embeddingModel }).map(
    (c) => ({ ...c, level: 2 }),
  );
  if (version.abstract?.trim()) chunks.push(levelRecord(lease, 0, version.abstract.trim(), chunks.length));
  if (version.overview?.trim()) chunks.push(levelRecord(lease, 1, version.overview.trim(), chunks.length));
  if (chunks.length === 0) throw new TaskError("EMPTY_DOCUMENT", "the document has no indexable text");
  return chunks;
}

/** Vectors counted on for reuse were collected between the reuse lookup and the switch. */
class StoredVectorsGone extends Error {
  constructor(readonly missing: number) {
    super(`${missing} reused embeddings are no longer stored`);
  }
}

/** Starting over after StoredVectorsGone embeds what went missing; it takes GC racing every round to exhaust this. */
const MAX_ROUNDS = 3;

/**
 * INDEX and REINDEX (docs/architecture.md, "Data flow of a publish"): parse, chunk, reuse, embed
 * with no transaction open, then one short fenced transaction that writes, verifies against the
 * parse manifest and switches.
 */
export async function runIndexTask(ctx: TaskContext): Promise<CompleteStats | null> {
  for (let round = 1; ; round++) {
    try {
      return await indexOnce(ctx);
    } catch (err) {
      if (!(err instanceof StoredVectorsGone)) throw err;
      if (round >= MAX_ROUNDS) throw new TaskError("INDEX_INTEGRITY_FAILED", `${err.message} (${round} rounds)`);
      ctx.hooks.switchUndone?.();
      log.warn({ taskId: ctx.lease.taskId, missing: err.missing, round }, "reused embeddings were collected before the switch; starting over");
    }
  }
}

async function indexOnce({ pool, embedder, lease, hooks, opts }: TaskContext): Promise<CompleteStats | null> {
  // Step durations for the worker's metrics; each step is counted when it completes.
  let t = performance.now();
  // 1. The immutable version this task is bound to, never "the latest content".
  const version = (
    await pool.query<LoadedVersion>(
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
  const chunks = recordsOf(lease, version, sections, embedder.model);
  const manifest = manifestOf(chunks);
  t = stepDone(STEP.CHUNK, t);

  // 4. Reuse embeddings of unchanged text from earlier complete index versions of this document.
  // Only which hashes are stored is read here; the vectors themselves are copied inside the
  // database when the new version is written (step 6).
  const space = { model: embedder.model, dimensions: embedder.dimensions, chunkerVersion: CHUNKER_VERSION };
  const hashes = [...new Set(chunks.map((c) => c.contentHash))];
  const stored = new Set((await run<{ content_hash: string }>(pool, sql.findReusableHashes(lease.documentId, hashes, space))).rows.map((r) => r.content_hash));

  // 5. Embed what is new, in batches bounded by count and bytes; no transaction is open here.
  const todo = hashes.filter((h) => !stored.has(h));
  const textOf = new Map(chunks.map((c) => [c.contentHash, c.text]));
  const vectors = new Map<string, string>();
  const total = chunks.length;
  const reusedChunks = chunks.filter((c) => stored.has(c.contentHash)).length;
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
    embeddingBatchSent(opts);
    const done = chunks.filter((c) => vectors.has(c.contentHash) || stored.has(c.contentHash)).length;
    hooks.progress(done, total);
  }
  hooks.signal.throwIfAborted();
  t = stepDone(STEP.EMBED, t);

  // 6. One short fenced transaction: write, verify, switch, retire, complete.
  const stats: CompleteStats = { chunksTotal: total, chunksReused: reusedChunks, batchesSent: batches };
  let outcome: CompleteStats | null = stats;
  await withTransaction(pool, async (tx) => {
    // Lock order: the document row first, then the task (see docs/architecture.md, "Lock order").
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
    const rows = chunks.map((c) => ({ ...c, embedding: vectors.get(c.contentHash) ?? null }));
    const written = (
      await run<{ missing: number; inserted: number }>(
        tx,
        sql.insertIndexVersion({ id: ivId, tenantId: lease.tenantId, documentId: lease.documentId, versionNumber: lease.versionNumber, taskId: lease.taskId, expectedChunkCount: manifest.count }, space, rows),
      )
    ).rows[0];
    // A stored vector this task counted on was collected since step 4 (every version holding it
    // went past retention): the transaction rolls back and the task starts over, embedding it.
    if (written.missing > 0) throw new StoredVectorsGone(written.missing);
    const count = await verifyIndexVersion(tx, ivId, manifest, embedder.dimensions);
    const ptr = (await run<{ index_version_id: string; version_number: number; pinned: boolean }>(tx, sql.markReadyAndLockPointer(ivId, count, lease.documentId))).rows[0];
    t = stepDone(STEP.WRITE, t);

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
