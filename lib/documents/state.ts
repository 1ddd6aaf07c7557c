import { DOCUMENT_STATE, type DocumentState } from "../domain/constants";

export type StateInput = {
  deleted: boolean;
  businessVersion: number;
  searchVersion: number | null;
  /** Status of the newest task for the business version (INDEX/REINDEX), if any. */
  latestTaskStatus: string | null;
  /**
   * Whether the search version's index was built in the tenant's active index space, the only one
   * search reads (docs/decisions/039-index-spaces.md): a version of another space serves nothing,
   * so it does not count as served. Absent = not known (taken as yes).
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
 * The tenant's active index space, as SQL over a tenant id expression. A tenant with no row yet
 * is on the default space, as everywhere a tenant's space is read.
 */
export const activeSpaceOf = (tenantId: string): string =>
  `coalesce((SELECT t.active_space_id FROM tenants t WHERE t.id = ${tenantId}), indexwright_default_space())`;

/**
 * Lateral join giving `sp`: the document's search pointer plus `in_space`, whether its index
 * version is in the document's tenant's active space. search_pointers holds only the active
 * space's pointers, but one can still name a version of another space (a tenant moved by hand, an
 * index from before spaces); search reads none of those.
 */
export const POINTER_JOIN = `LEFT JOIN LATERAL (
  SELECT p.*, iv.space_id = ${activeSpaceOf("d.tenant_id")} AS in_space
    FROM search_pointers p JOIN index_versions iv ON iv.id = p.index_version_id
   WHERE p.document_id = d.id) sp ON true`;

/**
 * Each index space with the tenants among `$1` (null: every tenant) that are not on it, and how
 * many tenants are: the only places a search pointer outside its tenant's active space can point.
 * A few rows, read first so that the look-up of such pointers (outsideActiveSpaceArm) is planned
 * with the spaces and tenants as values.
 */
export const SPACES_OFF_TENANTS_SQL = `SELECT e.id, e.model, e.dimensions,
       (SELECT count(*)::int FROM tenants t WHERE t.active_space_id = e.id) AS tenants_on,
       ARRAY(SELECT t.id FROM tenants t WHERE t.active_space_id <> e.id AND ($1::text[] IS NULL OR t.id = ANY($1::text[])) ORDER BY t.id) AS tenants
  FROM embedding_spaces e
 ORDER BY e.id`;

export type SpaceOffTenants = { id: number; model: string; dimensions: number; tenants_on: number; tenants: string[] };

/**
 * The search pointers (`sp`, with their index version `iv`) of `s.tenants` at a version of space
 * `s`, which none of them is on: one arm per row of SPACES_OFF_TENANTS_SQL that names a tenant, its
 * values given by `param` (which returns the placeholder). Led by the smaller side, as far as
 * tenant counts tell: the pointers of the tenants off the space (each version looked up by key),
 * or the space's versions, found through the (embedding_model, embedding_dimensions) index. An
 * index version carries its space's model and dimensions (the worker writes them from it; the
 * migration that introduced spaces assigned spaces by them).
 */
export function outsideActiveSpaceArm(s: SpaceOffTenants, columns: string, param: (v: unknown) => string): string {
  const inSpace = `iv.embedding_model = ${param(s.model)} AND iv.embedding_dimensions = ${param(s.dimensions)}::int AND iv.space_id = ${param(s.id)}::int`;
  const offTenants = `sp.tenant_id = ANY(${param(s.tenants)}::text[])`;
  // OFFSET 0 keeps the version look-up a nested loop on the key, not a scan of every version.
  return s.tenants.length < s.tenants_on
    ? `SELECT ${columns} FROM search_pointers sp
         CROSS JOIN LATERAL (SELECT iv.* FROM index_versions iv WHERE iv.id = sp.index_version_id AND ${inSpace} OFFSET 0) iv
        WHERE ${offTenants}`
    : `SELECT ${columns} FROM index_versions iv JOIN search_pointers sp ON sp.index_version_id = iv.id
        WHERE ${inSpace} AND ${offTenants}`;
}

/** Lateral join giving `lt`: the newest INDEX/REINDEX task of the business version. */
export const LATEST_TASK_JOIN = `LEFT JOIN LATERAL (
  SELECT t.task_id, t.status, t.error_code, t.error_message, t.progress_done, t.progress_total
    FROM index_tasks t
   WHERE t.document_id = d.id AND t.version_number = d.business_version AND t.task_type IN ('INDEX', 'REINDEX')
   ORDER BY t.task_id DESC
   LIMIT 1) lt ON true`;
