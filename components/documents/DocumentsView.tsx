"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { errorText, isApiError } from "@/lib/ui/api";
import { useDebounced, useDocuments, useTenants, LIST_POLL_MS } from "@/lib/ui/hooks";
import { DOCUMENT_STATES, isDocumentState } from "@/lib/ui/schemas";
import { useViewer } from "../PrincipalContext";
import { EmptyState, ErrorState, TableSkeleton } from "../States";
import { STATE_LABEL } from "../StateBadge";
import { icons } from "../shell/icons";
import { DocumentsTable } from "./DocumentsTable";
import { PublishDialog } from "./PublishDialog";

export function DocumentsView() {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const viewer = useViewer();

  const tenant = searchParams.get("tenant") ?? "";
  const rawState = searchParams.get("state") ?? "";
  const state = isDocumentState(rawState) ? rawState : "";
  const q = searchParams.get("q") ?? "";
  const filtered = Boolean(tenant || state || q);

  const setParams = useCallback(
    (patch: Record<string, string>) => {
      const next = new URLSearchParams(searchParams.toString());
      for (const [k, v] of Object.entries(patch)) {
        if (v) next.set(k, v);
        else next.delete(k);
      }
      const qs = next.toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [router, pathname, searchParams],
  );

  // Text search: typed locally, written to the URL once typing pauses.
  const [text, setText] = useState(q);
  const debounced = useDebounced(text.trim(), 300);
  const lastWritten = useRef(q);
  useEffect(() => {
    if (debounced !== lastWritten.current) {
      lastWritten.current = debounced;
      setParams({ q: debounced });
    }
  }, [debounced, setParams]);
  useEffect(() => {
    // URL changed from outside (back button, "Clear filters"): reflect it in the box.
    if (q !== lastWritten.current) {
      lastWritten.current = q;
      setText(q);
    }
  }, [q]);

  const [publishOpen, setPublishOpen] = useState(false);

  const tenants = useTenants();
  const docs = useDocuments({ tenant, state, q });
  const items = docs.data?.pages.flatMap((p) => p.items) ?? [];

  const tenantOptions = [...(tenants.data ?? [])];
  if (tenant && !tenantOptions.some((t) => t.id === tenant)) tenantOptions.unshift({ id: tenant, name: tenant });

  const ids = { tenant: useId(), state: useId(), q: useId() };

  function clearFilters() {
    lastWritten.current = "";
    setText("");
    setParams({ tenant: "", state: "", q: "" });
  }

  // The header button is the stable test hook ("publish-open"); the empty state repeats it under another id.
  const publishButton = (testId: string) =>
    viewer.canPublish ? (
      <button type="button" className="btn btn--primary" data-testid={testId} onClick={() => setPublishOpen(true)}>
        {icons.plus}
        <span>Publish document</span>
      </button>
    ) : null;

  let status: string;
  if (docs.isPending) status = "Loading documents…";
  else if (docs.isError && !docs.data) status = "Could not load documents.";
  else status = `${items.length}${docs.hasNextPage ? "+" : ""} document${items.length === 1 ? "" : "s"}${filtered ? " match the filters" : ""}.`;

  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Documents</h1>
          <p className="page__lead">Every published document and whether its latest version is searchable yet.</p>
        </div>
        <div className="page__actions">{publishButton("publish-open")}</div>
      </div>

      <section className="card" aria-label="Documents">
        <form className="toolbar" role="search" aria-label="Filter documents" onSubmit={(e) => e.preventDefault()}>
          <div className="field field--inline">
            <label htmlFor={ids.tenant} className="field__label">
              Tenant
            </label>
            <select id={ids.tenant} className="select" value={tenant} onChange={(e) => setParams({ tenant: e.target.value })}>
              <option value="">All tenants</option>
              {tenantOptions.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name && t.name !== t.id ? `${t.name} (${t.id})` : t.id}
                </option>
              ))}
            </select>
          </div>
          <div className="field field--inline">
            <label htmlFor={ids.state} className="field__label">
              State
            </label>
            <select id={ids.state} className="select" value={state} onChange={(e) => setParams({ state: e.target.value })}>
              <option value="">All states</option>
              {DOCUMENT_STATES.map((s) => (
                <option key={s} value={s}>
                  {STATE_LABEL[s]}
                </option>
              ))}
            </select>
          </div>
          <div className="field field--inline field--grow">
            <label htmlFor={ids.q} className="field__label">
              Search
            </label>
            <input
              id={ids.q}
              type="search"
              className="input"
              placeholder="Key or title"
              value={text}
              onChange={(e) => setText(e.target.value)}
              autoComplete="off"
              spellCheck={false}
            />
          </div>
          {filtered ? (
            <button type="button" className="btn btn--ghost btn--sm toolbar__clear" onClick={clearFilters}>
              Clear filters
            </button>
          ) : null}
          <div className="toolbar__status">
            <span className={`live-dot${docs.isFetching ? " live-dot--busy" : ""}`} aria-hidden="true" />
            <span className="muted" title={`The list refreshes every ${LIST_POLL_MS / 1000} s while this tab is visible.`}>
              Live
            </span>
          </div>
        </form>

        <p className="visually-hidden" role="status" aria-live="polite">
          {status}
        </p>

        {docs.isError && docs.data ? (
          <div className="banner banner--warn" role="alert">
            <span>Could not refresh: {errorText(docs.error)}. Showing the last data received.</span>
            <button type="button" className="btn btn--secondary btn--sm" onClick={() => docs.refetch()}>
              Retry
            </button>
          </div>
        ) : null}

        {docs.isPending ? (
          <TableSkeleton rows={6} columns={7} label="Loading documents" />
        ) : docs.isError && !docs.data ? (
          <ErrorState
            title="Could not load documents"
            code={isApiError(docs.error) ? docs.error.code : undefined}
            message={errorText(docs.error)}
            onRetry={() => docs.refetch()}
            retrying={docs.isRefetching}
          />
        ) : items.length === 0 ? (
          filtered ? (
            <EmptyState
              icon={icons.search}
              title="No documents match these filters"
              action={
                <button type="button" className="btn btn--secondary" onClick={clearFilters}>
                  Clear filters
                </button>
              }
            >
              <p>Try another tenant or state, or a shorter search.</p>
            </EmptyState>
          ) : (
            <EmptyState icon={icons.inbox} title="No documents yet — publish one" action={publishButton("publish-open-empty")}>
              <p>
                {viewer.canPublish
                  ? "Publish a document and watch it go from Indexing to Searchable."
                  : "Documents appear here once a maintainer publishes them through the API or the CLI."}
              </p>
            </EmptyState>
          )
        ) : (
          <>
            <DocumentsTable items={items} dimmed={docs.isPlaceholderData} />
            <div className="table-footer">
              <span className="muted">
                Showing {items.length} document{items.length === 1 ? "" : "s"}
                {docs.data?.pages[0] && rawState && !state ? ` (ignored unknown state "${rawState}")` : ""}
              </span>
              {docs.hasNextPage ? (
                <button
                  type="button"
                  className="btn btn--secondary"
                  onClick={() => docs.fetchNextPage()}
                  disabled={docs.isFetchingNextPage}
                  aria-busy={docs.isFetchingNextPage || undefined}
                  data-testid="load-more"
                >
                  {docs.isFetchingNextPage ? "Loading…" : "Load more"}
                </button>
              ) : null}
            </div>
          </>
        )}
      </section>

      {viewer.canPublish ? (
        <PublishDialog
          open={publishOpen}
          onClose={() => setPublishOpen(false)}
          defaultTenant={tenant || "default"}
          knownTenants={(tenants.data ?? []).map((t) => t.id)}
        />
      ) : null}
    </div>
  );
}
