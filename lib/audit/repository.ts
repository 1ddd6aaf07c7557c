import "server-only";
import type pg from "pg";
import { prisma, iso, type Prisma, type Tx } from "../db/repository";
import type { AuditFilters } from "./schemas";
import { redactForReader, scrubForStorage } from "./redact";

export type AuditEntry = {
  actor: string;
  action: string;
  tenant?: string | null;
  targetType: string;
  targetId: string;
  reason?: string | null;
  /** Stored as JSON; undefined stores NULL. */
  detail?: unknown;
};

/**
 * The audit row of an action, written in the action's own transaction so the action either
 * happened and is audited, or neither. Raw rather than `auditLog.create`: Prisma fills a
 * `@default(now())` column with the application's clock, and every timestamp here comes from the
 * database's (the worker's timeline events and the operator's sit side by side).
 */
export async function writeAudit(tx: Tx, e: AuditEntry): Promise<void> {
  await tx.$executeRaw`INSERT INTO audit_log (actor, action, tenant_id, target_type, target_id, reason, detail)
    VALUES (${e.actor}, ${e.action}, ${e.tenant ?? null}, ${e.targetType}, ${e.targetId}, ${e.reason ?? null}, ${e.detail === undefined ? null : auditDetailJson(e.detail)}::jsonb)`;
}

/** A detail as stored: every audit insert goes through this (writeAudit, and the raw inserts on hot paths). */
export function auditDetailJson(detail: unknown): string {
  return JSON.stringify(scrubForStorage(detail));
}

/** The optional filters of the audit page (lib/audit/schemas.ts), as a model-query condition. */
function filterWhere(f: AuditFilters): Prisma.AuditLogWhereInput {
  const action = f.action?.endsWith(".*") ? { startsWith: f.action.slice(0, -1) } : f.action;
  return {
    // Prisma passes `contains` into ILIKE as it is: % and _ would be wildcards ("%" matched every actor).
    ...(f.actor
      ? { actor: { contains: f.actor.replace(/[\\%_]/g, (m) => `\\${m}`), mode: "insensitive" as const } }
      : {}),
    ...(action ? { action } : {}),
    // AND with the grant below: a tenant outside the caller's gives nothing, never more.
    ...(f.tenant ? { AND: [{ tenantId: f.tenant }] } : {}),
    ...(f.from || f.to
      ? { at: { ...(f.from ? { gte: new Date(f.from) } : {}), ...(f.to ? { lt: new Date(f.to) } : {}) } }
      : {}),
  };
}

/**
 * Newest first, keyset-paginated on id; a tenant-limited caller sees its tenants' entries only.
 * `fullDetail`: admins only; everyone else reads URLs cut to their origin (./redact.ts).
 */
export async function listAudit(
  pool: pg.Pool,
  f: { cursor?: string; limit: number; tenants: string[] | null; fullDetail: boolean } & AuditFilters,
) {
  const rows = await prisma(pool).auditLog.findMany({
    where: {
      ...filterWhere(f),
      ...(f.cursor ? { id: { lt: BigInt(f.cursor) } } : {}),
      ...(f.tenants ? { tenantId: { in: f.tenants } } : {}),
    },
    orderBy: { id: "desc" },
    take: f.limit + 1,
  });
  const more = rows.length > f.limit;
  const items = rows.slice(0, f.limit).map((r) => ({
    id: r.id.toString(),
    at: iso(r.at)!,
    actor: r.actor,
    action: r.action,
    tenant: r.tenantId,
    targetType: r.targetType,
    targetId: r.targetId,
    reason: r.reason,
    detail: f.fullDetail ? r.detail : (redactForReader(r.detail) as typeof r.detail),
  }));
  return { items, nextCursor: more ? items[items.length - 1].id : null };
}
