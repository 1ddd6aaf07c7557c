import { createHash, randomUUID } from "node:crypto";
import type pg from "pg";
import { withTransaction } from "../db/pool";
import { runHot, type Lease } from "../queue/engine";
import { LeaseLostError, TaskError } from "../queue/errors";
import * as qsql from "../queue/sql";
import type { CompleteStats } from "../queue/sql";
import { toVectorLiteral } from "../embedding/types";
import type { Embedder } from "../embedding/types";
import { afterEmbeddingBatch, beforeIndexSwitch } from "../faults";
import { STEP, type Step } from "../domain/constants";
import { log } from "../log";
import { parseDocumentAsync } from "./parse";
import { chunkSections, CHUNKER_VERSION, type Chunk } from "./chunker";
import { manifestOf, verifyIndexVersions, type Manifest } from "./integrity";
import { movePointers } from "./pointer";
import { stepDoneFor, timeEmbedding } from "./metrics";
import { supersededBecause, type BatchMember, type MemberResult, type PipelineOptions } from "./member";
import * as sql from "./sql";
import * as spaceSql from "../spaces/sql";
import { asSpaceEmbedders, type SpaceEmbedders } from "../spaces/embedders";
import { chunkerOf, type Space } from "../spaces/types";
import { tokenCounterFor } from "./tokens";

// INDEX and REINDEX (docs/architecture.md, "Data flow of a publish") for one worker slot's batch
// of documents; a single task is a batch of one. The phases: load and parse each member's immutable version; find which of its content
// hashes already have a stored vector (reuse); embed what is new with no transaction open; then
// one short fenced transaction that writes, verifies against each parse manifest and switches.
// Each phase is one statement, one embedder call or one transaction for the whole batch, because
// per-document round trips and commits were most of a task's cost outside the HNSW index. What
// stays per task: each is bound to its own version, keeps its own fence (a fence check before each
// embedding call and a fenced row lock in the switch), is judged against its own manifest, and
// switches forward only. A member that lost its lease, was superseded or failed its check drops out
// alone with its own outcome; its siblings go on. A failure that is not one member's (an embedder
// call, an unexpected database error) decides nobody's outcome: it is logged, and each member still
// unsettled runs again as a batch of one, where a failure is its own.

type Record_ = Chunk & { level: number };
type LoadedVersion = {
  document_id: string;
  version_number: number;
  content_type: string;
  content: Buffer;
  abstract: string | null;
  overview: string | null;
};
/**
 * Where a group of the batch is built: the tenant's active space (INDEX, REINDEX), whose builds
 * move search_pointers, or its shadow space (MIGRATE), whose builds move space_pointers
 * (docs/decisions/039-index-spaces.md).
 */
type Target = { space: Space; embedder: Embedder; shadow: boolean };
const reuseSpace = (s: Space): sql.ReuseSpace => ({
  id: s.id,
  model: s.model,
  dimensions: s.dimensions,
  chunkerVersion: s.chunkerVersion,
});

/** One task of the batch through the phases: its place in the batch, its records and what it reuses. */
type Member = BatchMember & {
  index: number;
  chunks: Record_[];
  manifest: Manifest;
  stored: Set<string>;
  batches: number;
};

/** Starting over after reused vectors went missing embeds them; it takes GC racing every round to exhaust this. */
const MAX_ROUNDS = 3;

export async function runIndexBatch(
  pool: pg.Pool,
  embedders: Embedder | SpaceEmbedders,
  members: BatchMember[],
  opts: PipelineOptions,
  round = 1,
): Promise<MemberResult[]> {
  const workerId = members[0]?.lease.workerId;
  if (
    new Set(members.map((m) => m.lease.documentId)).size !== members.length ||
    members.some((m) => m.lease.workerId !== workerId)
  ) {
    throw new Error("a task batch holds each document once, all under one worker's leases");
  }
  const spaces = asSpaceEmbedders(embedders);
  const results: MemberResult[] = new Array(members.length);
  const settle = (i: number, r: MemberResult) => {
    results[i] = r;
    members[i].settled?.(r);
  };
  // Each member's space as it stands now; its switch checks it again under the space lock.
  const groups = new Map<string, { target: Target; indices: number[] }>();
  const unbuilt: number[] = [];
  try {
    const where = new Map(
      (
        await runHot<spaceSql.TenantSpacesRow>(
          pool,
          spaceSql.tenantSpaces([...new Set(members.map((m) => m.lease.tenantId))]),
        )
      ).rows.map((r) => [r.tenant_id, r]),
    );
    for (const [i, m] of members.entries()) {
      const shadow = m.lease.taskType === "MIGRATE";
      const w = where.get(m.lease.tenantId)!;
      const spaceId = shadow ? w.shadow_space_id : w.active_space_id;
      if (spaceId === null) {
        unbuilt.push(i);
        continue;
      }
      try {
        const space = await spaces.space(pool, spaceId);
        const key = `${space.id}:${shadow}`;
        let g = groups.get(key);
        if (!g) groups.set(key, (g = { target: { space, embedder: spaces.embedderFor(space), shadow }, indices: [] }));
        g.indices.push(i);
      } catch (reason) {
        settle(i, { status: "rejected", reason });
      }
    }
  } catch (reason) {
    for (const [i] of members.entries()) if (results[i] === undefined) settle(i, { status: "rejected", reason });
    return results;
  }
  // A MIGRATE task of a tenant with no open migration (aborted, switched back, finished) ends as a no-op.
  if (unbuilt.length > 0) {
    const out = await supersedeNow(
      pool,
      spaces,
      unbuilt.map((i) => members[i]),
      "no migration is open for the tenant",
      opts,
      round,
    );
    unbuilt.forEach((i, k) => settle(i, out[k]));
  }
  for (const { target, indices } of groups.values()) {
    const out = await runGroup(
      pool,
      spaces,
      target,
      indices.map((i) => ({ ...members[i], settled: undefined })),
      opts,
      round,
    );
    indices.forEach((i, k) => settle(i, out[k]));
  }
  return results;
}

/** Members of one batch built in one space, through the phases. */
async function runGroup(
  pool: pg.Pool,
  spaces: SpaceEmbedders,
  target: Target,
  members: BatchMember[],
  opts: PipelineOptions,
  round: number,
): Promise<MemberResult[]> {
  const out = new Outcomes(members);
  const steps = stepClock();
  try {
    const parsed = await loadAndParse(pool, target, members, out, steps);
    const space = reuseSpace(target.space);
    if (parsed.length > 0) {
      const r0 = performance.now();
      await findReused(pool, parsed, space);
      const r1 = performance.now();
      for (const m of parsed) m.hooks.trace?.span("reuse", r0, r1, { "indexwright.chunks.reused": m.stored.size });
      const vectors = await embed(pool, target, parsed, out, opts);
      const writers = parsed.filter((m) => out.open(m.index));
      steps.done(STEP.EMBED, writers.length);
      // A member sent round again out of a batch of several starts its own count of rounds, as it
      // did when it ran on its own; a lone member's rounds go on counting.
      if (writers.length > 0)
        await runAlone(
          await writeAndSwitch(pool, target, writers, vectors, space, out, opts, round, steps),
          members.length > 1 ? 1 : round + 1,
        );
    }
  } catch (err) {
    if (members.length === 1) out.reject(0, err);
    else
      log.warn(
        { err, taskIds: out.unsettled().map((i) => members[i].lease.taskId) },
        "a task batch failed as a whole; its unsettled tasks run again on their own",
      );
  }
  if (members.length > 1) await runAlone(out.unsettled(), 1);
  return out.all();

  /**
   * Runs these members as batches of one, one after another. Their place in the batch's switch (if
   * they had one) decided nothing, so all of them renew their leases from now, not from their turn.
   * Each finds its space again: a tenant that switched meanwhile is built in its new space.
   */
  async function runAlone(indices: number[], nextRound: number): Promise<void> {
    for (const i of indices) members[i].hooks.switchUndone?.();
    for (const i of indices) {
      const { lease, hooks } = members[i];
      out.settle(i, (await runIndexBatch(pool, spaces, [{ lease, hooks }], opts, nextRound))[0]);
    }
  }
}

/** Held tasks that have nothing to build end SUPERSEDED with `reason`, under their documents' and their own fenced locks. */
async function supersedeNow(
  pool: pg.Pool,
  spaces: SpaceEmbedders,
  members: BatchMember[],
  reason: string,
  opts: PipelineOptions,
  round: number,
): Promise<MemberResult[]> {
  const workerId = members[0].lease.workerId;
  const rerun: BatchMember[] = [];
  try {
    const ended = await withTransaction(pool, async (tx) => {
      const docs = new Map(
        (
          await runHot<{ id: string; business_version: number }>(
            tx,
            qsql.lockDocuments(members.map((m) => m.lease.documentId)),
          )
        ).rows.map((d) => [d.id, d]),
      );
      const held = new Set(
        (
          await runHot<{ task_id: string }>(
            tx,
            qsql.lockHeldTasks(
              workerId,
              members.map((m) => m.lease),
            ),
          )
        ).rows.map((r) => r.task_id),
      );
      // Under the tenants' space locks, as every switch: a migration started since the look outside
      // the transaction makes the task live again, and it runs instead of ending.
      const tenants = [...new Set(members.map((m) => m.lease.tenantId))];
      await runHot(tx, spaceSql.lockTenantSpacesShared(tenants));
      const open = new Set(
        (await runHot<spaceSql.TenantSpacesRow>(tx, spaceSql.tenantSpaces(tenants))).rows
          .filter((r) => r.migration_id !== null)
          .map((r) => r.tenant_id),
      );
      for (const m of members) if (held.has(m.lease.taskId)) m.hooks.beforeSwitch?.();
      const mine = members.filter((m) => held.has(m.lease.taskId) && !open.has(m.lease.tenantId));
      for (const m of members) if (open.has(m.lease.tenantId)) rerun.push(m);
      if (mine.length > 0)
        await runHot(
          tx,
          qsql.supersedeHeldTasks(
            workerId,
            mine.map((m) => ({
              ...m.lease,
              reason,
              businessVersion: docs.get(m.lease.documentId)?.business_version ?? 0,
            })),
          ),
        );
      return held;
    });
    const out: MemberResult[] = [];
    for (const m of members) {
      if (rerun.includes(m)) {
        m.hooks.switchUndone?.();
        out.push((await runIndexBatch(pool, spaces, [{ lease: m.lease, hooks: m.hooks }], opts, round + 1))[0]);
      } else if (!ended.has(m.lease.taskId))
        out.push({ status: "rejected", reason: new LeaseLostError(m.lease.taskId, "supersede") });
      else {
        m.hooks.superseded?.(reason);
        out.push({ status: "fulfilled", value: null });
      }
    }
    return out;
  } catch (reason) {
    return members.map(() => ({ status: "rejected", reason }));
  }
}

/** Load and parse: the immutable versions in one statement, then each document parsed and chunked on its own (a bad document fails alone). */
async function loadAndParse(
  pool: pg.Pool,
  target: Target,
  members: BatchMember[],
  out: Outcomes,
  steps: StepClock,
): Promise<Member[]> {
  const l0 = performance.now();
  const loaded = await runHot<LoadedVersion>(pool, sql.loadVersions(members.map((m) => m.lease)));
  const versionOf = new Map(loaded.rows.map((r) => [`${r.document_id}#${r.version_number}`, r]));
  steps.done(STEP.LOAD, members.length);
  const l1 = performance.now();
  for (const m of members) m.hooks.trace?.span("load", l0, l1, { "indexwright.batch.tasks": members.length });
  const parsed: Member[] = [];
  let parseMs = 0;
  for (const [index, m] of members.entries()) {
    if (out.aborted(index)) continue;
    const version = versionOf.get(`${m.lease.documentId}#${m.lease.versionNumber}`);
    if (!version) {
      out.reject(index, new TaskError("INTERNAL_ERROR", `document version ${m.lease.versionNumber} not found`));
      continue;
    }
    const p0 = performance.now();
    let p1: number | undefined;
    try {
      const sections = await parseDocumentAsync(version.content_type, new Uint8Array(version.content), {
        signal: m.hooks.signal,
      });
      p1 = performance.now();
      parseMs += p1 - p0;
      const chunks = recordsOf(m.lease, version, sections, target.space);
      parsed.push({ ...m, index, chunks, manifest: manifestOf(chunks), stored: new Set(), batches: 0 });
      if (m.hooks.trace) {
        const attrs = { "indexwright.content_type": version.content_type, "indexwright.bytes": version.content.length };
        m.hooks.trace.span("parse", p0, p1, attrs);
        m.hooks.trace.span("chunk", p1, performance.now(), { "indexwright.chunks": chunks.length });
      }
    } catch (err) {
      m.hooks.trace?.span(p1 === undefined ? "parse" : "chunk", p1 ?? p0, performance.now(), undefined, err);
      out.reject(index, err);
    }
  }
  // Each step counts the tasks that completed it, as the metric's help says; a file that failed to
  // parse is counted by its task's outcome, not as a parse.
  steps.done(STEP.PARSE, parsed.length, parseMs);
  steps.done(STEP.CHUNK, parsed.length);
  return parsed;
}

/**
 * Reuse: which content hashes each document has stored in this space, one statement. Only the
 * hashes are read; the vectors themselves are copied inside the database when the new version is
 * written.
 */
async function findReused(pool: pg.Pool, members: Member[], space: sql.ReuseSpace): Promise<void> {
  const byDocument = new Map(members.map((m) => [m.lease.documentId, m]));
  const pairs = members.flatMap((m) =>
    [...new Set(m.chunks.map((c) => c.contentHash))].map((contentHash) => ({
      documentId: m.lease.documentId,
      contentHash,
    })),
  );
  for (const r of (
    await runHot<{ document_id: string; content_hash: string }>(pool, sql.findReusableHashes(pairs, space))
  ).rows) {
    byDocument.get(r.document_id)?.stored.add(r.content_hash);
  }
}

/**
 * Embed what is new across the batch, in calls bounded by count and bytes; no transaction is open.
 * A text is embedded once however many documents of the batch hold it (same text, same vector).
 * Returns the new vectors by content hash.
 */
async function embed(
  pool: pg.Pool,
  target: Target,
  members: Member[],
  out: Outcomes,
  opts: PipelineOptions,
): Promise<Map<string, string>> {
  const { embedder } = target;
  const textOf = new Map<string, string>();
  const needers = new Map<string, Set<Member>>();
  for (const m of members) {
    for (const c of m.chunks) {
      if (m.stored.has(c.contentHash)) continue;
      textOf.set(c.contentHash, c.text);
      let s = needers.get(c.contentHash);
      if (!s) needers.set(c.contentHash, (s = new Set()));
      s.add(m);
    }
  }
  const todo = [...needers.keys()];
  const vectors = new Map<string, string>();
  const isOpen = (m: Member) => out.open(m.index);
  const progress = (m: Member) =>
    m.hooks.progress(
      m.chunks.filter((c) => vectors.has(c.contentHash) || m.stored.has(c.contentHash)).length,
      m.chunks.length,
    );
  members.forEach(progress);
  let k = 0;
  while (k < todo.length) {
    for (const m of members) out.aborted(m.index);
    // A superseded or taken-over task must not spend another provider call: one fence check per
    // embedding call for every task still in the batch, each against its own lease.
    const holders = members.filter(isOpen);
    if (holders.length === 0) break;
    const held = new Set(
      (
        await runHot<{ task_id: string }>(
          pool,
          qsql.leasesHeld(
            holders[0].lease.workerId,
            holders.map((m) => m.lease),
          ),
        )
      ).rows.map((r) => r.task_id),
    );
    for (const m of holders)
      if (!held.has(m.lease.taskId)) out.reject(m.index, new LeaseLostError(m.lease.taskId, "fence check"));
    const batch: string[] = [];
    let bytes = 0;
    while (k < todo.length && batch.length < opts.batchSize) {
      const h = todo[k];
      if (![...needers.get(h)!].some(isOpen)) {
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
    const senders = members.filter((m) => isOpen(m) && batch.some((h) => needers.get(h)!.has(m)));
    // Migration work is paced by its space's rate, fleet-wide, before the provider is called.
    if (target.shadow) await paceMigration(pool, target.space, batch.length, senders);
    // The call is cut short only when every task it serves has stopped being ours.
    const shared = allOf(senders.map((m) => m.hooks.signal));
    const e0 = performance.now();
    const traceCall = (error?: unknown) => {
      const e1 = performance.now();
      const attrs = { "indexwright.embed.texts": batch.length, "indexwright.embed.bytes": bytes };
      for (const m of senders) m.hooks.trace?.span("embed", e0, e1, attrs, error);
    };
    const got = await timeEmbedding(shared.signal, () =>
      embedder.embed(
        batch.map((h) => textOf.get(h)!),
        shared.signal,
      ),
    )
      .then(
        (v) => (traceCall(), v),
        (err: unknown) => {
          traceCall(err);
          throw err;
        },
      )
      .finally(shared.dispose);
    if (got.length !== batch.length)
      throw new TaskError("EMBEDDING_INVALID_RESPONSE", `asked for ${batch.length} embeddings, got ${got.length}`);
    got.forEach((v, j) => {
      if (v.length !== embedder.dimensions)
        throw new TaskError(
          "EMBEDDING_INVALID_RESPONSE",
          `embedding has ${v.length} dimensions, expected ${embedder.dimensions}`,
        );
      vectors.set(batch[j], toVectorLiteral(v));
    });
    for (const m of senders) m.batches++;
    if (target.shadow) await countMigrationWork(pool, target.space, batch, textOf, needers);
    afterEmbeddingBatch(opts.faults);
    senders.forEach(progress);
  }
  for (const m of members) out.aborted(m.index);
  return vectors;
}

/** Waits out the space's migration rate for `texts` (no wait when the space has no rate). */
async function paceMigration(pool: pg.Pool, space: Space, texts: number, senders: Member[]): Promise<void> {
  if (space.textsPerMinute === null) return;
  const r = await runHot<{ wait_ms: number }>(pool, spaceSql.takeRate(space.id, texts));
  // Waited out in full, however long: a cap would let concurrent callers exceed the rate (the
  // task's heartbeats go on meanwhile, and an abort ends the wait).
  const wait = Number(r.rows[0]?.wait_ms ?? 0);
  if (wait <= 0) return;
  const signal = allOf(senders.map((m) => m.hooks.signal));
  try {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, wait);
      signal.signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
    });
  } finally {
    signal.dispose();
  }
}

/** Texts and tokens a migration's embedding call spent, on its tenants' open migrations (progress and cost). */
async function countMigrationWork(
  pool: pg.Pool,
  space: Space,
  batch: string[],
  textOf: Map<string, string>,
  needers: Map<string, Set<Member>>,
): Promise<void> {
  const counter = tokenCounterFor(space.model);
  const byTenant = new Map<string, { texts: number; tokens: number }>();
  for (const h of batch) {
    const tenant = [...needers.get(h)!][0].lease.tenantId;
    const w = byTenant.get(tenant) ?? { texts: 0, tokens: 0 };
    w.texts++;
    w.tokens += counter.count(textOf.get(h)!);
    byTenant.set(tenant, w);
  }
  await runHot(pool, spaceSql.countMigrationWork([...byTenant].map(([tenantId, w]) => ({ tenantId, ...w }))));
}

/**
 * Write and switch, in one fenced transaction for the batch: lock the documents (id order), then the
 * task rows (task id order, each under its own fence), then write, verify, switch and complete.
 * Returns the members whose reused vectors were collected since the reuse lookup: their versions
 * are dropped and they start over (embedding what went missing) in a round of their own.
 */
async function writeAndSwitch(
  pool: pg.Pool,
  target: Target,
  writers: Member[],
  vectors: Map<string, string>,
  space: sql.ReuseSpace,
  out: Outcomes,
  opts: PipelineOptions,
  round: number,
  steps: StepClock,
): Promise<number[]> {
  const workerId = writers[0].lease.workerId;
  const restart: { member: Member; missing: number }[] = [];
  const outcome = new Map<Member, { stats: CompleteStats } | { superseded: string } | { error: unknown }>();
  const decidedNothing = new Error("the switch decided nothing");
  const w0 = performance.now();
  let wroteAt = w0;
  await withTransaction(pool, async (tx) => {
    const docs = new Map(
      (
        await runHot<{ id: string; business_version: number; deleted_at: Date | null }>(
          tx,
          qsql.lockDocuments(writers.map((m) => m.lease.documentId)),
        )
      ).rows.map((d) => [d.id, d]),
    );
    const held = new Set(
      (
        await runHot<{ task_id: string }>(
          tx,
          qsql.lockHeldTasks(
            workerId,
            writers.map((m) => m.lease),
          ),
        )
      ).rows.map((r) => r.task_id),
    );
    // The tenants' space locks, shared: no switch moves them until COMMIT, and the space each
    // member was built in must still be the one it is for (docs/decisions/039-index-spaces.md).
    const tenants = [...new Set(writers.map((m) => m.lease.tenantId))];
    await runHot(tx, spaceSql.lockTenantSpacesShared(tenants));
    const where = new Map(
      (await runHot<spaceSql.TenantSpacesRow>(tx, spaceSql.tenantSpaces(tenants))).rows.map((r) => [r.tenant_id, r]),
    );
    const shadowOf = target.shadow
      ? new Map(
          (
            await runHot<spaceSql.ShadowPointerRow>(
              tx,
              spaceSql.lockShadowPointers(
                target.space.id,
                writers.filter((m) => held.has(m.lease.taskId)).map((m) => m.lease.documentId),
              ),
            )
          ).rows.map((r) => [r.document_id, r]),
        )
      : null;
    const superseding: { member: Member; reason: string; businessVersion: number }[] = [];
    const writing: Member[] = [];
    for (const m of writers) {
      if (!held.has(m.lease.taskId)) {
        outcome.set(m, { error: new LeaseLostError(m.lease.taskId, "index write") });
        continue;
      }
      // Heartbeats went on while the switch waited for the document locks (a long wait must not let
      // the lease lapse); from here the task row is ours and this transaction's fence decides for it.
      m.hooks.beforeSwitch?.();
      const doc = docs.get(m.lease.documentId);
      const w = where.get(m.lease.tenantId)!;
      const reason = target.shadow
        ? shadowSupersededBecause(doc, w, shadowOf!.get(m.lease.documentId), m.lease)
        : supersededBecause(doc, m.lease);
      if (reason) superseding.push({ member: m, reason, businessVersion: doc?.business_version ?? 0 });
      // Embedded in a space the tenant no longer builds here (a switch committed meanwhile): nothing
      // is written and the member runs again, finding its space anew; no attempt is spent.
      else if ((target.shadow ? w.shadow_space_id : w.active_space_id) !== target.space.id)
        restart.push({ member: m, missing: 0 });
      else writing.push(m);
    }
    if (superseding.length > 0) {
      const ended = await runHot(
        tx,
        qsql.supersedeHeldTasks(
          workerId,
          superseding.map((s) => ({ ...s.member.lease, reason: s.reason, businessVersion: s.businessVersion })),
        ),
      );
      if (ended.rowCount !== superseding.length)
        throw new Error(`superseded ${ended.rowCount} of ${superseding.length} held tasks`);
      for (const s of superseding) outcome.set(s.member, { superseded: s.reason });
    }
    if (writing.length === 0) return;

    const ivOf = new Map(writing.map((m) => [m, randomUUID()]));
    // A record that reuses a stored vector takes the text stored with it (same content hash), so
    // the statement carries only the new texts: a 5 % edit sends a fraction of the document.
    const rows = writing.flatMap((m) =>
      m.chunks.map((c) => {
        const embedding = vectors.get(c.contentHash) ?? null;
        return {
          ...c,
          text: embedding === null ? null : c.text,
          indexVersionId: ivOf.get(m)!,
          documentId: m.lease.documentId,
          tenantId: m.lease.tenantId,
          embedding,
        };
      }),
    );
    const ivs = writing.map((m) => ({
      id: ivOf.get(m)!,
      tenantId: m.lease.tenantId,
      documentId: m.lease.documentId,
      versionNumber: m.lease.versionNumber,
      taskId: m.lease.taskId,
      expectedChunkCount: m.manifest.count,
    }));
    const written = new Map(
      (
        await runHot<{ index_version_id: string; missing: number }>(tx, sql.insertIndexVersions(ivs, space, rows))
      ).rows.map((r) => [r.index_version_id, r.missing]),
    );
    // A stored vector this member counted on was collected since the reuse lookup (every version
    // holding it went past retention): its version is dropped and it starts over, embedding it.
    const whole = writing.filter((m) => {
      const missing = written.get(ivOf.get(m)!) ?? 0;
      if (missing === 0) return true;
      const gone = `${missing} reused embeddings are no longer stored`;
      if (round >= MAX_ROUNDS)
        outcome.set(m, { error: new TaskError("INDEX_INTEGRITY_FAILED", `${gone} (${round} rounds)`) });
      else restart.push({ member: m, missing });
      return false;
    });
    const checked = await verifyIndexVersions(
      tx,
      whole.map((m) => ({ indexVersionId: ivOf.get(m)!, expected: m.manifest })),
      target.space.dimensions,
    );
    const verified = whole.filter((m) => {
      const c = checked.get(ivOf.get(m)!)!;
      if ("count" in c) return true;
      outcome.set(m, { error: c.error });
      return false;
    });
    const dropped = writing.filter((m) => !verified.includes(m)).map((m) => ivOf.get(m)!);
    // A switch that neither switches nor supersedes anyone rolls back, as a lone task's always has:
    // nothing it wrote stays (no vector of a version that failed its check is kept for the retry
    // to reuse), and a member sent round again embeds again what this round embedded.
    if (verified.length === 0 && superseding.length === 0) throw decidedNothing;
    // Removing a version this transaction created is what its rollback would have done.
    if (dropped.length > 0) await runHot(tx, sql.dropBuildingVersions(dropped));
    if (verified.length === 0) return;
    const pointers = new Map(
      (
        await runHot<{ document_id: string; index_version_id: string; version_number: number; pinned: boolean }>(
          tx,
          sql.markReadyAndLockPointers(
            verified.map((m) => ({
              indexVersionId: ivOf.get(m)!,
              storedCount: (checked.get(ivOf.get(m)!) as { count: number }).count,
            })),
            target.shadow ? [] : verified.map((m) => m.lease.documentId),
          ),
        )
      ).rows.map((p) => [p.document_id, p]),
    );
    steps.done(STEP.WRITE, verified.length);
    wroteAt = performance.now();
    if (target.shadow) {
      // The shadow serves what the active pointer serves, with its pin (locked above).
      await runHot(
        tx,
        spaceSql.moveShadowPointers(
          target.space.id,
          verified.map((m) => {
            const p = shadowOf!.get(m.lease.documentId)!;
            return {
              documentId: m.lease.documentId,
              tenantId: m.lease.tenantId,
              indexVersionId: ivOf.get(m)!,
              versionNumber: m.lease.versionNumber,
              previousIndexVersionId: p.shadow_index_version_id,
              pinned: p.pinned ?? false,
              pinnedBy: p.pinned_by,
              pinnedReason: p.pinned_reason,
            };
          }),
        ),
      );
    } else {
      // Forward only: never to a version older than the one shown, and never over an operator pin.
      const moves = verified.flatMap((m) => {
        const { lease } = m;
        const ptr = pointers.get(lease.documentId);
        const move = !ptr || (!ptr.pinned && ptr.version_number <= lease.versionNumber);
        return move
          ? [
              {
                documentId: lease.documentId,
                tenantId: lease.tenantId,
                indexVersionId: ivOf.get(m)!,
                versionNumber: lease.versionNumber,
                previousIndexVersionId: ptr?.index_version_id ?? null,
                pin: null,
              },
            ]
          : [];
      });
      await movePointers(tx, moves);
    }
    beforeIndexSwitch(opts.faults);
    const stats = new Map(
      verified.map((m) => [
        m,
        {
          chunksTotal: m.chunks.length,
          chunksReused: m.chunks.filter((c) => m.stored.has(c.contentHash)).length,
          batchesSent: m.batches,
        },
      ]),
    );
    const done = await runHot(
      tx,
      qsql.completeTasks(
        workerId,
        verified.map((m) => ({ ...m.lease, stats: stats.get(m)! })),
      ),
    );
    // Every task row is locked under its fence in this transaction and now() is the transaction's
    // start, so all complete; anything else is a bug, and the whole switch rolls back.
    if (done.rowCount !== verified.length)
      throw new Error(`completed ${done.rowCount} of ${verified.length} held tasks`);
    for (const m of verified) outcome.set(m, { stats: stats.get(m)! });
  }).catch((err: unknown) => {
    if (err !== decidedNothing) throw err;
  });
  const switched = [...outcome.values()].filter((o) => "stats" in o).length;
  if (switched > 0) steps.done(STEP.SWITCH, switched);
  const s1 = performance.now();
  for (const [m, o] of outcome) {
    if (!m.hooks.trace) continue;
    if ("stats" in o) {
      m.hooks.trace.span("write", w0, wroteAt, { "indexwright.chunks": m.chunks.length });
      m.hooks.trace.span("switch", wroteAt, s1);
    } else if ("superseded" in o) m.hooks.trace.span("write", w0, s1, { "indexwright.superseded": o.superseded });
    else m.hooks.trace.span("write", w0, s1, undefined, o.error);
  }
  for (const [m, o] of outcome) {
    if ("stats" in o) {
      m.hooks.progress(m.chunks.length, m.chunks.length);
      out.fulfil(m.index, o.stats);
    } else if ("superseded" in o) {
      m.hooks.superseded?.(o.superseded);
      out.fulfil(m.index, null);
    } else {
      out.reject(m.index, o.error);
    }
  }
  for (const { member, missing } of restart)
    log.warn(
      { taskId: member.lease.taskId, missing, round },
      missing > 0
        ? "reused embeddings were collected before the switch; starting over"
        : "the tenant's index space changed during the build; building again in the space it searches now",
    );
  return restart.map((r) => r.member.index);
}

/**
 * Why a held MIGRATE task ends SUPERSEDED instead of switching, or null: it is bound to the version
 * the active space serves, so it is a no-op once that moved on (the move queued the new one), the
 * document went, or the tenant's migration ended.
 */
function shadowSupersededBecause(
  doc: { deleted_at: Date | null } | undefined,
  w: spaceSql.TenantSpacesRow,
  p: spaceSql.ShadowPointerRow | undefined,
  lease: Lease,
): string | null {
  if (!doc || doc.deleted_at) return "document deleted";
  if (w.migration_id === null) return "no migration is open for the tenant";
  if (!p || p.active_version !== lease.versionNumber) return "the active space serves another version now";
  return null;
}

/** Each member's outcome, decided once and told to the member at once. */
class Outcomes {
  private readonly results: (MemberResult | undefined)[];
  constructor(private readonly members: BatchMember[]) {
    this.results = new Array(members.length);
  }
  open(i: number): boolean {
    return this.results[i] === undefined;
  }
  unsettled(): number[] {
    return this.members.map((_, i) => i).filter((i) => this.open(i));
  }
  settle(i: number, result: MemberResult): void {
    if (!this.open(i)) return;
    this.results[i] = result;
    this.members[i].settled?.(result);
  }
  fulfil(i: number, value: CompleteStats | null): void {
    this.settle(i, { status: "fulfilled", value });
  }
  reject(i: number, reason: unknown): void {
    this.settle(i, { status: "rejected", reason });
  }
  /** A member still open whose task stopped being ours (aborted: lease lost, shutdown) leaves the batch with its signal's reason. */
  aborted(i: number): boolean {
    const signal = this.members[i].hooks.signal;
    if (this.open(i) && signal.aborted) {
      try {
        signal.throwIfAborted();
      } catch (e) {
        this.reject(i, e);
      }
    }
    return signal.aborted;
  }
  all(): MemberResult[] {
    const open = this.unsettled();
    if (open.length > 0)
      throw new Error(`tasks ${open.map((i) => this.members[i].lease.taskId)} ended their batch without an outcome`);
    return this.results as MemberResult[];
  }
}

type StepClock = ReturnType<typeof stepClock>;

/** Step durations for the worker's metrics: each step counts from the end of the one before. */
function stepClock() {
  let t = performance.now();
  return {
    /** `step` done for `tasks` tasks; `ms` when only part of the time since the last step was its own (the rest goes to the next). */
    done(step: Step, tasks: number, ms?: number): void {
      if (ms === undefined) t = stepDoneFor(step, t, tasks);
      else {
        stepDoneFor(step, t, tasks, ms);
        t += ms;
      }
    },
  };
}

function levelRecord(lease: Lease, level: 0 | 1, text: string, ordinal: number): Record_ {
  const sectionPath = level === 0 ? "abstract" : "overview";
  const contentHash = createHash("sha256").update(`${sectionPath}\n${text}`).digest("hex");
  // Named like every other chunk (docs/parsing.md, "Chunk ids"): tenant, document, version, chunker version,
  // ordinal and content hash. A summary id shared across versions would let a hit of v1 and a hit
  // of v2 look like the same chunk; its embedding is still reused through the content hash.
  const chunkId = createHash("sha256")
    .update(
      [
        lease.tenantId,
        lease.documentId,
        String(lease.versionNumber),
        CHUNKER_VERSION,
        `level${level}`,
        String(ordinal),
        contentHash,
      ].join("\u0000"),
    )
    .digest("hex")
    .slice(0, 32);
  return { ordinal, sectionPath, text, contentHash, chunkId, level };
}

/** Every record of the version, in ordinal order: its chunks, then the abstract and overview if given. */
function recordsOf(
  lease: Lease,
  version: LoadedVersion,
  sections: Awaited<ReturnType<typeof parseDocumentAsync>>,
  space: Space,
): Record_[] {
  const chunks: Record_[] = chunkSections(
    sections,
    { tenantId: lease.tenantId, documentId: lease.documentId, versionNumber: lease.versionNumber },
    { embeddingModel: space.model, ...chunkerOf(space) },
  ).map((c) => ({ ...c, level: 2 }));
  if (version.abstract?.trim()) chunks.push(levelRecord(lease, 0, version.abstract.trim(), chunks.length));
  if (version.overview?.trim()) chunks.push(levelRecord(lease, 1, version.overview.trim(), chunks.length));
  if (chunks.length === 0) throw new TaskError("EMPTY_DOCUMENT", "the document has no indexable text");
  return chunks;
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
