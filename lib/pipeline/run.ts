import type pg from "pg";
import { withTransaction } from "../db/pool";
import type { Lease } from "../queue/engine";
import type { Embedder } from "../embedding/types";
import type { SpaceEmbedders } from "../spaces/embedders";
import { TaskError } from "../queue/errors";
import { runDeleteTask } from "./delete-task";
import { runIndexBatch } from "./index-batch";
import type { BatchMember, MemberResult, PipelineOptions } from "./member";

/**
 * Run several held tasks (one worker slot's batch). INDEX, REINDEX and MIGRATE tasks of distinct
 * documents run together (runIndexBatch, which builds each in its index space); the rest (DELETE, a second task of a document already in the
 * batch) run one at a time after them, an index task as a batch of one. Resolves with one settled
 * result per task, in order: each task's outcome is its own, and is handed to the member's
 * `settled` as soon as it is decided.
 */
export async function executeTasks(
  pool: pg.Pool,
  embedder: Embedder | SpaceEmbedders,
  members: BatchMember[],
  opts: PipelineOptions,
): Promise<MemberResult[]> {
  const results: MemberResult[] = new Array(members.length);
  const together: number[] = [];
  const alone: number[] = [];
  const documents = new Set<string>();
  members.forEach((m, i) => {
    if (indexes(m.lease) && !documents.has(m.lease.documentId)) {
      documents.add(m.lease.documentId);
      together.push(i);
    } else {
      alone.push(i);
    }
  });
  if (together.length > 0) {
    const out = await runIndexBatch(
      pool,
      embedder,
      together.map((i) => members[i]),
      opts,
    );
    together.forEach((i, k) => (results[i] = out[k]));
  }
  for (const i of alone) {
    const m = members[i];
    if (indexes(m.lease)) {
      [results[i]] = await runIndexBatch(pool, embedder, [m], opts);
      continue;
    }
    try {
      if (m.lease.taskType !== "DELETE")
        throw new TaskError("INTERNAL_ERROR", `no handler for task type ${m.lease.taskType}`);
      results[i] = { status: "fulfilled", value: await runDeleteTask(pool, m) };
    } catch (reason) {
      results[i] = { status: "rejected", reason };
    }
    m.settled?.(results[i]);
  }
  return results;
}

function indexes(lease: Lease): boolean {
  return lease.taskType === "INDEX" || lease.taskType === "REINDEX" || lease.taskType === "MIGRATE";
}

/**
 * Drop index versions past retention: RETIRED ones, and READY ones that never became active (a
 * build that finished while the document was pinned, or lost to a newer version). Never one a
 * pointer references (pinned or active, in the active space or a migration's shadow). Documents are locked first with SKIP LOCKED, so the
 * sweep keeps the lock order and never waits on a switch, a rollback or an unpin; the DELETE is
 * a second statement so its snapshot sees everything committed before those locks were granted
 * (a rollback that re-activated a candidate in the meantime). The documents' vectors that no
 * record references afterwards go in the same transaction.
 */
export async function collectGarbage(pool: pg.Pool, retentionHours: number): Promise<number> {
  return withTransaction(pool, async (tx) => {
    const age = `coalesce(iv.retired_at, iv.created_at) < now() - make_interval(secs => $1::double precision)`;
    const candidates = await tx.query<{ id: string; document_id: string }>(
      `SELECT iv.id, iv.document_id
         FROM index_versions iv
         JOIN documents d ON d.id = iv.document_id
        WHERE iv.status IN ('RETIRED', 'READY') AND ${age}
        LIMIT 500
          FOR NO KEY UPDATE OF d SKIP LOCKED`,
      [retentionHours * 3600],
    );
    if (candidates.rows.length === 0) return 0;
    const r = await tx.query(
      `DELETE FROM index_versions iv
        WHERE iv.id = ANY($2::uuid[]) AND iv.status IN ('RETIRED', 'READY') AND ${age}
          AND NOT EXISTS (SELECT 1 FROM search_pointers sp WHERE sp.index_version_id = iv.id)
          AND NOT EXISTS (SELECT 1 FROM space_pointers sp WHERE sp.index_version_id = iv.id)`,
      [retentionHours * 3600, candidates.rows.map((c) => c.id)],
    );
    // Vectors no record references any more (their versions just went), under the same document
    // locks: an index write of these documents waits for them, so it never references a vector
    // this deletes (and one whose reuse lookup saw it counts it missing and looks again).
    await tx.query(
      `DELETE FROM chunk_vectors v
        WHERE v.document_id = ANY($1::uuid[])
          AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.vector_id = v.id)`,
      [[...new Set(candidates.rows.map((c) => c.document_id))]],
    );
    return r.rowCount ?? 0;
  });
}
