import type pg from "pg";
import { DOCUMENT_STATE_SQL, LATEST_TASK_JOIN, pointerJoin } from "./state";
import type { EmbeddingSpace } from "../embedding/types";
import { badRequest } from "../http/errors";

export type DocumentSummary = {
  tenant: string;
  key: string;
  title: string;
  state: string;
  businessVersion: number;
  searchVersion: number | null;
  /** False when the search version was indexed with another embedding model than search uses now (it is not served). */
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

/** The documents query; with a space, `$1`/`$2` are its model and dimensions (see pointerJoin). */
const select = (space: boolean) => `SELECT d.id, d.tenant_id, d.key, d.title, d.business_version, d.updated_at,
       sp.version_number AS search_version, sp.in_space, sp.pinned, sp.pinned_by, sp.pinned_reason, lt.status, lt.error_code, lt.error_message,
       lt.progress_done, lt.progress_total, ${DOCUMENT_STATE_SQL} AS state
  FROM documents d
  ${space ? pointerJoin("$1", "$2") : pointerJoin()}
  ${LATEST_TASK_JOIN}`;

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
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && typeof v[1] === "string" && ISO_INSTANT.test(v[0]) && !Number.isNaN(Date.parse(v[0])) && UUID.test(v[1])) return [v[0], v[1]];
  } catch {
    /* falls through to the 400 below */
  }
  throw badRequest("INVALID_CURSOR", "cursor is malformed");
}

/** Newest first, keyset-paginated (no OFFSET, no count(*)). */
export async function listDocuments(
  db: pg.Pool,
  f: { tenants: string[] | null; tenant?: string; state?: string; q?: string; cursor?: string; limit: number },
  space?: EmbeddingSpace,
): Promise<{ items: DocumentSummary[]; nextCursor: string | null }> {
  const where: string[] = [];
  const values: unknown[] = space ? [space.model, space.dimensions] : [];
  const add = (sql: string, v: unknown) => {
    values.push(v);
    where.push(sql.replaceAll("?", `$${values.length}`));
  };
  if (f.tenants) add("d.tenant_id = ANY(?::text[])", f.tenants);
  if (f.tenant) add("d.tenant_id = ?", f.tenant);
  if (f.q) add("(d.key ILIKE ? OR d.title ILIKE ?)", `%${f.q.replace(/[\\%_]/g, (m) => "\\" + m)}%`);
  if (f.state) {
    // A cheap necessary condition first (partial indexes on tasks, the denormalised search
    // version), so the exact state expression only runs on plausible rows.
    const pre: Record<string, string> = {
      FAILED: `d.id IN (SELECT document_id FROM index_tasks WHERE status = 'DEAD')`,
      INDEXING: `d.id IN (SELECT document_id FROM index_tasks WHERE status IN ('PENDING', 'RUNNING', 'RETRY_WAIT'))`,
      UPDATING: `d.id IN (SELECT document_id FROM index_tasks WHERE status IN ('PENDING', 'RUNNING', 'RETRY_WAIT'))`,
      NOT_INDEXED: `(d.search_version IS NULL OR sp.in_space IS FALSE)`,
      DELETED: `d.deleted_at IS NOT NULL`,
    };
    if (pre[f.state]) where.push(pre[f.state]);
    add(`(${DOCUMENT_STATE_SQL}) = ?`, f.state);
  }
  if (f.cursor) {
    const [at, id] = decodeCursor(f.cursor);
    values.push(at, id);
    where.push(`(d.updated_at, d.id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
  }
  values.push(f.limit + 1);
  const { rows } = await db.query<Row>(`${select(Boolean(space))} ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY d.updated_at DESC, d.id DESC LIMIT $${values.length}`, values);
  const more = rows.length > f.limit;
  const page = rows.slice(0, f.limit);
  return { items: page.map(summary), nextCursor: more ? encodeCursor(page[page.length - 1]) : null };
}

export async function getDocument(db: pg.Pool, tenant: string, key: string, space?: EmbeddingSpace) {
  const { rows } = space
    ? await db.query<Row>(`${select(true)} WHERE d.tenant_id = $3 AND d.key = $4`, [space.model, space.dimensions, tenant, key])
    : await db.query<Row>(`${select(false)} WHERE d.tenant_id = $1 AND d.key = $2`, [tenant, key]);
  const r = rows[0];
  if (!r) return null;
  const [versions, tasks, indexVersions] = await Promise.all([
    db.query(
      `SELECT version_number, title, content_type, content_bytes, checksum, acl, published_by, published_at, abstract IS NOT NULL AS has_abstract, overview IS NOT NULL AS has_overview
         FROM document_versions WHERE document_id = $1 ORDER BY version_number DESC LIMIT 100`,
      [r.id],
    ),
    db.query(
      // t.task_id: an unqualified name would sort the task_id::text output column ("10" < "9").
      `SELECT t.task_id::text, version_number, task_type, status, attempts, max_attempts, error_code, error_message, progress_done, progress_total,
              chunks_total, chunks_reused, batches_sent, created_at, updated_at, finished_at, next_attempt_at, lease_owner
         FROM index_tasks t WHERE document_id = $1 ORDER BY t.task_id DESC LIMIT 100`,
      [r.id],
    ),
    db.query(
      `SELECT id, version_number, status, chunker_version, embedding_model, embedding_dimensions, chunk_count, created_at, activated_at, retired_at
         FROM index_versions WHERE document_id = $1 ORDER BY created_at DESC LIMIT 50`,
      [r.id],
    ),
  ]);
  // A rollback pin: search stays at searchVersion until an unpin or the next publish. Who and why
  // are shown so the next operator knows whether it is safe to release.
  const pinned = r.pinned === true;
  return {
    documentId: r.id,
    ...summary(r),
    pinned,
    pinnedBy: pinned ? r.pinned_by : null,
    pinnedReason: pinned ? r.pinned_reason : null,
    versions: versions.rows.map((v) => ({
      versionNumber: v.version_number,
      title: v.title,
      contentType: v.content_type,
      contentBytes: v.content_bytes,
      checksum: v.checksum,
      acl: v.acl,
      hasAbstract: v.has_abstract,
      hasOverview: v.has_overview,
      publishedBy: v.published_by,
      publishedAt: v.published_at.toISOString(),
    })),
    tasks: tasks.rows.map((t) => ({
      taskId: t.task_id,
      versionNumber: t.version_number,
      taskType: t.task_type,
      status: t.status,
      attempts: t.attempts,
      maxAttempts: t.max_attempts,
      errorCode: t.error_code,
      errorMessage: t.error_message,
      progress: t.status === "RUNNING" ? { done: t.progress_done, total: t.progress_total } : null,
      stats: t.chunks_total === null ? null : { chunksTotal: t.chunks_total, chunksReused: t.chunks_reused, batchesSent: t.batches_sent },
      leaseOwner: t.lease_owner,
      nextAttemptAt: t.next_attempt_at?.toISOString() ?? null,
      createdAt: t.created_at.toISOString(),
      updatedAt: t.updated_at.toISOString(),
      finishedAt: t.finished_at?.toISOString() ?? null,
    })),
    indexVersions: indexVersions.rows.map((v) => ({
      id: v.id,
      versionNumber: v.version_number,
      status: v.status,
      chunkerVersion: v.chunker_version,
      embeddingModel: v.embedding_model,
      embeddingDimensions: v.embedding_dimensions,
      chunkCount: v.chunk_count,
      createdAt: v.created_at.toISOString(),
      activatedAt: v.activated_at?.toISOString() ?? null,
      retiredAt: v.retired_at?.toISOString() ?? null,
    })),
  };
}
