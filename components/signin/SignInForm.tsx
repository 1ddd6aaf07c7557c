"use client";

import { useRouter } from "next/navigation";
import { useId, useRef, useState, type FormEvent } from "react";
import { ApiError, signIn } from "@/lib/ui/api";

export function SignInForm({ next }: { next: string }) {
  const router = useRouter();
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const inputId = useId();
  const errorId = useId();

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    if (!token.trim()) {
      setError("Enter your access token.");
      inputRef.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await signIn(token.trim());
      router.replace(next);
      // Keep the button busy until the navigation replaces this page.
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.status === 401) {
        setError("That access token was not accepted. Check it and try again.");
      } else if (err instanceof ApiError && err.status === 429) {
        setError("Too many attempts. Wait a moment and try again.");
      } else {
        setError(err instanceof Error ? err.message : "Sign-in failed. Try again.");
      }
      inputRef.current?.select();
    }
  }

  return (
    <form className="stack" onSubmit={onSubmit} noValidate aria-busy={busy || undefined}>
      <div className="field">
        <label htmlFor={inputId} className="field__label">
          Access token
        </label>
        <input
          ref={inputRef}
          id={inputId}
          name="token"
          type="password"
          className="input"
          autoComplete="current-password"
          spellCheck={false}
          autoFocus
          required
          value={token}
          onChange={(e) => {
            setToken(e.target.value);
            if (error) setError(null);
          }}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
        />
      </div>
      <div id={errorId} className="form-error-slot">
        {error ? (
          <p className="form-error" role="alert" data-testid="signin-error">
            {error}
          </p>
        ) : null}
      </div>
      <button type="submit" className="btn btn--primary btn--block" disabled={busy} aria-busy={busy || undefined}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
