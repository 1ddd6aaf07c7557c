import { DOCUMENT_STATE, type DocumentState } from "../domain/constants";

export type StateInput = {
  deleted: boolean;
  businessVersion: number;
  searchVersion: number | null;
  /** Status of the newest task for the business version (INDEX/REINDEX), if any. */
  latestTaskStatus: string | null;
};

/** The one place that turns raw facts into the state people see (design §7). */
export function documentState(s: StateInput): DocumentState {
  if (s.deleted) return DOCUMENT_STATE.DELETED;
  if (s.businessVersion === 0) return DOCUMENT_STATE.NOT_INDEXED;
  if (s.latestTaskStatus === "DEAD") return DOCUMENT_STATE.FAILED;
  const working = s.latestTaskStatus === "PENDING" || s.latestTaskStatus === "RUNNING" || s.latestTaskStatus === "RETRY_WAIT";
  if (s.searchVersion === null) return working ? DOCUMENT_STATE.INDEXING : DOCUMENT_STATE.NOT_INDEXED;
  if (s.searchVersion >= s.businessVersion) return working ? DOCUMENT_STATE.UPDATING : DOCUMENT_STATE.SEARCHABLE;
  // An older version serves. RESOLVED (operator force-done) leaves acknowledged drift: the
  // document is searchable, just not at its newest version.
  return working ? DOCUMENT_STATE.UPDATING : DOCUMENT_STATE.SEARCHABLE;
}

/**
 * The same rule as documentState() in SQL, for filtering and paging lists in the database.
 * Expects columns: d.deleted_at, d.business_version, sp.version_number, lt.status.
 * test/documents/state.test.ts checks both agree on every combination.
 */
export const DOCUMENT_STATE_SQL = `CASE
  WHEN d.deleted_at IS NOT NULL THEN 'DELETED'
  WHEN d.business_version = 0 THEN 'NOT_INDEXED'
  WHEN lt.status = 'DEAD' THEN 'FAILED'
  WHEN sp.version_number IS NULL THEN CASE WHEN lt.status IN ('PENDING','RUNNING','RETRY_WAIT') THEN 'INDEXING' ELSE 'NOT_INDEXED' END
  WHEN lt.status IN ('PENDING','RUNNING','RETRY_WAIT') THEN 'UPDATING'
  ELSE 'SEARCHABLE'
END`;

/** Lateral join giving `lt`: the newest INDEX/REINDEX task of the business version. */
export const LATEST_TASK_JOIN = `LEFT JOIN LATERAL (
  SELECT t.task_id, t.status, t.error_code, t.error_message, t.progress_done, t.progress_total
    FROM index_tasks t
   WHERE t.document_id = d.id AND t.version_number = d.business_version AND t.task_type IN ('INDEX', 'REINDEX')
   ORDER BY t.task_id DESC
   LIMIT 1) lt ON true`;
