// Frozen vocabularies shared by TypeScript and SQL. The migration's CHECK constraints list the
// same values; test/db/constants.test.ts fails if the two ever disagree.

/** The moves between them are the table in lib/queue/transitions.ts. CANCELLED: ended by an operator before it ran. */
export const TASK_STATUSES = Object.freeze([
  "PENDING",
  "RUNNING",
  "RETRY_WAIT",
  "SUCCEEDED",
  "DEAD",
  "SUPERSEDED",
  "RESOLVED",
  "CANCELLED",
] as const);
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TERMINAL_STATUSES: readonly TaskStatus[] = Object.freeze([
  "SUCCEEDED",
  "DEAD",
  "SUPERSEDED",
  "RESOLVED",
  "CANCELLED",
] as const);
/** Terminal states an operator may revive (retry) or close (force-done): work nobody finished. */
export const REVIVABLE_STATUSES: readonly TaskStatus[] = Object.freeze(["DEAD", "CANCELLED"] as const);
/** The states an operator may cancel: the task is not in a worker's hands and has not ended. */
export const CANCELLABLE_STATUSES: readonly TaskStatus[] = Object.freeze(["PENDING", "RETRY_WAIT"] as const);
/** In a worker's hands or waiting for one: the task has not ended. */
export const UNFINISHED_STATUSES: readonly TaskStatus[] = Object.freeze(["PENDING", "RUNNING", "RETRY_WAIT"] as const);

/**
 * A frozen set written into SQL text as a list, `('PENDING', 'RUNNING')`, so a statement and the
 * TypeScript that checks the same rule cannot drift. Only for these vocabularies, never for input.
 */
export const sqlList = (values: readonly string[]): string => `(${values.map((v) => `'${v}'`).join(", ")})`;

/**
 * MIGRATE builds the version a tenant's active space serves for one document into the tenant's
 * shadow space (docs/index-spaces.md): never read by the document state rule, claimed
 * only into slots that the other types leave free.
 */
export const TASK_TYPE = Object.freeze({
  INDEX: "INDEX",
  REINDEX: "REINDEX",
  DELETE: "DELETE",
  MIGRATE: "MIGRATE",
} as const);
export type TaskType = (typeof TASK_TYPE)[keyof typeof TASK_TYPE];
export const TASK_TYPES = Object.freeze(Object.values(TASK_TYPE)) as readonly TaskType[];

export const INDEX_VERSION_STATUS = Object.freeze({
  BUILDING: "BUILDING",
  READY: "READY",
  ACTIVE: "ACTIVE",
  RETIRED: "RETIRED",
} as const);
export type IndexVersionStatus = (typeof INDEX_VERSION_STATUS)[keyof typeof INDEX_VERSION_STATUS];

/** Error codes (docs/architecture.md, "Task error codes"); `retryable`, never the message, drives retries. */
export const ERROR_CODES = Object.freeze({
  UNSUPPORTED_DOCUMENT: { retryable: false },
  PARSE_ERROR: { retryable: false },
  EMPTY_DOCUMENT: { retryable: false },
  /** The file broke a parse limit (heap, time, output, inflated or decoded size): it will again. */
  PARSE_LIMIT_EXCEEDED: { retryable: false },
  EMBEDDING_RATE_LIMITED: { retryable: true },
  EMBEDDING_TIMEOUT: { retryable: true },
  EMBEDDING_PROVIDER_UNAVAILABLE: { retryable: true },
  EMBEDDING_INVALID_RESPONSE: { retryable: false },
  INDEX_INTEGRITY_FAILED: { retryable: true },
  LEASE_ATTEMPTS_EXHAUSTED: { retryable: false },
  /** Not a failure of the work: an operator cancelled the task (its message says who and why). */
  OPERATOR_CANCELLED: { retryable: false },
  INTERNAL_ERROR: { retryable: true },
} as const);
export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_LIST = Object.freeze(Object.keys(ERROR_CODES)) as readonly ErrorCode[];
export function isErrorCode(v: unknown): v is ErrorCode {
  return typeof v === "string" && Object.prototype.hasOwnProperty.call(ERROR_CODES, v);
}

/** Kinds of task_events rows: the task timeline. Every one but RENEW_LOST is written with a move of TRANSITIONS. */
export type EventKind =
  | "CREATED"
  | "CLAIMED"
  | "LEASE_TAKEN_OVER"
  | "LEASE_EXPIRED_DEAD"
  | "RENEW_LOST"
  | "FAILED"
  | "RETRY_SCHEDULED"
  | "DEAD"
  | "SUPERSEDED"
  | "SUCCEEDED"
  | "RELEASED"
  | "OPERATOR_RETRY"
  | "OPERATOR_FORCE_DONE"
  | "OPERATOR_CANCEL";

/** Pipeline steps, used in progress detail and logs. */
export const STEP = Object.freeze({
  LOAD: "load",
  PARSE: "parse",
  CHUNK: "chunk",
  EMBED: "embed",
  WRITE: "write",
  SWITCH: "switch",
} as const);
export type Step = (typeof STEP)[keyof typeof STEP];

export const ROLES = Object.freeze(["viewer", "maintainer", "operator", "admin"] as const);
export type Role = (typeof ROLES)[number];

/** Per-document state shown to people (docs/architecture.md, "Document states"). */
export const DOCUMENT_STATE = Object.freeze({
  NOT_INDEXED: "NOT_INDEXED",
  INDEXING: "INDEXING",
  SEARCHABLE: "SEARCHABLE",
  UPDATING: "UPDATING",
  FAILED: "FAILED",
  DELETED: "DELETED",
} as const);
export type DocumentState = (typeof DOCUMENT_STATE)[keyof typeof DOCUMENT_STATE];

export const KEY_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/;
export const TENANT_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * What the reconciler (lib/reconcile/reconcile.ts) looks for, one code per finding. Stored in
 * anomaly_events.kind; the migration's CHECK constraint lists the same values.
 */
export const ANOMALY_KIND = Object.freeze({
  EXPIRED_LEASE: "EXPIRED_LEASE",
  STALE_DRIFT: "STALE_DRIFT",
  MISSING_TASK: "MISSING_TASK",
  UNSWITCHED_READY: "UNSWITCHED_READY",
  STALE_MODEL: "STALE_MODEL",
  ORPHANED_CHUNKS: "ORPHANED_CHUNKS",
  DEAD_TASKS: "DEAD_TASKS",
} as const);
export type AnomalyKind = (typeof ANOMALY_KIND)[keyof typeof ANOMALY_KIND];
export const ANOMALY_KINDS = Object.freeze(Object.values(ANOMALY_KIND)) as readonly AnomalyKind[];

/** What the reconciler did about a finding: noted it, fixed it, or left it for a later pass (cap reached). */
export const ANOMALY_ACTION = Object.freeze({
  REPORTED: "REPORTED",
  REPAIRED: "REPAIRED",
  SKIPPED_CAP: "SKIPPED_CAP",
} as const);
export type AnomalyAction = (typeof ANOMALY_ACTION)[keyof typeof ANOMALY_ACTION];
export const ANOMALY_ACTIONS = Object.freeze(Object.values(ANOMALY_ACTION)) as readonly AnomalyAction[];
