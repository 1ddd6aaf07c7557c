"use client";

import type { ReactNode } from "react";
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
