"use client";

import Link from "next/link";
import { documentHref, taskHref, type OpsTask } from "@/lib/ui/api";
import { formatDateTime, formatVersion } from "@/lib/ui/format";
import { useNow } from "@/lib/ui/hooks";
import { ProgressBar } from "../ProgressBar";
import { RelativeTime } from "../RelativeTime";
import { TaskStatusBadge } from "../StateBadge";
import { CancelTaskAction } from "./CancelTaskDialog";
import { PausedNote } from "./PausedNote";
import { SelectTask } from "./TaskSelection";
import { TableHead } from "../TableHead";
import { TaskTypeLabel } from "./TaskType";

export function TasksTable({ items, dimmed = false }: { items: OpsTask[]; dimmed?: boolean }) {
  const now = useNow(5_000);
  return (
    <div className={`table-wrap${dimmed ? " table-wrap--dimmed" : ""}`}>
      <table className="table table--tasks">
        <caption className="visually-hidden">Indexing tasks, newest first</caption>
        <TableHead
          columns={[
            "Task",
            "Document",
            "Type",
            "Status",
            { label: "Attempts", className: "col-right" },
            "Error",
            "Lease",
            "Next attempt",
            { label: "Updated", className: "col-right" },
          ]}
        />
        <tbody>
          {items.map((t) => {
            const leaseMs = t.leaseUntil ? Date.parse(t.leaseUntil) : NaN;
            const leaseExpired = t.status === "RUNNING" && Number.isFinite(leaseMs) && leaseMs < now;
            const waiting = t.status === "PENDING" || t.status === "RETRY_WAIT";
            return (
              <tr
                key={t.taskId}
                data-testid="task-row"
                data-task-id={t.taskId}
                data-status={t.status}
                data-key={t.documentKey}
              >
                <td className="nowrap">
                  <SelectTask task={t} />{" "}
                  <Link
                    href={taskHref(t.taskId)}
                    className="row-link mono"
                    data-testid="task-link"
                    aria-label={`Task ${t.taskId}`}
                  >
                    #{t.taskId}
                  </Link>
                </td>
                <td className="cell-doc">
                  <span className="stack-xs">
                    <Link
                      href={documentHref(t.tenant, t.documentKey)}
                      className="mono cell-doc__key"
                      data-testid="task-document-link"
                    >
                      {t.documentKey}
                    </Link>
                    <span className="cell-doc__meta">
                      <span className="tenant-chip">{t.tenant}</span>{" "}
                      <span className="mono muted">{formatVersion(t.versionNumber)}</span>
                    </span>
                  </span>
                </td>
                <td>
                  <TaskTypeLabel type={t.taskType} />
                </td>
                <td className="cell-state">
                  <TaskStatusBadge status={t.status} /> <PausedNote paused={t.paused} />{" "}
                  <CancelTaskAction
                    size="sm"
                    task={{
                      taskId: t.taskId,
                      versionNumber: t.versionNumber,
                      errorCode: t.errorCode,
                      documentKey: t.documentKey,
                      taskType: t.taskType,
                      status: t.status,
                    }}
                  />
                  {t.status === "RUNNING" ? (
                    t.progress && t.progress.total > 0 ? (
                      <ProgressBar
                        done={t.progress.done}
                        total={t.progress.total}
                        label={`Progress of task ${t.taskId}`}
                      />
                    ) : (
                      <span className="cell-state__waiting muted">Starting…</span>
                    )
                  ) : null}
                </td>
                <td className="col-right mono nowrap">
                  {t.attempts} / {t.maxAttempts}
                </td>
                <td className="cell-error">
                  {t.errorCode || t.errorMessage ? (
                    <span className="error-inline" title={[t.errorCode, t.errorMessage].filter(Boolean).join(": ")}>
                      {t.errorCode ? <code className="code-chip code-chip--danger">{t.errorCode}</code> : null}
                      {t.errorMessage ? <span className="error-inline__msg">{t.errorMessage}</span> : null}
                    </span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="cell-lease">
                  {t.leaseOwner && t.status !== "RUNNING" ? (
                    <span className="muted" title="The worker that last held this task's lease">
                      last on <span className="mono">{t.leaseOwner}</span>
                    </span>
                  ) : t.leaseOwner ? (
                    <span className="stack-xs">
                      <span className="mono lease-owner" title={t.leaseOwner}>
                        {t.leaseOwner}
                      </span>
                      {t.leaseUntil ? (
                        <span className={leaseExpired ? "text-danger" : "muted"} title={formatDateTime(t.leaseUntil)}>
                          {leaseExpired ? "expired " : "until "}
                          <RelativeTime iso={t.leaseUntil} />
                        </span>
                      ) : null}
                    </span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="nowrap">
                  {waiting ? <RelativeTime iso={t.nextAttemptAt} /> : <span className="muted">—</span>}
                </td>
                <td className="col-right nowrap">
                  <RelativeTime iso={t.updatedAt ?? t.createdAt} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
