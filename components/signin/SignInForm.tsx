"use client";

import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { ApiError, signIn } from "@/lib/ui/api";
import "./signin.css";

type Mode = "password" | "token";

const MODES: { id: Mode; label: string }[] = [
  { id: "password", label: "Email and password" },
  { id: "token", label: "Access token" },
];

type SignInError = { code: string; title: string; message: string };

function describe(err: unknown, mode: Mode): SignInError {
  if (err instanceof ApiError && err.status === 401) {
    return mode === "password"
      ? {
          code: "UNAUTHORIZED",
          title: "Wrong email or password",
          message: "Check both and try again. Passwords are case-sensitive.",
        }
      : {
          code: "UNAUTHORIZED",
          title: "Token not accepted",
          message: "That access token is not valid or has been revoked. Check it and try again.",
        };
  }
  if (err instanceof ApiError && err.status === 429) {
    return {
      code: "TOO_MANY_ATTEMPTS",
      title: "Too many failed attempts",
      // The server says how long (from one second up to 15 minutes, growing with each failure).
      message: `Sign-in from here is slowed down to stop guessing: ${/try again in [^.;]+/.exec(err.message)?.[0] ?? "wait a little, then try again"}.`,
    };
  }
  if (err instanceof ApiError && err.status === 0)
    return { code: err.code, title: "Could not reach the server", message: err.message };
  return {
    code: err instanceof ApiError ? err.code : "ERROR",
    title: "Sign-in failed",
    message: err instanceof Error ? err.message : "Try again.",
  };
}

/**
 * Two ways in, as keyboard-accessible tabs: a person's email and password (the default), or an
 * access token (machines, the bootstrap token, tokens made on the Admin page).
 */
export function SignInForm({ next }: { next: string }) {
  const router = useRouter();
  const [mode, setMode] = useState<Mode>("password");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<SignInError | null>(null);
  /** Which field the last client-side check complained about (marked aria-invalid). */
  const [invalid, setInvalid] = useState<"email" | "password" | "token" | null>(null);

  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const tokenRef = useRef<HTMLInputElement>(null);
  const tabRefs = useRef<Record<Mode, HTMLButtonElement | null>>({ password: null, token: null });
  const baseId = useId();
  const tabId = (m: Mode) => `${baseId}-tab-${m}`;
  const panelId = `${baseId}-panel`;
  const errorId = `${baseId}-error`;

  // Focus the first field once on load (not on every mode switch: arrow keys keep focus on the tabs).
  useEffect(() => {
    emailRef.current?.focus();
  }, []);

  function choose(m: Mode, focusTab = false) {
    if (m !== mode) {
      setMode(m);
      setError(null);
      setInvalid(null);
    }
    if (focusTab) tabRefs.current[m]?.focus();
  }

  function onTabKeyDown(e: KeyboardEvent<HTMLButtonElement>) {
    const i = MODES.findIndex((m) => m.id === mode);
    let target: Mode | null = null;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") target = MODES[(i + 1) % MODES.length].id;
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") target = MODES[(i - 1 + MODES.length) % MODES.length].id;
    else if (e.key === "Home") target = MODES[0].id;
    else if (e.key === "End") target = MODES[MODES.length - 1].id;
    if (!target) return;
    e.preventDefault();
    choose(target, true);
  }

  function fail(message: SignInError, field: "email" | "password" | "token" | null, focus: HTMLInputElement | null) {
    setError(message);
    setInvalid(field);
    focus?.focus();
  }

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    if (mode === "password") {
      if (!email.trim())
        return fail(
          { code: "REQUIRED", title: "Enter your email", message: "Type the email address you sign in with." },
          "email",
          emailRef.current,
        );
      if (!password)
        return fail(
          { code: "REQUIRED", title: "Enter your password", message: "Type your password." },
          "password",
          passwordRef.current,
        );
    } else if (!token.trim()) {
      return fail(
        { code: "REQUIRED", title: "Enter your access token", message: "Paste the token you were given." },
        "token",
        tokenRef.current,
      );
    }
    setBusy(true);
    setError(null);
    setInvalid(null);
    try {
      await signIn(mode === "password" ? { email: email.trim(), password } : { token: token.trim() });
      router.replace(next);
      // Keep the button busy until the navigation replaces this page.
    } catch (err) {
      setBusy(false);
      const d = describe(err, mode);
      setError(d);
      if (d.code === "UNAUTHORIZED") {
        setInvalid(mode === "password" ? "password" : "token");
        (mode === "password" ? passwordRef.current : tokenRef.current)?.select();
      }
    }
  }

  const describedBy = (field: "email" | "password" | "token", hint?: string) =>
    [hint, error && (invalid === field || invalid === null) ? errorId : null].filter(Boolean).join(" ") || undefined;

  return (
    <div className="signin-modes">
      <div className="segmented" role="tablist" aria-label="Sign-in method">
        {MODES.map((m) => {
          const selected = m.id === mode;
          return (
            <button
              key={m.id}
              ref={(el) => {
                tabRefs.current[m.id] = el;
              }}
              id={tabId(m.id)}
              type="button"
              role="tab"
              className="segmented__tab"
              aria-selected={selected}
              aria-controls={panelId}
              tabIndex={selected ? 0 : -1}
              onClick={() => choose(m.id)}
              onKeyDown={onTabKeyDown}
              disabled={busy && !selected}
              data-testid={`signin-mode-${m.id}`}
            >
              {m.label}
            </button>
          );
        })}
      </div>

      <div id={panelId} role="tabpanel" aria-labelledby={tabId(mode)} className="signin-modes__panel" data-mode={mode}>
        <form className="stack" onSubmit={onSubmit} noValidate aria-busy={busy || undefined}>
          {mode === "password" ? (
            <>
              <div className="field">
                <label htmlFor={`${baseId}-email`} className="field__label">
                  Email
                </label>
                <input
                  ref={emailRef}
                  id={`${baseId}-email`}
                  name="email"
                  type="email"
                  className="input"
                  autoComplete="username"
                  inputMode="email"
                  spellCheck={false}
                  required
                  value={email}
                  onChange={(e) => {
                    setEmail(e.target.value);
                    if (error) setError(null);
                    if (invalid) setInvalid(null);
                  }}
                  aria-invalid={invalid === "email" ? true : undefined}
                  aria-describedby={describedBy("email")}
                  data-testid="signin-email"
                />
              </div>
              <div className="field">
                <label htmlFor={`${baseId}-password`} className="field__label">
                  Password
                </label>
                <input
                  ref={passwordRef}
                  id={`${baseId}-password`}
                  name="password"
                  type="password"
                  className="input"
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(e) => {
                    setPassword(e.target.value);
                    if (error) setError(null);
                    if (invalid) setInvalid(null);
                  }}
                  aria-invalid={invalid === "password" ? true : undefined}
                  aria-describedby={describedBy("password")}
                  data-testid="signin-password"
                />
              </div>
            </>
          ) : (
            <div className="field">
              <label htmlFor={`${baseId}-token`} className="field__label">
                Access token
              </label>
              <input
                ref={tokenRef}
                id={`${baseId}-token`}
                name="token"
                type="password"
                className="input mono"
                autoComplete="off"
                spellCheck={false}
                required
                value={token}
                onChange={(e) => {
                  setToken(e.target.value);
                  if (error) setError(null);
                  if (invalid) setInvalid(null);
                }}
                aria-invalid={invalid === "token" ? true : undefined}
                aria-describedby={describedBy("token", `${baseId}-token-hint`)}
                data-testid="signin-token"
              />
              <p id={`${baseId}-token-hint`} className="field__hint">
                An API token from an admin, or the bootstrap token printed by <code>npm start</code>.
              </p>
            </div>
          )}

          <div id={errorId} className="form-error-slot">
            {error ? (
              <div className="form-error signin-error" role="alert" data-testid="signin-error" data-code={error.code}>
                <p className="signin-error__title">{error.title}</p>
                <p>{error.message}</p>
              </div>
            ) : null}
          </div>

          <button
            type="submit"
            className="btn btn--primary btn--block"
            disabled={busy}
            aria-busy={busy || undefined}
            data-testid="signin-submit"
          >
            {busy ? "Signing in…" : "Sign in"}
          </button>
        </form>
      </div>
    </div>
  );
}
