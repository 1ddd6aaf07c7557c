"use client";

import Link from "next/link";
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";

export type ToastTone = "success" | "info" | "error";
export type ToastInput = {
  title: string;
  body?: string;
  tone?: ToastTone;
  link?: { href: string; label: string };
  /** Milliseconds before it closes itself; paused while hovered or focused. Default 8 s. */
  durationMs?: number;
};
type Toast = ToastInput & { id: number };

type ToastApi = { push: (t: ToastInput) => void; dismiss: (id: number) => void; clear: () => void };

const ToastContext = createContext<ToastApi | null>(null);

export function useToast(): ToastApi {
  const ctx = useContext(ToastContext);
  if (!ctx) throw new Error("useToast must be used inside <ToastProvider>");
  return ctx;
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);

  const dismiss = useCallback((id: number) => setToasts((ts) => ts.filter((t) => t.id !== id)), []);
  const push = useCallback((t: ToastInput) => {
    const id = nextId.current++;
    setToasts((ts) => [...ts.slice(-3), { ...t, id }]);
  }, []);
  const clear = useCallback(() => setToasts([]), []);
  const api = useMemo(() => ({ push, dismiss, clear }), [push, dismiss, clear]);

  return (
    <ToastContext.Provider value={api}>
      {children}
      {/* The region exists from the first render so screen readers announce what is added to it. */}
      <section className="toasts" aria-label="Notifications" aria-live="polite" aria-relevant="additions" role="status">
        {toasts.map((t) => (
          <ToastItem key={t.id} toast={t} dismiss={dismiss} />
        ))}
      </section>
    </ToastContext.Provider>
  );
}

function ToastItem({ toast, dismiss }: { toast: Toast; dismiss: (id: number) => void }) {
  const [paused, setPaused] = useState(false);
  const duration = toast.durationMs ?? 8000;
  const { id } = toast;
  const onDismiss = useCallback(() => dismiss(id), [dismiss, id]);
  useEffect(() => {
    if (paused) return;
    const timer = window.setTimeout(onDismiss, duration);
    return () => window.clearTimeout(timer);
  }, [paused, duration, onDismiss]);

  return (
    <div
      className={`toast toast--${toast.tone ?? "info"}`}
      data-testid="toast"
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
    >
      <div className="toast__content">
        <p className="toast__title">{toast.title}</p>
        {toast.body ? <p className="toast__body">{toast.body}</p> : null}
        {toast.link ? (
          <Link className="toast__link" href={toast.link.href} onClick={onDismiss}>
            {toast.link.label}
          </Link>
        ) : null}
      </div>
      <button type="button" className="icon-btn toast__close" onClick={onDismiss} aria-label="Dismiss notification">
        <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
          <path d="M4 4l8 8M12 4l-8 8" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
        </svg>
      </button>
    </div>
  );
}
