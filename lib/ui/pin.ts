import { UNFINISHED_STATUSES } from "../domain/constants";
import type { DocumentDetail, DocumentTask, IndexVersion } from "./schemas";

const COMPLETE_INDEX = ["READY", "RETIRED", "ACTIVE"];
export const UNFINISHED_TASK: readonly string[] = UNFINISHED_STATUSES;

type SpaceOf = { id?: number | null; model: string | null; dimensions: number | null };

/** Whether `iv` was built in `space`: by the space's id where both name it, else by model and dimensions. */
export function builtIn(iv: IndexVersion, space: SpaceOf): boolean {
  if (space.id != null && iv.spaceId != null) return iv.spaceId === space.id;
  return iv.embeddingModel === space.model && iv.embeddingDimensions === space.dimensions;
}

/**
 * What an unpin would do, as far as the page can tell (the server decides, and the toast reports
 * what it did): search returns to the business version when a complete index of it exists in the
 * tenant's active index space; otherwise the current version keeps serving until a task
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
  const space: SpaceOf | null =
    doc.embeddingSpace ??
    (serving ? { id: serving.spaceId, model: serving.embeddingModel, dimensions: serving.embeddingDimensions } : null);
  const sameSpace = (iv: IndexVersion) => !space || builtIn(iv, space);
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
