"use client";

import { useId, useState } from "react";
import { taskHref } from "@/lib/ui/api";
import { formatVersion } from "@/lib/ui/format";
import { useCancelTask } from "@/lib/ui/pauses";
import { ActionForm, ReasonField, useDialogClose, useReason } from "../ActionForm";
import { Dialog } from "../Dialog";
import { useCan } from "../PrincipalContext";
import { useToast } from "../Toast";
import { describeTask, type TaskRef } from "./TaskActionDialogs";

type CancelRef = TaskRef & { taskType: string; status: string };

/** Whether an operator may cancel a task in this state: it waits (PENDING or RETRY_WAIT) and is no DELETE. */
export function cancellable(t: { status: string; taskType: string }): boolean {
  return (t.status === "PENDING" || t.status === "RETRY_WAIT") && t.taskType !== "DELETE";
}

/**
 * Cancel… for a waiting task (operator and above, the role of the other task actions). Renders
 * nothing for a task that cannot be cancelled or a caller who may not.
 */
export function CancelTaskAction({ task, size = "md" }: { task: CancelRef; size?: "sm" | "md" }) {
  const may = useCan("retryTask");
  const [open, setOpen] = useState(false);
  if (!may || !cancellable(task)) return null;
  const button = (
    <button
      type="button"
      className={`btn btn--secondary${size === "sm" ? " btn--sm" : ""}`}
      onClick={() => setOpen(true)}
      data-testid="task-cancel"
      aria-label={`Cancel task #${task.taskId}…`}
    >
      Cancel…
    </button>
  );
  const dialog = <CancelTaskDialog task={task} open={open} onClose={() => setOpen(false)} />;
  // On a task's page it sits in the action row (as Retry and Force-close do); in a table cell, inline.
  return size === "sm" ? (
    <>
      {button}
      {dialog}
    </>
  ) : (
    <div className="action-group" role="group" aria-label={`Actions for task #${task.taskId}`}>
      {button}
      {dialog}
    </div>
  );
}

export function CancelTaskDialog({ task, open, onClose }: { task: CancelRef; open: boolean; onClose: () => void }) {
  const cancel = useCancelTask();
  const close = useDialogClose(cancel, onClose);
  return (
    <Dialog
      open={open}
      onClose={close}
      busy={cancel.isPending}
      title={`Cancel task #${task.taskId}`}
      testId="cancel-dialog"
    >
      <CancelForm task={task} mutation={cancel} onClose={close} />
    </Dialog>
  );
}

function CancelForm({
  task,
  mutation,
  onClose,
}: {
  task: CancelRef;
  mutation: ReturnType<typeof useCancelTask>;
  onClose: () => void;
}) {
  const toast = useToast();
  const { reason, check, field } = useReason(`${useId()}-reason`, true);
  const v = formatVersion(task.versionNumber);
  return (
    <ActionForm
      effect={
        <>
          <p>
            Task {describeTask(task, task.taskType)} ends <strong>CANCELLED</strong> before any worker takes it. {v} is{" "}
            <strong>not</strong> indexed: the document reads <em>Failed</em> with your reason until someone retries the
            task, reindexes or publishes again.
          </p>
          <p className="effect__warn">
            A worker that claimed it a moment ago wins: then the cancel is refused and nothing changes.
          </p>
        </>
      }
      onSubmit={() => {
        if (!check()) return;
        mutation.mutate(
          { taskId: task.taskId, reason },
          {
            onSuccess: () => {
              onClose();
              toast.push({
                tone: "info",
                title: `Task #${task.taskId} cancelled`,
                body: "Its reason is on the timeline and the document.",
                link: { href: taskHref(task.taskId), label: "Open task" },
              });
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Cancel task"
      busyLabel="Cancelling…"
      tone="danger"
      confirmTestId="cancel-confirm"
    >
      <ReasonField {...field} testId="cancel-reason" />
    </ActionForm>
  );
}
