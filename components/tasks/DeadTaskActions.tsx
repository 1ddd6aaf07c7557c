"use client";

import { useState } from "react";
import { useCan } from "../PrincipalContext";
import { ForceDoneDialog, RetryTaskDialog, type TaskRef } from "./TaskActionDialogs";

/**
 * Retry / Force-close buttons for a DEAD task (operator and above). Renders nothing for roles that
 * may not act, so a viewer never sees an enabled action.
 */
export function DeadTaskActions({ task, size = "md" }: { task: TaskRef; size?: "sm" | "md" }) {
  const canRetry = useCan("retryTask");
  const canForce = useCan("forceDone");
  const [open, setOpen] = useState<"retry" | "force" | null>(null);
  if (!canRetry && !canForce) return null;
  const sm = size === "sm" ? " btn--sm" : "";
  return (
    <div className="action-group" role="group" aria-label={`Actions for task #${task.taskId}`}>
      {canRetry ? (
        <button
          type="button"
          className={`btn btn--primary${sm}`}
          onClick={() => setOpen("retry")}
          data-testid="task-retry"
        >
          Retry…
        </button>
      ) : null}
      {canForce ? (
        <button
          type="button"
          className={`btn btn--secondary${sm}`}
          onClick={() => setOpen("force")}
          data-testid="task-force-done"
        >
          Force-close…
        </button>
      ) : null}
      {canRetry ? <RetryTaskDialog task={task} open={open === "retry"} onClose={() => setOpen(null)} /> : null}
      {canForce ? <ForceDoneDialog task={task} open={open === "force"} onClose={() => setOpen(null)} /> : null}
    </div>
  );
}
