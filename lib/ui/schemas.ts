// Client-side view of the JSON API. Schemas are deliberately a little lenient (numbers may arrive as
// strings, optional fields may be missing) so a harmless backend change does not blank the dashboard;
// everything is normalised to the shapes below.
import { z } from "zod";
import type { SearchMode } from "../search/modes";
import type { Schemas } from "../client";
import {
  DOCUMENT_STATE,
  ERROR_CODE_LIST,
  TASK_STATUSES,
  TASK_TYPES,
  TERMINAL_STATUSES,
  type DocumentState,
} from "@/lib/domain/constants";

export const DOCUMENT_STATES = Object.values(DOCUMENT_STATE) as DocumentState[];

/** States in which a document has work in flight (progress is meaningful, poll faster). */
export const BUSY_STATES: readonly DocumentState[] = [DOCUMENT_STATE.INDEXING, DOCUMENT_STATE.UPDATING];

export function isBusy(state: DocumentState): boolean {
  return BUSY_STATES.includes(state);
}

export function isDocumentState(v: unknown): v is DocumentState {
  return typeof v === "string" && (DOCUMENT_STATES as string[]).includes(v);
}

const num = z.coerce.number();
// null must be tried first: z.coerce.number() would turn null into 0.
const nullableNum = z
  .union([z.null(), num])
  .optional()
  .transform((v) => v ?? null);
const nullableStr = z
  .string()
  .nullish()
  .transform((v) => v ?? null);

export const progressSchema = z
  .object({ done: num, total: num })
  .nullish()
  .transform((v) => v ?? null);
export type Progress = { done: number; total: number } | null;

export const lastErrorSchema = z
  .object({
    code: z.string(),
    message: z
      .string()
      .nullish()
      .transform((v) => v ?? ""),
  })
  .nullish()
  .transform((v) => v ?? null);
export type LastError = { code: string; message: string } | null;

export const documentStateSchema = z.enum(DOCUMENT_STATES as [DocumentState, ...DocumentState[]]);

export const documentSummarySchema = z.object({
  tenant: z.string(),
  key: z.string(),
  title: z
    .string()
    .nullish()
    .transform((v) => v ?? ""),
  state: documentStateSchema,
  businessVersion: num,
  searchVersion: nullableNum,
  /** False when the search version was indexed with another embedding model than search uses now. */
  searchVersionServed: z
    .boolean()
    .nullish()
    .transform((v) => v ?? true),
  lastError: lastErrorSchema,
  progress: progressSchema,
  updatedAt: z.string(),
});
export type DocumentSummary = z.infer<typeof documentSummarySchema>;

export const versionSchema = z.object({
  versionNumber: num,
  title: z
    .string()
    .nullish()
    .transform((v) => v ?? ""),
  contentType: z
    .string()
    .nullish()
    .transform((v) => v ?? ""),
  contentBytes: nullableNum,
  /** Null where the caller may not read the text (it would confirm a guess). */
  checksum: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
  acl: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? []),
  publishedBy: z
    .string()
    .nullish()
    .transform((v) => v ?? ""),
  publishedAt: z.string(),
});
export type DocumentVersion = z.infer<typeof versionSchema>;

/** Chunk figures a finished (or running) task reports; null until the worker has chunked the version. */
export const taskStatsSchema = z
  .object({ chunksTotal: nullableNum, chunksReused: nullableNum, batchesSent: nullableNum })
  .nullish()
  .transform((v) => v ?? null);
export type TaskStats = { chunksTotal: number | null; chunksReused: number | null; batchesSent: number | null } | null;

export const taskSchema = z.object({
  taskId: z.coerce.string(),
  versionNumber: nullableNum,
  taskType: z.string(),
  status: z.string(),
  attempts: num,
  maxAttempts: num,
  errorCode: nullableStr,
  errorMessage: nullableStr,
  progress: progressSchema,
  stats: taskStatsSchema,
  leaseOwner: nullableStr,
  nextAttemptAt: nullableStr,
  createdAt: z.string(),
  updatedAt: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
  finishedAt: nullableStr,
});
export type DocumentTask = z.infer<typeof taskSchema>;

export const indexVersionSchema = z.object({
  id: z.coerce.string(),
  versionNumber: num,
  status: z.string(),
  chunkerVersion: nullableStr,
  embeddingModel: nullableStr,
  embeddingDimensions: nullableNum,
  spaceId: z
    .number()
    .nullish()
    .transform((v) => v ?? null),
  chunkCount: nullableNum,
  createdAt: z.string(),
  activatedAt: nullableStr,
  retiredAt: nullableStr,
});
export type IndexVersion = z.infer<typeof indexVersionSchema>;

export const documentDetailSchema = documentSummarySchema.omit({ updatedAt: true }).extend({
  updatedAt: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
  /** Search held at searchVersion by a rollback until an unpin or the next publish. */
  pinned: z
    .boolean()
    .nullish()
    .transform((v) => v ?? false),
  pinnedBy: nullableStr,
  pinnedReason: nullableStr,
  versions: z
    .array(versionSchema)
    .nullish()
    .transform((v) => v ?? []),
  tasks: z
    .array(taskSchema)
    .nullish()
    .transform((v) => v ?? []),
  indexVersions: z
    .array(indexVersionSchema)
    .nullish()
    .transform((v) => v ?? []),
  /** The tenant's active index space, the one search reads (null: not known). */
  embeddingSpace: z
    .object({
      id: z
        .number()
        .nullish()
        .transform((v) => v ?? null),
      name: nullableStr,
      model: z.string(),
      dimensions: num,
    })
    .nullish()
    .transform((v) => v ?? null),
});
export type DocumentDetail = z.infer<typeof documentDetailSchema>;

export const CONTENT_TYPES = ["text/markdown", "text/plain", "text/html"] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export type PublishInput = {
  tenant: string;
  key: string;
  title: string;
  contentType: ContentType;
  content: string;
  acl?: string[];
};

export type PublishResult = Schemas["PublishResult"] & { unchanged: boolean };

export type SearchInput = { tenant: string; query: string; topK: number; principals: string[]; mode?: SearchMode };

/** `{ error: { code, message } }`, with optional per-field details if the backend sends any. */
export const apiErrorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string().nullish(),
    details: z.unknown().optional(),
    issues: z.unknown().optional(),
    fields: z.unknown().optional(),
  }),
});

// ---------- operations (tasks, workers, overview, audit) ----------

export const TASK_STATUS_OPTIONS: readonly string[] = TASK_STATUSES;
export const TASK_TYPE_OPTIONS: readonly string[] = TASK_TYPES;
export const ERROR_CODE_OPTIONS: readonly string[] = ERROR_CODE_LIST;

/** SUCCEEDED, DEAD, SUPERSEDED, RESOLVED: nothing more happens unless an operator acts. */
export function isTerminalStatus(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

export const snapshotSchema = z.object({
  at: z.string(),
  pending: num,
  retryWait: num,
  running: num,
  dead: num,
  due: num,
  oldestDueAgeSeconds: nullableNum,
  drift: nullableNum,
  latencyP50Seconds: nullableNum,
  latencyP95Seconds: nullableNum,
});
export type BacklogSnapshot = z.infer<typeof snapshotSchema>;

/** The newest reconciler pass (counts per finding kind); lastPass is null until a worker has run one. */
export const reconcilerSchema = z
  .object({
    lastPass: z
      .object({ id: z.coerce.string(), startedAt: z.string(), finishedAt: nullableStr, actor: nullableStr })
      .nullish()
      .transform((v) => v ?? null),
    kinds: z
      .array(z.object({ kind: z.string(), found: num, repaired: num, skippedCap: num }))
      .nullish()
      .transform((v) => v ?? []),
  })
  .nullish()
  .transform((v) => v ?? { lastPass: null, kinds: [] });
export type ReconcilerSummary = z.infer<typeof reconcilerSchema>;

export const overviewSchema = z.object({
  generatedAt: z.string(),
  queue: z.object({
    due: num,
    oldestDueAgeSeconds: nullableNum,
    waitingForRetry: num,
    running: num,
    leasesExpiringSoon: num,
    leasesExpired: num,
    dead: num,
    byPriority: z
      .array(z.object({ priority: z.string(), tenantsWaiting: num, oldestWaitSeconds: nullableNum }))
      .nullish()
      .transform((v) => v ?? []),
    longestWaits: z
      .array(z.object({ tenant: z.string(), priority: z.string(), waitSeconds: num }))
      .nullish()
      .transform((v) => v ?? []),
  }),
  errors: z
    .array(z.object({ errorCode: z.string(), status: z.string(), count: num }))
    .nullish()
    .transform((v) => v ?? []),
  drift: z.object({ count: num, acknowledged: num, oldestAgeSeconds: nullableNum }),
  /** Live documents served by an index of another embedding space: invisible to search. */
  otherEmbeddingSpace: z
    .object({ count: num, model: nullableStr, dimensions: nullableNum })
    .nullish()
    .transform((v) => v ?? { count: 0, model: null, dimensions: null }),
  publishToSearchableSeconds: z.object({ p50: nullableNum, p95: nullableNum, p99: nullableNum, samples: num }),
  perTask: z
    .object({ chunks: nullableNum, embeddingBatches: nullableNum })
    .nullish()
    .transform((v) => v ?? { chunks: null, embeddingBatches: null }),
  embeddingReuseRate: nullableNum,
  workers: z
    .array(
      z.object({
        id: z.string(),
        host: z
          .string()
          .nullish()
          .transform((v) => v ?? ""),
        pid: nullableNum,
        concurrency: nullableNum,
        startedAt: z.string(),
        lastHeartbeatAt: z.string(),
        currentTasks: z
          .array(z.coerce.string())
          .nullish()
          .transform((v) => v ?? []),
      }),
    )
    .nullish()
    .transform((v) => v ?? []),
  history: z
    .array(snapshotSchema)
    .nullish()
    .transform((v) => v ?? []),
  reconciler: reconcilerSchema,
  reads: z
    .object({
      configured: z.boolean(),
      answeredFrom: z.string(),
      servingReads: z.string(),
      lagSeconds: nullableNum,
      lagBytes: nullableNum,
      maxLagSeconds: num,
      reason: nullableStr,
    })
    .nullish()
    .transform((v) => v ?? null),
});
export type Overview = z.infer<typeof overviewSchema>;
