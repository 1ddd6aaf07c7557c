import type { Queryable } from "../db/pool";
import { run } from "../db/pool";
import { runHot } from "../queue/engine";
import * as sql from "../queue/sql";

// The search pointer's two moves, shared by the worker's switch, publish, rollback, unpin and the
// reconciler. Callers hold the document row lock.

/**
 * Search reads `target` from now on: it becomes ACTIVE and the version it replaces RETIRED, in
 * one statement (moveSearchPointers).
 */
export async function movePointer(
  db: Queryable,
  doc: { id: string; tenantId: string },
  target: { indexVersionId: string; versionNumber: number },
  previousIndexVersionId: string | null,
  pin: { by: string; reason: string } | null = null,
): Promise<void> {
  await movePointers(db, [
    {
      documentId: doc.id,
      tenantId: doc.tenantId,
      indexVersionId: target.indexVersionId,
      versionNumber: target.versionNumber,
      previousIndexVersionId,
      pin,
    },
  ]);
}

/** movePointer for several documents (a task batch's switch), still one statement; each document once. */
export async function movePointers(db: Queryable, moves: sql.PointerMove[]): Promise<void> {
  if (moves.length === 0) return;
  await runHot(db, sql.moveSearchPointers(moves));
}

/** The document leaves search: no pointer, every index version retired. */
export async function removeFromSearch(db: Queryable, documentId: string): Promise<void> {
  await run(db, sql.dropSearchPointer(documentId));
  await run(db, sql.retireDocumentIndexVersions(documentId));
}
