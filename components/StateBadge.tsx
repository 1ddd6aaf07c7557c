import { DOCUMENT_STATE, type DocumentState } from "@/lib/domain/constants";

export const STATE_LABEL: Record<DocumentState, string> = {
  [DOCUMENT_STATE.NOT_INDEXED]: "Not indexed",
  [DOCUMENT_STATE.INDEXING]: "Indexing",
  [DOCUMENT_STATE.SEARCHABLE]: "Searchable",
  [DOCUMENT_STATE.UPDATING]: "Updating",
  [DOCUMENT_STATE.FAILED]: "Failed",
  [DOCUMENT_STATE.DELETED]: "Deleted",
};

/** One-line answer to "is it searchable, and if not why?" — used as the badge tooltip and on the detail page. */
export const STATE_HINT: Record<DocumentState, string> = {
  [DOCUMENT_STATE.NOT_INDEXED]: "Published, but no version has been indexed yet.",
  [DOCUMENT_STATE.INDEXING]: "The first version is being indexed; not searchable yet.",
  [DOCUMENT_STATE.SEARCHABLE]: "The latest published version is searchable.",
  [DOCUMENT_STATE.UPDATING]: "An older version is searchable while the latest one is being indexed.",
  [DOCUMENT_STATE.FAILED]: "Indexing failed; see the last error.",
  [DOCUMENT_STATE.DELETED]: "Deleted; removed from search.",
};

type Props = { state: DocumentState; size?: "sm" | "lg"; testId?: string };

/** Coloured pill that always carries text, so state is never conveyed by colour alone. */
export function StateBadge({ state, size = "sm", testId = "state-badge" }: Props) {
  return (
    <span
      className={`badge badge--${state.toLowerCase().replace("_", "-")}${size === "lg" ? " badge--lg" : ""}`}
      data-testid={testId}
      data-state={state}
      title={STATE_HINT[state]}
    >
      <span className="badge__dot" aria-hidden="true" />
      {STATE_LABEL[state]}
    </span>
  );
}

const TASK_TONE: Record<string, string> = {
  PENDING: "neutral",
  RUNNING: "info",
  RETRY_WAIT: "warn",
  SUCCEEDED: "ok",
  DEAD: "danger",
  SUPERSEDED: "muted",
  RESOLVED: "muted",
};

export const TASK_STATUS_HINT: Record<string, string> = {
  PENDING: "Waiting for a worker to claim it.",
  RUNNING: "A worker holds the lease and is indexing.",
  RETRY_WAIT: "Failed with a retryable error; waiting before the next attempt.",
  SUCCEEDED: "Finished: the version was indexed (or removed).",
  DEAD: "Gave up: a permanent error or no attempts left. Needs an operator.",
  SUPERSEDED: "Replaced by a newer version before it finished.",
  RESOLVED: "Force-closed by an operator. Not a success: the version was not indexed.",
};

/** Task status pill (not a document state, so it has its own test id). RESOLVED is never shown as a success. */
export function TaskStatusBadge({ status, testId = "task-status" }: { status: string; testId?: string }) {
  const tone = TASK_TONE[status] ?? "neutral";
  return (
    <span
      className={`pill pill--status pill--${tone}${status === "RESOLVED" ? " pill--resolved" : ""}`}
      data-testid={testId}
      data-status={status}
      title={TASK_STATUS_HINT[status]}
    >
      {status === "RESOLVED" ? "Resolved (force-closed)" : status.replace(/_/g, " ").toLowerCase()}
    </span>
  );
}
