"use client";

import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from "react";

type Props = {
  open: boolean;
  onClose: () => void;
  title: string;
  description?: ReactNode;
  children: ReactNode;
  /** While true, Esc and the backdrop do not close the dialog (e.g. a request is in flight). */
  busy?: boolean;
  /** id of the element to focus first; defaults to the first form field. */
  initialFocusId?: string;
  size?: "md" | "lg";
  testId?: string;
};

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Modal dialog on the native <dialog> element: showModal() makes the rest of the page inert, Esc
 * closes it, Tab wraps inside it, and focus goes back to whatever opened it.
 */
export function Dialog({
  open,
  onClose,
  title,
  description,
  children,
  busy = false,
  initialFocusId,
  size = "md",
  testId,
}: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const returnFocus = useRef<HTMLElement | null>(null);
  const titleId = useId();
  const descId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      const target =
        (initialFocusId ? document.getElementById(initialFocusId) : null) ??
        dialog.querySelector<HTMLElement>("input:not([disabled]), select:not([disabled]), textarea:not([disabled])") ??
        dialog.querySelector<HTMLElement>(FOCUSABLE);
      target?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
      const back = returnFocus.current;
      returnFocus.current = null;
      if (back && back.isConnected) back.focus();
    }
  }, [open, initialFocusId]);

  // If the component unmounts while open, still hand focus back.
  useEffect(() => {
    return () => {
      const back = returnFocus.current;
      if (back && back.isConnected) back.focus();
    };
  }, []);

  function onKeyDown(e: KeyboardEvent<HTMLDialogElement>) {
    if (e.key !== "Tab") return;
    const dialog = ref.current;
    if (!dialog) return;
    const items = Array.from(dialog.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
      (el) => el.offsetParent !== null || el === document.activeElement,
    );
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && (document.activeElement === first || document.activeElement === dialog)) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  }

  return (
    <dialog
      ref={ref}
      className={`dialog dialog--${size}`}
      aria-labelledby={titleId}
      aria-describedby={description ? descId : undefined}
      data-testid={testId}
      onCancel={(e) => {
        // Esc: keep React in charge of the open state.
        e.preventDefault();
        if (!busy) onClose();
      }}
      onKeyDown={onKeyDown}
      onMouseDown={(e) => {
        // A press on the backdrop targets the <dialog> itself (the panel fills the visible box).
        if (e.target === ref.current && !busy) onClose();
      }}
    >
      {open ? (
        <div className="dialog__panel">
          <header className="dialog__header">
            <div>
              <h2 id={titleId} className="dialog__title">
                {title}
              </h2>
              {description ? (
                <p id={descId} className="dialog__desc">
                  {description}
                </p>
              ) : null}
            </div>
            <button type="button" className="icon-btn" onClick={onClose} disabled={busy} aria-label="Close dialog">
              <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
                <path d="M4 4l8 8M12 4l-8 8" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
              </svg>
            </button>
          </header>
          {children}
        </div>
      ) : null}
    </dialog>
  );
}
