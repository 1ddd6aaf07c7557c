"use client";

import type { ReactNode } from "react";
import { LIST_POLL_MS } from "@/lib/ui/hooks";
import { QueryErrorState, type QueryLike } from "./States";

type StatesProps = {
  query: QueryLike & { isPending: boolean };
  /** Shown while the first page loads. */
  skeleton: ReactNode;
  errorTitle: string;
  empty: boolean;
  /** Shown when the query succeeded with nothing to list. */
  emptyState: ReactNode;
  /** The list itself. */
  children: ReactNode;
};

/** Loading skeleton, load error, empty state or the list, in that order of precedence. */
export function QueryStates({ query, skeleton, errorTitle, empty, emptyState, children }: StatesProps) {
  if (query.isPending) return <>{skeleton}</>;
  if (query.isError && !query.data) return <QueryErrorState title={errorTitle} query={query} />;
  if (empty) return <>{emptyState}</>;
  return <>{children}</>;
}

type Paged = { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown };

/** Footer under a paged table: what is shown, and a "Load more" button while there are more pages. */
export function LoadMoreFooter({ query, children }: { query: Paged; children: ReactNode }) {
  return (
    <div className="table-footer">
      <span className="muted">{children}</span>
      {query.hasNextPage ? (
        <button
          type="button"
          className="btn btn--secondary"
          onClick={() => query.fetchNextPage()}
          disabled={query.isFetchingNextPage}
          aria-busy={query.isFetchingNextPage || undefined}
          data-testid="load-more"
        >
          {query.isFetchingNextPage ? "Loading…" : "Load more"}
        </button>
      ) : null}
    </div>
  );
}

/** Screen-reader announcement of what a list shows. */
export function ListStatus({ children }: { children: ReactNode }) {
  return (
    <p className="visually-hidden" role="status" aria-live="polite">
      {children}
    </p>
  );
}

/** The "Live" dot at the end of a list toolbar; it pulses while a refresh is in flight. */
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

type TenantFilterProps = {
  id: string;
  value: string;
  tenants: readonly { id: string; name: string }[] | undefined;
  onChange: (tenant: string) => void;
  testId?: string;
};

/** Tenant select of a list toolbar; a tenant from the URL that is not (yet) known is still listed. */
export function TenantFilter({ id, value, tenants, onChange, testId }: TenantFilterProps) {
  const options = [...(tenants ?? [])];
  if (value && !options.some((t) => t.id === value)) options.unshift({ id: value, name: value });
  return (
    <div className="field field--inline">
      <label htmlFor={id} className="field__label">
        Tenant
      </label>
      <select id={id} className="select" value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        <option value="">All tenants</option>
        {options.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name && t.name !== t.id ? `${t.name} (${t.id})` : t.id}
          </option>
        ))}
      </select>
    </div>
  );
}
