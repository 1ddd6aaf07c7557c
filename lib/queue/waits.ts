// How long each tenant's next task in line has waited, per priority class: the overview's and the
// metrics' view of the fair claim (docs/decisions/040-fair-claim.md). Under the fair claim the
// oldest waiting task is not the one the claim takes next (that is the head of the class), it is
// the next task of a tenant with a long backlog; so the figure is read per tenant.
import type { Statement } from "../db/pool";
import { PRIORITY, type Priority } from "./sql";

export const PRIORITY_NAMES: Record<Priority, "interactive" | "bulk" | "migration"> = {
  [PRIORITY.INTERACTIVE]: "interactive",
  [PRIORITY.BULK]: "bulk",
  [PRIORITY.MIGRATION]: "migration",
};

/**
 * Each tenant's next PENDING task of each class (its first by fair_at) and how long it has been
 * due: a loose index scan of index_tasks_tenant_fair_idx, one probe per tenant and class with work
 * queued, however long the backlogs are (1,000 tenants: 3,000 probes).
 */
export function tenantQueueHeads(): Statement {
  const classScan = (c: Priority) => `h${c} AS (
  (SELECT t.tenant_id, t.next_attempt_at FROM index_tasks t
    WHERE t.status = 'PENDING' AND t.priority = ${c}
    ORDER BY t.tenant_id, t.priority, t.fair_at LIMIT 1)
  UNION ALL
  (SELECT n.tenant_id, n.next_attempt_at FROM h${c}, LATERAL (
     SELECT t.tenant_id, t.next_attempt_at FROM index_tasks t
      WHERE t.status = 'PENDING' AND t.priority = ${c} AND t.tenant_id > h${c}.tenant_id
      ORDER BY t.tenant_id, t.priority, t.fair_at LIMIT 1) n)
)`;
  const classes = [PRIORITY.INTERACTIVE, PRIORITY.BULK, PRIORITY.MIGRATION];
  return {
    text: `WITH RECURSIVE ${classes.map(classScan).join(", ")}
${classes
  .map(
    (c) =>
      `SELECT tenant_id, ${c}::int AS priority, greatest(0, extract(epoch FROM now() - next_attempt_at))::float8 AS wait_seconds FROM h${c}`,
  )
  .join("\nUNION ALL\n")}`,
    values: [],
  };
}

export type TenantQueueHead = { tenant_id: string; priority: Priority; wait_seconds: number };

export type QueueWaits = {
  byPriority: {
    priority: "interactive" | "bulk" | "migration";
    tenantsWaiting: number;
    oldestWaitSeconds: number | null;
  }[];
  /** The longest-waiting tenants' next tasks, longest first. */
  longest: { tenant: string; priority: "interactive" | "bulk" | "migration"; waitSeconds: number }[];
};

/** The heads a caller may see (`tenants` null: all), summed up per class and the `top` longest. */
export function summariseWaits(heads: TenantQueueHead[], tenants: string[] | null, top = 5): QueueWaits {
  const seen = tenants === null ? heads : heads.filter((h) => tenants.includes(h.tenant_id));
  const byPriority = [PRIORITY.INTERACTIVE, PRIORITY.BULK, PRIORITY.MIGRATION].map((c) => {
    const of = seen.filter((h) => Number(h.priority) === c);
    return {
      priority: PRIORITY_NAMES[c],
      tenantsWaiting: of.length,
      oldestWaitSeconds: of.length ? Math.max(...of.map((h) => h.wait_seconds)) : null,
    };
  });
  const longest = [...seen]
    .sort((a, b) => b.wait_seconds - a.wait_seconds)
    .slice(0, top)
    .map((h) => ({
      tenant: h.tenant_id,
      priority: PRIORITY_NAMES[Number(h.priority) as Priority],
      waitSeconds: h.wait_seconds,
    }));
  return { byPriority, longest };
}
