"use client";

import { useId, useRef, type ReactNode } from "react";
import { LIST_POLL_MS } from "@/lib/ui/hooks";

// The filter bar above the documents, tasks and audit lists: a named search landmark of labelled
// fields, "Clear filters" while any is set, and on live lists the "Live" dot.

type FilterBarProps = {
  /** The landmark's accessible name, e.g. "Filter tasks". */
  label: string;
  /** Whether any filter is set: only then is "Clear filters" offered. */
  filtered: boolean;
  onClear: () => void;
  /** A list that refreshes on its own ends the bar with the "Live" dot, pulsing while it fetches. */
  fetching?: boolean;
  testId?: string;
  clearTestId?: string;
  children: ReactNode;
};

export function FilterBar({ label, filtered, onClear, fetching, testId, clearTestId, children }: FilterBarProps) {
  const form = useRef<HTMLFormElement>(null);
  function clear() {
    // "Clear filters" goes away with the filters it cleared, and focus on a removed button falls
    // back to the top of the page: a keyboard user would tab through the whole shell again.
    const hadFocus = form.current?.contains(document.activeElement) ?? false;
    onClear();
    if (hadFocus) form.current?.querySelector<HTMLElement>("input, select")?.focus();
  }
  return (
    <form
      ref={form}
      className="toolbar"
      role="search"
      aria-label={label}
      onSubmit={(e) => e.preventDefault()}
      data-testid={testId}
    >
      {children}
      {filtered ? (
        <button
          type="button"
          className="btn btn--ghost btn--sm toolbar__clear"
          onClick={clear}
          data-testid={clearTestId}
        >
          Clear filters
        </button>
      ) : null}
      {fetching === undefined ? null : <LiveIndicator fetching={fetching} />}
    </form>
  );
}

type FieldWidth = "narrow" | "grow" | "time";

/** One labelled control of a filter bar; the caller's control carries `id`. */
export function FilterField({
  id,
  label,
  width,
  children,
}: {
  id: string;
  label: ReactNode;
  width?: FieldWidth;
  children: ReactNode;
}) {
  return (
    <div className={`field field--inline${width ? ` field--${width}` : ""}`}>
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      {children}
    </div>
  );
}

type FilterSelectProps<T extends string> = {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** The first option, which sets no filter: "All statuses". */
  all: string;
  options?: readonly T[];
  optionLabel?: (value: T) => string;
  width?: FieldWidth;
  testId?: string;
  /** Options beyond `options` (groups, a value from the URL the list does not know). */
  children?: ReactNode;
};

/** A select of a filter bar: empty is "all", any other value filters. */
export function FilterSelect<T extends string>({
  label,
  value,
  onChange,
  all,
  options = [],
  optionLabel = (v) => v,
  width,
  testId,
  children,
}: FilterSelectProps<T>) {
  const id = useId();
  return (
    <FilterField id={id} label={label} width={width}>
      <select id={id} className="select" value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        <option value="">{all}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {optionLabel(o)}
          </option>
        ))}
        {children}
      </select>
    </FilterField>
  );
}

type TenantFilterProps = {
  value: string;
  tenants: readonly { id: string; name: string }[] | undefined;
  onChange: (tenant: string) => void;
  testId?: string;
};

/** The tenant select; a tenant from the URL that is not (yet) known is still listed. */
export function TenantFilter({ value, tenants, onChange, testId }: TenantFilterProps) {
  const known = new Map((tenants ?? []).map((t) => [t.id, t.name]));
  const ids = [...known.keys()];
  if (value && !known.has(value)) ids.unshift(value);
  const name = (id: string) => {
    const n = known.get(id);
    return n && n !== id ? `${n} (${id})` : id;
  };
  return (
    <FilterSelect
      label="Tenant"
      value={value}
      onChange={onChange}
      all="All tenants"
      options={ids}
      optionLabel={name}
      testId={testId}
    />
  );
}

/** The "Live" dot at the end of a list's filter bar; it pulses while a refresh is in flight. */
export function LiveIndicator({ fetching }: { fetching: boolean }) {
  return (
    <div className="toolbar__status">
      <span className={`live-dot${fetching ? " live-dot--busy" : ""}`} aria-hidden="true" />
      <span className="muted" title={`The list refreshes every ${LIST_POLL_MS / 1000} s while this tab is visible.`}>
        Live
      </span>
    </div>
  );
}
