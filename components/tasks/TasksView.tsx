"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useId, useState } from "react";
import { errorText, isApiError } from "@/lib/ui/api";
import { humanize } from "@/lib/ui/format";
import { LIST_POLL_MS, useTasks, useTenants } from "@/lib/ui/hooks";
import { ERROR_CODE_OPTIONS, TASK_STATUS_OPTIONS, TASK_TYPE_OPTIONS } from "@/lib/ui/schemas";
import { useCan } from "../PrincipalContext";
import { EmptyState, ErrorState, TableSkeleton } from "../States";
import { icons } from "../shell/icons";
import { BulkRetryDialog } from "./BulkRetryDialog";
import { TasksTable } from "./TasksTable";

function pick(raw: string | null, allowed: readonly string[]): string {
  return raw && allowed.includes(raw) ? raw : "";
}

export function TasksView() {
  const router = useRouter();
  const pathname = usePathname();
  const sp = useSearchParams();
  const canBulkRetry = useCan("bulkRetry");

  const status = pick(sp.get("status"), TASK_STATUS_OPTIONS);
  const errorCode = pick(sp.get("errorCode"), ERROR_CODE_OPTIONS);
  const type = pick(sp.get("type"), TASK_TYPE_OPTIONS);
  const tenant = sp.get("tenant") ?? "";
  const filtered = Boolean(status || errorCode || type || tenant);

  const setParams = useCallback(
    (patch: Record<string, string>) => {
      const next = new URLSearchParams(sp.toString());
      for (const [k, v] of Object.entries(patch)) {
        if (v) next.set(k, v);
        else next.delete(k);
      }
      const qs = next.toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [router, pathname, sp],
  );

  const tenants = useTenants();
  const tasks = useTasks({ status, errorCode, type, tenant });
  const items = tasks.data?.pages.flatMap((p) => p.items) ?? [];
  const [bulkOpen, setBulkOpen] = useState(false);

  const tenantOptions = [...(tenants.data ?? [])];
  if (tenant && !tenantOptions.some((t) => t.id === tenant)) tenantOptions.unshift({ id: tenant, name: tenant });

  const ids = { status: useId(), errorCode: useId(), type: useId(), tenant: useId(), bulkHint: useId() };

  let liveStatus: string;
  if (tasks.isPending) liveStatus = "Loading tasks…";
  else if (tasks.isError && !tasks.data) liveStatus = "Could not load tasks.";
  else liveStatus = `${items.length}${tasks.hasNextPage ? "+" : ""} task${items.length === 1 ? "" : "s"}${filtered ? " match the filters" : ""}.`;

  const bulkEnabled = status === "DEAD";

  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Tasks</h1>
          <p className="page__lead">Every indexing job: what is queued, running, retrying or stuck — and why.</p>
        </div>
        {canBulkRetry ? (
          <div className="page__actions page__actions--stacked">
            <button
              type="button"
              className="btn btn--primary"
              disabled={!bulkEnabled}
              onClick={() => setBulkOpen(true)}
              aria-describedby={bulkEnabled ? undefined : ids.bulkHint}
              data-testid="bulk-retry-open"
            >
              Retry all DEAD…
            </button>
            {bulkEnabled ? null : (
              <span id={ids.bulkHint} className="field__hint">
                Set Status to “dead” to retry in bulk.
              </span>
            )}
          </div>
        ) : null}
      </div>

      <section className="card" aria-label="Tasks">
        <form className="toolbar" role="search" aria-label="Filter tasks" onSubmit={(e) => e.preventDefault()}>
          <div className="field field--inline field--narrow">
            <label htmlFor={ids.status} className="field__label">
              Status
            </label>
            <select id={ids.status} className="select" value={status} onChange={(e) => setParams({ status: e.target.value })} data-testid="filter-status">
              <option value="">All statuses</option>
              {TASK_STATUS_OPTIONS.map((s) => (
                <option key={s} value={s}>
                  {humanize(s)}
                </option>
              ))}
            </select>
          </div>
          <div className="field field--inline">
            <label htmlFor={ids.errorCode} className="field__label">
              Error code
            </label>
            <select
              id={ids.errorCode}
              className="select"
              value={errorCode}
              onChange={(e) => setParams({ errorCode: e.target.value })}
              data-testid="filter-error-code"
            >
              <option value="">Any error</option>
              {ERROR_CODE_OPTIONS.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </div>
          <div className="field field--inline field--narrow">
            <label htmlFor={ids.type} className="field__label">
              Type
            </label>
            <select id={ids.type} className="select" value={type} onChange={(e) => setParams({ type: e.target.value })} data-testid="filter-type">
              <option value="">All types</option>
              {TASK_TYPE_OPTIONS.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </div>
          <div className="field field--inline">
            <label htmlFor={ids.tenant} className="field__label">
              Tenant
            </label>
            <select id={ids.tenant} className="select" value={tenant} onChange={(e) => setParams({ tenant: e.target.value })} data-testid="filter-tenant">
              <option value="">All tenants</option>
              {tenantOptions.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name && t.name !== t.id ? `${t.name} (${t.id})` : t.id}
                </option>
              ))}
            </select>
          </div>
          {filtered ? (
            <button type="button" className="btn btn--ghost btn--sm toolbar__clear" onClick={() => setParams({ status: "", errorCode: "", type: "", tenant: "" })}>
              Clear filters
            </button>
          ) : null}
          <div className="toolbar__status">
            <span className={`live-dot${tasks.isFetching ? " live-dot--busy" : ""}`} aria-hidden="true" />
            <span className="muted" title={`The list refreshes every ${LIST_POLL_MS / 1000} s while this tab is visible.`}>
              Live
            </span>
          </div>
        </form>

        <p className="visually-hidden" role="status" aria-live="polite">
          {liveStatus}
        </p>

        {tasks.isError && tasks.data ? (
          <div className="banner banner--warn" role="alert">
            <span>Could not refresh: {errorText(tasks.error)}. Showing the last data received.</span>
            <button type="button" className="btn btn--secondary btn--sm" onClick={() => tasks.refetch()}>
              Retry
            </button>
          </div>
        ) : null}

        {tasks.isPending ? (
          <TableSkeleton rows={6} columns={8} label="Loading tasks" />
        ) : tasks.isError && !tasks.data ? (
          <ErrorState
            title="Could not load tasks"
            code={isApiError(tasks.error) ? tasks.error.code : undefined}
            message={errorText(tasks.error)}
            onRetry={() => tasks.refetch()}
            retrying={tasks.isRefetching}
          />
        ) : items.length === 0 ? (
          filtered ? (
            <EmptyState
              icon={icons.tasks}
              title="No tasks match these filters"
              action={
                <button type="button" className="btn btn--secondary" onClick={() => setParams({ status: "", errorCode: "", type: "", tenant: "" })}>
                  Clear filters
                </button>
              }
            >
              <p>{status === "DEAD" ? "Nothing is stuck: no task matching these filters has given up." : "Try another status, error code or tenant."}</p>
            </EmptyState>
          ) : (
            <EmptyState icon={icons.tasks} title="No tasks yet">
              <p>Every publish, reindex or delete creates a task. They appear here as soon as one is queued.</p>
            </EmptyState>
          )
        ) : (
          <>
            <TasksTable items={items} dimmed={tasks.isPlaceholderData} />
            <div className="table-footer">
              <span className="muted">
                Showing {items.length} task{items.length === 1 ? "" : "s"}, newest first
              </span>
              {tasks.hasNextPage ? (
                <button
                  type="button"
                  className="btn btn--secondary"
                  onClick={() => tasks.fetchNextPage()}
                  disabled={tasks.isFetchingNextPage}
                  aria-busy={tasks.isFetchingNextPage || undefined}
                  data-testid="load-more"
                >
                  {tasks.isFetchingNextPage ? "Loading…" : "Load more"}
                </button>
              ) : null}
            </div>
          </>
        )}
      </section>

      {canBulkRetry && bulkEnabled ? (
        <BulkRetryDialog
          open={bulkOpen}
          onClose={() => setBulkOpen(false)}
          errorCode={errorCode}
          tenant={tenant}
          type={type}
          shown={items.length}
          more={Boolean(tasks.hasNextPage)}
        />
      ) : null}
    </div>
  );
}
