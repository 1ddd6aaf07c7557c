"use client";

import { useId } from "react";
import { useBulkRetry } from "@/lib/ui/hooks";
import { ActionForm, ReasonField, useDialogClose, useReason } from "../ActionForm";
import { Dialog } from "../Dialog";
import { useToast } from "../Toast";

type Props = {
  open: boolean;
  onClose: () => void;
  errorCode: string;
  tenant: string;
  /** The list's type filter; bulk retry honours it. */
  type: string;
  /** How many DEAD tasks the current list shows (a lower bound when more pages exist). */
  shown: number;
  more: boolean;
};

export function BulkRetryDialog(props: Props) {
  const bulk = useBulkRetry();
  const close = useDialogClose(bulk, props.onClose);
  return (
    <Dialog
      open={props.open}
      onClose={close}
      busy={bulk.isPending}
      title="Retry DEAD tasks in bulk"
      testId="bulk-retry-dialog"
    >
      <BulkRetryForm {...props} mutation={bulk} onClose={close} />
    </Dialog>
  );
}

function BulkRetryForm({
  errorCode,
  tenant,
  type,
  shown,
  more,
  mutation,
  onClose,
}: Props & { mutation: ReturnType<typeof useBulkRetry> }) {
  const toast = useToast();
  const { reason, check, field } = useReason(`${useId()}-reason`, false);

  const scope = (
    <>
      Retry{" "}
      <strong>
        all DEAD
        {type ? (
          <>
            {" "}
            <code className="code-chip">{type}</code>
          </>
        ) : null}{" "}
        tasks
      </strong>
      {errorCode ? (
        <>
          {" "}
          with error <code className="code-chip code-chip--danger">{errorCode}</code>
        </>
      ) : (
        <> with any error</>
      )}
      {tenant ? (
        <>
          {" "}
          in tenant <span className="tenant-chip">{tenant}</span>
        </>
      ) : (
        <> in every tenant you can see</>
      )}
      : they go back to <strong>PENDING</strong> with a fresh attempt budget.
    </>
  );

  return (
    <ActionForm
      effect={
        <>
          <p data-testid="bulk-retry-scope">{scope}</p>
          <p className="muted">
            This list shows {shown}
            {more ? "+" : ""} matching task{shown === 1 && !more ? "" : "s"}; the server retries every match, including
            ones not loaded here. Tasks whose cause is permanent (e.g. a file that cannot be parsed) will fail again.
          </p>
        </>
      }
      onSubmit={() => {
        if (!check()) return;
        mutation.mutate(
          { errorCode: errorCode || undefined, tenant: tenant || undefined, type: type || undefined, reason },
          {
            onSuccess: (res) => {
              onClose();
              toast.push({
                tone: res.retried > 0 ? "success" : "info",
                title:
                  res.retried > 0
                    ? `Retried ${res.retried} task${res.retried === 1 ? "" : "s"}`
                    : res.skipped > 0
                      ? "Nothing to retry"
                      : "No DEAD tasks matched",
                body: [
                  res.retried > 0
                    ? "They are PENDING again; the list refreshes as workers pick them up."
                    : res.skipped > 0
                      ? ""
                      : "Nothing was changed.",
                  res.skipped > 0
                    ? `${res.skipped} obsolete task${res.skipped === 1 ? " was" : "s were"} left DEAD: the document has a newer version or was deleted since, so retrying would redo work nobody needs.`
                    : "",
                ]
                  .filter(Boolean)
                  .join(" "),
              });
            },
          },
        );
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      confirmLabel="Retry all matching"
      busyLabel="Retrying…"
      confirmTestId="bulk-retry-confirm"
    >
      <ReasonField {...field} />
    </ActionForm>
  );
}
