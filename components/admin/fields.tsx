"use client";

import { useState } from "react";
import type { Role } from "@/lib/domain/constants";
import { MIN_PASSWORD, ROLE_HINT, ROLE_OPTIONS, generatePassword } from "@/lib/ui/admin";

/** Shows a field's error below it and links it to the input (aria-describedby). */
function describedBy(...ids: (string | false | null | undefined)[]): string | undefined {
  const s = ids.filter(Boolean).join(" ");
  return s || undefined;
}

type TextFieldProps = {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string | null;
  hint?: string;
  type?: "text" | "email";
  autoComplete?: string;
  testId?: string;
  mono?: boolean;
};

export function TextField({ id, label, value, onChange, error, hint, type = "text", autoComplete = "off", testId, mono }: TextFieldProps) {
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <input
        id={id}
        type={type}
        className={`input${mono ? " mono" : ""}`}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        autoComplete={autoComplete}
        spellCheck={false}
        required
        aria-required="true"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(hint && `${id}-hint`, error && `${id}-error`)}
        data-testid={testId}
      />
      {hint ? (
        <p id={`${id}-hint`} className="field__hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function RoleField({ id, value, onChange, testId, label = "Role" }: { id: string; value: Role; onChange: (r: Role) => void; testId?: string; label?: string }) {
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <select id={id} className="select" value={value} onChange={(e) => onChange(e.target.value as Role)} aria-describedby={`${id}-hint`} data-testid={testId}>
        {ROLE_OPTIONS.map((r) => (
          <option key={r} value={r}>
            {r[0].toUpperCase() + r.slice(1)}
          </option>
        ))}
      </select>
      <p id={`${id}-hint`} className="field__hint" aria-live="polite">
        {ROLE_HINT[value]}
      </p>
    </div>
  );
}

export function TenantsField({ id, value, onChange, error, testId }: { id: string; value: string; onChange: (v: string) => void; error?: string | null; testId?: string }) {
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        Tenants <span className="field__optional">(optional)</span>
      </label>
      <input
        id={id}
        className="input mono"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder="acme, globex"
        autoComplete="off"
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(`${id}-hint`, error && `${id}-error`)}
        data-testid={testId}
      />
      <p id={`${id}-hint`} className="field__hint">
        Comma-separated tenant ids. Leave empty for <strong>all tenants</strong>.
      </p>
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

type PasswordFieldProps = {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string | null;
  testId?: string;
  /** Offer a "Generate" button that fills in a strong random password (and shows it). */
  generate?: boolean;
};

/** A new password with a visible minimum-length hint, a live count and a Show/Hide toggle. */
export function PasswordField({ id, label, value, onChange, error, testId, generate = false }: PasswordFieldProps) {
  const [shown, setShown] = useState(false);
  const long = value.length >= MIN_PASSWORD;
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <div className="input-group">
        <input
          id={id}
          type={shown ? "text" : "password"}
          className="input mono"
          value={value}
          onChange={(e) => onChange(e.target.value)}
          autoComplete="new-password"
          spellCheck={false}
          required
          aria-required="true"
          minLength={MIN_PASSWORD}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(`${id}-hint`, error && `${id}-error`)}
          data-testid={testId}
        />
        <button
          type="button"
          className="btn btn--secondary input-group__btn"
          onClick={() => setShown((s) => !s)}
          aria-pressed={shown}
          aria-controls={id}
          data-testid={testId ? `${testId}-toggle` : undefined}
        >
          {shown ? "Hide" : "Show"}
        </button>
        {generate ? (
          <button
            type="button"
            className="btn btn--secondary input-group__btn"
            onClick={() => {
              onChange(generatePassword());
              setShown(true);
            }}
            data-testid={testId ? `${testId}-generate` : undefined}
          >
            Generate
          </button>
        ) : null}
      </div>
      <p id={`${id}-hint`} className={`field__hint${long ? " field__hint--ok" : ""}`} data-testid={testId ? `${testId}-hint` : undefined}>
        At least {MIN_PASSWORD} characters{value.length > 0 ? ` · ${value.length} typed${long ? " ✓" : ""}` : ""}. A long passphrase is easier to remember than a
        short tricky one.
      </p>
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** "all" for an unrestricted principal, else the tenant chips. */
export function TenantsCell({ tenants }: { tenants: string[] }) {
  if (tenants.length === 0) return <span className="pill pill--neutral" title="Every tenant, including ones created later">all</span>;
  return (
    <span className="chips">
      {tenants.map((t) => (
        <span key={t} className="tenant-chip">
          {t}
        </span>
      ))}
    </span>
  );
}
