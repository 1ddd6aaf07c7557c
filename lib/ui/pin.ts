import { UNFINISHED_STATUSES } from "../domain/constants";
import type { DocumentDetail, DocumentTask, IndexVersion } from "./schemas";

const COMPLETE_INDEX = ["READY", "RETIRED", "ACTIVE"];
export const UNFINISHED_TASK: readonly string[] = UNFINISHED_STATUSES;

/**
 * What an unpin would do, as far as the page can tell (the server decides, and the toast reports
 * what it did): search returns to the business version when a complete index of it exists in the
 * embedding space that serves now; otherwise the current version keeps serving until a task
 * builds one (`task`: the newest INDEX/REINDEX of the business version, if any).
 */
export type UnpinForecast =
  | { kind: "returns"; version: number }
  | { kind: "waits"; version: number; serving: number | null; task: DocumentTask | null };

export function unpinForecast(doc: DocumentDetail): UnpinForecast {
  // The space the server judges by. Only where it is not known does the serving index version
  // stand for it: a rollback set the pin in the space of its day, which a model change since has
  // left behind (unpin then finds nothing to return to, and queues a rebuild).
  const serving = doc.indexVersions.find((iv) => iv.status === "ACTIVE" && iv.versionNumber === doc.searchVersion);
  const space =
    doc.embeddingSpace ?? (serving ? { model: serving.embeddingModel, dimensions: serving.embeddingDimensions } : null);
  const sameSpace = (iv: IndexVersion) =>
    !space || (iv.embeddingModel === space.model && iv.embeddingDimensions === space.dimensions);
  const complete = doc.indexVersions.some(
    (iv) => iv.versionNumber === doc.businessVersion && COMPLETE_INDEX.includes(iv.status) && sameSpace(iv),
  );
  if (complete) return { kind: "returns", version: doc.businessVersion };
  const task =
    doc.tasks.find(
      (t) => t.versionNumber === doc.businessVersion && (t.taskType === "INDEX" || t.taskType === "REINDEX"),
    ) ?? null;
  // A version built in another space serves nothing, pinned or not.
  return {
    kind: "waits",
    version: doc.businessVersion,
    serving: doc.searchVersionServed ? doc.searchVersion : null,
    task,
  };
}
