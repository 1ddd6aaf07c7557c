"use client";

import Link from "next/link";
import { useEffect, useId, useRef, useState } from "react";
import { KNOWN_AUDIT_ACTIONS, type AuditFilters } from "@/lib/audit/schemas";
import { documentHref, taskHref, type AuditEntry } from "@/lib/ui/api";
import { formatDateTime, truncate } from "@/lib/ui/format";
import { useSearchParamsPatch, useTenants } from "@/lib/ui/hooks";
import { useAuditFiltered } from "@/lib/ui/operator";
import { REQUIRED_ROLE } from "@/lib/ui/roles";
import { FilterBar, FilterField, FilterSelect, TenantFilter } from "../FilterBar";
import { ListStatus, LoadMoreFooter, QueryStates } from "../ListFrame";
import { useCan, useViewer } from "../PrincipalContext";
import { RelativeTime } from "../RelativeTime";
import { EmptyState, StaleDataBanner, TableSkeleton } from "../States";
import { TableHead } from "../TableHead";
import { icons } from "../shell/icons";

const ACTION_GROUPS = [...new Set(KNOWN_AUDIT_ACTIONS.map((a) => a.split(".")[0]))];
const ACTION_PATTERN = /^[a-z][a-z_]*(\.([a-z][a-z_]*|\*))?$/;

/** An instant from the query string (ISO), or nothing when it is not one. */
function instant(raw: string | null): string {
  return raw && !Number.isNaN(Date.parse(raw)) ? new Date(raw).toISOString() : "";
}

/** ISO → the value a datetime-local input shows (local time, to the minute). */
function toLocalInput(iso: string): string {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value (local time) → ISO for the API; empty stays empty. */
function fromLocalInput(v: string): string {
  if (!v) return "";
  const t = new Date(v);
  return Number.isNaN(t.getTime()) ? "" : t.toISOString();
}

export function AuditView() {
  const allowed = useCan("viewAudit");
  const viewer = useViewer();
  const [sp, setParams] = useSearchParamsPatch();

  const actor = (sp.get("actor") ?? "").trim();
  const rawAction = sp.get("action") ?? "";
  const action = ACTION_PATTERN.test(rawAction) ? rawAction : "";
  const tenant = sp.get("tenant") ?? "";
  const from = instant(sp.get("from"));
  const to = instant(sp.get("to"));
  const filters: AuditFilters = {
    actor: actor || undefined,
    action: action || undefined,
    tenant: tenant || undefined,
    from: from || undefined,
    to: to || undefined,
  };
  const filtered = Boolean(actor || action || tenant || from || to);
  const rangeInvalid = Boolean(from && to && Date.parse(from) >= Date.parse(to));

  // The actor box is typed locally and written to the URL once typing pauses. A timer rather than
  // a debounced value in an effect: "Clear filters" must be able to cancel a pending write, or the
  // old text comes back into the URL after the clear.
  const [actorText, setActorText] = useState(actor);
  const pending = useRef<number | null>(null);
  const latestSetParams = useRef(setParams);
  useEffect(() => {
    latestSetParams.current = setParams;
  }, [setParams]);
  useEffect(() => () => window.clearTimeout(pending.current ?? undefined), []);
  function typeActor(v: string) {
    setActorText(v);
    window.clearTimeout(pending.current ?? undefined);
    pending.current = window.setTimeout(() => {
      pending.current = null;
      latestSetParams.current({ actor: v.trim() });
    }, 300);
  }
  useEffect(() => {
    // The URL changed from outside (back button, a link): show its actor, unless a write is pending.
    if (pending.current === null) setActorText((t) => (t.trim() === actor ? t : actor));
  }, [actor]);

  const tenants = useTenants();
  const audit = useAuditFiltered(filters, allowed && !rangeInvalid);
  const items = audit.data?.pages.flatMap((p) => p.items) ?? [];
  const ids = { actor: useId(), from: useId(), to: useId(), rangeError: useId() };

  function clearFilters() {
    window.clearTimeout(pending.current ?? undefined);
    pending.current = null;
    setActorText("");
    setParams({ actor: "", action: "", tenant: "", from: "", to: "" });
  }

  /** The last hour, day or week, ending now. */
  function lastPeriod(hours: number) {
    const end = new Date();
    setParams({ from: new Date(end.getTime() - hours * 3_600_000).toISOString(), to: "" });
  }

  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Audit log</h1>
          <p className="page__lead">
            Every operator action — retries, force-closes, rollbacks, reindexes — with who did it and why.
          </p>
        </div>
        {allowed ? (
          <div className="page__actions">
            <button
              type="button"
              className="btn btn--secondary"
              onClick={() => audit.refetch()}
              disabled={audit.isFetching}
              aria-busy={audit.isFetching || undefined}
            >
              {audit.isFetching && !audit.isFetchingNextPage ? "Refreshing…" : "Refresh"}
            </button>
          </div>
        ) : null}
      </div>

      <ListStatus>
        {allowed && audit.data
          ? `${items.length}${audit.hasNextPage ? "+" : ""} audit entries${filtered ? " match the filters" : ""}.`
          : ""}
      </ListStatus>

      <section className="card" aria-label="Audit entries">
        {!allowed ? (
          <EmptyState icon={icons.audit} title="The audit log is for operators">
            <p>
              Your role is <strong>{viewer.role}</strong>; reading the audit log needs{" "}
              <strong>{REQUIRED_ROLE.viewAudit}</strong> or higher.
            </p>
          </EmptyState>
        ) : (
          <>
            <FilterBar
              label="Filter the audit log"
              filtered={filtered}
              onClear={clearFilters}
              testId="audit-filters"
              clearTestId="audit-filters-clear"
            >
              <FilterField id={ids.actor} label="Actor">
                <input
                  id={ids.actor}
                  type="search"
                  className="input"
                  placeholder="e.g. alice or token:"
                  value={actorText}
                  onChange={(e) => typeActor(e.target.value)}
                  autoComplete="off"
                  spellCheck={false}
                  data-testid="audit-filter-actor"
                />
              </FilterField>
              <FilterSelect
                label="Action"
                value={action}
                onChange={(v) => setParams({ action: v })}
                all="All actions"
                testId="audit-filter-action"
              >
                {ACTION_GROUPS.map((g) => (
                  <optgroup key={g} label={`${g[0].toUpperCase()}${g.slice(1)}`}>
                    <option value={`${g}.*`}>Any {g} action</option>
                    {KNOWN_AUDIT_ACTIONS.filter((a) => a.startsWith(`${g}.`)).map((a) => (
                      <option key={a} value={a}>
                        {a}
                      </option>
                    ))}
                  </optgroup>
                ))}
                {action && !action.endsWith(".*") && !(KNOWN_AUDIT_ACTIONS as readonly string[]).includes(action) ? (
                  <option value={action}>{action}</option>
                ) : null}
              </FilterSelect>
              <TenantFilter
                value={tenant}
                tenants={tenants.data}
                onChange={(v) => setParams({ tenant: v })}
                testId="audit-filter-tenant"
              />
              <FilterField id={ids.from} label="From" width="time">
                <input
                  id={ids.from}
                  type="datetime-local"
                  className="input"
                  value={toLocalInput(from)}
                  onChange={(e) => setParams({ from: fromLocalInput(e.target.value) })}
                  aria-invalid={rangeInvalid || undefined}
                  aria-describedby={rangeInvalid ? ids.rangeError : undefined}
                  data-testid="audit-filter-from"
                />
              </FilterField>
              <FilterField
                id={ids.to}
                width="time"
                label={
                  <>
                    To <span className="field__optional">(before)</span>
                  </>
                }
              >
                <input
                  id={ids.to}
                  type="datetime-local"
                  className="input"
                  value={toLocalInput(to)}
                  onChange={(e) => setParams({ to: fromLocalInput(e.target.value) })}
                  aria-invalid={rangeInvalid || undefined}
                  aria-describedby={rangeInvalid ? ids.rangeError : undefined}
                  data-testid="audit-filter-to"
                />
              </FilterField>
              <div className="segmented" role="group" aria-label="Quick time ranges">
                <button type="button" className="btn btn--ghost btn--sm" onClick={() => lastPeriod(1)}>
                  Last hour
                </button>
                <button type="button" className="btn btn--ghost btn--sm" onClick={() => lastPeriod(24)}>
                  Last day
                </button>
                <button type="button" className="btn btn--ghost btn--sm" onClick={() => lastPeriod(24 * 7)}>
                  Last week
                </button>
              </div>
            </FilterBar>
            {rangeInvalid ? (
              <p className="form-error audit-range-error" id={ids.rangeError} role="alert">
                “From” must be before “To”.
              </p>
            ) : null}

            <StaleDataBanner query={audit} />

            <QueryStates
              query={audit}
              skeleton={<TableSkeleton rows={5} columns={6} label="Loading audit log" />}
              errorTitle="Could not load the audit log"
              empty={items.length === 0}
              emptyState={
                filtered ? (
                  <EmptyState
                    icon={icons.search}
                    title="No audit entries match these filters"
                    action={
                      <button type="button" className="btn btn--secondary" onClick={clearFilters}>
                        Clear filters
                      </button>
                    }
                  >
                    <p>Try a wider time range, another action, or part of the actor&rsquo;s name.</p>
                  </EmptyState>
                ) : (
                  <EmptyState icon={icons.audit} title="No operator actions yet">
                    <p>Retries, force-closes, rollbacks and reindexes are recorded here with their reason.</p>
                  </EmptyState>
                )
              }
            >
              <div className={`table-wrap${audit.isPlaceholderData ? " table-wrap--dimmed" : ""}`}>
                <table className="table">
                  <caption className="visually-hidden">Audit log, newest first{filtered ? ", filtered" : ""}</caption>
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
          </>
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
  const detail =
    entry.detail === null ? "" : typeof entry.detail === "string" ? entry.detail : JSON.stringify(entry.detail);
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
