import type { Queryable } from "../db/pool";
import { run } from "../db/pool";
import * as sql from "../queue/sql";

// The search pointer's two moves, shared by the worker's switch, publish, rollback, unpin and the
// reconciler. Callers hold the document row lock.

/** Search reads `target` from now on: it becomes ACTIVE and the version it replaces RETIRED. */
export async function movePointer(
  db: Queryable,
  doc: { id: string; tenantId: string },
  target: { indexVersionId: string; versionNumber: number },
  previousIndexVersionId: string | null,
  pin: { by: string; reason: string } | null = null,
): Promise<void> {
  await run(db, sql.pointSearchAt(doc.id, doc.tenantId, target.indexVersionId, target.versionNumber, pin));
  await run(db, sql.activateIndexVersion(target.indexVersionId));
  if (previousIndexVersionId && previousIndexVersionId !== target.indexVersionId) await run(db, sql.retireIndexVersion(previousIndexVersionId));
}

/** The document leaves search: no pointer, every index version retired. */
export async function removeFromSearch(db: Queryable, documentId: string): Promise<void> {
  await run(db, sql.dropSearchPointer(documentId));
  await run(db, sql.retireDocumentIndexVersions(documentId));
}
