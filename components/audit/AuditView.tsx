"use client";

import Link from "next/link";
import { documentHref, taskHref } from "@/lib/ui/api";
import { formatDateTime, truncate } from "@/lib/ui/format";
import { useAudit } from "@/lib/ui/hooks";
import { REQUIRED_ROLE } from "@/lib/ui/roles";
import type { AuditEntry } from "@/lib/ui/schemas";
import { ListStatus, LoadMoreFooter, QueryStates } from "../ListFrame";
import { useCan, useViewer } from "../PrincipalContext";
import { RelativeTime } from "../RelativeTime";
import { EmptyState, TableSkeleton } from "../States";
import { TableHead } from "../TableHead";
import { icons } from "../shell/icons";

export function AuditView() {
  const allowed = useCan("viewAudit");
  const viewer = useViewer();
  const audit = useAudit(allowed);
  const items = audit.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Audit log</h1>
          <p className="page__lead">Every operator action — retries, force-closes, rollbacks, reindexes — with who did it and why.</p>
        </div>
        {allowed ? (
          <div className="page__actions">
            <button type="button" className="btn btn--secondary" onClick={() => audit.refetch()} disabled={audit.isFetching} aria-busy={audit.isFetching || undefined}>
              {audit.isFetching && !audit.isFetchingNextPage ? "Refreshing…" : "Refresh"}
            </button>
          </div>
        ) : null}
      </div>

      <ListStatus>{allowed && audit.data ? `${items.length}${audit.hasNextPage ? "+" : ""} audit entries.` : ""}</ListStatus>

      <section className="card" aria-label="Audit entries">
        {!allowed ? (
          <EmptyState icon={icons.audit} title="The audit log is for operators">
            <p>
              Your role is <strong>{viewer.role}</strong>; reading the audit log needs <strong>{REQUIRED_ROLE.viewAudit}</strong> or higher.
            </p>
          </EmptyState>
        ) : (
          <QueryStates
            query={audit}
            skeleton={<TableSkeleton rows={5} columns={6} label="Loading audit log" />}
            errorTitle="Could not load the audit log"
            empty={items.length === 0}
            emptyState={
              <EmptyState icon={icons.audit} title="No operator actions yet">
                <p>Retries, force-closes, rollbacks and reindexes are recorded here with their reason.</p>
              </EmptyState>
            }
          >
            <div className="table-wrap">
              <table className="table">
                <caption className="visually-hidden">Audit log, newest first</caption>
                <TableHead columns={["Time", "Actor", "Action", "Target", "Reason", "Detail"]} />
                <tbody>
                  {items.map((e) => (
                    <AuditRow key={e.id} entry={e} />
                  ))}
                </tbody>
              </table>
            </div>
            <LoadMoreFooter query={audit}>
              Showing {items.length} entr{items.length === 1 ? "y" : "ies"}, newest first
            </LoadMoreFooter>
          </QueryStates>
        )}
      </section>
    </div>
  );
}

function Target({ entry }: { entry: AuditEntry }) {
  if (entry.targetType === "task" && /^\d+$/.test(entry.targetId)) {
    return (
      <Link href={taskHref(entry.targetId)} className="mono">
        task #{entry.targetId}
      </Link>
    );
  }
  if (entry.targetType === "document" && entry.targetId.includes("/")) {
    const i = entry.targetId.indexOf("/");
    const tenant = entry.targetId.slice(0, i);
    const key = entry.targetId.slice(i + 1);
    return (
      <>
        <span className="tenant-chip">{tenant}</span>{" "}
        <Link href={documentHref(tenant, key)} className="mono">
          {key}
        </Link>
      </>
    );
  }
  return (
    <span className="mono">
      {entry.targetType}
      {entry.targetId ? ` ${entry.targetId}` : ""}
      {entry.tenant ? (
        <>
          {" "}
          <span className="tenant-chip">{entry.tenant}</span>
        </>
      ) : null}
    </span>
  );
}

function AuditRow({ entry }: { entry: AuditEntry }) {
  const detail = entry.detail === null ? "" : typeof entry.detail === "string" ? entry.detail : JSON.stringify(entry.detail);
  return (
    <tr data-testid="audit-row" data-action={entry.action}>
      <td className="nowrap" title={formatDateTime(entry.at)}>
        <RelativeTime iso={entry.at} />
      </td>
      <td className="mono">{entry.actor}</td>
      <td>
        <span className="pill pill--neutral mono">{entry.action}</span>
      </td>
      <td>
        <Target entry={entry} />
      </td>
      <td className="cell-reason">{entry.reason ? entry.reason : <span className="muted">—</span>}</td>
      <td className="cell-detail mono" title={detail}>
        {detail ? truncate(detail, 90) : <span className="muted">—</span>}
      </td>
    </tr>
  );
}
