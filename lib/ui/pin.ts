import type { DocumentDetail, DocumentTask, IndexVersion } from "./schemas";

const COMPLETE_INDEX = ["READY", "RETIRED", "ACTIVE"];
export const UNFINISHED_TASK = ["PENDING", "RUNNING", "RETRY_WAIT"];

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
  // A pinned pointer was set by a rollback, which only accepts the current embedding space: the
  // serving index version stands for that space here.
  const serving = doc.indexVersions.find((iv) => iv.status === "ACTIVE" && iv.versionNumber === doc.searchVersion);
  const sameSpace = (iv: IndexVersion) =>
    !serving || (iv.embeddingModel === serving.embeddingModel && iv.embeddingDimensions === serving.embeddingDimensions);
  const complete = doc.indexVersions.some(
    (iv) => iv.versionNumber === doc.businessVersion && COMPLETE_INDEX.includes(iv.status) && sameSpace(iv),
  );
  if (complete) return { kind: "returns", version: doc.businessVersion };
  const task = doc.tasks.find((t) => t.versionNumber === doc.businessVersion && (t.taskType === "INDEX" || t.taskType === "REINDEX")) ?? null;
  return { kind: "waits", version: doc.businessVersion, serving: doc.searchVersion, task };
}
