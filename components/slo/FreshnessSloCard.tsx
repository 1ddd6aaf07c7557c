"use client";

import Link from "next/link";
import { useId } from "react";
import { formatDuration } from "@/lib/ui/format";
import {
  budgetTone,
  describeBudget,
  formatSloPercent,
  freshnessHref,
  useFreshnessSloList,
  type SloSummary,
} from "@/lib/ui/slo";
import { EmptyState, QueryErrorState, StaleDataBanner, TableSkeleton } from "../States";
import { TableHead } from "../TableHead";
import { icons } from "../shell/icons";
import "./slo.css";

/** How many tenants the overview lists: the worst ones; the rest are a click away on each tenant's page. */
export const OVERVIEW_SLO_ROWS = 8;

/** The overview's freshness SLO card: compliance across the caller's tenants, worst first. */
export function FreshnessSloCard() {
  const q = useFreshnessSloList();
  const headingId = useId();
  const items = q.data?.items ?? [];
  const decided = items.filter((i) => i.good + i.bad > 0);
  const spent = decided.filter((i) => (i.budgetRemaining ?? 1) <= 0).length;
  const d = q.data?.defaults;
  return (
    <section className="card" aria-labelledby={headingId} data-testid="overview-slo">
      <div className="card__title stack-xs">
        <h2 id={headingId} className="section-title">
          Freshness SLO
        </h2>
        {d ? (
          <p className="muted" data-testid="overview-slo-lead">
            Default: {formatSloPercent(d.objective)} of publishes searchable within {formatDuration(d.targetSeconds)}{" "}
            over {d.windowDays} days.{" "}
            {decided.length === 0
              ? ""
              : spent === 0
                ? "No tenant has spent its error budget."
                : `${spent} tenant${spent === 1 ? " has" : "s have"} spent the error budget.`}
          </p>
        ) : null}
      </div>
      {q.isPending ? (
        <TableSkeleton rows={3} columns={5} label="Loading the freshness SLO" />
      ) : q.isError && !q.data ? (
        <QueryErrorState title="Could not load the freshness SLO" query={q} />
      ) : items.length === 0 ? (
        <EmptyState icon={icons.inbox} title="No tenants yet">
          <p>A tenant&rsquo;s freshness is measured from its first publish.</p>
        </EmptyState>
      ) : (
        <>
          <StaleDataBanner query={q} />
          <div className="table-wrap">
            <table className="table" data-testid="overview-slo-table">
              <caption className="visually-hidden">Freshness SLO per tenant, least error budget left first</caption>
              <TableHead
                columns={[
                  "Tenant",
                  { label: "Compliance", className: "col-right" },
                  { label: "Objective", className: "col-right" },
                  "Error budget",
                  { label: "Publishes", className: "col-right" },
                ]}
              />
              <tbody>
                {items.slice(0, OVERVIEW_SLO_ROWS).map((i) => (
                  <SloRow key={i.tenant} i={i} />
                ))}
              </tbody>
            </table>
          </div>
          {items.length > OVERVIEW_SLO_ROWS ? (
            <p className="card__empty muted">
              The {OVERVIEW_SLO_ROWS} tenants with the least budget left of {items.length};{" "}
              <Link href="/tenants">every tenant</Link> has its own page.
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}

function SloRow({ i }: { i: SloSummary }) {
  const tone = budgetTone(i.budgetRemaining);
  return (
    <tr data-testid="overview-slo-row" data-tenant={i.tenant} data-tone={tone}>
      <td>
        <Link href={freshnessHref(i.tenant)} className="tenant-chip">
          {i.tenant}
          <span className="visually-hidden"> freshness</span>
        </Link>
      </td>
      <td className="col-right mono" data-testid="overview-slo-compliance">
        {formatSloPercent(i.compliance)}
      </td>
      <td className="col-right mono">
        {formatSloPercent(i.objective)} in {formatDuration(i.targetSeconds)}
      </td>
      <td data-testid="overview-slo-budget">
        <span className={tone === "danger" || tone === "warn" ? `slo-tone--${tone}` : undefined}>
          {tone === "danger" ? <span aria-hidden="true">! </span> : null}
          {describeBudget(i.budgetRemaining)}
        </span>
      </td>
      <td className="col-right">
        {i.good + i.bad} decided
        {i.bad > 0 ? `, ${i.bad} missed` : ""}
        {i.pending > 0 ? ` · ${i.pending} pending` : ""}
      </td>
    </tr>
  );
}
