"use client";

import Link from "next/link";
import { useId, type ReactNode } from "react";
import { documentHref, isApiError, type TaskDetail } from "@/lib/ui/api";
import { formatDateTime, formatRatio, formatVersion } from "@/lib/ui/format";
import { TASK_DETAIL_POLL_MS, useNow, useTask } from "@/lib/ui/hooks";
import { isTerminalStatus } from "@/lib/ui/schemas";
import { migrationsHref } from "@/lib/ui/spaces";
import { ProgressBar } from "../ProgressBar";
import { RelativeTime } from "../RelativeTime";
import { TaskStatusBadge } from "../StateBadge";
import { BlockSkeleton, EmptyState, QueryErrorState, StaleDataBanner } from "../States";
import { icons } from "../shell/icons";
import { DeadTaskActions } from "./DeadTaskActions";
import { CancelTaskAction } from "./CancelTaskDialog";
import { PausedNote } from "./PausedNote";
import { TaskTimeline } from "./TaskTimeline";
import { TASK_TYPE_HINT } from "./TaskType";

export function TaskDetailView({ taskId }: { taskId: string }) {
  const query = useTask(taskId);
  const notFound = query.isError && isApiError(query.error) && (query.error.isNotFound || query.error.status === 400);

  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>
            <Link href="/tasks">Tasks</Link>
          </li>
          <li aria-current="page" className="mono">
            #{taskId}
          </li>
        </ol>
      </nav>

      {query.isPending ? (
        <div className="stack" aria-busy="true">
          <span className="visually-hidden" role="status">
            Loading task…
          </span>
          <BlockSkeleton lines={3} />
        </div>
      ) : notFound ? (
        <section className="card" data-testid="not-found">
          <EmptyState
            icon={icons.tasks}
            title="Task not found"
            action={
              <Link href="/tasks" className="btn btn--secondary">
                Back to tasks
              </Link>
            }
          >
            <p>
              There is no task <code className="mono">#{taskId}</code>, or it belongs to a tenant you cannot see.
            </p>
          </EmptyState>
        </section>
      ) : query.isError && !query.data ? (
        <>
          <h1 className="page__title">Task #{taskId}</h1>
          <QueryErrorState title="Could not load this task" query={query} />
        </>
      ) : query.data ? (
        <>
          <StaleDataBanner query={query} />
          <TaskBody task={query.data} fetching={query.isFetching} />
        </>
      ) : null}
    </div>
  );
}

function forceCloseReason(task: TaskDetail): { actor: string | null; reason: string | null } | null {
  for (let i = task.events.length - 1; i >= 0; i--) {
    const e = task.events[i];
    if (e.kind === "OPERATOR_FORCE_DONE") {
      const d = e.detail && typeof e.detail === "object" ? (e.detail as Record<string, unknown>) : {};
      return { actor: e.actor, reason: typeof d.reason === "string" ? d.reason : null };
    }
  }
  return null;
}

function explain(task: TaskDetail): string {
  const v = formatVersion(task.versionNumber);
  const migrate = task.taskType === "MIGRATE";
  const what =
    task.taskType === "DELETE"
      ? `removing ${task.documentKey} from search`
      : migrate
        ? `building ${v} of ${task.documentKey} into the tenant's other index space (a migration build)`
        : `indexing ${v} of ${task.documentKey}`;
  switch (task.status) {
    case "PENDING":
      return `Waiting for a worker: ${what}.`;
    case "RUNNING":
      return `A worker (${task.leaseOwner ?? "unknown"}) is ${what}.`;
    case "RETRY_WAIT":
      return `Attempt ${task.attempts} of ${task.maxAttempts} failed${task.errorCode ? ` with ${task.errorCode}` : ""}; it will be retried automatically.`;
    case "SUCCEEDED":
      return task.taskType === "DELETE"
        ? `Done: ${task.documentKey} was removed from search.`
        : migrate
          ? `Done: ${v} of ${task.documentKey} is built in the migration's index space; search reads it there once the tenant switches.`
          : `Done: ${v} of ${task.documentKey} is indexed.`;
    case "DEAD":
      return `Gave up after ${task.attempts} attempt${task.attempts === 1 ? "" : "s"}${task.errorCode ? ` with ${task.errorCode}` : ""}. Nothing more happens until an operator retries or force-closes it.`;
    case "SUPERSEDED":
      return migrate
        ? `Superseded: the migration ended, or search moved ${task.documentKey} to another version (which was queued instead), before this build finished.`
        : `Superseded: a newer version was published before this one finished, so ${v} was skipped.`;
    case "CANCELLED":
      return `Cancelled before it ran (who and why: below). ${v} was not indexed; retry it to run it after all.`;
    case "RESOLVED": {
      const fc = forceCloseReason(task);
      return `Force-closed by ${fc?.actor ?? "an operator"}${fc?.reason ? ` (“${fc.reason}”)` : ""}. Not a success: ${v} was not indexed, and the drift stays visible as acknowledged.`;
    }
    default:
      return `Status ${task.status}.`;
  }
}

function TaskBody({ task, fetching }: { task: TaskDetail; fetching: boolean }) {
  const timelineId = useId();
  const factsId = useId();
  const terminal = isTerminalStatus(task.status);
  const stats = task.stats;
  const reuse =
    stats && stats.chunksTotal && stats.chunksTotal > 0 && stats.chunksReused !== null
      ? stats.chunksReused / stats.chunksTotal
      : null;
  const now = useNow(5_000);
  const leaseExpired = task.status === "RUNNING" && task.leaseUntil !== null && Date.parse(task.leaseUntil) < now;

  return (
    <>
      <header className="doc-header">
        <div className="doc-header__main">
          <h1 className="page__title doc-header__title">Task #{task.taskId}</h1>
          <p className="doc-header__meta">
            <span className="pill pill--neutral mono" data-testid="task-type" title={TASK_TYPE_HINT[task.taskType]}>
              {task.taskType}
            </span>
            {task.taskType === "MIGRATE" ? (
              <Link href={migrationsHref(task.tenant)} data-testid="task-migration-link">
                Migration build
              </Link>
            ) : null}
            <span className="tenant-chip">{task.tenant}</span>
            <Link href={documentHref(task.tenant, task.documentKey)} className="mono" data-testid="task-document-link">
              {task.documentKey}
            </Link>
            <span className="mono" data-testid="task-version">
              {formatVersion(task.versionNumber)}
            </span>
          </p>
        </div>
        <span className="status-lg">
          <TaskStatusBadge status={task.status} />
        </span>
      </header>

      <p
        className={`explainer explainer--task-${task.status.toLowerCase()}`}
        role="status"
        aria-live="polite"
        data-testid="task-explainer"
      >
        {explain(task)}
      </p>

      <PausedNote paused={task.paused} long />
      <CancelTaskAction
        task={{
          taskId: task.taskId,
          versionNumber: task.versionNumber,
          errorCode: task.errorCode,
          documentKey: task.documentKey,
          taskType: task.taskType,
          status: task.status,
        }}
      />
      {task.status === "DEAD" || task.status === "CANCELLED" ? (
        <DeadTaskActions
          task={{
            taskId: task.taskId,
            versionNumber: task.versionNumber,
            errorCode: task.errorCode,
            documentKey: task.documentKey,
            taskType: task.taskType,
          }}
        />
      ) : null}

      {task.errorCode || task.errorMessage ? (
        <section className="error-panel" aria-label="Last error" data-testid="task-error">
          <h2 className="section-title">
            {task.status === "RESOLVED" ? "Error before it was force-closed" : "Last error"}
          </h2>
          {task.errorCode ? (
            <p>
              <code className="code-chip code-chip--danger">{task.errorCode}</code>
            </p>
          ) : null}
          {task.errorMessage ? <pre className="error-panel__message">{task.errorMessage}</pre> : null}
        </section>
      ) : null}

      {task.status === "RUNNING" ? (
        <section className="card card--padded" aria-label="Progress">
          <h2 className="section-title">Progress</h2>
          {task.progress && task.progress.total > 0 ? (
            <ProgressBar done={task.progress.done} total={task.progress.total} size="lg" label="Chunks embedded" />
          ) : (
            <p className="muted">
              <span className="spinner" aria-hidden="true" /> Waiting for the worker to report progress…
            </p>
          )}
        </section>
      ) : null}

      <section className="card card--padded" aria-labelledby={factsId}>
        <h2 id={factsId} className="section-title">
          Facts
          <span className="muted section-title__aside">
            <span
              className={`live-dot${terminal ? " live-dot--off" : fetching ? " live-dot--busy" : ""}`}
              aria-hidden="true"
            />{" "}
            {terminal ? "final state; not refreshing" : `refreshing every ${TASK_DETAIL_POLL_MS / 1000} s`}
          </span>
        </h2>
        <dl className="facts" data-testid="task-facts">
          <Fact label="Attempts">
            <span className="mono" data-testid="task-attempts">
              {task.attempts} / {task.maxAttempts}
            </span>
          </Fact>
          <Fact label={task.status === "RUNNING" ? "Lease owner" : "Last lease owner"}>
            {task.leaseOwner ? <span className="mono">{task.leaseOwner}</span> : <span className="muted">none</span>}
          </Fact>
          <Fact label="Lease until">
            {task.leaseUntil ? (
              <span className={leaseExpired ? "text-danger" : undefined}>
                <RelativeTime iso={task.leaseUntil} />
                {leaseExpired ? " (expired)" : null}
              </span>
            ) : (
              <span className="muted">—</span>
            )}
          </Fact>
          <Fact label="Next attempt">
            {task.status === "PENDING" || task.status === "RETRY_WAIT" ? (
              <RelativeTime iso={task.nextAttemptAt} />
            ) : (
              <span className="muted">—</span>
            )}
          </Fact>
          <Fact label="Created">
            <span title={formatDateTime(task.createdAt)}>
              <RelativeTime iso={task.createdAt} />
            </span>
          </Fact>
          <Fact label="Started">
            <RelativeTime iso={task.startedAt} />
          </Fact>
          <Fact label="Finished">
            <RelativeTime iso={task.finishedAt} />
          </Fact>
          <Fact label="Chunks">
            {stats && stats.chunksTotal !== null ? (
              <span className="mono" data-testid="task-chunks">
                {stats.chunksTotal} total · {stats.chunksReused ?? 0} reused
              </span>
            ) : (
              <span className="muted">not chunked yet</span>
            )}
          </Fact>
          <Fact label="Embedding batches">
            {stats && stats.batchesSent !== null ? (
              <span className="mono">{stats.batchesSent}</span>
            ) : (
              <span className="muted">—</span>
            )}
          </Fact>
          <Fact label="Reuse">
            {reuse !== null ? <span className="mono">{formatRatio(reuse)}</span> : <span className="muted">—</span>}
          </Fact>
        </dl>
      </section>

      <section className="card" aria-labelledby={timelineId}>
        <h2 id={timelineId} className="section-title card__title">
          Timeline <span className="count">{task.events.length}</span>
        </h2>
        <TaskTimeline events={task.events} />
      </section>
    </>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
