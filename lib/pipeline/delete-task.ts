import type pg from "pg";
import { withTransaction } from "../db/pool";
import { complete, lockDocument, lockHeld, supersedeHeld } from "../queue/engine";
import { supersededBecause, type BatchMember } from "./member";
import { removeFromSearch } from "./pointer";

/**
 * DELETE is bound to the business version it was requested for (task.version_number). In one
 * transaction, document row first: if the document was published again since (no longer deleted,
 * or its business version moved past the task's), the DELETE changes nothing and ends SUPERSEDED
 * with the reason on its timeline. Otherwise the pointer goes and every index version retires
 * (kept for the retention window, then collected).
 */
export async function runDeleteTask(pool: pg.Pool, { lease, hooks }: BatchMember): Promise<null> {
  await withTransaction(pool, async (tx) => {
    const doc = await lockDocument(tx, lease.documentId);
    await lockHeld(tx, lease);
    // Heartbeats go on while the switch waits for the document lock (a long wait must not let
    // the lease lapse); from here the task row is ours and this transaction's fence decides.
    hooks.beforeSwitch?.();
    const reason = supersededBecause(doc, lease);
    if (reason) {
      await supersedeHeld(tx, lease, reason, doc?.business_version ?? 0);
      hooks.superseded?.(reason);
      return;
    }
    await removeFromSearch(tx, lease.documentId);
    await complete(tx, lease, null);
  });
  return null;
}
