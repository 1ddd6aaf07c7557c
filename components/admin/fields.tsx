"use client";

import { useState } from "react";
import type { Role } from "@/lib/domain/constants";
import { MIN_PASSWORD, ROLE_HINT, ROLE_OPTIONS, generatePassword } from "@/lib/ui/admin";
import { useTenants } from "@/lib/ui/hooks";
import { roleAtLeast } from "@/lib/ui/roles";
import { ALL_TENANTS, type Capability, type TenantGrantDraft } from "@/lib/ui/trust";

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

export function TextField({
  id,
  label,
  value,
  onChange,
  error,
  hint,
  type = "text",
  autoComplete = "off",
  testId,
  mono,
}: TextFieldProps) {
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

type RoleFieldProps = {
  id: string;
  value: Role;
  onChange: (r: Role) => void;
  testId?: string;
  label?: string;
  /** Highest role offered (a person's token never exceeds the person's role). */
  max?: Role;
  /** Why the list stops at `max`, shown under the role's description. */
  maxNote?: string;
  error?: string | null;
};

export function RoleField({
  id,
  value,
  onChange,
  testId,
  label = "Role",
  max = "admin",
  maxNote,
  error,
}: RoleFieldProps) {
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <select
        id={id}
        className="select"
        value={value}
        onChange={(e) => onChange(e.target.value as Role)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(`${id}-hint`, error && `${id}-error`)}
        data-testid={testId}
      >
        {ROLE_OPTIONS.filter((r) => roleAtLeast(max, r)).map((r) => (
          <option key={r} value={r}>
            {r[0].toUpperCase() + r.slice(1)}
          </option>
        ))}
      </select>
      <p id={`${id}-hint`} className="field__hint" aria-live="polite">
        {ROLE_HINT[value]}
        {maxNote ? ` ${maxNote}` : ""}
      </p>
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

type TenantGrantFieldProps = {
  id: string;
  /** What may be granted: null = every tenant ("All tenants" and free typing offered), else these only. */
  ceiling: string[] | null;
  value: TenantGrantDraft;
  onChange: (v: TenantGrantDraft) => void;
  error?: string | null;
  /** Why the list is limited, when it is (defaults to the admin's own tenants). */
  ceilingNote?: string;
  testId?: string;
};

/**
 * Tenant grant picker: an explicit "All tenants" box (only for granters who hold all tenants) or
 * a comma list; a tenant-limited granter ticks from their own tenants. `id` is on the field to
 * focus when the grant is refused.
 */
export function TenantGrantField({ id, ceiling, value, onChange, error, ceilingNote, testId }: TenantGrantFieldProps) {
  const known = useTenants().data;
  const typed = new Set(value.text.split(/[,\s]+/).filter(Boolean));
  const suggestions =
    ceiling === null && !value.all
      ? (known ?? [])
          .map((t) => t.id)
          .filter((t) => !typed.has(t))
          .slice(0, 8)
      : [];
  const hint =
    ceiling === null
      ? value.all
        ? "Every tenant, including ones created later."
        : "Comma-separated tenant ids; a tenant need not exist yet."
      : (ceilingNote ?? "You can grant only tenants you hold yourself.");
  return (
    <fieldset
      className="field grant"
      data-testid={testId}
      aria-describedby={describedBy(`${id}-hint`, error && `${id}-error`)}
    >
      <legend className="field__label">Tenants</legend>
      {ceiling === null ? (
        <>
          <div className="field--check">
            <input
              id={`${id}-all`}
              type="checkbox"
              checked={value.all}
              onChange={(e) => onChange({ ...value, all: e.target.checked })}
              data-testid={testId ? `${testId}-all` : undefined}
            />
            <label htmlFor={`${id}-all`}>All tenants</label>
          </div>
          {value.all ? null : (
            <>
              <input
                id={id}
                className="input mono"
                value={value.text}
                onChange={(e) => onChange({ ...value, text: e.target.value })}
                placeholder="acme, globex"
                autoComplete="off"
                spellCheck={false}
                aria-label="Tenant ids, comma-separated"
                aria-invalid={error ? true : undefined}
                aria-describedby={describedBy(`${id}-hint`, error && `${id}-error`)}
                data-testid={testId ? `${testId}-list` : undefined}
              />
              {suggestions.length > 0 ? (
                <div className="grant__suggest" role="group" aria-label="Known tenants">
                  {suggestions.map((t) => (
                    <button
                      key={t}
                      type="button"
                      className="chip chip--button"
                      onClick={() => onChange({ ...value, text: [...typed, t].join(", ") })}
                      aria-label={`Add tenant ${t}`}
                    >
                      + {t}
                    </button>
                  ))}
                </div>
              ) : null}
            </>
          )}
        </>
      ) : ceiling.length === 0 ? (
        <p className="grant__none">There is no tenant to grant here.</p>
      ) : (
        <div className="grant__list">
          {ceiling.map((t, i) => (
            <div key={t} className="field--check">
              <input
                id={i === 0 ? id : `${id}-${i}`}
                type="checkbox"
                checked={value.picked.includes(t)}
                onChange={(e) =>
                  onChange({
                    ...value,
                    picked: e.target.checked ? [...value.picked, t] : value.picked.filter((x) => x !== t),
                  })
                }
                aria-invalid={error ? true : undefined}
                data-testid={testId ? `${testId}-option` : undefined}
                data-tenant={t}
              />
              <label htmlFor={i === 0 ? id : `${id}-${i}`} className="mono">
                {t}
              </label>
            </div>
          ))}
        </div>
      )}
      <p id={`${id}-hint`} className="field__hint">
        {hint}
      </p>
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

type GroupsFieldProps = {
  id: string;
  value: string;
  onChange: (v: string) => void;
  error?: string | null;
  /** Groups from single sign-on, shown read-only beside the editable ones. */
  ssoGroups?: string[];
  testId?: string;
};

/** Admin-assigned groups as a comma list; the person searches as group:<name> for each. */
export function GroupsField({ id, value, onChange, error, ssoGroups = [], testId }: GroupsFieldProps) {
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        Groups <span className="field__optional">(optional)</span>
      </label>
      <input
        id={id}
        className="input mono"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder="hr, finance"
        autoComplete="off"
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(`${id}-hint`, ssoGroups.length > 0 && `${id}-sso`, error && `${id}-error`)}
        data-testid={testId}
      />
      <p id={`${id}-hint`} className="field__hint">
        Comma-separated. Documents whose ACL names <code>group:&lt;name&gt;</code> become readable to this person in
        search.
      </p>
      {ssoGroups.length > 0 ? (
        <p id={`${id}-sso`} className="field__hint grant__sso">
          Also, from single sign-on (read-only, replaced at each sign-in):{" "}
          <GroupChips groups={[]} ssoGroups={ssoGroups} />
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

/** Admin-assigned groups, then single sign-on groups (marked, read-only); a dash when there are none. */
export function GroupChips({ groups, ssoGroups }: { groups: string[]; ssoGroups: string[] }) {
  if (groups.length === 0 && ssoGroups.length === 0) return <span className="muted">—</span>;
  return (
    <span className="chips chips--inline">
      {groups.map((g) => (
        <span key={`a:${g}`} className="chip" data-testid="group-chip">
          {g}
        </span>
      ))}
      {ssoGroups.map((g) => (
        <span
          key={`s:${g}`}
          className="chip chip--sso"
          title="From single sign-on; read-only here"
          data-testid="sso-group-chip"
        >
          {g}
          <span className="chip__tag" aria-hidden="true">
            SSO
          </span>
          <span className="visually-hidden"> (from single sign-on)</span>
        </span>
      ))}
    </span>
  );
}

type CapabilitiesFieldProps = {
  id: string;
  value: Capability[];
  onChange: (v: Capability[]) => void;
  /** Whether "May read /api/metrics" is offered at all (all-tenant admins only). */
  metricsOffered: boolean;
  /** Why metrics cannot be ticked right now (the token is not all-tenant), if so. */
  metricsBlocked: string | null;
  error?: string | null;
};

/** Capabilities of an application token, each with what it lets the token do. */
export function CapabilitiesField({
  id,
  value,
  onChange,
  metricsOffered,
  metricsBlocked,
  error,
}: CapabilitiesFieldProps) {
  const toggle = (c: Capability, on: boolean) =>
    onChange(on ? [...value.filter((x) => x !== c), c] : value.filter((x) => x !== c));
  return (
    <fieldset
      className="field grant"
      aria-describedby={error ? `${id}-error` : undefined}
      data-testid="token-capabilities"
    >
      <legend className="field__label">
        Capabilities <span className="field__optional">(optional)</span>
      </legend>
      <div className="capability">
        <input
          id={`${id}-search`}
          type="checkbox"
          checked={value.includes("search:principals")}
          onChange={(e) => toggle("search:principals", e.target.checked)}
          aria-describedby={`${id}-search-hint`}
          data-testid="capability-search-principals"
        />
        <label htmlFor={`${id}-search`}>May search on behalf of end users (name principals)</label>
        <p id={`${id}-search-hint`} className="field__hint">
          Your backend sends each search with its end user&rsquo;s <code>user:</code> and <code>group:</code>{" "}
          principals. Without it the token finds only documents that have no ACL.
        </p>
      </div>
      {metricsOffered ? (
        <div className="capability">
          <input
            id={`${id}-metrics`}
            type="checkbox"
            checked={value.includes("metrics:read")}
            disabled={metricsBlocked !== null}
            onChange={(e) => toggle("metrics:read", e.target.checked)}
            aria-describedby={`${id}-metrics-hint`}
            data-testid="capability-metrics-read"
          />
          <label htmlFor={`${id}-metrics`}>May read /api/metrics</label>
          <p id={`${id}-metrics-hint`} className="field__hint">
            Fleet-wide Prometheus metrics, for a scraper. {metricsBlocked ?? "Needs All tenants."}
          </p>
        </div>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </fieldset>
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
      <p
        id={`${id}-hint`}
        className={`field__hint${long ? " field__hint--ok" : ""}`}
        data-testid={testId ? `${testId}-hint` : undefined}
      >
        At least {MIN_PASSWORD} characters{value.length > 0 ? ` · ${value.length} typed${long ? " ✓" : ""}` : ""}. A
        long passphrase is easier to remember than a short tricky one.
      </p>
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A stored grant: "All tenants" for ["*"], a warning for [] (sees nothing), else the tenant chips. */
export function TenantsCell({ tenants }: { tenants: string[] }) {
  if (tenants.includes(ALL_TENANTS))
    return (
      <span className="pill pill--info" title="Every tenant, including ones created later" data-testid="tenants-all">
        All tenants
      </span>
    );
  if (tenants.length === 0)
    return (
      <span
        className="pill pill--warn"
        title="Sees nothing that belongs to a tenant until an admin grants one"
        data-testid="tenants-none"
      >
        No tenants
      </span>
    );
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
