"use client";

import { useId } from "react";
import { taskHref } from "@/lib/ui/api";
import { formatVersion } from "@/lib/ui/format";
import { useForceDone, useRetryTask } from "@/lib/ui/hooks";
import { ActionForm, ReasonField, useDialogClose, useReason } from "../ActionForm";
import { Dialog } from "../Dialog";
import { useToast } from "../Toast";

/** What the dialogs need to know about the task they act on. */
export type TaskRef = {
  taskId: string;
  versionNumber: number | null;
  errorCode: string | null;
  documentKey?: string | null;
  taskType?: string | null;
};

type Props = { task: TaskRef; open: boolean; onClose: () => void };

/**
 * "#12 (v3 of handbook)", or "#12 (INDEX v3 of handbook)" given the task type: the task as every
 * action dialog's effect names it, after a "task" or "Task" that fits the sentence.
 */
export function describeTask(task: TaskRef, taskType?: string): string {
  const doc = task.documentKey ? ` of ${task.documentKey}` : "";
  return `#${task.taskId} (${taskType ? `${taskType} ` : ""}${formatVersion(task.versionNumber)}${doc})`;
}

export function RetryTaskDialog({ task, open, onClose }: Props) {
  const retry = useRetryTask();
  const close = useDialogClose(retry, onClose);
  return (
    <Dialog
      open={open}
      onClose={close}
      busy={retry.isPending}
      title={`Retry task #${task.taskId}`}
      testId="retry-dialog"
    >
      <RetryForm task={task} mutation={retry} onClose={close} />
    </Dialog>
  );
}

function RetryForm({
  task,
  mutation,
  onClose,
}: {
  task: TaskRef;
  mutation: ReturnType<typeof useRetryTask>;
  onClose: () => void;
}) {
  const toast = useToast();
  const { reason, check, field } = useReason(`${useId()}-reason`, false);

  return (
    <ActionForm
      effect={
        <p>
          Puts task {describeTask(task)} back to <strong>PENDING</strong> with a fresh attempt budget. A worker picks it
          up at once
          {task.errorCode ? (
            <>
              ; if the cause (<code className="code-chip code-chip--danger">{task.errorCode}</code>) is still there it
              fails again
            </>
          ) : null}
          .
        </p>
      }
      onSubmit={() => {
        if (!check()) return;
        mutation.mutate(
          { taskId: task.taskId, reason },
          {
            onSuccess: () => {
              onClose();
              toast.push({
                tone: "success",
                title: `Task #${task.taskId} queued again`,
                body: "It is PENDING with a fresh attempt budget; this page updates as a worker runs it.",
                link: { href: taskHref(task.taskId), label: "Open task" },
              });
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Retry task"
      busyLabel="Retrying…"
      confirmTestId="retry-confirm"
    >
      <ReasonField {...field} />
    </ActionForm>
  );
}

export function ForceDoneDialog({ task, open, onClose }: Props) {
  const forceDone = useForceDone();
  const close = useDialogClose(forceDone, onClose);
  return (
    <Dialog
      open={open}
      onClose={close}
      busy={forceDone.isPending}
      title={`Force-close task #${task.taskId}`}
      testId="force-done-dialog"
    >
      <ForceDoneForm task={task} mutation={forceDone} onClose={close} />
    </Dialog>
  );
}

function ForceDoneForm({
  task,
  mutation,
  onClose,
}: {
  task: TaskRef;
  mutation: ReturnType<typeof useForceDone>;
  onClose: () => void;
}) {
  const toast = useToast();
  const { reason, check, field } = useReason(`${useId()}-reason`, true);

  return (
    <ActionForm
      effect={
        task.taskType === "DELETE" ? (
          <>
            <p>
              Stops retrying task {describeTask(task)}. The task ends <strong>RESOLVED</strong>, and if the document
              still stands deleted at {formatVersion(task.versionNumber)}, this does the delete&apos;s work now: its
              index versions are retired and their chunks are collected after retention.
            </p>
            <p className="effect__warn">
              Search already hides a deleted document; to keep it, publish it again instead.
            </p>
          </>
        ) : (
          <>
            <p>
              Stops retrying task {describeTask(task)}. The task ends <strong>RESOLVED</strong>;{" "}
              {formatVersion(task.versionNumber)} is <strong>not</strong> indexed and search keeps serving whatever
              version it serves now.
            </p>
            <p className="effect__warn">
              This is not a success: the drift stays visible as <em>acknowledged</em> on the document and the overview.
            </p>
          </>
        )
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
                title: `Task #${task.taskId} force-closed (RESOLVED)`,
                body: "The drift is now shown as acknowledged.",
              });
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Force-close task"
      busyLabel="Closing…"
      tone="danger"
      confirmTestId="force-done-confirm"
    >
      <ReasonField
        {...field}
        hint="Required (at least 3 characters). Recorded in the audit log and on the task's timeline."
      />
    </ActionForm>
  );
}
