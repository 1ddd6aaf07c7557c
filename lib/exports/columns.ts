import type { DocumentSummary } from "../documents/repository";
import type { listTasks } from "../operations/repository";
import type { Column } from "./format";

// The fields of each export, in order: the CSV header and the JSON item keys.

export const DOCUMENT_COLUMNS: readonly Column<DocumentSummary>[] = [
  { header: "tenant", value: (d) => d.tenant },
  { header: "key", value: (d) => d.key },
  { header: "title", value: (d) => d.title },
  { header: "state", value: (d) => d.state },
  { header: "businessVersion", value: (d) => d.businessVersion },
  { header: "searchVersion", value: (d) => d.searchVersion },
  { header: "searchVersionServed", value: (d) => d.searchVersionServed },
  { header: "lastErrorCode", value: (d) => d.lastError?.code ?? null },
  { header: "lastErrorMessage", value: (d) => d.lastError?.message ?? null },
  { header: "progressDone", value: (d) => d.progress?.done ?? null },
  { header: "progressTotal", value: (d) => d.progress?.total ?? null },
  { header: "updatedAt", value: (d) => d.updatedAt },
];

type TaskItem = Awaited<ReturnType<typeof listTasks>>["items"][number];

export const TASK_COLUMNS: readonly Column<TaskItem>[] = [
  { header: "taskId", value: (t) => t.taskId },
  { header: "tenant", value: (t) => t.tenant },
  { header: "documentKey", value: (t) => t.documentKey },
  { header: "versionNumber", value: (t) => t.versionNumber },
  { header: "taskType", value: (t) => t.taskType },
  { header: "status", value: (t) => t.status },
  { header: "attempts", value: (t) => t.attempts },
  { header: "maxAttempts", value: (t) => t.maxAttempts },
  { header: "errorCode", value: (t) => t.errorCode },
  { header: "errorMessage", value: (t) => t.errorMessage },
  { header: "leaseOwner", value: (t) => t.leaseOwner },
  { header: "chunksTotal", value: (t) => t.stats?.chunksTotal ?? null },
  { header: "chunksReused", value: (t) => t.stats?.chunksReused ?? null },
  { header: "batchesSent", value: (t) => t.stats?.batchesSent ?? null },
  { header: "createdAt", value: (t) => t.createdAt },
  { header: "startedAt", value: (t) => t.startedAt },
  { header: "finishedAt", value: (t) => t.finishedAt },
  { header: "nextAttemptAt", value: (t) => t.nextAttemptAt },
];
