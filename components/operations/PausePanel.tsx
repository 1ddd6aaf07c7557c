"use client";

import { useId, useState } from "react";
import { TASK_TYPES } from "@/lib/domain/constants";
import { useTenants } from "@/lib/ui/hooks";
import { pauseTarget, usePause, usePauses, useResume, type Pause } from "@/lib/ui/pauses";
import { ActionForm, ReasonField, useDialogClose, useReason } from "../ActionForm";
import { Dialog } from "../Dialog";
import { useCan, useViewer } from "../PrincipalContext";
import { RelativeTime } from "../RelativeTime";
import { useToast } from "../Toast";
import "./pauses.css";

/**
 * Active pauses on the Overview: what is held, by whom, since when and why, each with Resume; and
 * Pause… for operators. A task-type pause holds every tenant's work, so only an all-tenant
 * operator is offered it (the API refuses it to others with FLEET_SCOPE_REQUIRED).
 */
export function PausePanel() {
  const pauses = usePauses();
  const mayAct = useCan("retryTask");
  const [open, setOpen] = useState(false);
  const items = pauses.data ?? [];
  if (!mayAct && items.length === 0) return null;
  return (
    <section className="card card--padded" aria-labelledby="pauses-title" data-testid="pauses">
      <div className="pauses__head">
        <h2 id="pauses-title" className="section-title">
          Paused processing
        </h2>
        {mayAct ? (
          <button
            type="button"
            className="btn btn--secondary btn--sm"
            onClick={() => setOpen(true)}
            data-testid="pause-open"
          >
            Pause…
          </button>
        ) : null}
      </div>
      {items.length === 0 ? (
        <p className="muted" data-testid="pauses-empty">
          Nothing is paused: workers take every due task.
        </p>
      ) : (
        <ul className="pause-list">
          {items.map((p) => (
            <PauseRow key={p.id} p={p} mayAct={mayAct} />
          ))}
        </ul>
      )}
      {mayAct ? <PauseDialog open={open} onClose={() => setOpen(false)} /> : null}
    </section>
  );
}

function PauseRow({ p, mayAct }: { p: Pause; mayAct: boolean }) {
  const resume = useResume();
  const toast = useToast();
  const viewer = useViewer();
  // A task-type pause is lifted by an all-tenant operator only.
  const mayResume = mayAct && (p.tenant !== null || viewer.tenants === null);
  return (
    <li className="pause-item" data-testid="pause-item" data-target={p.tenant ?? p.taskType ?? ""}>
      <span className="pill pill--warn">Paused</span> <strong>{pauseTarget(p)}</strong> by{" "}
      <span className="mono">{p.pausedBy}</span>, <RelativeTime iso={p.since} />: “{p.reason}” · {p.waiting} due task
      {p.waiting === 1 ? "" : "s"} waiting
      {mayResume ? (
        <>
          {" "}
          <button
            type="button"
            className="btn btn--primary btn--sm"
            disabled={resume.isPending}
            aria-label={`Resume ${pauseTarget(p)}`}
            data-testid="pause-resume"
            onClick={() =>
              resume.mutate(p.id, {
                onSuccess: () =>
                  toast.push({
                    tone: "success",
                    title: `Resumed ${pauseTarget(p)}`,
                    body: "Workers take its due tasks again.",
                  }),
                onError: (e) =>
                  toast.push({
                    tone: "error",
                    title: "Could not resume",
                    body: e instanceof Error ? e.message : String(e),
                  }),
              })
            }
          >
            {resume.isPending ? "Resuming…" : "Resume"}
          </button>
        </>
      ) : null}
    </li>
  );
}

function PauseDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const pause = usePause();
  const close = useDialogClose(pause, onClose);
  return (
    <Dialog open={open} onClose={close} busy={pause.isPending} title="Pause processing" testId="pause-dialog">
      <PauseForm mutation={pause} onClose={close} />
    </Dialog>
  );
}

function PauseForm({ mutation, onClose }: { mutation: ReturnType<typeof usePause>; onClose: () => void }) {
  const toast = useToast();
  const viewer = useViewer();
  const tenants = useTenants();
  const fleet = viewer.tenants === null;
  const ids = { kind: useId(), tenant: useId(), type: useId() };
  const [kind, setKind] = useState<"tenant" | "type">("tenant");
  const [tenant, setTenant] = useState("");
  const [taskType, setTaskType] = useState<string>(TASK_TYPES[0]);
  const { reason, check, field } = useReason(`${useId()}-reason`, true);
  const options = (tenants.data ?? []).map((t) => t.id);
  const chosenTenant = tenant || options[0] || "";
  return (
    <ActionForm
      effect={
        <p>
          Workers stop taking the chosen tasks at once; tasks already running finish. Waiting tasks show{" "}
          <strong>Paused</strong> with your reason until someone resumes.
        </p>
      }
      onSubmit={() => {
        if (!check()) return;
        const input = kind === "tenant" ? { tenant: chosenTenant, reason } : { taskType, reason };
        mutation.mutate(input, {
          onSuccess: (p) => {
            onClose();
            toast.push({ tone: "info", title: `Paused ${pauseTarget(p)}`, body: "Resume it from the Overview." });
          },
        });
      }}
      onCancel={onClose}
      busy={mutation.isPending}
      error={mutation.error}
      canSubmit={kind === "type" || chosenTenant !== ""}
      confirmLabel="Pause"
      busyLabel="Pausing…"
      confirmTestId="pause-confirm"
    >
      {fleet ? (
        <fieldset className="field">
          <legend className="field__label">What to pause</legend>
          <label>
            <input
              type="radio"
              name={ids.kind}
              checked={kind === "tenant"}
              onChange={() => setKind("tenant")}
              data-testid="pause-kind-tenant"
            />{" "}
            One tenant
          </label>{" "}
          <label>
            <input
              type="radio"
              name={ids.kind}
              checked={kind === "type"}
              onChange={() => setKind("type")}
              data-testid="pause-kind-type"
            />{" "}
            One task type, in every tenant
          </label>
        </fieldset>
      ) : null}
      {kind === "tenant" ? (
        <div className="field">
          <label htmlFor={ids.tenant} className="field__label">
            Tenant
          </label>
          <select
            id={ids.tenant}
            className="select"
            value={chosenTenant}
            onChange={(e) => setTenant(e.target.value)}
            data-testid="pause-tenant"
          >
            {options.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
      ) : (
        <div className="field">
          <label htmlFor={ids.type} className="field__label">
            Task type
          </label>
          <select
            id={ids.type}
            className="select"
            value={taskType}
            onChange={(e) => setTaskType(e.target.value)}
            data-testid="pause-type"
          >
            {TASK_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
      )}
      <ReasonField {...field} testId="pause-reason" />
    </ActionForm>
  );
}
