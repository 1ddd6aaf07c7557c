"use client";

import { useId, useState } from "react";
import { humanize } from "@/lib/ui/format";
import { useSearchParamsPatch, useTasks, useTenants } from "@/lib/ui/hooks";
import { ERROR_CODE_OPTIONS, TASK_STATUS_OPTIONS, TASK_TYPE_OPTIONS } from "@/lib/ui/schemas";
import { FilterBar, FilterSelect, TenantFilter } from "../FilterBar";
import { ListStatus, LoadMoreFooter, QueryStates } from "../ListFrame";
import { useCan } from "../PrincipalContext";
import { EmptyState, StaleDataBanner, TableSkeleton } from "../States";
import { icons } from "../shell/icons";
import { BulkRetryDialog } from "./BulkRetryDialog";
import { ExportLinks } from "../ExportLinks";
import { TasksTable } from "./TasksTable";
import { SelectionBar, TaskSelectionProvider } from "./TaskSelection";

function pick(raw: string | null, allowed: readonly string[]): string {
  return raw && allowed.includes(raw) ? raw : "";
}

export function TasksView() {
  const [sp, setParams] = useSearchParamsPatch();
  const canBulkRetry = useCan("bulkRetry");

  const status = pick(sp.get("status"), TASK_STATUS_OPTIONS);
  const errorCode = pick(sp.get("errorCode"), ERROR_CODE_OPTIONS);
  const type = pick(sp.get("type"), TASK_TYPE_OPTIONS);
  const tenant = sp.get("tenant") ?? "";
  const filtered = Boolean(status || errorCode || type || tenant);

  const tenants = useTenants();
  const tasks = useTasks({ status, errorCode, type, tenant });
  const items = tasks.data?.pages.flatMap((p) => p.items) ?? [];
  const [bulkOpen, setBulkOpen] = useState(false);

  const bulkHint = useId();
  const clearFilters = () => setParams({ status: "", errorCode: "", type: "", tenant: "" });

  let liveStatus: string;
  if (tasks.isPending) liveStatus = "Loading tasks…";
  else if (tasks.isError && !tasks.data) liveStatus = "Could not load tasks.";
  else
    liveStatus = `${items.length}${tasks.hasNextPage ? "+" : ""} task${items.length === 1 ? "" : "s"}${filtered ? " match the filters" : ""}.`;

  const bulkEnabled = status === "DEAD";

  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Tasks</h1>
          <p className="page__lead">Every indexing job: what is queued, running, retrying or stuck — and why.</p>
        </div>
        <div className="page__actions page__actions--top">
          <ExportLinks kind="tasks" filters={{ status, errorCode, type, tenant }} filtered={filtered} />
          {canBulkRetry ? (
            <div className="page__actions page__actions--stacked">
              <button
                type="button"
                className="btn btn--primary"
                disabled={!bulkEnabled}
                onClick={() => setBulkOpen(true)}
                aria-describedby={bulkEnabled ? undefined : bulkHint}
                data-testid="bulk-retry-open"
              >
                Retry all DEAD…
              </button>
              {bulkEnabled ? null : (
                <span id={bulkHint} className="field__hint">
                  Set Status to “dead” to retry in bulk.
                </span>
              )}
            </div>
          ) : null}
        </div>
      </div>

      <section className="card" aria-label="Tasks">
        <FilterBar label="Filter tasks" filtered={filtered} onClear={clearFilters} fetching={tasks.isFetching}>
          <FilterSelect
            label="Status"
            value={status}
            onChange={(v) => setParams({ status: v })}
            all="All statuses"
            options={TASK_STATUS_OPTIONS}
            optionLabel={humanize}
            width="narrow"
            testId="filter-status"
          />
          <FilterSelect
            label="Error code"
            value={errorCode}
            onChange={(v) => setParams({ errorCode: v })}
            all="Any error"
            options={ERROR_CODE_OPTIONS}
            testId="filter-error-code"
          />
          <FilterSelect
            label="Type"
            value={type}
            onChange={(v) => setParams({ type: v })}
            all="All types"
            options={TASK_TYPE_OPTIONS}
            width="narrow"
            testId="filter-type"
          />
          <TenantFilter
            value={tenant}
            tenants={tenants.data}
            onChange={(v) => setParams({ tenant: v })}
            testId="filter-tenant"
          />
        </FilterBar>

        <ListStatus>{liveStatus}</ListStatus>

        <StaleDataBanner query={tasks} />

        <QueryStates
          query={tasks}
          skeleton={<TableSkeleton rows={6} columns={8} label="Loading tasks" />}
          errorTitle="Could not load tasks"
          empty={items.length === 0}
          emptyState={
            filtered ? (
              <EmptyState
                icon={icons.tasks}
                title="No tasks match these filters"
                action={
                  <button type="button" className="btn btn--secondary" onClick={clearFilters}>
                    Clear filters
                  </button>
                }
              >
                <p>
                  {status === "DEAD"
                    ? "Nothing is stuck: no task matching these filters has given up."
                    : "Try another status, error code or tenant."}
                </p>
              </EmptyState>
            ) : (
              <EmptyState icon={icons.tasks} title="No tasks yet">
                <p>Every publish, reindex or delete creates a task. They appear here as soon as one is queued.</p>
              </EmptyState>
            )
          }
        >
          <TaskSelectionProvider>
            <SelectionBar />
            <TasksTable items={items} dimmed={tasks.isPlaceholderData} />
          </TaskSelectionProvider>
          <LoadMoreFooter query={tasks}>
            Showing {items.length} task{items.length === 1 ? "" : "s"}, newest first
          </LoadMoreFooter>
        </QueryStates>
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
