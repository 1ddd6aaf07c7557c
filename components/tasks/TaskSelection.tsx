"use client";

import { createContext, useContext, useId, useState, type ReactNode } from "react";
import { useRetryTask } from "@/lib/ui/hooks";
import { useCancelTask } from "@/lib/ui/pauses";
import { isApiError } from "@/lib/ui/api";
import { ActionForm, ReasonField, useReason } from "../ActionForm";
import { Dialog } from "../Dialog";
import { useCan } from "../PrincipalContext";
import { useToast } from "../Toast";
import { cancellable } from "./CancelTaskDialog";

// Row selection on the tasks list with bulk Retry / Cancel. Each selected task goes through the
// single-task action (its own locks, checks and audit row), one after the other, and the result
// says how many each answer got: a task that changed meanwhile is refused on its own, never
// silently skipped.

type Selected = Map<string, { status: string; taskType: string }>;
type Ctx = {
  selected: Selected;
  toggle: (taskId: string, t: { status: string; taskType: string } | null) => void;
  clear: () => void;
};
const SelectionContext = createContext<Ctx | null>(null);

export function TaskSelectionProvider({ children }: { children: ReactNode }) {
  const [selected, setSelected] = useState<Selected>(new Map());
  const toggle: Ctx["toggle"] = (taskId, t) =>
    setSelected((prev) => {
      const next = new Map(prev);
      if (t) next.set(taskId, t);
      else next.delete(taskId);
      return next;
    });
  return (
    <SelectionContext.Provider value={{ selected, toggle, clear: () => setSelected(new Map()) }}>
      {children}
    </SelectionContext.Provider>
  );
}

const revivable = (s: string) => s === "DEAD" || s === "CANCELLED";

/** A row's checkbox, for tasks an operator can retry or cancel; nothing otherwise. */
export function SelectTask({ task }: { task: { taskId: string; status: string; taskType: string } }) {
  const ctx = useContext(SelectionContext);
  const may = useCan("retryTask");
  if (!ctx || !may || !(revivable(task.status) || cancellable(task))) return null;
  const on = ctx.selected.has(task.taskId);
  return (
    <input
      type="checkbox"
      className="row-select"
      checked={on}
      onChange={(e) =>
        ctx.toggle(task.taskId, e.target.checked ? { status: task.status, taskType: task.taskType } : null)
      }
      aria-label={`Select task #${task.taskId}`}
      data-testid="task-select"
    />
  );
}

/** What to do with the selection; shown while something is selected. */
export function SelectionBar() {
  const ctx = useContext(SelectionContext);
  const [open, setOpen] = useState<"retry" | "cancel" | null>(null);
  if (!ctx || ctx.selected.size === 0) return null;
  const items = [...ctx.selected];
  const toRetry = items.filter(([, t]) => revivable(t.status)).map(([id]) => id);
  const toCancel = items.filter(([, t]) => cancellable(t)).map(([id]) => id);
  return (
    <div className="action-group" role="group" aria-label="Selected tasks" data-testid="selection-bar">
      <span>{ctx.selected.size} selected</span>
      <button
        type="button"
        className="btn btn--primary btn--sm"
        disabled={toRetry.length === 0}
        onClick={() => setOpen("retry")}
        data-testid="bulk-retry-selected"
      >
        Retry {toRetry.length}…
      </button>
      <button
        type="button"
        className="btn btn--secondary btn--sm"
        disabled={toCancel.length === 0}
        onClick={() => setOpen("cancel")}
        data-testid="bulk-cancel-selected"
      >
        Cancel {toCancel.length}…
      </button>
      <button type="button" className="btn btn--ghost btn--sm" onClick={ctx.clear}>
        Clear selection
      </button>
      {open ? (
        <BulkDialog
          kind={open}
          ids={open === "retry" ? toRetry : toCancel}
          onClose={() => setOpen(null)}
          onDone={ctx.clear}
        />
      ) : null}
    </div>
  );
}

function BulkDialog({
  kind,
  ids,
  onClose,
  onDone,
}: {
  kind: "retry" | "cancel";
  ids: string[];
  onClose: () => void;
  onDone: () => void;
}) {
  const retry = useRetryTask();
  const cancel = useCancelTask();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const { reason, check, field } = useReason(`${useId()}-reason`, kind === "cancel");
  async function run() {
    if (!check()) return;
    setBusy(true);
    const refused = new Map<string, number>();
    let done = 0;
    for (const taskId of ids) {
      try {
        if (kind === "retry") await retry.mutateAsync({ taskId, reason: reason || undefined });
        else await cancel.mutateAsync({ taskId, reason });
        done++;
      } catch (e) {
        const code = isApiError(e) ? e.code : "ERROR";
        refused.set(code, (refused.get(code) ?? 0) + 1);
      }
    }
    setBusy(false);
    onClose();
    onDone();
    const verb = kind === "retry" ? "retried" : "cancelled";
    toast.push({
      tone: refused.size ? "info" : "success",
      title: `${done} of ${ids.length} task${ids.length === 1 ? "" : "s"} ${verb}`,
      body: refused.size
        ? `Refused: ${[...refused].map(([c, n]) => `${n} × ${c}`).join(", ")} (they changed meanwhile).`
        : "Each one is on its timeline and in the audit log.",
    });
  }
  const title =
    kind === "retry"
      ? `Retry ${ids.length} task${ids.length === 1 ? "" : "s"}`
      : `Cancel ${ids.length} task${ids.length === 1 ? "" : "s"}`;
  return (
    <Dialog open onClose={busy ? () => undefined : onClose} busy={busy} title={title} testId="bulk-selected-dialog">
      <ActionForm
        effect={
          <p>
            {kind === "retry"
              ? "Each selected DEAD or CANCELLED task goes back to PENDING with a fresh attempt budget."
              : "Each selected waiting task ends CANCELLED before a worker takes it; its document reads Failed with your reason."}{" "}
            Each is its own audited action; one that changed meanwhile is refused and counted.
          </p>
        }
        onSubmit={() => void run()}
        onCancel={onClose}
        busy={busy}
        error={null}
        tone={kind === "cancel" ? "danger" : "primary"}
        confirmLabel={title}
        busyLabel={kind === "retry" ? "Retrying…" : "Cancelling…"}
        confirmTestId="bulk-selected-confirm"
      >
        <ReasonField {...field} testId="bulk-selected-reason" />
      </ActionForm>
    </Dialog>
  );
}
