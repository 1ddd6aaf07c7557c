"use client";

import Link from "next/link";
import { useId } from "react";
import { useTenants } from "@/lib/ui/hooks";
import {
  TENANT_MIGRATIONS_CAP,
  activeSpaceOf,
  isOpenMigration,
  migrationsHref,
  useSpaces,
  useTenantsMigrations,
  type MigrationView,
} from "@/lib/ui/spaces";
import { freshnessHref } from "@/lib/ui/slo";
import { QueryStates } from "../ListFrame";
import { useCan } from "../PrincipalContext";
import { ProgressBar } from "../ProgressBar";
import { RelativeTime } from "../RelativeTime";
import { EmptyState, TableSkeleton } from "../States";
import { TableHead } from "../TableHead";
import { icons } from "../shell/icons";
import { MigrationStateBadge } from "./MigrationPanel";
import "./migrations.css";

/** The caller's tenants, the index space each one's search reads, and its open migration. */
export function TenantsView() {
  const tenants = useTenants({ fresh: true });
  const canSeeSpaces = useCan("viewSpaces");
  const spaces = useSpaces(canSeeSpaces);
  const items = tenants.data ?? [];
  const migrations = useTenantsMigrations(items.map((t) => t.id));

  return (
    <div className="page" data-testid="tenants-page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Tenants</h1>
          <p className="page__lead">The index space each tenant&rsquo;s search reads, and its migrations.</p>
        </div>
        {canSeeSpaces ? (
          <Link href="/spaces" className="btn btn--secondary">
            {icons.spaces}
            <span>Index spaces</span>
          </Link>
        ) : null}
      </div>

      <section className="card" aria-label="Tenants">
        <QueryStates
          query={tenants}
          skeleton={<TableSkeleton rows={4} columns={4} label="Loading tenants" />}
          errorTitle="Could not load your tenants"
          empty={items.length === 0}
          emptyState={
            <EmptyState icon={icons.inbox} title="No tenants yet">
              <p>A tenant appears with its first published document.</p>
            </EmptyState>
          }
        >
          <div className="table-wrap">
            <table className="table" data-testid="tenants-table">
              <caption className="visually-hidden">Tenants and their index spaces</caption>
              <TableHead columns={["Tenant", "Search reads", "Migration", { label: "Open", className: "col-right" }]} />
              <tbody>
                {items.map((t, i) => {
                  const q = migrations[i];
                  const list = q?.data;
                  const active = activeSpaceOf(list, spaces.data);
                  const open = list?.find(isOpenMigration) ?? null;
                  return (
                    <tr key={t.id} data-testid="tenant-row" data-tenant={t.id}>
                      <td>
                        <span className="stack-xs">
                          <span className="tenant-chip">{t.id}</span>
                          {t.name && t.name !== t.id ? <span className="migration-sub">{t.name}</span> : null}
                        </span>
                      </td>
                      <td className="mono" data-testid="tenant-space">
                        {q === undefined ? (
                          <span className="muted">not read (over {TENANT_MIGRATIONS_CAP} tenants)</span>
                        ) : q.isPending ? (
                          <span className="skeleton" style={{ width: "8rem" }} />
                        ) : (
                          <>
                            {t.space?.name ?? active.name}
                            {(
                              t.space ? spaces.data?.find((s) => s.id === t.space.id)?.isDefault : active.fromDefault
                            ) ? (
                              <span className="muted"> (default)</span>
                            ) : null}
                          </>
                        )}
                      </td>
                      <td>
                        {q?.isError ? (
                          <span className="muted">could not read</span>
                        ) : open ? (
                          <OpenMigrationLine m={open} />
                        ) : list && list.length > 0 ? (
                          <span className="muted">
                            none open · last #{list[0].id} {list[0].state.toLowerCase().replace("_", " ")}{" "}
                            <RelativeTime iso={list[0].endedAt ?? list[0].createdAt} />
                          </span>
                        ) : list ? (
                          <span className="muted">never migrated</span>
                        ) : null}
                      </td>
                      <td className="col-right nowrap">
                        <Link
                          href={migrationsHref(t.id)}
                          className="btn btn--secondary btn--sm"
                          data-testid="tenant-migrations-link"
                        >
                          Migrations<span className="visually-hidden"> of {t.id}</span>
                        </Link>{" "}
                        <Link
                          href={freshnessHref(t.id)}
                          className="btn btn--ghost btn--sm"
                          data-testid="tenant-freshness-link"
                        >
                          Freshness<span className="visually-hidden"> of {t.id}</span>
                        </Link>{" "}
                        <Link href={`/documents?tenant=${encodeURIComponent(t.id)}`} className="btn btn--ghost btn--sm">
                          Documents<span className="visually-hidden"> of {t.id}</span>
                        </Link>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {items.length > TENANT_MIGRATIONS_CAP ? (
            <p className="card__empty muted">
              Migrations are read for the first {TENANT_MIGRATIONS_CAP} tenants; open a tenant&rsquo;s page for the
              rest.
            </p>
          ) : null}
        </QueryStates>
      </section>
    </div>
  );
}

function OpenMigrationLine({ m }: { m: MigrationView }) {
  return (
    <span className="tenant-migration" data-testid="tenant-open-migration">
      <span>
        <MigrationStateBadge state={m.state} testId="tenant-migration-state" />{" "}
        <span className="mono">
          {m.from.name} → {m.to.name}
        </span>
      </span>
      {m.state !== "SWITCHED" ? (
        <ProgressBar
          done={m.documents.built}
          total={m.documents.total}
          unit="documents"
          label={`Migration #${m.id} of ${m.tenant}`}
        />
      ) : null}
    </span>
  );
}

/**
 * The overview's line on index spaces: how many spaces are live and how many migrations are open
 * (from the spaces list, one request, for the roles that may read it), and the way to the tenants'
 * spaces and migrations. Each open migration counts in both its spaces, hence the halving.
 */
export function OpenMigrationsCard() {
  const canSeeSpaces = useCan("viewSpaces");
  const spaces = useSpaces(canSeeSpaces);
  const headingId = useId();
  const live = (spaces.data ?? []).filter((s) => s.retiredAt === null);
  const open = Math.round(live.reduce((a, s) => a + s.openMigrations, 0) / 2);
  return (
    <section
      className="card card--padded overview-spaces"
      aria-labelledby={headingId}
      data-testid="overview-migrations"
    >
      <h2 id={headingId} className="section-title">
        {icons.spaces} Index spaces
        <Link href="/tenants" className="btn btn--secondary btn--sm section-title__aside">
          Tenants and migrations
        </Link>
      </h2>
      <p className="muted" data-testid="overview-migrations-summary">
        {spaces.data
          ? `${live.length} live space${live.length === 1 ? "" : "s"}; ${
              open === 0
                ? "no migration is open: every tenant's search reads one space, with nothing built beside it."
                : `${open} migration${open === 1 ? " is" : "s are"} open (a second space built or kept beside the one search reads).`
            }`
          : "Each tenant's search reads one index space; a migration moves a tenant to another."}{" "}
        {canSeeSpaces ? <Link href="/spaces">Index spaces</Link> : null}
      </p>
    </section>
  );
}
