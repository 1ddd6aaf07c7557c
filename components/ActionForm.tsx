"use client";

import { useState, type FormEvent, type ReactNode } from "react";
import { errorText, isApiError } from "@/lib/ui/api";
import { useRefreshOnCloseAfterError } from "@/lib/ui/hooks";

type Props = {
  /** What will happen, in one or two sentences (shown above the fields). */
  effect: ReactNode;
  children?: ReactNode;
  onSubmit: () => void;
  onCancel: () => void;
  busy: boolean;
  /** The server's refusal, shown inside the dialog so the person can fix it and try again. */
  error: unknown;
  confirmLabel: string;
  busyLabel: string;
  /** Danger actions get a red confirm button. */
  tone?: "primary" | "danger";
  /** False while the form is not complete (e.g. the typed confirmation does not match yet). */
  canSubmit?: boolean;
  confirmTestId?: string;
};

/**
 * Body of a confirmation dialog: the effect, optional fields, the server error (if any) and the
 * Cancel / Confirm footer. Meant to sit inside <Dialog>, which mounts it only while open.
 */
export function ActionForm({
  effect,
  children,
  onSubmit,
  onCancel,
  busy,
  error,
  confirmLabel,
  busyLabel,
  tone = "primary",
  canSubmit = true,
  confirmTestId,
}: Props) {
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy || !canSubmit) return;
    onSubmit();
  }

  return (
    <form className="dialog__body" onSubmit={submit} noValidate aria-busy={busy || undefined}>
      <div className="effect" data-testid="action-effect">
        {effect}
      </div>
      {children}
      {error ? (
        <div className="form-error" role="alert" data-testid="action-error">
          {isApiError(error) ? <code className="code-chip code-chip--danger">{error.code}</code> : null}{" "}
          {errorText(error)}
        </div>
      ) : null}
      <footer className="dialog__footer">
        <button type="button" className="btn btn--secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button
          type="submit"
          className={`btn ${tone === "danger" ? "btn--danger" : "btn--primary"}`}
          disabled={busy || !canSubmit}
          aria-busy={busy || undefined}
          data-testid={confirmTestId}
        >
          {busy ? busyLabel : confirmLabel}
        </button>
      </footer>
    </form>
  );
}

type ReasonProps = {
  id: string;
  value: string;
  onChange: (v: string) => void;
  required?: boolean;
  /** Shown after a submit attempt with a too-short reason. */
  error?: string | null;
  hint?: string;
  testId?: string;
};

/** The "Reason" textarea shared by operator actions (recorded in the audit log). */
export function ReasonField({
  id,
  value,
  onChange,
  required = false,
  error,
  hint,
  testId = "action-reason",
}: ReasonProps) {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        Reason {required ? null : <span className="field__optional">(optional)</span>}
      </label>
      <textarea
        id={id}
        className="textarea textarea--short"
        rows={3}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        required={required}
        aria-required={required || undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={[hintId, error ? errorId : null].filter(Boolean).join(" ")}
        data-testid={testId}
      />
      <p id={hintId} className="field__hint">
        {hint ?? "Recorded in the audit log with your name."}
      </p>
      {error ? (
        <p id={errorId} className="field__error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export const MIN_REASON = 3;

export function reasonProblem(reason: string, required: boolean): string | null {
  const t = reason.trim();
  if (required && t.length < MIN_REASON) return `Give a reason of at least ${MIN_REASON} characters.`;
  if (t.length > 1000) return "Keep the reason under 1,000 characters.";
  return null;
}

/** What a dialog's close handler needs from the mutation it runs. */
type DialogMutation = { isPending: boolean; isError: boolean; reset: () => void };

/**
 * Close handler for a dialog that runs one mutation: ignored while the request is in flight, and
 * clears the mutation's result. After a failed operator action it also refreshes the operational
 * views (the refusal may mean they are stale); admin dialogs opt out with `refreshAfterError: false`.
 */
export function useDialogClose(
  mutation: DialogMutation,
  onClose: () => void,
  { refreshAfterError = true } = {},
): () => void {
  const refresh = useRefreshOnCloseAfterError();
  return () => {
    if (mutation.isPending) return;
    if (refreshAfterError) refresh(mutation.isError);
    mutation.reset();
    onClose();
  };
}

/**
 * State of a ReasonField: the text, the problem shown after a submit attempt and `check()`, which
 * validates before submitting. A required reason also gets focus when it is refused and drops its
 * error as soon as it is edited; an optional one keeps the error until the next submit.
 */
export function useReason(id: string, required: boolean) {
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  function check(): boolean {
    const p = reasonProblem(reason, required);
    setProblem(p);
    if (p && required) document.getElementById(id)?.focus();
    return !p;
  }
  const onChange = required
    ? (v: string) => {
        setReason(v);
        if (problem) setProblem(null);
      }
    : setReason;
  return { reason, check, field: { id, value: reason, onChange, required, error: problem } };
}
