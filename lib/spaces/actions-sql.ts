// Statements of index-space migrations outside the worker's hot path (start, switch, switch-back,
// abort, finish, progress), one function per statement, run by lib/spaces/migrations.ts through
// whichever connection the caller has (a Prisma transaction in the repository, pg in the worker).
import type { Statement } from "../db/pool";
import { sqlList } from "../domain/constants";
import { OPEN_MIGRATION_STATES } from "./types";

const OPEN = sqlList(OPEN_MIGRATION_STATES);

export const MIGRATION_COLUMNS = `m.id::text, m.tenant_id, m.from_space_id, m.to_space_id, m.state, m.auto_switch, m.documents_total, m.max_attempts,
       m.texts_embedded::text, m.tokens_embedded::text, m.created_by, m.reason, m.created_at, m.ready_at, m.switched_at,
       m.switched_by, m.ended_at, m.ended_by, m.gate`;

/** The tenant's open migration, locked. */
export function lockOpenMigration(tenantId: string): Statement {
  return {
    text: `SELECT ${MIGRATION_COLUMNS} FROM space_migrations m WHERE m.tenant_id = $1 AND m.state IN ${OPEN} FOR UPDATE`,
    values: [tenantId],
  };
}

/** One migration of the tenant, locked. */
export function lockMigration(tenantId: string, id: string): Statement {
  return {
    text: `SELECT ${MIGRATION_COLUMNS} FROM space_migrations m WHERE m.tenant_id = $1 AND m.id = $2::bigint FOR UPDATE`,
    values: [tenantId, id],
  };
}

export function insertMigration(
  tenantId: string,
  fromSpaceId: number,
  toSpaceId: number,
  autoSwitch: boolean,
  actor: string,
  reason: string | null,
  maxAttempts: number,
): Statement {
  return {
    text: `INSERT INTO space_migrations (tenant_id, from_space_id, to_space_id, auto_switch, created_by, reason, max_attempts, documents_total)
VALUES ($1, $2, $3, $4, $5, $6, $7,
        (SELECT count(*)::int FROM search_pointers sp JOIN documents d ON d.id = sp.document_id AND d.deleted_at IS NULL WHERE sp.tenant_id = $1))
RETURNING id::text`,
    values: [tenantId, fromSpaceId, toSpaceId, autoSwitch, actor, reason, maxAttempts],
  };
}

/** The tenant's active space, with its row locked (a start or a switch is one at a time per tenant). */
export function lockTenant(tenantId: string): Statement {
  return { text: `SELECT active_space_id FROM tenants WHERE id = $1 FOR UPDATE`, values: [tenantId] };
}

/**
 * Every active pointer of the tenant, locked in document order: a delete's removal (which takes no
 * space lock) waits for the switch, or the switch for it.
 */
export function lockActivePointers(tenantId: string): Statement {
  return {
    text: `SELECT count(*)::int AS n FROM (SELECT 1 FROM search_pointers WHERE tenant_id = $1 ORDER BY document_id FOR UPDATE) p`,
    values: [tenantId],
  };
}

/** Every shadow pointer of the tenant in `spaceId`, locked in document order. */
export function lockShadowSpacePointers(tenantId: string, spaceId: number): Statement {
  return {
    text: `SELECT count(*)::int AS n FROM (SELECT 1 FROM space_pointers WHERE tenant_id = $1 AND space_id = $2 ORDER BY document_id FOR UPDATE) p`,
    values: [tenantId, spaceId],
  };
}

/**
 * How far the shadow space is from serving what the active one serves: live documents search
 * serves (`total`), those the shadow serves at the same version and pin (`built`), and the
 * tenant's MIGRATE work by status and, for DEAD ones, error code since the migration began.
 */
export function coverage(tenantId: string, shadowSpaceId: number): Statement {
  return {
    text: `SELECT count(*)::int AS total,
       count(*) FILTER (WHERE s.version_number = sp.version_number AND s.pinned = sp.pinned)::int AS built
  FROM search_pointers sp
  JOIN documents d ON d.id = sp.document_id AND d.deleted_at IS NULL
  LEFT JOIN space_pointers s ON s.space_id = $2 AND s.document_id = sp.document_id
 WHERE sp.tenant_id = $1`,
    values: [tenantId, shadowSpaceId],
  };
}

/** The tenant's MIGRATE tasks since `since`, by status and error code (progress, failures with retry). */
export function migrationTasks(tenantId: string, since: Date): Statement {
  return {
    text: `SELECT status, error_code, count(*)::int AS n,
       count(*) FILTER (WHERE status = 'SUCCEEDED' AND finished_at > now() - interval '2 minutes')::int AS recent
  FROM index_tasks
 WHERE tenant_id = $1 AND task_type = 'MIGRATE' AND updated_at >= $2
 GROUP BY status, error_code`,
    values: [tenantId, since],
  };
}

/**
 * The switch, first half: the active pointers are saved as the shadow pointers of `fromSpaceId`
 * (takeShadowPointers then makes the other space's active), in one transaction, with the tenant's active space set. indexwright.space_swap tells the pointer
 * triggers that this is a swap, not a move (nothing to queue, no webhook for each document).
 * The caller holds the tenant's space lock exclusive and every pointer of the tenant, and has
 * checked coverage: every active pointer has a shadow at the same version. An active pointer whose
 * version is not in `fromSpaceId` (data from before index spaces) is not kept: the previous space
 * then lacks that document, and the migration's work queued after the swap builds it there.
 */
export function swapPointers(tenantId: string, fromSpaceId: number): Statement {
  return {
    text: `WITH flag AS (
  SELECT set_config('indexwright.space_swap', 'on', true)
), saved AS (
  INSERT INTO space_pointers (space_id, document_id, tenant_id, index_version_id, version_number, pinned, pinned_by, pinned_reason, updated_at)
  SELECT $2, sp.document_id, sp.tenant_id, sp.index_version_id, sp.version_number, sp.pinned, sp.pinned_by, sp.pinned_reason, now()
    FROM search_pointers sp JOIN index_versions iv ON iv.id = sp.index_version_id AND iv.space_id = $2, flag
   WHERE sp.tenant_id = $1
  ON CONFLICT (space_id, document_id) DO UPDATE
     SET index_version_id = EXCLUDED.index_version_id, version_number = EXCLUDED.version_number, pinned = EXCLUDED.pinned,
         pinned_by = EXCLUDED.pinned_by, pinned_reason = EXCLUDED.pinned_reason, updated_at = now()
  RETURNING 1
)
SELECT (SELECT count(*) FROM saved)::int AS saved, (SELECT count(*) FROM flag)::int AS flagged`,
    values: [tenantId, fromSpaceId],
  };
}

/**
 * Before a swap: the pointers of documents that are deleted but whose DELETE has not run yet go,
 * as that DELETE would do (search already hides them; the trigger drops their shadow pointers
 * too). Coverage counts live documents only, so such a pointer would otherwise stay behind in the
 * old space. Dropping a pointer writes its document row (the search_version trigger), and the
 * caller already holds every pointer: a document row held by someone else (its DELETE task, or a
 * publish doing the DELETE's work, both waiting for this pointer) is skipped, never waited for,
 * and that pointer is left to the holder, which drops it once the swap commits.
 */
export function dropDeletedPointers(tenantId: string): Statement {
  return {
    text: `WITH doomed AS (
  SELECT d.id FROM search_pointers sp JOIN documents d ON d.id = sp.document_id
   WHERE sp.tenant_id = $1 AND d.deleted_at IS NOT NULL
   ORDER BY d.id
   FOR NO KEY UPDATE OF d SKIP LOCKED
), gone AS (
  DELETE FROM search_pointers sp USING doomed WHERE sp.document_id = doomed.id
  RETURNING sp.index_version_id
)
UPDATE index_versions iv SET status = 'RETIRED', retired_at = now()
  FROM gone WHERE iv.id = gone.index_version_id AND iv.status = 'ACTIVE'`,
    values: [tenantId],
  };
}

/**
 * The second half of the swap (a statement of its own: it must see the rows the first one saved).
 * Only shadows at the active pointer's own version are taken, so no pointer changes version and
 * no document row is written (the search_version trigger) while every pointer is held: coverage
 * made that every live document's case; a deleted one left by dropDeletedPointers keeps its
 * pointer for its DELETE.
 */
export function takeShadowPointers(tenantId: string, toSpaceId: number): Statement {
  return {
    text: `WITH taken AS (
  UPDATE search_pointers sp
     SET index_version_id = s.index_version_id, version_number = s.version_number, pinned = s.pinned,
         pinned_by = s.pinned_by, pinned_reason = s.pinned_reason, updated_at = now()
    FROM space_pointers s
   WHERE s.space_id = $2 AND s.tenant_id = $1 AND s.document_id = sp.document_id AND sp.tenant_id = $1
     AND s.version_number = sp.version_number
  RETURNING sp.document_id
), dropped AS (
  DELETE FROM space_pointers WHERE space_id = $2 AND tenant_id = $1 RETURNING 1
), active AS (
  UPDATE tenants SET active_space_id = $2 WHERE id = $1 RETURNING 1
)
SELECT (SELECT count(*) FROM taken)::int AS taken, (SELECT count(*) FROM dropped)::int AS dropped,
       (SELECT count(*) FROM active)::int AS active`,
    values: [tenantId, toSpaceId],
  };
}

/**
 * The swap is over: pointer triggers act again. A statement of its own, after the swap's: row
 * triggers fire at the end of the statement that fired them, so turning the flag off inside the
 * swap would let them see it off.
 */
export function endSwap(): Statement {
  return { text: `SELECT set_config('indexwright.space_swap', 'off', true) AS flag`, values: [] };
}

/**
 * After a swap: ACTIVE versions of the tenant that no pointer serves any more (an active pointer
 * that named a version outside the previous space, which the swap did not keep) are retired, so
 * garbage collection takes them after retention.
 */
export function retireUnservedVersions(tenantId: string): Statement {
  return {
    text: `UPDATE index_versions iv SET status = 'RETIRED', retired_at = now()
 WHERE iv.tenant_id = $1 AND iv.status = 'ACTIVE'
   AND NOT EXISTS (SELECT 1 FROM search_pointers sp WHERE sp.index_version_id = iv.id)
   AND NOT EXISTS (SELECT 1 FROM space_pointers s WHERE s.index_version_id = iv.id)`,
    values: [tenantId],
  };
}

/** The shadow space's pointers of the tenant go (an abort, a switch-back, a finish); its versions age out under retention. */
export function dropShadowPointers(tenantId: string, spaceId: number): Statement {
  return {
    text: `WITH gone AS (
  DELETE FROM space_pointers WHERE tenant_id = $1 AND space_id = $2 RETURNING index_version_id
)
UPDATE index_versions iv SET status = 'RETIRED', retired_at = now()
  FROM gone WHERE iv.id = gone.index_version_id AND iv.status = 'ACTIVE'`,
    values: [tenantId, spaceId],
  };
}

export function setMigrationState(
  id: string,
  state: string,
  fields: { switchedBy?: string; endedBy?: string; ready?: boolean; gate?: unknown },
): Statement {
  return {
    text: `UPDATE space_migrations
   SET state = $2,
       ready_at = CASE WHEN $3::boolean THEN now() ELSE ready_at END,
       switched_at = CASE WHEN $4::text IS NOT NULL THEN now() ELSE switched_at END,
       switched_by = coalesce($4::text, switched_by),
       ended_at = CASE WHEN $5::text IS NOT NULL THEN now() ELSE ended_at END,
       ended_by = coalesce($5::text, ended_by),
       gate = coalesce($6::jsonb, gate)
 WHERE id = $1::bigint`,
    values: [
      id,
      state,
      fields.ready ?? false,
      fields.switchedBy ?? null,
      fields.endedBy ?? null,
      fields.gate === undefined ? null : JSON.stringify(fields.gate),
    ],
  };
}

/** BUILDING migrations the maintenance loop looks at. */
export function buildingMigrations(): Statement {
  return {
    text: `SELECT ${MIGRATION_COLUMNS} FROM space_migrations m WHERE m.state IN ('BUILDING', 'READY') ORDER BY m.id LIMIT 100`,
    values: [],
  };
}
