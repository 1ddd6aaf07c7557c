"use client";

import Link from "next/link";
import { useId, useState, type FormEvent } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { errorText } from "@/lib/ui/api";
import { formatDuration } from "@/lib/ui/format";
import { OBJECTIVE_MAX, OBJECTIVE_MIN, TARGET_MAX_SECONDS, TARGET_MIN_SECONDS } from "@/lib/slo/limits";
import {
  budgetTone,
  describeBudget,
  formatSloPercent,
  sloProblemsOf,
  useSetFreshnessSlo,
  useTenantFreshnessSlo,
  type SloDay,
  type TenantSlo,
} from "@/lib/ui/slo";
import { useCan } from "../PrincipalContext";
import { RelativeTime } from "../RelativeTime";
import { BlockSkeleton, EmptyState, QueryErrorState, StaleDataBanner } from "../States";
import { TableHead } from "../TableHead";
import { AXIS_TICK, C, ChartCard, ChartEmpty, TOOLTIP_STYLE } from "../overview/OverviewCharts";
import { icons } from "../shell/icons";
import "./slo.css";

/** One tenant's freshness SLO: compliance, budget left, compliance per day, and (for admins) its objective. */
export function TenantFreshnessView({ tenant }: { tenant: string }) {
  const q = useTenantFreshnessSlo(tenant);
  const canSet = useCan("manageAccess");
  const s = q.data;
  return (
    <div className="page" data-testid="freshness-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>
            <Link href="/tenants">Tenants</Link>
          </li>
          <li>
            <Link href={`/documents?tenant=${encodeURIComponent(tenant)}`}>{tenant}</Link>
          </li>
          <li aria-current="page">Freshness</li>
        </ol>
      </nav>
      <div className="page__header">
        <div>
          <h1 className="page__title">Freshness SLO</h1>
          <p className="page__lead" data-testid="freshness-lead">
            Tenant <span className="tenant-chip">{tenant}</span>
            {s ? (
              <>
                {" "}
                · {formatSloPercent(s.objective)} of publishes searchable within {formatDuration(s.targetSeconds)}, over{" "}
                {s.windowDays} days{s.custom.objective || s.custom.targetSeconds ? " (the tenant’s own)" : ""}
              </>
            ) : null}
          </p>
        </div>
        {s ? (
          <p className="muted">
            Updated <RelativeTime iso={s.generatedAt} />
          </p>
        ) : null}
      </div>

      {q.isPending ? (
        <section className="card card--padded" aria-busy="true">
          <span className="visually-hidden" role="status">
            Loading the freshness SLO…
          </span>
          <BlockSkeleton lines={3} />
        </section>
      ) : q.isError && !s ? (
        <section className="card">
          <QueryErrorState title="Could not load the freshness SLO" query={q} />
        </section>
      ) : s ? (
        <>
          <StaleDataBanner query={q} />
          <Figures s={s} />
          {s.good + s.bad === 0 ? (
            <section className="card">
              <EmptyState icon={icons.inbox} title={`No publish decided in the last ${s.windowDays} days`}>
                <p>
                  A publish counts once it is searchable, or once {formatDuration(s.targetSeconds)} have passed without
                  that.
                  {s.pending > 0
                    ? ` ${s.pending} publish${s.pending === 1 ? " is" : "es are"} still within target.`
                    : ""}
                </p>
              </EmptyState>
            </section>
          ) : (
            <DailyChart s={s} />
          )}
          {canSet ? <ObjectiveForm tenant={tenant} s={s} /> : null}
        </>
      ) : null}
    </div>
  );
}

function Figures({ s }: { s: TenantSlo }) {
  const tone = budgetTone(s.budgetRemaining);
  const complianceTone = s.compliance === null ? "neutral" : s.compliance >= s.objective ? "ok" : "danger";
  return (
    <dl className="kpis" aria-label="Freshness figures" data-testid="freshness-figures">
      <div className={`kpi kpi--${complianceTone}`} data-testid="freshness-compliance" data-tone={complianceTone}>
        <dt className="kpi__label">Compliance</dt>
        <dd className="kpi__body">
          <span className="kpi__value" data-testid="freshness-compliance-value">
            {formatSloPercent(s.compliance)}
          </span>
          <span className="kpi__sub">
            {complianceTone === "neutral"
              ? "Nothing decided yet"
              : `${complianceTone === "ok" ? "Meets" : "Below"} the objective of ${formatSloPercent(s.objective)}`}
          </span>
        </dd>
      </div>
      <div className={`kpi kpi--${tone}`} data-testid="freshness-budget" data-tone={tone}>
        <dt className="kpi__label">Error budget</dt>
        <dd className="kpi__body">
          <span className="kpi__value" data-testid="freshness-budget-value">
            {s.budgetRemaining === null ? "—" : formatSloPercent(s.budgetRemaining)}
          </span>
          <span className="kpi__sub">{describeBudget(s.budgetRemaining)}</span>
        </dd>
      </div>
      <div className="kpi kpi--neutral" data-testid="freshness-counts">
        <dt className="kpi__label">Publishes decided</dt>
        <dd className="kpi__body">
          <span className="kpi__value">{s.good + s.bad}</span>
          <span className="kpi__sub">
            {s.good} in time · {s.bad} missed · {s.pending} still within target
          </span>
        </dd>
      </div>
    </dl>
  );
}

type Point = SloDay & { pct: number | null };

function DailyChart({ s }: { s: TenantSlo }) {
  const points: Point[] = s.days.map((d) => ({ ...d, pct: d.compliance === null ? null : d.compliance * 100 }));
  const decided = points.filter((p) => p.pct !== null);
  if (decided.length === 0)
    return (
      <ChartEmpty title="Compliance per day" testId="chart-freshness">
        No publish was decided on any day of the window.
      </ChartEmpty>
    );
  const below = decided.filter((p) => p.compliance! < s.objective);
  const lowest = Math.min(...decided.map((p) => p.pct!), s.objective * 100);
  // Whole percent below the lowest bar and the objective, so a miss of a few tenths still shows.
  const floor = Math.max(0, Math.floor(lowest) - 1);
  const summary = `${decided.length} of ${points.length} days had publishes decided; ${
    below.length === 0
      ? "every one met the objective"
      : `${below.length} fell below ${formatSloPercent(s.objective)}, the lowest ${formatSloPercent(lowest / 100)}`
  }. Days are UTC; the first and today are partial.`;
  return (
    <>
      <ChartCard title="Compliance per day" summary={summary} testId="chart-freshness" wide height={260}>
        <ResponsiveContainer width="100%" height="100%">
          <BarChart
            title="Compliance per day"
            desc={summary}
            data={points}
            margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
            accessibilityLayer
          >
            <CartesianGrid stroke={C.grid} strokeDasharray="3 3" />
            <XAxis dataKey="day" tick={AXIS_TICK} stroke={C.axis} tickFormatter={(d: string) => d.slice(5)} />
            <YAxis
              domain={[floor, 100]}
              tick={AXIS_TICK}
              stroke={C.axis}
              width={48}
              tickFormatter={(v: number) => `${v}%`}
              allowDecimals={false}
            />
            <Tooltip
              {...TOOLTIP_STYLE}
              cursor={{ fill: C.cursor }}
              formatter={(v, _name, item) => {
                const p = (item as { payload?: Point }).payload;
                return [
                  `${formatSloPercent(Number(v) / 100)} (${p?.good ?? 0} in time, ${p?.bad ?? 0} missed)`,
                  "Compliance",
                ];
              }}
            />
            <ReferenceLine
              y={s.objective * 100}
              stroke={C.dead}
              strokeDasharray="6 3"
              label={{
                value: `objective ${formatSloPercent(s.objective)}`,
                fill: C.axis,
                fontSize: 12,
                position: "insideBottomRight",
              }}
            />
            <Bar dataKey="pct" name="Compliance" fill={C.succeeded} isAnimationActive={false}>
              {/* A day below the objective is a miss and reads as one, not as another green bar. */}
              {points.map((p) => (
                <Cell
                  key={p.day}
                  fill={p.compliance !== null && p.compliance < s.objective ? C.dead : C.succeeded}
                  data-below={p.compliance !== null && p.compliance < s.objective ? "true" : "false"}
                />
              ))}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>
      <details className="card card--padded slo-figures" data-testid="freshness-daily-table">
        <summary>Compliance per day as a table</summary>
        <div className="table-wrap">
          <table className="table">
            <caption className="visually-hidden">Publishes decided per UTC day</caption>
            <TableHead
              columns={[
                "Day (UTC)",
                { label: "In time", className: "col-right" },
                { label: "Missed", className: "col-right" },
                { label: "Compliance", className: "col-right" },
              ]}
            />
            <tbody>
              {decided.map((p) => (
                <tr key={p.day}>
                  <td className="mono">{p.day}</td>
                  <td className="col-right">{p.good}</td>
                  <td className="col-right">{p.bad}</td>
                  <td className="col-right mono">{formatSloPercent(p.compliance)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}

/** An admin's form for the tenant's own objective and target; empty fields follow the defaults. */
function ObjectiveForm({ tenant, s }: { tenant: string; s: TenantSlo }) {
  const set = useSetFreshnessSlo(tenant);
  const headingId = useId();
  const objectiveId = useId();
  const targetId = useId();
  const [objective, setObjective] = useState(s.custom.objective ? String(Number((s.objective * 100).toFixed(4))) : "");
  const [target, setTarget] = useState(s.custom.targetSeconds ? String(s.targetSeconds) : "");
  const [saved, setSaved] = useState<string | null>(null);
  const problems = sloProblemsOf(set.error);
  const about = (field: "objective" | "targetSeconds") => problems.filter((p) => p.field === field);
  const other = set.error && problems.length === 0 ? errorText(set.error) : null;

  const submit = (body: { objective: number | null; targetSeconds: number | null }) => {
    setSaved(null);
    set.mutate(body, {
      onSuccess: (v) =>
        setSaved(
          `Saved: ${formatSloPercent(v.objective)} within ${formatDuration(v.targetSeconds)}${
            v.custom.objective || v.custom.targetSeconds ? "" : " (the defaults)"
          }.`,
        ),
    });
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    // The field reads in percent, the API in a ratio; an empty field returns to the default.
    submit({
      objective: objective.trim() === "" ? null : Number(objective) / 100,
      targetSeconds: target.trim() === "" ? null : Number(target),
    });
  };
  const fieldError = (field: "objective" | "targetSeconds", id: string) =>
    about(field).length ? (
      <p id={`${id}-error`} className="field__error" data-testid={`slo-${field}-error`}>
        {about(field)
          .map((p) => p.message)
          .join(" ")}
      </p>
    ) : null;

  return (
    <section className="card card--padded" aria-labelledby={headingId} data-testid="freshness-objective">
      <h2 id={headingId} className="section-title">
        The tenant&rsquo;s objective
      </h2>
      <p className="muted">
        Leave a field empty to follow the default. Changes are audited (<code>tenant.slo.update</code>) and apply to the
        whole window at once.
      </p>
      <form className="slo-form" onSubmit={onSubmit} noValidate>
        <div className="field">
          <label htmlFor={objectiveId} className="field__label">
            Objective (%)
          </label>
          <input
            id={objectiveId}
            className="input mono"
            type="number"
            inputMode="decimal"
            step="any"
            min={OBJECTIVE_MIN * 100}
            max={OBJECTIVE_MAX * 100}
            placeholder="default"
            value={objective}
            onChange={(e) => setObjective(e.target.value)}
            aria-invalid={about("objective").length ? true : undefined}
            aria-describedby={`${objectiveId}-hint${about("objective").length ? ` ${objectiveId}-error` : ""}`}
            data-testid="slo-objective"
          />
          <p id={`${objectiveId}-hint`} className="field__hint">
            {OBJECTIVE_MIN * 100} to {OBJECTIVE_MAX * 100}
          </p>
          {fieldError("objective", objectiveId)}
        </div>
        <div className="field">
          <label htmlFor={targetId} className="field__label">
            Target (seconds)
          </label>
          <input
            id={targetId}
            className="input mono"
            type="number"
            inputMode="numeric"
            step={1}
            min={TARGET_MIN_SECONDS}
            max={TARGET_MAX_SECONDS}
            placeholder="default"
            value={target}
            onChange={(e) => setTarget(e.target.value)}
            aria-invalid={about("targetSeconds").length ? true : undefined}
            aria-describedby={`${targetId}-hint${about("targetSeconds").length ? ` ${targetId}-error` : ""}`}
            data-testid="slo-target"
          />
          <p id={`${targetId}-hint`} className="field__hint">
            {TARGET_MIN_SECONDS} to {TARGET_MAX_SECONDS}, publish to searchable
          </p>
          {fieldError("targetSeconds", targetId)}
        </div>
        <div className="slo-form__actions">
          <button
            type="submit"
            className="btn btn--primary"
            disabled={set.isPending}
            aria-busy={set.isPending || undefined}
            data-testid="slo-save"
          >
            {set.isPending ? "Saving…" : "Save objective"}
          </button>
          <button
            type="button"
            className="btn btn--secondary"
            disabled={set.isPending || !(s.custom.objective || s.custom.targetSeconds)}
            onClick={() => {
              setObjective("");
              setTarget("");
              submit({ objective: null, targetSeconds: null });
            }}
          >
            Use the defaults
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {saved && !set.error ? (
          <p className="muted" role="status" data-testid="slo-saved">
            {saved}
          </p>
        ) : null}
      </div>
      {problems.some((p) => p.field === null) || other ? (
        <div className="form-error" role="alert" data-testid="slo-error">
          {other ??
            problems
              .filter((p) => p.field === null)
              .map((p) => p.message)
              .join(" ")}
        </div>
      ) : problems.length ? (
        <p className="visually-hidden" role="alert">
          The objective was not saved: {problems.map((p) => p.message).join(" ")}
        </p>
      ) : null}
    </section>
  );
}
