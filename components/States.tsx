import type { ReactNode } from "react";
import { errorText, isApiError } from "@/lib/ui/api";

type EmptyProps = { title: string; children?: ReactNode; action?: ReactNode; icon?: ReactNode };

export function EmptyState({ title, children, action, icon }: EmptyProps) {
  return (
    <div className="empty" data-testid="empty-state">
      {icon ? (
        <div className="empty__icon" aria-hidden="true">
          {icon}
        </div>
      ) : null}
      <h2 className="empty__title">{title}</h2>
      {children ? <div className="empty__body">{children}</div> : null}
      {action ? <div className="empty__action">{action}</div> : null}
    </div>
  );
}

type ErrorProps = { title?: string; message: string; code?: string; onRetry?: () => void; retrying?: boolean };

export function ErrorState({ title = "Something went wrong", message, code, onRetry, retrying }: ErrorProps) {
  return (
    <div className="error-state" role="alert" data-testid="error-state">
      <h2 className="error-state__title">{title}</h2>
      <p className="error-state__message">
        {code ? <code className="code-chip code-chip--danger">{code}</code> : null} {message}
      </p>
      {onRetry ? (
        <button
          type="button"
          className="btn btn--secondary"
          onClick={onRetry}
          disabled={retrying}
          aria-busy={retrying || undefined}
        >
          {retrying ? "Retrying…" : "Retry"}
        </button>
      ) : null}
    </div>
  );
}

/** What the query-driven states need from a React Query result. */
export type QueryLike = {
  isError: boolean;
  error: unknown;
  data: unknown;
  refetch: () => unknown;
  isRefetching: boolean;
};

/** ErrorState for a query that failed with no data to show: the API error code, its message and a Retry. */
export function QueryErrorState({ title, query }: { title: string; query: QueryLike }) {
  return (
    <ErrorState
      title={title}
      code={isApiError(query.error) ? query.error.code : undefined}
      message={errorText(query.error)}
      onRetry={() => query.refetch()}
      retrying={query.isRefetching}
    />
  );
}

/** Warning banner while a background refresh fails but earlier data is still shown; nothing otherwise. */
export function StaleDataBanner({ query }: { query: Pick<QueryLike, "isError" | "error" | "data" | "refetch"> }) {
  if (!(query.isError && query.data)) return null;
  return (
    <div className="banner banner--warn" role="alert">
      <span>Could not refresh: {errorText(query.error)}. Showing the last data received.</span>
      <button type="button" className="btn btn--secondary btn--sm" onClick={() => query.refetch()}>
        Retry
      </button>
    </div>
  );
}

/** Grey shimmer placeholder rows in the shape of a table. */
export function TableSkeleton({
  rows = 6,
  columns = 6,
  label = "Loading",
}: {
  rows?: number;
  columns?: number;
  label?: string;
}) {
  return (
    <div className="table-wrap" aria-busy="true" data-testid="table-skeleton">
      <span className="visually-hidden" role="status">
        {label}…
      </span>
      <table className="table" aria-hidden="true">
        <tbody>
          {Array.from({ length: rows }, (_, r) => (
            <tr key={r}>
              {Array.from({ length: columns }, (_, c) => (
                <td key={c}>
                  <span className="skeleton" style={{ width: `${40 + ((r * 7 + c * 13) % 50)}%` }} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function BlockSkeleton({ lines = 3 }: { lines?: number }) {
  return (
    <div aria-hidden="true" className="stack-sm">
      {Array.from({ length: lines }, (_, i) => (
        <span key={i} className="skeleton skeleton--block" style={{ width: `${90 - i * 18}%` }} />
      ))}
    </div>
  );
}

/** Suspense fallback of a list page: its title and a table skeleton in a card. */
export function ListPageSkeleton({ title, columns, label }: { title: string; columns: number; label: string }) {
  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">{title}</h1>
        </div>
      </div>
      <section className="card">
        <TableSkeleton rows={6} columns={columns} label={label} />
      </section>
    </div>
  );
}
