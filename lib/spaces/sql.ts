// Hot-path statements of index spaces (the worker's and search's), one function per statement,
// snapshot-tested with the rest (test/spaces/sql.snapshot.test.ts).
import type { Statement } from "../db/pool";
import { sqlList } from "../domain/constants";
import { OPEN_MIGRATION_STATES, SPACE_COLUMNS } from "./types";

const OPEN = sqlList(OPEN_MIGRATION_STATES);

/**
 * The namespace of the tenant space locks (docs/decisions/039-index-spaces.md, "The space lock"):
 * the first key of the two-key advisory lock, the second hashtext(tenant).
 */
export const SPACE_LOCK_NAMESPACE = 0x69777370; // "iwsp"

/**
 * Where each tenant's builds go: its active space, and the shadow space of its open migration.
 * A tenant with no row yet is on the default space.
 */
export function tenantSpaces(tenantIds: string[]): Statement {
  return {
    text: `SELECT x.id AS tenant_id, coalesce(t.active_space_id, indexwright_default_space()) AS active_space_id,
       m.id::text AS migration_id,
       CASE WHEN m.state = 'SWITCHED' THEN m.from_space_id ELSE m.to_space_id END AS shadow_space_id
  FROM unnest($1::text[]) AS x(id)
  LEFT JOIN tenants t ON t.id = x.id
  LEFT JOIN space_migrations m ON m.tenant_id = x.id AND m.state IN ${OPEN}`,
    values: [tenantIds],
  };
}

export type TenantSpacesRow = {
  tenant_id: string;
  active_space_id: number;
  migration_id: string | null;
  shadow_space_id: number | null;
};

/**
 * The tenants' space locks, shared, in tenant order. Taken by every transaction that points search
 * at an index version, after its document and task locks and before the pointers; a switch takes
 * the lock exclusive (lockTenantSpaceExclusive). Advisory: nothing is written, nothing waits but a
 * switch. Where the builds go is read by the *next* statement (tenantSpaces): a statement reads
 * the snapshot it started with, so one that waited here for a switch would still see the space
 * from before it.
 */
export function lockTenantSpacesShared(tenantIds: string[]): Statement {
  return {
    text: `SELECT count(pg_advisory_xact_lock_shared(${SPACE_LOCK_NAMESPACE}, hashtext(x.id)))::int AS locked
  FROM (SELECT DISTINCT id FROM unnest($1::text[]) AS u(id) ORDER BY id) x`,
    values: [tenantIds],
  };
}

/** A switch's lock: exclusive, so no build can point search at a version while the tenant moves. */
export function lockTenantSpaceExclusive(tenantId: string): Statement {
  return {
    text: `SELECT pg_advisory_xact_lock(${SPACE_LOCK_NAMESPACE}, hashtext($1))`,
    values: [tenantId],
  };
}

/** Every space, for the process's cache (a handful of rows). */
export function loadSpaces(): Statement {
  return { text: `SELECT ${SPACE_COLUMNS} FROM embedding_spaces ORDER BY id`, values: [] };
}

/**
 * Take `texts` from the space's migration rate, fleet-wide: a bucket kept as debt. The debt decays
 * at the rate since it was last touched and grows by what is taken; the answer is how long the
 * caller waits before it embeds (0 while the debt is within one second of the rate).
 */
export function takeRate(spaceId: number, texts: number): Statement {
  return {
    text: `UPDATE embedding_spaces
   SET rate_debt = greatest(0, rate_debt - extract(epoch FROM (now() - rate_at)) * texts_per_minute / 60.0) + $2,
       rate_at = now()
 WHERE id = $1 AND texts_per_minute IS NOT NULL
RETURNING greatest(0, (rate_debt - texts_per_minute / 60.0) / (texts_per_minute / 60.0)) * 1000 AS wait_ms`,
    values: [spaceId, texts],
  };
}

/** What a MIGRATE batch embedded, counted on its tenants' open migrations. */
export function countMigrationWork(rows: { tenantId: string; texts: number; tokens: number }[]): Statement {
  return {
    text: `UPDATE space_migrations m
   SET texts_embedded = m.texts_embedded + w.texts, tokens_embedded = m.tokens_embedded + w.tokens
  FROM (SELECT tenant_id, sum(texts)::bigint AS texts, sum(tokens)::bigint AS tokens
          FROM unnest($1::text[], $2::int[], $3::int[]) AS u(tenant_id, texts, tokens) GROUP BY tenant_id) w
 WHERE m.tenant_id = w.tenant_id AND m.state IN ${OPEN}`,
    values: [rows.map((r) => r.tenantId), rows.map((r) => r.texts), rows.map((r) => r.tokens)],
  };
}

/**
 * The shadow pointers of a MIGRATE batch's documents in its space, locked (document id order), with
 * the active pointer each must follow. After the documents, tasks and space locks, like the
 * active pointers of an index switch.
 */
export function lockShadowPointers(spaceId: number, documentIds: string[]): Statement {
  return {
    text: `WITH a AS (
  SELECT document_id, version_number, pinned, pinned_by, pinned_reason
    FROM search_pointers WHERE document_id = ANY($2::uuid[]) ORDER BY document_id FOR UPDATE
), s AS (
  SELECT document_id, index_version_id, version_number
    FROM space_pointers WHERE space_id = $1 AND document_id = ANY($2::uuid[]) ORDER BY document_id FOR UPDATE
)
SELECT d.id::text AS document_id, a.version_number AS active_version, a.pinned, a.pinned_by, a.pinned_reason,
       s.index_version_id::text AS shadow_index_version_id, s.version_number AS shadow_version
  FROM unnest($2::uuid[]) AS d(id)
  LEFT JOIN a ON a.document_id = d.id
  LEFT JOIN s ON s.document_id = d.id
 ORDER BY d.id`,
    values: [spaceId, documentIds],
  };
}

export type ShadowPointerRow = {
  document_id: string;
  active_version: number | null;
  pinned: boolean | null;
  pinned_by: string | null;
  pinned_reason: string | null;
  shadow_index_version_id: string | null;
  shadow_version: number | null;
};

/**
 * Point the shadow space at the new versions (ACTIVE there; the ones they replace RETIRED), with the
 * active pointer's pin copied. One statement for a batch.
 */
export function moveShadowPointers(
  spaceId: number,
  moves: {
    documentId: string;
    tenantId: string;
    indexVersionId: string;
    versionNumber: number;
    previousIndexVersionId: string | null;
    pinned: boolean;
    pinnedBy: string | null;
    pinnedReason: string | null;
  }[],
): Statement {
  return {
    text: `WITH m AS (
  SELECT * FROM unnest($2::uuid[], $3::text[], $4::uuid[], $5::int[], $6::uuid[], $7::boolean[], $8::text[], $9::text[])
           AS m(document_id, tenant_id, index_version_id, version_number, previous, pinned, pinned_by, pinned_reason)
), moved AS (
  INSERT INTO space_pointers (space_id, document_id, tenant_id, index_version_id, version_number, pinned, pinned_by, pinned_reason, updated_at)
  SELECT $1, document_id, tenant_id, index_version_id, version_number, pinned, pinned_by, pinned_reason, now() FROM m
  ON CONFLICT (space_id, document_id) DO UPDATE
     SET index_version_id = EXCLUDED.index_version_id, version_number = EXCLUDED.version_number, pinned = EXCLUDED.pinned,
         pinned_by = EXCLUDED.pinned_by, pinned_reason = EXCLUDED.pinned_reason, updated_at = now()
  RETURNING 1
)
UPDATE index_versions iv
   SET status = CASE WHEN iv.id = m.index_version_id THEN 'ACTIVE' ELSE 'RETIRED' END,
       activated_at = CASE WHEN iv.id = m.index_version_id THEN now() ELSE iv.activated_at END,
       retired_at = CASE WHEN iv.id = m.index_version_id THEN NULL ELSE now() END
  FROM m
 WHERE iv.id = m.index_version_id OR (iv.id = m.previous AND m.previous <> m.index_version_id AND iv.status = 'ACTIVE')`,
    values: [
      spaceId,
      moves.map((m) => m.documentId),
      moves.map((m) => m.tenantId),
      moves.map((m) => m.indexVersionId),
      moves.map((m) => m.versionNumber),
      moves.map((m) => m.previousIndexVersionId),
      moves.map((m) => m.pinned),
      moves.map((m) => m.pinnedBy),
      moves.map((m) => m.pinnedReason),
    ],
  };
}
