import "server-only";
import type pg from "pg";
import {
  prisma,
  transaction,
  asQueryable,
  execute,
  queryRows,
  iso,
  isUniqueViolation,
  pointersOutsideActiveSpace,
  Prisma,
  type Tx,
} from "../db/repository";
import { DOCUMENT_STATE_SQL, LATEST_TASK_JOIN, POINTER_JOIN } from "./state";
import { SPACE_LOCK_NAMESPACE } from "../spaces/sql";
import { DomainError, notFound } from "../domain/errors";
import { notifyTasks } from "../queue/sql";
import { movePointer } from "../pipeline/pointer";
import { TASK_TYPE, UNFINISHED_STATUSES, type TaskStatus } from "../domain/constants";
import { writeAudit } from "../audit/repository";
import { createTask, reopenReindexTask, supersedeOlderTasks } from "../queue/actions-sql";
import type { ChunkListQuery } from "./chunk-schemas";

// Documents for the dashboard (list, detail) and the actions on one document (delete, rollback,
// unpin, reindex, rename). The state rule is SQL (lib/documents/state.ts, one definition shared
// with publish), so the list and the detail are tagged-template SQL around it; model queries serve
// the look-ups inside actions. Every action locks the document row first (docs/architecture.md, "Lock
// order") and writes its audit row in the same transaction.

export type DocumentSummary = {
  tenant: string;
  key: string;
  title: string;
  state: string;
  businessVersion: number;
  searchVersion: number | null;
  /** False when the search version was indexed in another index space than the tenant's active one (it is not served). */
  searchVersionServed: boolean;
  lastError: { code: string; message: string } | null;
  progress: { done: number; total: number } | null;
  updatedAt: string;
};

type Row = {
  id: string;
  tenant_id: string;
  key: string;
  title: string;
  business_version: number;
  search_version: number | null;
  state: string;
  status: string | null;
  error_code: string | null;
  error_message: string | null;
  progress_done: number | null;
  progress_total: number | null;
  updated_at: Date;
  pinned: boolean | null;
  pinned_by: string | null;
  pinned_reason: string | null;
  in_space: boolean | null;
};

/** The documents query: each document judged in its own tenant's active space (POINTER_JOIN). */
function select(from: Prisma.Sql = Prisma.sql`documents d`): Prisma.Sql {
  return Prisma.sql`SELECT d.id, d.tenant_id, d.key, d.title, d.business_version, d.updated_at,
       sp.version_number AS search_version, sp.in_space, sp.pinned, sp.pinned_by, sp.pinned_reason, lt.status, lt.error_code, lt.error_message,
       lt.progress_done, lt.progress_total, ${Prisma.raw(DOCUMENT_STATE_SQL)} AS state
  FROM ${from}
  ${Prisma.raw(POINTER_JOIN)}
  ${Prisma.raw(LATEST_TASK_JOIN)}`;
}

function summary(r: Row): DocumentSummary {
  const working = r.status === "RUNNING" || r.status === "PENDING" || r.status === "RETRY_WAIT";
  return {
    tenant: r.tenant_id,
    key: r.key,
    title: r.title,
    state: r.state,
    businessVersion: r.business_version,
    searchVersion: r.search_version,
    searchVersionServed: r.in_space !== false,
    lastError: r.error_code ? { code: r.error_code, message: r.error_message ?? "" } : null,
    progress: working ? { done: r.progress_done ?? 0, total: r.progress_total ?? 0 } : null,
    updatedAt: r.updated_at.toISOString(),
  };
}

function encodeCursor(r: Row): string {
  return Buffer.from(JSON.stringify([r.updated_at.toISOString(), r.id])).toString("base64url");
}
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function decodeCursor(c: string): [string, string] {
  try {
    const v = JSON.parse(Buffer.from(c, "base64url").toString("utf8"));
    // Exactly what encodeCursor writes, so the ::timestamptz and ::uuid casts cannot fail in SQL.
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      typeof v[0] === "string" &&
      typeof v[1] === "string" &&
      ISO_INSTANT.test(v[0]) &&
      !Number.isNaN(Date.parse(v[0])) &&
      UUID.test(v[1])
    )
      return [v[0], v[1]];
  } catch {
    /* falls through to the 400 below */
  }
  throw new DomainError("INVALID_CURSOR", "cursor is malformed");
}

/**
 * A cheap necessary condition per rare state, each answered by an index (partial indexes on tasks
 * and documents, index versions by model and dimensions), so the state is only computed for
 * plausible documents. The candidates are looked up by primary key (`= ANY(ARRAY(…))`): as a
 * semi-join the planner read every document to match a thousand ids.
 */
type SpacesDb = Parameters<typeof pointersOutsideActiveSpace>[0];

async function statePrefilter(db: SpacesDb, state: string, tenants: string[] | null): Promise<Prisma.Sql | null> {
  if (state === "DELETED") return Prisma.sql`d.deleted_at IS NOT NULL`;
  const ids = await candidateIds(db, state, tenants);
  return ids ? Prisma.sql`d.id = ANY(ARRAY(${ids}))` : null;
}

/**
 * Documents with an unfinished task. Two arms, each implying one partial index's predicate (the
 * status index holds no RUNNING rows, index_tasks_lease_idx only those): as one IN list no index
 * matched it.
 */
const WORKING_IDS = Prisma.sql`SELECT document_id FROM index_tasks WHERE status IN ('PENDING', 'RETRY_WAIT') OR status = 'RUNNING'`;

/**
 * NOT_INDEXED means no served search version: none at all (search_version is the pointer's version,
 * kept by a trigger), or a pointer at an index version outside the tenant's active space.
 */
async function unservedIds(db: SpacesDb, tenants: string[] | null): Promise<Prisma.Sql> {
  return Prisma.sql`SELECT id FROM documents WHERE search_version IS NULL
            UNION ALL
            SELECT document_id FROM (${await pointersOutsideActiveSpace(db, tenants)}) outside`;
}

async function candidateIds(db: SpacesDb, state: string, tenants: string[] | null): Promise<Prisma.Sql | null> {
  switch (state) {
    case "FAILED":
      return Prisma.sql`SELECT document_id FROM index_tasks WHERE status IN ('DEAD', 'CANCELLED')`;
    case "UPDATING":
      return WORKING_IDS;
    case "INDEXING":
      // Working and not served. Most working documents are served (UPDATING), so the set is the
      // intersection, taken before any document is read (two id arrays matched against the
      // primary key cost 14 ms at a thousand working documents; the intersection costs none).
      return Prisma.sql`${WORKING_IDS} INTERSECT (${await unservedIds(db, tenants)})`;
    case "NOT_INDEXED":
      return unservedIds(db, tenants);
    default:
      return null;
  }
}

const MAX_BATCH = 1000;

/** Newest first, keyset-paginated (no OFFSET, no count(*)). */
export async function listDocuments(
  pool: pg.Pool,
  f: { tenants: string[] | null; tenant?: string; state?: string; q?: string; cursor?: string; limit: number },
): Promise<{ items: DocumentSummary[]; nextCursor: string | null }> {
  const where: Prisma.Sql[] = [];
  if (f.tenants) where.push(Prisma.sql`d.tenant_id = ANY(${f.tenants}::text[])`);
  if (f.tenant) where.push(Prisma.sql`d.tenant_id = ${f.tenant}`);
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (m) => "\\" + m)}%`;
    where.push(Prisma.sql`(d.key ILIKE ${like} OR d.title ILIKE ${like})`);
  }
  const db = prisma(pool);
  // The spaces are looked up for the tenants the list is limited to, so it reads no other's.
  const scope = f.tenant ? [f.tenant] : f.tenants;
  const prefilter = f.state ? await statePrefilter(db, f.state, scope) : null;
  if (prefilter) where.push(prefilter);
  const page = async (conds: Prisma.Sql[], after: [string, string] | null, n: number, state?: string) => {
    const all = after
      ? [...conds, Prisma.sql`(d.updated_at, d.id) < (${after[0]}::timestamptz, ${after[1]}::uuid)`]
      : conds;
    const filter = all.length ? Prisma.sql`WHERE ${Prisma.join(all, " AND ")}` : Prisma.empty;
    if (state) {
      // A rare state's candidates are few, but the state of each costs two lookups: they are put
      // in list order first (documents only), and the state is computed in that order until the
      // page is full. Computing it for every candidate and then sorting took 80 ms for a thousand
      // FAILED candidates at 100,000 documents, against 14 ms this way.
      const candidates = Prisma.sql`(SELECT * FROM documents d ${filter} ORDER BY d.updated_at DESC, d.id DESC OFFSET 0) d`;
      return db.$queryRaw<
        Row[]
      >`${select(candidates)} WHERE (${Prisma.raw(DOCUMENT_STATE_SQL)}) = ${state} ORDER BY d.updated_at DESC, d.id DESC LIMIT ${n}`;
    }
    return db.$queryRaw<Row[]>`${select()} ${filter} ORDER BY d.updated_at DESC, d.id DESC LIMIT ${n}`;
  };
  const start = f.cursor ? decodeCursor(f.cursor) : null;
  let rows: Row[];
  if (!f.state || prefilter) {
    rows = await page(where, start, f.limit + 1, f.state);
  } else {
    // A common state (SEARCHABLE) has no narrowing condition, and as a filter on the state
    // expression the planner guesses it keeps one row in two hundred: it then computed the state of
    // every document and sorted them all (0.2–0.4 s at 100,000 documents). The newest documents are
    // read in list order in growing batches instead, and kept when their state matches until the
    // page is full: the same page.
    rows = [];
    let after = start;
    for (let n = Math.min(2 * (f.limit + 1), MAX_BATCH); ; n = Math.min(2 * n, MAX_BATCH)) {
      const batch = await page(where, after, n);
      rows.push(...batch.filter((r) => r.state === f.state));
      if (rows.length > f.limit || batch.length < n) break;
      const last = batch[batch.length - 1];
      after = [last.updated_at.toISOString(), last.id];
    }
  }
  const more = rows.length > f.limit;
  const items = rows.slice(0, f.limit);
  return { items: items.map(summary), nextCursor: more ? encodeCursor(items[items.length - 1]) : null };
}

type VersionRow = {
  version_number: number;
  title: string;
  content_type: string;
  content_bytes: number;
  checksum: string;
  acl: string[];
  published_by: string;
  published_at: Date;
  has_abstract: boolean;
  has_overview: boolean;
  readable: boolean;
};

/**
 * Whether every ACL that governs a version admits `principals`: the version's own, the latest
 * published one's and the served one's (search's rule: an empty ACL is the whole tenant). The
 * chunk browser's text and the detail's checksums are shown by it.
 */
function aclsAdmit(
  documentId: Prisma.Sql,
  version: Prisma.Sql,
  business: number,
  served: number | null,
  principals: string[],
): Prisma.Sql {
  return Prisma.sql`NOT EXISTS (SELECT 1 FROM document_versions a
                        WHERE a.document_id = ${documentId} AND a.version_number IN (${version}, ${business}::int, ${served}::int)
                          AND NOT (cardinality(a.acl) = 0 OR a.acl && ${principals}::text[]))`;
}

type DocumentTaskRow = {
  task_id: string;
  version_number: number;
  task_type: string;
  status: string;
  attempts: number;
  max_attempts: number;
  error_code: string | null;
  error_message: string | null;
  progress_done: number;
  progress_total: number;
  chunks_total: number | null;
  chunks_reused: number | null;
  batches_sent: number | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  next_attempt_at: Date;
  lease_owner: string | null;
};

type IndexVersionRow = {
  id: string;
  version_number: number;
  status: string;
  chunker_version: string;
  embedding_model: string;
  embedding_dimensions: number;
  space_id: number;
  chunk_count: number;
  created_at: Date;
  activated_at: Date | null;
  retired_at: Date | null;
};

/**
 * Who reads a document's detail, for the version checksums: a SHA-256 of the whole published bytes
 * confirms a guessed short text, so it is shown where search would show the text (as in the chunk
 * browser), or to a caller who may publish to the tenant (`cli sync` compares checksums; publishing
 * a guess would tell such a caller the same). Absent: an internal read, shown in full.
 */
export type DetailReader = { principals: string[]; publisher: boolean };

export async function getDocument(pool: pg.Pool, tenant: string, key: string, reader?: DetailReader) {
  const db = prisma(pool);
  const [r] = await db.$queryRaw<Row[]>`${select()} WHERE d.tenant_id = ${tenant} AND d.key = ${key}`;
  if (!r) return null;
  // SQL for all three: as model queries, the tasks and index versions made the detail route about
  // twice as slow (7 ms more at the median on bench/dashboard.ts data), the client mapping 150 rows
  // field by field; and the abstract and overview are only asked whether they exist, not read.
  const [versions, tasks, indexVersions, space] = await Promise.all([
    db.$queryRaw<
      VersionRow[]
    >`SELECT version_number, title, content_type, content_bytes, checksum, acl, published_by, published_at,
           abstract IS NOT NULL AS has_abstract, overview IS NOT NULL AS has_overview,
           ${reader ? aclsAdmit(Prisma.raw("v.document_id"), Prisma.raw("v.version_number"), r.business_version, r.search_version, reader.principals) : Prisma.sql`true`} AS readable
      FROM document_versions v WHERE v.document_id = ${r.id}::uuid ORDER BY v.version_number DESC LIMIT 100`,
    // t.task_id: an unqualified name would sort the task_id::text output column ("10" < "9").
    db.$queryRaw<
      DocumentTaskRow[]
    >`SELECT t.task_id::text, version_number, task_type, status, attempts, max_attempts, error_code, error_message, progress_done, progress_total,
           chunks_total, chunks_reused, batches_sent, created_at, updated_at, finished_at, next_attempt_at, lease_owner
      FROM index_tasks t WHERE document_id = ${r.id}::uuid ORDER BY t.task_id DESC LIMIT 100`,
    db.$queryRaw<
      IndexVersionRow[]
    >`SELECT id, version_number, status, chunker_version, embedding_model, embedding_dimensions, space_id, chunk_count, created_at, activated_at, retired_at
      FROM index_versions WHERE document_id = ${r.id}::uuid ORDER BY created_at DESC LIMIT 50`,
    activeSpace(db, tenant),
  ]);
  // A rollback pin: search stays at searchVersion until an unpin or the next publish. Who and why
  // are shown so the next operator knows whether it is safe to release.
  const pinned = r.pinned === true;
  const checksumShown = (v: VersionRow) => !reader || reader.publisher || (r.state !== "DELETED" && v.readable);
  return {
    documentId: r.id,
    ...summary(r),
    pinned,
    pinnedBy: pinned ? r.pinned_by : null,
    pinnedReason: pinned ? r.pinned_reason : null,
    versions: versions.map((v) => ({
      versionNumber: v.version_number,
      title: v.title,
      contentType: v.content_type,
      contentBytes: v.content_bytes,
      checksum: checksumShown(v) ? v.checksum : null,
      acl: v.acl,
      hasAbstract: v.has_abstract,
      hasOverview: v.has_overview,
      publishedBy: v.published_by,
      publishedAt: v.published_at.toISOString(),
    })),
    tasks: tasks.map((t) => ({
      taskId: t.task_id,
      versionNumber: t.version_number,
      taskType: t.task_type,
      status: t.status,
      attempts: t.attempts,
      maxAttempts: t.max_attempts,
      errorCode: t.error_code,
      errorMessage: t.error_message,
      progress: t.status === "RUNNING" ? { done: t.progress_done, total: t.progress_total } : null,
      stats:
        t.chunks_total === null
          ? null
          : { chunksTotal: t.chunks_total, chunksReused: t.chunks_reused, batchesSent: t.batches_sent },
      leaseOwner: t.lease_owner,
      nextAttemptAt: iso(t.next_attempt_at),
      createdAt: t.created_at.toISOString(),
      updatedAt: t.updated_at.toISOString(),
      finishedAt: iso(t.finished_at),
    })),
    indexVersions: indexVersions.map((v) => ({
      id: v.id,
      versionNumber: v.version_number,
      status: v.status,
      chunkerVersion: v.chunker_version,
      embeddingModel: v.embedding_model,
      embeddingDimensions: v.embedding_dimensions,
      spaceId: v.space_id,
      chunkCount: v.chunk_count,
      createdAt: v.created_at.toISOString(),
      activatedAt: iso(v.activated_at),
      retiredAt: iso(v.retired_at),
    })),
    // What "served", rollback and unpin are judged against, so the page judges by the same space.
    embeddingSpace: space,
  };
}

/** An index space as the document answers name it. */
export type ActiveSpace = { id: number; name: string; model: string; dimensions: number };

/**
 * The tenant's active index space: the one search reads and builds go to, so what "served" means
 * for its documents. A tenant with no row yet (nothing published) is on the default space.
 */
export async function activeSpace(db: Pick<Tx, "$queryRaw">, tenant: string): Promise<ActiveSpace> {
  const [s] = await db.$queryRaw<ActiveSpace[]>`SELECT s.id, s.name, s.model, s.dimensions FROM embedding_spaces s
     WHERE s.id = coalesce((SELECT t.active_space_id FROM tenants t WHERE t.id = ${tenant}), indexwright_default_space())`;
  if (!s) throw new Error(`tenant ${tenant} has no active index space (and no default space is set)`);
  return s;
}

/** The model of the tenant's active index space: what its builds are embedded with (publish's token check). */
export async function activeEmbeddingModel(pool: pg.Pool, tenant: string): Promise<string> {
  return (await activeSpace(prisma(pool), tenant)).model;
}

// ---- Actions on one document.

type Actor = { subject: string };
type LockedDocument = { id: string; business_version: number; deleted_at: Date | null };

/** Lock order, step one: the document row, by its key (the worker's switch locks it by id). */
async function lockDocumentByKey(tx: Tx, tenant: string, key: string): Promise<LockedDocument | null> {
  const [d] = await tx.$queryRaw<
    LockedDocument[]
  >`SELECT id, business_version, deleted_at FROM documents WHERE tenant_id = ${tenant} AND key = ${key} FOR NO KEY UPDATE`;
  return d ?? null;
}

async function lockDocument(tx: Tx, tenant: string, key: string): Promise<LockedDocument> {
  const d = await lockDocumentByKey(tx, tenant, key);
  if (!d) throw new DomainError("NOT_FOUND", `document ${tenant}/${key} not found`);
  return d;
}

/**
 * Before an action points search at an index version: the tenant's space lock, shared, so no
 * switch moves the tenant until COMMIT (docs/decisions/039-index-spaces.md, "The space lock"),
 * then the active space as it stands under it. Two statements: a statement reads the snapshot it
 * started with, so a read in the statement that waited for the lock would miss the switch it
 * waited for. The pointer is read after this too: a switch swaps pointers without the document lock.
 */
async function lockActiveSpace(tx: Tx, tenant: string): Promise<ActiveSpace> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock_shared(${SPACE_LOCK_NAMESPACE}::int, hashtext(${tenant}))`;
  return activeSpace(tx, tenant);
}

/**
 * Removing a document from search is a DELETE task bound to the business version at this moment
 * (its version_number). Idempotent: asking again returns the same task (the business key is per
 * version). A publish after this supersedes the DELETE, and a DELETE that runs late anyway finds
 * the newer version under the document lock and changes nothing (lib/pipeline/delete-task.ts).
 */
export async function requestDelete(
  pool: pg.Pool,
  tenant: string,
  key: string,
  actor: string,
  maxAttempts: number,
): Promise<{ taskId: string } | null> {
  return transaction(pool, async (tx) => {
    const doc = await lockDocumentByKey(tx, tenant, key);
    if (!doc) return null;
    await tx.$executeRaw`UPDATE documents SET deleted_at = coalesce(deleted_at, now()), updated_at = now() WHERE id = ${doc.id}::uuid`;
    await writeAudit(tx, {
      actor,
      action: "document.delete",
      tenant,
      targetType: "document",
      targetId: `${tenant}/${key}`,
    });
    await execute(
      tx,
      supersedeOlderTasks(doc.id, doc.business_version + 1, actor, [TASK_TYPE.INDEX, TASK_TYPE.REINDEX]),
    );
    const [created] = await queryRows<{ task_id: string }>(
      tx,
      createTask(tenant, doc.id, doc.business_version, TASK_TYPE.DELETE, maxAttempts, actor, null),
    );
    if (created) {
      await execute(tx, notifyTasks());
      return { taskId: created.task_id };
    }
    const existing = await tx.indexTask.findFirstOrThrow({
      where: { documentId: doc.id, versionNumber: doc.business_version, taskType: TASK_TYPE.DELETE },
      select: { taskId: true },
    });
    return { taskId: existing.taskId.toString() };
  });
}

/**
 * A complete index version of `version` in the space `spaceId`, newest first, still within
 * retention. ACTIVE alone is no proof it serves: a migration's shadow pointer keeps its versions
 * ACTIVE too, which the space condition leaves out.
 */
async function completeIndexVersion(
  tx: Tx,
  documentId: string,
  version: number,
  spaceId: number,
  retentionHours: number,
) {
  const [v] = await tx.$queryRaw<{ id: string; status: string }[]>`
    SELECT id, status FROM index_versions
     WHERE document_id = ${documentId}::uuid AND version_number = ${version}::int AND status IN ('READY', 'RETIRED', 'ACTIVE') AND chunk_count = expected_chunk_count
       AND space_id = ${spaceId}::int
       AND (status = 'ACTIVE' OR coalesce(retired_at, created_at) > now() - make_interval(secs => ${retentionHours * 3600}::double precision))
     ORDER BY created_at DESC LIMIT 1`;
  return v;
}

/**
 * Point search back at an earlier complete index version still within retention, and pin it
 * there until the next publish (or an explicit unpin). Only versions built in the tenant's active
 * index space qualify: search reads no other, so any other would serve nothing, and it answers
 * 409 ROLLBACK_INCOMPATIBLE.
 */
export async function rollback(
  pool: pg.Pool,
  tenant: string,
  key: string,
  toVersion: number,
  reason: string,
  actor: Actor,
  retentionHours: number,
) {
  return transaction(pool, async (tx) => {
    const d = await lockDocument(tx, tenant, key);
    if (d.deleted_at) throw new DomainError("INVALID_STATE", "document is deleted");
    const space = await lockActiveSpace(tx, tenant);
    const [cur] = await tx.$queryRaw<{ index_version_id: string; version_number: number }[]>`
      SELECT index_version_id, version_number FROM search_pointers WHERE document_id = ${d.id}::uuid FOR UPDATE`;
    const target = await completeIndexVersion(tx, d.id, toVersion, space.id, retentionHours);
    if (!target) {
      const [other] = await tx.$queryRaw<{ embedding_model: string; embedding_dimensions: number; space: string }[]>`
        SELECT iv.embedding_model, iv.embedding_dimensions, s.name AS space FROM index_versions iv JOIN embedding_spaces s ON s.id = iv.space_id
         WHERE iv.document_id = ${d.id}::uuid AND iv.version_number = ${toVersion}::int AND iv.status IN ('READY', 'RETIRED', 'ACTIVE') AND iv.chunk_count = iv.expected_chunk_count
           AND (iv.status = 'ACTIVE' OR coalesce(iv.retired_at, iv.created_at) > now() - make_interval(secs => ${retentionHours * 3600}::double precision))
         ORDER BY iv.created_at DESC LIMIT 1`;
      if (other) {
        throw new DomainError(
          "ROLLBACK_INCOMPATIBLE",
          `v${toVersion} was indexed with ${other.embedding_model} (${other.embedding_dimensions} dimensions, index space ${other.space}); search in ${tenant} now embeds with ${space.model} (${space.dimensions}, index space ${space.name}), so it could not serve it`,
        );
      }
      throw new DomainError("ROLLBACK_UNAVAILABLE", `no complete index version of v${toVersion} is within retention`);
    }
    await movePointer(
      asQueryable(tx),
      { id: d.id, tenantId: tenant },
      { indexVersionId: target.id, versionNumber: toVersion },
      cur?.index_version_id ?? null,
      { by: actor.subject, reason },
    );
    await writeAudit(tx, {
      actor: actor.subject,
      action: "document.rollback",
      tenant,
      targetType: "document",
      targetId: `${tenant}/${key}`,
      reason,
      detail: { from: cur?.version_number ?? null, to: toVersion },
    });
    return { tenant, key, searchVersion: toVersion, pinned: true };
  });
}

/**
 * Release a rollback pin and return search to the business version: the newest complete index
 * version of it in the tenant's active index space serves at once (one that finished while pinned
 * stayed READY for this). Without one, the document keeps serving what it serves, unpinned, and
 * the task that builds the business version takes over when it switches: an unfinished one is left
 * to run, a DEAD one is left for the operator (the document reads FAILED with its error), and
 * otherwise a REINDEX is enqueued. Repeating an unpin changes nothing and is still audited.
 */
export async function unpin(
  pool: pg.Pool,
  tenant: string,
  key: string,
  actor: Actor,
  opts: { retentionHours: number; maxAttempts: number },
) {
  return transaction(pool, async (tx) => {
    const d = await lockDocument(tx, tenant, key);
    if (d.deleted_at) throw new DomainError("INVALID_STATE", "document is deleted");
    // Lock order: the task row this unpin may revive (the business version's REINDEX) before the
    // space lock, the pointer and index versions after it.
    await lockReindexTask(tx, tenant, d.id, d.business_version);
    const space = await lockActiveSpace(tx, tenant);
    const target = {
      actor: actor.subject,
      action: "document.unpin",
      tenant,
      targetType: "document",
      targetId: `${tenant}/${key}`,
    };
    // Reads only: the document lock serialises every other writer of these rows, and the space lock
    // keeps a switch from swapping the pointer until COMMIT.
    const cur = await tx.searchPointer.findUnique({
      where: { documentId: d.id },
      select: { indexVersionId: true, versionNumber: true, pinned: true },
    });
    if (!cur?.pinned) {
      await writeAudit(tx, { ...target, detail: { wasPinned: false } });
      return { tenant, key, pinned: false, searchVersion: cur?.versionNumber ?? null, taskId: null };
    }
    const best = await completeIndexVersion(tx, d.id, d.business_version, space.id, opts.retentionHours);
    let taskId: string | null = null;
    if (!best) {
      const tasks = await tx.indexTask.findMany({
        where: {
          documentId: d.id,
          versionNumber: d.business_version,
          taskType: { in: [TASK_TYPE.INDEX, TASK_TYPE.REINDEX] },
        },
        orderBy: { taskId: "desc" },
        select: { taskId: true, status: true },
      });
      const waiting = tasks.find((x) => UNFINISHED_STATUSES.includes(x.status as TaskStatus));
      if (waiting) taskId = waiting.taskId.toString();
      else if (tasks[0]?.status === "DEAD") taskId = tasks[0].taskId.toString();
      else taskId = await enqueueReindex(tx, tenant, d.id, d.business_version, actor, opts.maxAttempts);
    }
    await tx.searchPointer.updateMany({
      where: { documentId: d.id },
      data: { pinned: false, pinnedBy: null, pinnedReason: null },
    });
    let searchVersion = cur.versionNumber;
    if (best) {
      if (best.id !== cur.indexVersionId)
        await movePointer(
          asQueryable(tx),
          { id: d.id, tenantId: tenant },
          { indexVersionId: best.id, versionNumber: d.business_version },
          cur.indexVersionId,
        );
      searchVersion = d.business_version;
    }
    await writeAudit(tx, {
      ...target,
      detail: { wasPinned: true, from: cur.versionNumber, to: searchVersion, taskId },
    });
    return { tenant, key, pinned: false, searchVersion, taskId };
  });
}

/**
 * The REINDEX task row of `version`, locked (lock order: the caller holds the document, then the
 * task row): a worker may fail the task or the claim may exhaust it without the document lock, and
 * whether a revived task gets its CREATED event is decided on the status read here. A row that does
 * not exist yet is only created under the document lock, which the caller holds.
 */
async function lockReindexTask(tx: Tx, tenant: string, documentId: string, version: number) {
  const [row] = await tx.$queryRaw<{ status: string }[]>`
    SELECT status FROM index_tasks
     WHERE tenant_id = ${tenant} AND document_id = ${documentId}::uuid AND version_number = ${version}::int AND task_type = ${TASK_TYPE.REINDEX}
       FOR UPDATE`;
  return row as { status: string } | undefined;
}

/** Upsert the REINDEX task of `version`: an unfinished one is kept, a finished one starts over with a fresh budget. */
async function enqueueReindex(
  tx: Tx,
  tenant: string,
  documentId: string,
  version: number,
  actor: Actor,
  maxAttempts: number,
): Promise<string> {
  const before = await lockReindexTask(tx, tenant, documentId, version);
  const [r] = await queryRows<{ task_id: string }>(
    tx,
    reopenReindexTask(tenant, documentId, version, maxAttempts, actor.subject, before?.status ?? null),
  );
  if (!before || !UNFINISHED_STATUSES.includes(before.status as TaskStatus)) await execute(tx, notifyTasks());
  return r.task_id;
}

/** A REINDEX task for the business version (e.g. after a model change); reuses a finished one. */
export async function reindex(pool: pg.Pool, tenant: string, key: string, actor: Actor, maxAttempts: number) {
  return transaction(pool, async (tx) => {
    const d = await lockDocument(tx, tenant, key);
    if (d.deleted_at || d.business_version === 0) throw new DomainError("INVALID_STATE", "nothing to reindex");
    const taskId = await enqueueReindex(tx, tenant, d.id, d.business_version, actor, maxAttempts);
    await writeAudit(tx, {
      actor: actor.subject,
      action: "document.reindex",
      tenant,
      targetType: "document",
      targetId: `${tenant}/${key}`,
      detail: { taskId, versionNumber: d.business_version },
    });
    return { taskId };
  });
}

/** Move a document to a new key in its tenant. Chunks hang off the document id: nothing is re-embedded. */
export async function rename(pool: pg.Pool, tenant: string, key: string, newKey: string, actor: Actor) {
  return transaction(pool, async (tx) => {
    const [d] = await tx.$queryRaw<
      { id: string }[]
    >`SELECT id FROM documents WHERE tenant_id = ${tenant} AND key = ${key} FOR NO KEY UPDATE`;
    if (!d) {
      // Repeating a finished rename is harmless, but only that exact rename: the document now at
      // newKey must be the one the audit log says was renamed from key. Anything else is a 404.
      const done = await tx.$queryRaw<unknown[]>`
        SELECT 1 FROM audit_log a JOIN documents nd ON nd.tenant_id = ${tenant} AND nd.key = ${newKey}
         WHERE a.action = 'document.rename' AND a.tenant_id = ${tenant} AND a.target_id = ${`${tenant}/${newKey}`}
           AND a.detail->>'from' = ${key} AND a.detail->>'to' = ${newKey} AND a.detail->>'documentId' = nd.id::text
         LIMIT 1`;
      if (done[0]) return { tenant, key: newKey, renamed: false };
      throw new DomainError("NOT_FOUND", `document ${tenant}/${key} not found`);
    }
    if (key === newKey) return { tenant, key: newKey, renamed: false };
    const taken = await tx.document.findUnique({
      where: { tenantId_key: { tenantId: tenant, key: newKey } },
      select: { id: true },
    });
    if (taken) throw new DomainError("KEY_TAKEN", `${tenant}/${newKey} already exists`);
    // A publish to newKey that committed after the check above still takes the key first: the
    // update then fails on the unique key, and that is the same answer as the check's.
    await tx.$executeRaw`UPDATE documents SET key = ${newKey}, updated_at = now() WHERE id = ${d.id}::uuid`.catch(
      (err: unknown) => {
        throw isUniqueViolation(err, "documents_tenant_id_key_key")
          ? new DomainError("KEY_TAKEN", `${tenant}/${newKey} already exists`)
          : err;
      },
    );
    await writeAudit(tx, {
      actor: actor.subject,
      action: "document.rename",
      tenant,
      targetType: "document",
      targetId: `${tenant}/${newKey}`,
      detail: { from: key, to: newKey, documentId: d.id },
    });
    return { tenant, key: newKey, renamed: true };
  });
}

// The chunk browser of one document: which index versions it has, and the chunks of one of them
// (section, level, text, whether the vector was reused), a page at a time in reading order.

type ChunkBrowserDocRow = {
  id: string;
  served_id: string | null;
  served_version: number | null;
  business_version: number;
  deleted: boolean;
};
type ChunkBrowserVersionRow = Omit<IndexVersionRow, "activated_at" | "retired_at" | "space_id"> & {
  serving: boolean;
  readable: boolean;
  chunks_reused: number | null;
};
type ChunkBrowserRow = {
  ordinal: number;
  chunk_id: string;
  level: number;
  section_path: string;
  text: string;
  chars: number;
  content_hash: string;
  reused: boolean;
};

/**
 * `principals` are the caller's own (a person's email and groups; an application has none). A
 * version's text is shown only where search would let those principals read it, by search's rule
 * (an empty ACL is the whole tenant): the document is not deleted, and the version's own ACL, the
 * served version's (the one search applies now) and the latest published version's all admit the
 * caller. So an ACL tightened by a re-publish also hides the retained versions it replaced, and a
 * deleted document's versions, kept for garbage collection, are not readable here either. Where
 * the text is hidden, so are the section headings and content hashes (a hash confirms a guessed
 * short text); levels, sizes and reuse are shown either way.
 *
 * `reused` says whether a complete, still stored, earlier index version of this document holds
 * the same vector (the same text in the same index space): the rule the indexer reuses a vector
 * by. Versions removed since by garbage collection no longer count, so the task's own
 * chunksReused (also returned) is the figure at the time it was built.
 */
export async function listChunks(pool: pg.Pool, tenant: string, key: string, principals: string[], q: ChunkListQuery) {
  const db = prisma(pool);
  const [doc] = await db.$queryRaw<
    ChunkBrowserDocRow[]
  >`SELECT d.id, sp.index_version_id AS served_id, sp.version_number AS served_version, d.business_version,
           d.deleted_at IS NOT NULL AS deleted
      FROM documents d LEFT JOIN search_pointers sp ON sp.document_id = d.id
     WHERE d.tenant_id = ${tenant} AND d.key = ${key}`;
  if (!doc) throw notFound(`document ${tenant}/${key}`);

  // readable: no ACL that governs the version (its own, the served one's, the latest one's) shuts the caller out.
  const versions = await db.$queryRaw<
    ChunkBrowserVersionRow[]
  >`SELECT iv.id, iv.version_number, iv.status, iv.chunker_version, iv.embedding_model, iv.embedding_dimensions,
           iv.chunk_count, iv.created_at, iv.id = ${doc.served_id}::uuid AS serving,
           ${aclsAdmit(Prisma.raw("iv.document_id"), Prisma.raw("iv.version_number"), doc.business_version, doc.served_version, principals)} AS readable,
           t.chunks_reused
      FROM index_versions iv
      LEFT JOIN index_tasks t ON t.task_id = iv.task_id
     WHERE iv.document_id = ${doc.id}::uuid
     ORDER BY iv.created_at DESC LIMIT 50`;

  const chosen = q.indexVersion
    ? versions.find((v) => v.id === q.indexVersion)
    : (versions.find((v) => v.serving) ?? versions[0]);
  if (q.indexVersion && !chosen) throw notFound(`index version ${q.indexVersion} of ${tenant}/${key}`);

  let chunks: ChunkBrowserRow[] = [];
  if (chosen) {
    const level = q.level === undefined ? null : Number(q.level);
    const after = q.cursor === undefined ? -1 : Number(q.cursor);
    chunks = await db.$queryRaw<
      ChunkBrowserRow[]
    >`SELECT c.ordinal, c.chunk_id, c.level, c.section_path, c.text, char_length(c.text) AS chars, c.content_hash,
             EXISTS (SELECT 1 FROM chunks p JOIN index_versions piv ON piv.id = p.index_version_id
                      WHERE p.vector_id = c.vector_id AND piv.created_at < ${chosen.created_at}
                        AND piv.status IN ('READY', 'ACTIVE', 'RETIRED')) AS reused
        FROM chunks c
       WHERE c.index_version_id = ${chosen.id}::uuid AND c.ordinal > ${after}::int AND (${level}::int IS NULL OR c.level = ${level}::int)
       ORDER BY c.ordinal LIMIT ${q.limit + 1}`;
  }
  const more = chunks.length > q.limit;
  const page = chunks.slice(0, q.limit);
  const readable = (chosen?.readable ?? false) && !doc.deleted;

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
    textHiddenReason: !chosen || readable ? null : doc.deleted ? ("DELETED" as const) : ("ACL" as const),
    items: page.map((c) => ({
      ordinal: c.ordinal,
      // Derived from the content hash, so it would confirm a guessed text just as the hash would.
      chunkId: readable ? c.chunk_id : null,
      level: c.level,
      sectionPath: readable ? c.section_path : null,
      text: readable ? c.text : null,
      chars: c.chars,
      contentHash: readable ? c.content_hash : null,
      reused: c.reused,
    })),
    nextCursor: more ? String(page[page.length - 1].ordinal) : null,
  };
}
