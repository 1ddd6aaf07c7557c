import type pg from "pg";
import { ANOMALY_ACTION, ANOMALY_KINDS, type AnomalyAction, type AnomalyKind } from "../domain/constants";
import type { PassCounts, PassTotals } from "./reconcile";

// Read side of the reconciler for the Overview API and /api/metrics: no pass logic, no config.

export type ReconcilerOverview = {
  lastPass: { id: string; startedAt: string; finishedAt: string | null; actor: string } | null;
  kinds: { kind: AnomalyKind; found: number; repaired: number; skippedCap: number }[];
  totals: { kind: AnomalyKind; action: AnomalyAction; count: number }[];
};

/** The newest pass's counts per kind (zeros for every kind before the first pass) and running totals. */
export async function latestPass(db: Pick<pg.Pool, "query">): Promise<ReconcilerOverview> {
  const row = (
    await db.query<{
      id: string;
      started_at: Date;
      finished_at: Date | null;
      actor: string;
      counts: Partial<PassCounts>;
      totals: Partial<PassTotals>;
    }>(`SELECT id::text, started_at, finished_at, actor, counts, totals FROM reconcile_passes ORDER BY id DESC LIMIT 1`)
  ).rows[0];
  const counts = row?.counts ?? {};
  const totals = row?.totals ?? {};
  return {
    lastPass: row
      ? {
          id: row.id,
          startedAt: row.started_at.toISOString(),
          finishedAt: row.finished_at?.toISOString() ?? null,
          actor: row.actor,
        }
      : null,
    kinds: ANOMALY_KINDS.map((kind) => ({
      kind,
      found: Number(counts[kind]?.found ?? 0),
      repaired: Number(counts[kind]?.repaired ?? 0),
      skippedCap: Number(counts[kind]?.skippedCap ?? 0),
    })),
    totals: ANOMALY_KINDS.flatMap((kind) =>
      (Object.values(ANOMALY_ACTION) as AnomalyAction[]).map((action) => ({
        kind,
        action,
        count: Number(totals[kind]?.[action] ?? 0),
      })),
    ),
  };
}
