"use client";

import Link from "next/link";
import { useId, useState } from "react";
import { errorText, isApiError } from "@/lib/ui/api";
import { useSearchParamsPatch } from "@/lib/ui/hooks";
import {
  activeSpaceOf,
  isOpenMigration,
  migrationsHref,
  useMigrations,
  useSpaces,
  type MigrationView,
} from "@/lib/ui/spaces";
import { useCan } from "../PrincipalContext";
import { RelativeTime } from "../RelativeTime";
import { EmptyState, QueryErrorState, StaleDataBanner, TableSkeleton } from "../States";
import { TableHead } from "../TableHead";
import { icons } from "../shell/icons";
import { MigrationPanel, MigrationStateBadge } from "./MigrationPanel";
import { StartMigrationDialog } from "./MigrationDialogs";
import "./migrations.css";

export function TenantMigrationsView({ tenant }: { tenant: string }) {
  const canMigrate = useCan("migrate");
  const canSeeSpaces = useCan("viewSpaces");
  const canManageSpaces = useCan("manageSpaces");
  const [sp, setParams] = useSearchParamsPatch();
  const list = useMigrations(tenant);
  const spaces = useSpaces(canSeeSpaces);
  const [starting, setStarting] = useState(false);
  const startHint = useId();

  const items = list.data ?? [];
  const open = items.find(isOpenMigration) ?? null;
  const asked = sp.get("migration");
  const selectedId = asked && /^[1-9][0-9]{0,17}$/.test(asked) ? asked : (open?.id ?? null);
  const selected = items.find((m) => m.id === selectedId);
  const active = activeSpaceOf(list.data, spaces.data);
  const refused = list.isError && isApiError(list.error) && (list.error.status === 403 || list.error.status === 400);

  const spacesProblem = !canSeeSpaces ? null : spaces.isPending ? (
    <p className="muted" role="status">
      <span className="spinner" aria-hidden="true" /> Loading the index spaces…
    </p>
  ) : spaces.isError ? (
    <div className="form-error" role="alert">
      Could not load the index spaces: {errorText(spaces.error)}
    </div>
  ) : null;

  return (
    <div className="page" data-testid="migrations-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>
            <Link href="/tenants">Tenants</Link>
          </li>
          <li>
            <Link href={`/documents?tenant=${encodeURIComponent(tenant)}`}>{tenant}</Link>
          </li>
          <li aria-current="page">Migrations</li>
        </ol>
      </nav>

      <div className="page__header">
        <div>
          <h1 className="page__title">Index space migrations</h1>
          <p className="page__lead" data-testid="migrations-lead">
            Tenant <span className="tenant-chip">{tenant}</span>
            {active.name ? (
              <>
                {" "}
                · search reads{" "}
                <strong className="mono" data-testid="tenant-active-space">
                  {active.name}
                </strong>
                {active.fromDefault ? " (the default space)" : null}
              </>
            ) : null}
            .
          </p>
        </div>
        {canMigrate && !refused ? (
          <div className="page__actions page__actions--stacked">
            <button
              type="button"
              className="btn btn--primary"
              onClick={() => setStarting(true)}
              disabled={list.isPending || open !== null}
              aria-describedby={open ? startHint : undefined}
              data-testid="migration-start-open"
            >
              {icons.plus}
              <span>Start migration…</span>
            </button>
            {open ? (
              <span id={startHint} className="field__hint">
                Migration #{open.id} is open: a tenant has one at a time.
              </span>
            ) : null}
          </div>
        ) : null}
      </div>

      {list.isPending ? (
        <section className="card">
          <TableSkeleton rows={3} columns={6} label="Loading migrations" />
        </section>
      ) : refused ? (
        <section className="card" data-testid="migrations-refused">
          <EmptyState
            icon={icons.spacesLarge}
            title={`You cannot see tenant ${tenant}`}
            action={
              <Link href="/tenants" className="btn btn--secondary">
                Your tenants
              </Link>
            }
          >
            <p>
              {isApiError(list.error) ? <code className="code-chip code-chip--danger">{list.error.code}</code> : null}{" "}
              {errorText(list.error)}
            </p>
          </EmptyState>
        </section>
      ) : list.isError && !list.data ? (
        <section className="card">
          <QueryErrorState title="Could not load the migrations" query={list} />
        </section>
      ) : (
        <>
          <StaleDataBanner query={list} />
          {items.length === 0 ? (
            <section className="card" aria-label="Migrations">
              <EmptyState
                icon={icons.spacesLarge}
                title="This tenant has never changed index space"
                action={
                  canMigrate ? (
                    <button
                      type="button"
                      className="btn btn--primary"
                      onClick={() => setStarting(true)}
                      data-testid="migration-start-empty"
                    >
                      Start a migration…
                    </button>
                  ) : null
                }
              >
                <p>
                  Search in <span className="tenant-chip">{tenant}</span> reads{" "}
                  {active.name ? <strong className="mono">{active.name}</strong> : "the space it started on"}. To move
                  it to another embedding model, dimensions or chunker, start a migration: the documents are built in
                  the new space in the background, with progress, ETA and cost shown here, and search moves only when
                  you switch, with a switch back one click away until you finish.
                </p>
                {!canMigrate ? <p className="muted">Operators and admins start migrations.</p> : null}
              </EmptyState>
            </section>
          ) : (
            <>
              {selectedId ? (
                <MigrationPanel
                  key={selectedId}
                  tenant={tenant}
                  id={selectedId}
                  initial={selected}
                  spaces={spaces.data}
                />
              ) : (
                <div className="note note--info" role="note" data-testid="no-open-migration">
                  <span className="note__icon" aria-hidden="true">
                    i
                  </span>
                  <p>
                    No migration is open: search reads <strong className="mono">{active.name}</strong> and nothing is
                    built beside it. Pick a migration below to see how it went.
                  </p>
                </div>
              )}
              <History
                tenant={tenant}
                items={items}
                selectedId={selectedId}
                onShowCurrent={open && selectedId !== open.id ? () => setParams({ migration: "" }) : undefined}
              />
            </>
          )}
        </>
      )}

      {canMigrate ? (
        <StartMigrationDialog
          tenant={tenant}
          open={starting}
          onClose={() => setStarting(false)}
          active={active.name}
          spaces={spaces.data}
          spacesProblem={spacesProblem}
          canManageSpaces={canManageSpaces}
          onStarted={() => setParams({ migration: "" })}
        />
      ) : null}
    </div>
  );
}

function History({
  tenant,
  items,
  selectedId,
  onShowCurrent,
}: {
  tenant: string;
  items: MigrationView[];
  selectedId: string | null;
  onShowCurrent?: () => void;
}) {
  const headingId = useId();
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="section-title card__title">
        All migrations <span className="count">{items.length}</span>
        {onShowCurrent ? (
          <button type="button" className="btn btn--secondary btn--sm section-title__aside" onClick={onShowCurrent}>
            Show the open migration
          </button>
        ) : null}
      </h2>
      <div className="table-wrap">
        <table className="table" data-testid="migration-history">
          <caption className="visually-hidden">Migrations of {tenant}, newest first</caption>
          <TableHead columns={["Migration", "From → to", "State", "Started", "Ended", "Reason"]} />
          <tbody>
            {items.map((m) => (
              <tr
                key={m.id}
                data-testid="migration-row"
                data-migration-id={m.id}
                data-state={m.state}
                className={m.id === selectedId ? "row--selected" : undefined}
                aria-current={m.id === selectedId ? "true" : undefined}
              >
                <td className="nowrap">
                  <Link href={migrationsHref(tenant, m.id)} className="row-link mono" scroll={false}>
                    #{m.id}
                  </Link>
                </td>
                <td>
                  <span className="mono">{m.from.name}</span> → <span className="mono">{m.to.name}</span>
                </td>
                <td>
                  <MigrationStateBadge state={m.state} testId="migration-row-state" />
                </td>
                <td className="nowrap">
                  <span className="stack-xs">
                    <RelativeTime iso={m.createdAt} />
                    <span className="migration-sub mono">{m.createdBy}</span>
                  </span>
                </td>
                <td className="nowrap">
                  {m.endedAt ? (
                    <span className="stack-xs">
                      <RelativeTime iso={m.endedAt} />
                      {m.endedBy ? <span className="migration-sub mono">{m.endedBy}</span> : null}
                    </span>
                  ) : (
                    <span className="muted">open</span>
                  )}
                </td>
                <td className="cell-reason">{m.reason ?? <span className="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
