import { randomUUID } from "node:crypto";
import type pg from "pg";
import { withTransaction } from "../db/pool";
import { runHot, type Lease } from "../queue/engine";
import { LeaseLostError, TaskError } from "../queue/errors";
import * as qsql from "../queue/sql";
import type { CompleteStats } from "../queue/sql";
import { toVectorLiteral } from "../embedding/types";
import type { Embedder } from "../embedding/types";
import { faultOn } from "../config";
import { STEP } from "../domain/constants";
import { parseDocumentAsync } from "./parse";
import { CHUNKER_VERSION } from "./chunker";
import { manifestOf, verifyIndexVersions, type Manifest } from "./integrity";
import { movePointers } from "./pointer";
import { die, embeddingBatchSent, recordsOf, runIndexTask, type LoadedVersion, type Record_ } from "./index-task";
import { stepDoneFor, timeEmbedding } from "./metrics";
import type { PipelineHooks, PipelineOptions } from "./run";
import * as sql from "./sql";

// INDEX and REINDEX for several documents at once (one worker slot's batch). The steps are those
// of runIndexTask; what changes is that each step is one statement, one embedder call or one
// transaction for the whole batch instead of one per document, because per-document round trips
// and commits were most of a task's cost outside the HNSW index. What does not change is per task:
// each task is bound to its own version, keeps its own fence (a fence check before each embedding
// batch and a fenced row lock in the switch, per task), is judged against its own parse manifest,
// and switches forward only. A task that lost its lease, was superseded or failed its check drops
// out of the batch alone and gets its own outcome; its siblings go on. A failure that is not one
// task's (an embedder call, an unexpected database error) does not decide anyone's outcome: each
// task still unsettled runs again on its own through runIndexTask.

export type BatchMember = {
  lease: Lease;
  hooks: PipelineHooks;
  /**
   * Told the member's outcome the moment it is decided, before the batch's other members end: the
   * worker records a failure then, while the lease still holds (the run stops renewing a task at its
   * switch, and the rest of the slot may outlast the lease).
   */
  settled?: (result: MemberResult) => void;
};
export type MemberResult = PromiseSettledResult<CompleteStats | null>;

type Live = {
  index: number;
  member: BatchMember;
  chunks: Record_[];
  manifest: Manifest;
  stored: Set<string>;
  batches: number;
};

export async function runIndexBatch(pool: pg.Pool, embedder: Embedder, members: BatchMember[], opts: PipelineOptions): Promise<MemberResult[]> {
  const results: (MemberResult | undefined)[] = new Array(members.length);
  const settle = (i: number, result: MemberResult) => {
    results[i] = result;
    members[i].settled?.(result);
  };
  const reject = (i: number, reason: unknown) => settle(i, { status: "rejected", reason });
  const fulfil = (i: number, value: CompleteStats | null) => settle(i, { status: "fulfilled", value });
  const workerId = members[0]?.lease.workerId;
  if (new Set(members.map((m) => m.lease.documentId)).size !== members.length || members.some((m) => m.lease.workerId !== workerId)) {
    throw new Error("a task batch holds each document once, all under one worker's leases");
  }
  /** A task that stopped being ours (aborted: lease lost, shutdown) leaves the batch with its signal's reason. */
  const aborted = (i: number): boolean => {
    const signal = members[i].hooks.signal;
    if (signal.aborted) {
      try {
        signal.throwIfAborted();
      } catch (e) {
        reject(i, e);
      }
    }
    return signal.aborted;
  };
  const open = () => members.map((_, i) => i).filter((i) => results[i] === undefined);

  try {
    let t = performance.now();
    // 1. The immutable versions, one statement for the batch.
    const loaded = await runHot<LoadedVersion & { document_id: string; version_number: number }>(pool, sql.loadVersions(members.map((m) => m.lease)));
    const versionOf = new Map(loaded.rows.map((r) => [`${r.document_id}#${r.version_number}`, r]));
    t = stepDoneFor(STEP.LOAD, t, members.length);

    // 2–3. Parse and chunk, each document on its own (a bad document fails alone).
    const live: Live[] = [];
    let parseMs = 0;
    for (const [i, m] of members.entries()) {
      if (aborted(i)) continue;
      const version = versionOf.get(`${m.lease.documentId}#${m.lease.versionNumber}`);
      if (!version) {
        reject(i, new TaskError("INTERNAL_ERROR", `document version ${m.lease.versionNumber} not found`));
        continue;
      }
      try {
        const p0 = performance.now();
        const sections = await parseDocumentAsync(version.content_type, new Uint8Array(version.content), { signal: m.hooks.signal });
        parseMs += performance.now() - p0;
        const chunks = recordsOf(m.lease, version, sections, embedder.model);
        live.push({ index: i, member: m, chunks, manifest: manifestOf(chunks), stored: new Set(), batches: 0 });
      } catch (err) {
        reject(i, err);
      }
    }
    stepDoneFor(STEP.PARSE, t, members.length, parseMs);
    t = stepDoneFor(STEP.CHUNK, t + parseMs, members.length);
    if (live.length === 0) return finish();

    // 4. Which content hashes each document has stored in this space: one statement.
    const space = { model: embedder.model, dimensions: embedder.dimensions, chunkerVersion: CHUNKER_VERSION };
    const pairs = live.flatMap((l) => [...new Set(l.chunks.map((c) => c.contentHash))].map((contentHash) => ({ documentId: l.member.lease.documentId, contentHash })));
    for (const r of (await runHot<{ document_id: string; content_hash: string }>(pool, sql.findReusableHashesMany(pairs, space))).rows) {
      live.find((l) => l.member.lease.documentId === r.document_id)?.stored.add(r.content_hash);
    }

    // 5. Embed what is new across the batch, in batches bounded by count and bytes. A text is
    // embedded once however many documents of the batch hold it (same text, same vector).
    const textOf = new Map<string, string>();
    const needers = new Map<string, Set<Live>>();
    for (const l of live) {
      for (const c of l.chunks) {
        if (l.stored.has(c.contentHash)) continue;
        textOf.set(c.contentHash, c.text);
        let s = needers.get(c.contentHash);
        if (!s) needers.set(c.contentHash, (s = new Set()));
        s.add(l);
      }
    }
    const todo = [...needers.keys()];
    const vectors = new Map<string, string>();
    const isLive = (l: Live) => results[l.index] === undefined;
    const progress = (l: Live) => l.member.hooks.progress(l.chunks.filter((c) => vectors.has(c.contentHash) || l.stored.has(c.contentHash)).length, l.chunks.length);
    live.forEach(progress);
    let k = 0;
    while (k < todo.length) {
      for (const l of live) if (isLive(l)) aborted(l.index);
      // A superseded or taken-over task must not spend another provider call: one fence check per
      // embedding batch for every task still in the batch, each against its own lease.
      const holders = live.filter(isLive);
      if (holders.length === 0) break;
      const held = new Set((await runHot<{ task_id: string }>(pool, qsql.leasesHeld(workerId, holders.map((l) => l.member.lease)))).rows.map((r) => r.task_id));
      for (const l of holders) if (!held.has(l.member.lease.taskId)) reject(l.index, new LeaseLostError(l.member.lease.taskId, "fence check"));
      const batch: string[] = [];
      let bytes = 0;
      while (k < todo.length && batch.length < opts.batchSize) {
        const h = todo[k];
        if (![...needers.get(h)!].some(isLive)) {
          k++;
          continue;
        }
        const len = Buffer.byteLength(textOf.get(h)!);
        if (batch.length > 0 && bytes + len > opts.batchMaxBytes) break;
        batch.push(h);
        bytes += len;
        k++;
      }
      if (batch.length === 0) continue;
      const senders = live.filter((l) => isLive(l) && batch.some((h) => needers.get(h)!.has(l)));
      // The call is cut short only when every task it serves has stopped being ours.
      const shared = allOf(senders.map((l) => l.member.hooks.signal));
      const out = await timeEmbedding(shared.signal, () => embedder.embed(batch.map((h) => textOf.get(h)!), shared.signal)).finally(shared.dispose);
      if (out.length !== batch.length) throw new TaskError("EMBEDDING_INVALID_RESPONSE", `asked for ${batch.length} embeddings, got ${out.length}`);
      out.forEach((v, j) => {
        if (v.length !== embedder.dimensions) throw new TaskError("EMBEDDING_INVALID_RESPONSE", `embedding has ${v.length} dimensions, expected ${embedder.dimensions}`);
        vectors.set(batch[j], toVectorLiteral(v));
      });
      for (const l of senders) l.batches++;
      embeddingBatchSent(opts);
      senders.forEach(progress);
    }
    for (const l of live) if (isLive(l)) aborted(l.index);
    t = stepDoneFor(STEP.EMBED, t, live.length);

    // 6. One fenced transaction for the batch: lock the documents (id order), then the task rows
    // (task id order, each under its own fence), then write, verify, switch and complete.
    const writers = live.filter(isLive);
    if (writers.length === 0) return finish();
    const restart: Live[] = [];
    const outcome = new Map<Live, { stats: CompleteStats } | { superseded: string } | { error: unknown }>();
    await withTransaction(pool, async (tx) => {
      const docs = new Map(
        (await runHot<{ id: string; business_version: number; deleted_at: Date | null }>(tx, qsql.lockDocuments(writers.map((l) => l.member.lease.documentId)))).rows.map((d) => [d.id, d]),
      );
      const held = new Set((await runHot<{ task_id: string }>(tx, qsql.lockHeldTasks(workerId, writers.map((l) => l.member.lease)))).rows.map((r) => r.task_id));
      const superseding: { live: Live; reason: string; businessVersion: number }[] = [];
      const writing: Live[] = [];
      for (const l of writers) {
        const { lease, hooks } = l.member;
        if (!held.has(lease.taskId)) {
          outcome.set(l, { error: new LeaseLostError(lease.taskId, "index write") });
          continue;
        }
        // From here the task row is ours and this transaction's fence decides for it.
        hooks.beforeSwitch?.();
        const doc = docs.get(lease.documentId);
        if (!doc || doc.deleted_at !== null || doc.business_version > lease.versionNumber) {
          superseding.push({ live: l, reason: doc?.deleted_at ? "document deleted" : "a newer version was published", businessVersion: doc?.business_version ?? 0 });
        } else {
          writing.push(l);
        }
      }
      if (superseding.length > 0) {
        const ended = await runHot(tx, qsql.supersedeHeldTasks(workerId, superseding.map((s) => ({ ...s.live.member.lease, reason: s.reason, businessVersion: s.businessVersion }))));
        if (ended.rowCount !== superseding.length) throw new Error(`superseded ${ended.rowCount} of ${superseding.length} held tasks`);
        for (const s of superseding) outcome.set(s.live, { superseded: s.reason });
      }
      if (writing.length === 0) return;

      const ivOf = new Map(writing.map((l) => [l, randomUUID()]));
      // A record that reuses a stored vector takes the text stored with it (same content hash), so
      // the statement carries only the new texts: a 5 % edit sends a fraction of the document.
      const rows = writing.flatMap((l) =>
        l.chunks.map((c) => {
          const embedding = vectors.get(c.contentHash) ?? null;
          return {
            ...c,
            text: embedding === null ? null : c.text,
            indexVersionId: ivOf.get(l)!,
            documentId: l.member.lease.documentId,
            tenantId: l.member.lease.tenantId,
            embedding,
          };
        }),
      );
      const ivs = writing.map((l) => ({
        id: ivOf.get(l)!,
        tenantId: l.member.lease.tenantId,
        documentId: l.member.lease.documentId,
        versionNumber: l.member.lease.versionNumber,
        taskId: l.member.lease.taskId,
        expectedChunkCount: l.manifest.count,
      }));
      const written = new Map((await runHot<{ index_version_id: string; missing: number }>(tx, sql.insertIndexVersions(ivs, space, rows))).rows.map((r) => [r.index_version_id, r.missing]));
      // A stored vector this task counted on was collected since step 4: its version is dropped
      // and it starts over on its own (runIndexTask embeds what went missing).
      const complete = writing.filter((l) => {
        if ((written.get(ivOf.get(l)!) ?? 0) === 0) return true;
        restart.push(l);
        return false;
      });
      const checked = await verifyIndexVersions(
        tx,
        complete.map((l) => ({ indexVersionId: ivOf.get(l)!, expected: l.manifest })),
        embedder.dimensions,
      );
      const verified = complete.filter((l) => {
        const c = checked.get(ivOf.get(l)!)!;
        if ("count" in c) return true;
        outcome.set(l, { error: c.error });
        return false;
      });
      const dropped = writing.filter((l) => !verified.includes(l)).map((l) => ivOf.get(l)!);
      // Removing a version this transaction created is what its rollback would have done.
      if (dropped.length > 0) await runHot(tx, sql.dropBuildingVersions(dropped));
      if (verified.length === 0) return;
      const pointers = new Map(
        (
          await runHot<{ document_id: string; index_version_id: string; version_number: number; pinned: boolean }>(
            tx,
            sql.markReadyAndLockPointers(
              verified.map((l) => ({ indexVersionId: ivOf.get(l)!, storedCount: (checked.get(ivOf.get(l)!) as { count: number }).count })),
              verified.map((l) => l.member.lease.documentId),
            ),
          )
        ).rows.map((p) => [p.document_id, p]),
      );
      t = stepDoneFor(STEP.WRITE, t, verified.length);
      // Forward only: never to a version older than the one shown, and never over an operator pin.
      const moves = verified.flatMap((l) => {
        const { lease } = l.member;
        const ptr = pointers.get(lease.documentId);
        const move = !ptr || (!ptr.pinned && ptr.version_number <= lease.versionNumber);
        return move
          ? [{ documentId: lease.documentId, tenantId: lease.tenantId, indexVersionId: ivOf.get(l)!, versionNumber: lease.versionNumber, previousIndexVersionId: ptr?.index_version_id ?? null, pin: null }]
          : [];
      });
      await movePointers(tx, moves);
      if (faultOn(opts.faultBeforeIndexSwitch)) die("FAULT_BEFORE_INDEX_SWITCH");
      const stats = new Map(
        verified.map((l) => [l, { chunksTotal: l.chunks.length, chunksReused: l.chunks.filter((c) => l.stored.has(c.contentHash)).length, batchesSent: l.batches }]),
      );
      const done = await runHot(tx, qsql.completeTasks(workerId, verified.map((l) => ({ ...l.member.lease, stats: stats.get(l)! }))));
      // Every task row is locked under its fence in this transaction and now() is the transaction's
      // start, so all complete; anything else is a bug, and the whole switch rolls back.
      if (done.rowCount !== verified.length) throw new Error(`completed ${done.rowCount} of ${verified.length} held tasks`);
      for (const l of verified) outcome.set(l, { stats: stats.get(l)! });
    });
    const switched = [...outcome.values()].filter((o) => "stats" in o).length;
    if (switched > 0) stepDoneFor(STEP.SWITCH, t, switched);
    for (const [l, o] of outcome) {
      if ("stats" in o) {
        l.member.hooks.progress(l.chunks.length, l.chunks.length);
        fulfil(l.index, o.stats);
      } else if ("superseded" in o) {
        l.member.hooks.superseded?.(o.superseded);
        fulfil(l.index, null);
      } else {
        reject(l.index, o.error);
      }
    }
    await alone(restart.map((l) => l.index));
  } catch {
    // Not one task's failure (the embedder, the database): nobody's outcome is decided by it.
    // Every task still unsettled runs again on its own, where a failure is its own.
  }
  return finish();

  /**
   * Runs these members on their own, one after another. Their place in the batch's switch (if
   * they had one) decided nothing, so all of them renew their leases from now, not from their turn.
   */
  async function alone(indices: number[]): Promise<void> {
    for (const i of indices) members[i].hooks.switchUndone?.();
    for (const i of indices) {
      try {
        fulfil(i, await runIndexTask({ pool, embedder, lease: members[i].lease, hooks: members[i].hooks, opts }));
      } catch (reason) {
        reject(i, reason);
      }
    }
  }

  async function finish(): Promise<MemberResult[]> {
    await alone(open());
    return results as MemberResult[];
  }
}

/** Aborted once every one of `signals` is (a shared embedding call serves them all); dispose when the call is over. */
function allOf(signals: AbortSignal[]): { signal: AbortSignal; dispose: () => void } {
  if (signals.length === 1) return { signal: signals[0], dispose: () => undefined };
  const c = new AbortController();
  const check = () => {
    if (signals.every((s) => s.aborted)) c.abort(signals[0].reason);
  };
  for (const s of signals) s.addEventListener("abort", check);
  check();
  return { signal: c.signal, dispose: () => signals.forEach((s) => s.removeEventListener("abort", check)) };
}
