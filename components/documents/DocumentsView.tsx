"use client";

import { useEffect, useId, useRef, useState } from "react";
import { useDebounced, useDocuments, useSearchParamsPatch, useSlashToFocus, useTenants } from "@/lib/ui/hooks";
import { DOCUMENT_STATES, isDocumentState } from "@/lib/ui/schemas";
import { FilterBar, FilterField, FilterSelect, TenantFilter } from "../FilterBar";
import { ListStatus, LoadMoreFooter, QueryStates } from "../ListFrame";
import { useViewer } from "../PrincipalContext";
import { STATE_LABEL } from "../StateBadge";
import { SlashHint } from "../SlashHint";
import { EmptyState, StaleDataBanner, TableSkeleton } from "../States";
import { icons } from "../shell/icons";
import { ExportLinks } from "../ExportLinks";
import { DocumentsTable } from "./DocumentsTable";
import { PublishDialog } from "./PublishDialog";

export function DocumentsView() {
  const [searchParams, setParams] = useSearchParamsPatch();
  const viewer = useViewer();

  const tenant = searchParams.get("tenant") ?? "";
  const rawState = searchParams.get("state") ?? "";
  const state = isDocumentState(rawState) ? rawState : "";
  const q = searchParams.get("q") ?? "";
  const filtered = Boolean(tenant || state || q);

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

  const searchId = useId();
  useSlashToFocus(searchId);

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
  else
    status = `${items.length}${docs.hasNextPage ? "+" : ""} document${items.length === 1 ? "" : "s"}${filtered ? " match the filters" : ""}.`;

  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Documents</h1>
          <p className="page__lead">Every published document and whether its latest version is searchable yet.</p>
        </div>
        <div className="page__actions">
          <ExportLinks kind="documents" filters={{ tenant, state, q }} filtered={filtered} />
          {publishButton("publish-open")}
        </div>
      </div>

      <section className="card" aria-label="Documents">
        <FilterBar label="Filter documents" filtered={filtered} onClear={clearFilters} fetching={docs.isFetching}>
          <TenantFilter value={tenant} tenants={tenants.data} onChange={(v) => setParams({ tenant: v })} />
          <FilterSelect
            label="State"
            value={state}
            onChange={(v) => setParams({ state: v })}
            all="All states"
            options={DOCUMENT_STATES}
            optionLabel={(s) => STATE_LABEL[s]}
          />
          <FilterField
            id={searchId}
            width="grow"
            label={
              <>
                Search <SlashHint />
              </>
            }
          >
            <input
              id={searchId}
              type="search"
              className="input"
              placeholder="Key or title"
              aria-keyshortcuts="/"
              value={text}
              onChange={(e) => setText(e.target.value)}
              autoComplete="off"
              spellCheck={false}
            />
          </FilterField>
        </FilterBar>

        <ListStatus>{status}</ListStatus>

        <StaleDataBanner query={docs} />

        <QueryStates
          query={docs}
          skeleton={<TableSkeleton rows={6} columns={7} label="Loading documents" />}
          errorTitle="Could not load documents"
          empty={items.length === 0}
          emptyState={
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
              <EmptyState
                icon={icons.inbox}
                title="No documents yet — publish one"
                action={publishButton("publish-open-empty")}
              >
                <p>
                  {viewer.canPublish
                    ? "Publish a document and watch it go from Indexing to Searchable."
                    : "Documents appear here once a maintainer publishes them through the API or the CLI."}
                </p>
              </EmptyState>
            )
          }
        >
          <DocumentsTable items={items} dimmed={docs.isPlaceholderData} />
          <LoadMoreFooter query={docs}>
            Showing {items.length} document{items.length === 1 ? "" : "s"}
            {docs.data?.pages[0] && rawState && !state ? ` (ignored unknown state "${rawState}")` : ""}
          </LoadMoreFooter>
        </QueryStates>
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
