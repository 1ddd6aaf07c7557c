import { DOCUMENT_STATE, type DocumentState } from "../domain/constants";

export type StateInput = {
  deleted: boolean;
  businessVersion: number;
  searchVersion: number | null;
  /** Status of the newest task for the business version (INDEX/REINDEX), if any. */
  latestTaskStatus: string | null;
  /**
   * Whether the search version's index was built in the embedding space queries use now. After a
   * model change an old-model version is invisible to search, so it does not count as served.
   * Absent = not known (taken as yes).
   */
  servedInSpace?: boolean | null;
};

/** The one place that turns raw facts into the state people see (docs/architecture.md, "Document states"). */
export function documentState(input: StateInput): DocumentState {
  const s = { ...input, searchVersion: input.servedInSpace === false ? null : input.searchVersion };
  if (s.deleted) return DOCUMENT_STATE.DELETED;
  if (s.businessVersion === 0) return DOCUMENT_STATE.NOT_INDEXED;
  // A cancelled build is the business version left unbuilt on an operator's word: whatever serves
  // is not this version, so it reads FAILED (with the cancel as its last error) until a retry,
  // a reindex or a new publish, never SEARCHABLE.
  if (s.latestTaskStatus === "DEAD" || s.latestTaskStatus === "CANCELLED") return DOCUMENT_STATE.FAILED;
  const working =
    s.latestTaskStatus === "PENDING" || s.latestTaskStatus === "RUNNING" || s.latestTaskStatus === "RETRY_WAIT";
  if (s.searchVersion === null) return working ? DOCUMENT_STATE.INDEXING : DOCUMENT_STATE.NOT_INDEXED;
  if (s.searchVersion >= s.businessVersion) return working ? DOCUMENT_STATE.UPDATING : DOCUMENT_STATE.SEARCHABLE;
  // An older version serves. RESOLVED (operator force-done) leaves acknowledged drift: the
  // document is searchable, just not at its newest version.
  return working ? DOCUMENT_STATE.UPDATING : DOCUMENT_STATE.SEARCHABLE;
}

/**
 * The same rule as documentState() in SQL, for filtering and paging lists in the database.
 * Expects columns: d.deleted_at, d.business_version, sp.version_number, sp.in_space, lt.status
 * (POINTER_JOIN and LATEST_TASK_JOIN provide sp and lt).
 * test/documents/state.test.ts checks both agree on every combination.
 */
const SERVED = `(CASE WHEN sp.in_space IS NOT FALSE THEN sp.version_number END)`;
export const DOCUMENT_STATE_SQL = `CASE
  WHEN d.deleted_at IS NOT NULL THEN 'DELETED'
  WHEN d.business_version = 0 THEN 'NOT_INDEXED'
  WHEN lt.status IN ('DEAD','CANCELLED') THEN 'FAILED'
  WHEN ${SERVED} IS NULL THEN CASE WHEN lt.status IN ('PENDING','RUNNING','RETRY_WAIT') THEN 'INDEXING' ELSE 'NOT_INDEXED' END
  WHEN lt.status IN ('PENDING','RUNNING','RETRY_WAIT') THEN 'UPDATING'
  ELSE 'SEARCHABLE'
END`;

/**
 * Lateral join giving `sp`: the document's search pointer plus `in_space`, whether its index
 * version was built with the embedding model and dimensions given as the two SQL placeholders
 * (e.g. "$3", "$4"); with no placeholders `in_space` is NULL (unknown, counted as served).
 */
export function pointerJoin(model?: string, dims?: string): string {
  const inSpace =
    model && dims ? `(iv.embedding_model = ${model} AND iv.embedding_dimensions = ${dims}::int)` : `NULL::boolean`;
  return `LEFT JOIN LATERAL (
  SELECT p.*, ${inSpace} AS in_space
    FROM search_pointers p JOIN index_versions iv ON iv.id = p.index_version_id
   WHERE p.document_id = d.id) sp ON true`;
}

/** Lateral join giving `lt`: the newest INDEX/REINDEX task of the business version. */
export const LATEST_TASK_JOIN = `LEFT JOIN LATERAL (
  SELECT t.task_id, t.status, t.error_code, t.error_message, t.progress_done, t.progress_total
    FROM index_tasks t
   WHERE t.document_id = d.id AND t.version_number = d.business_version AND t.task_type IN ('INDEX', 'REINDEX')
   ORDER BY t.task_id DESC
   LIMIT 1) lt ON true`;
