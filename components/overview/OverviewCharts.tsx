"use client";

import type { ReactNode } from "react";
import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { formatClock, formatDateTime, formatDuration } from "@/lib/ui/format";
import type { BacklogSnapshot, Overview } from "@/lib/ui/schemas";

/**
 * Series colours are CSS custom properties (app/globals.css), so the charts follow the light and
 * dark themes; every series also has a legend entry with its name (never colour alone).
 */
export const C = {
  pending: "var(--chart-pending)",
  retryWait: "var(--chart-retry)",
  running: "var(--chart-running)",
  dead: "var(--chart-dead)",
  oldest: "var(--chart-oldest)",
  drift: "var(--chart-drift)",
  p50: "var(--chart-p50)",
  p95: "var(--chart-p95)",
  succeeded: "var(--chart-succeeded)",
  grid: "var(--chart-grid)",
  axis: "var(--chart-axis)",
  cursor: "var(--chart-cursor)",
};

/** recharts' tooltip box is white by default; these make it a surface of the current theme. */
export const TOOLTIP_STYLE = {
  contentStyle: {
    background: "var(--surface)",
    border: "1px solid var(--border-strong)",
    borderRadius: 8,
    color: "var(--text)",
  },
  labelStyle: { color: "var(--text)" },
};

export const AXIS_TICK = { fill: C.axis, fontSize: 12 };

type Point = BacklogSnapshot & { t: number };

function toPoints(history: BacklogSnapshot[]): Point[] {
  return history.map((h) => ({ ...h, t: Date.parse(h.at) })).filter((p) => Number.isFinite(p.t));
}

export function tooltipTime(label: ReactNode): ReactNode {
  return typeof label === "number" ? formatDateTime(new Date(label).toISOString()) : label;
}

type ChartCardProps = {
  title: string;
  summary: string;
  testId: string;
  children: ReactNode;
  height?: number;
  wide?: boolean;
};

/** A titled chart with a text summary for people who cannot see the chart. */
export function ChartCard({ title, summary, testId, children, height = 240, wide = false }: ChartCardProps) {
  return (
    <figure className={`card card--padded chart${wide ? " chart--wide" : ""}`} data-testid={testId}>
      <figcaption className="chart__head">
        <span className="section-title">{title}</span>
        <span className="chart__summary">{summary}</span>
      </figcaption>
      {/* ResponsiveContainer measures its parent, so the parent must have a size. */}
      <div className="chart__canvas" style={{ height }}>
        {children}
      </div>
    </figure>
  );
}

export function ChartEmpty({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  return (
    <figure className="card card--padded chart" data-testid={testId} data-empty="true">
      <figcaption className="chart__head">
        <span className="section-title">{title}</span>
      </figcaption>
      <div className="chart__empty">{children}</div>
    </figure>
  );
}

const FILL_IN = "Charts fill in as the worker records snapshots: every few seconds at first, then each minute.";

export function BacklogChart({ history }: { history: BacklogSnapshot[] }) {
  const points = toPoints(history);
  if (points.length < 2)
    return (
      <ChartEmpty title="Backlog by state" testId="chart-backlog">
        {FILL_IN}
      </ChartEmpty>
    );
  const last = points[points.length - 1];
  const summary = `Now: ${last.pending} pending, ${last.retryWait} waiting to retry, ${last.running} running, ${last.dead} dead.`;
  return (
    <ChartCard title="Backlog by state" testId="chart-backlog" summary={summary} wide>
      <ResponsiveContainer width="100%" height="100%">
        <AreaChart
          title="Backlog by state"
          desc={summary}
          data={points}
          margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
        >
          <CartesianGrid stroke={C.grid} strokeDasharray="3 3" />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={["dataMin", "dataMax"]}
            tickFormatter={formatClock}
            tick={AXIS_TICK}
            minTickGap={32}
          />
          <YAxis allowDecimals={false} tick={AXIS_TICK} width={40} />
          <Tooltip {...TOOLTIP_STYLE} labelFormatter={tooltipTime} />
          <Legend wrapperStyle={{ color: "var(--text-2)" }} />
          <Area
            type="monotone"
            dataKey="pending"
            name="Pending"
            stackId="backlog"
            stroke={C.pending}
            fill={C.pending}
            fillOpacity={0.35}
            isAnimationActive={false}
          />
          <Area
            type="monotone"
            dataKey="retryWait"
            name="Retry wait"
            stackId="backlog"
            stroke={C.retryWait}
            fill={C.retryWait}
            fillOpacity={0.35}
            isAnimationActive={false}
          />
          <Area
            type="monotone"
            dataKey="running"
            name="Running"
            stackId="backlog"
            stroke={C.running}
            fill={C.running}
            fillOpacity={0.35}
            isAnimationActive={false}
          />
          <Area
            type="monotone"
            dataKey="dead"
            name="Dead"
            stackId="backlog"
            stroke={C.dead}
            fill={C.dead}
            fillOpacity={0.35}
            isAnimationActive={false}
          />
        </AreaChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

type Series<P> = { key: keyof P & string; name: string; color: string; dashed?: boolean; step?: boolean };
type TimeLinesProps<P extends Point> = {
  title: string;
  testId: string;
  summary: string;
  points: P[];
  series: Series<P>[];
  /** "duration": values are seconds, shown as durations; "count": whole numbers. */
  unit: "duration" | "count";
};

/** Lines over the snapshot timeline: the shape shared by the age, latency and drift charts. */
function TimeLinesChart<P extends Point>({ title, testId, summary, points, series, unit }: TimeLinesProps<P>) {
  const duration = unit === "duration";
  return (
    <ChartCard title={title} testId={testId} summary={summary}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart title={title} desc={summary} data={points} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={C.grid} strokeDasharray="3 3" />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={["dataMin", "dataMax"]}
            tickFormatter={formatClock}
            tick={AXIS_TICK}
            minTickGap={32}
          />
          {duration ? (
            <YAxis tickFormatter={(v: number) => formatDuration(v)} tick={AXIS_TICK} width={64} />
          ) : (
            <YAxis allowDecimals={false} tick={AXIS_TICK} width={40} />
          )}
          <Tooltip
            {...TOOLTIP_STYLE}
            labelFormatter={tooltipTime}
            formatter={duration ? (v) => (typeof v === "number" ? formatDuration(v) : String(v)) : undefined}
          />
          <Legend wrapperStyle={{ color: "var(--text-2)" }} />
          {series.map((s) => (
            <Line
              key={s.key}
              type={s.step ? "stepAfter" : "monotone"}
              dataKey={s.key}
              name={s.name}
              stroke={s.color}
              strokeWidth={2}
              strokeDasharray={s.dashed ? "6 3" : undefined}
              dot={false}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

export function OldestDueChart({ history }: { history: BacklogSnapshot[] }) {
  const points = toPoints(history).map((p) => ({ ...p, oldest: p.oldestDueAgeSeconds ?? 0 }));
  const title = "Oldest due task age";
  if (points.length < 2)
    return (
      <ChartEmpty title={title} testId="chart-oldest-due">
        {FILL_IN}
      </ChartEmpty>
    );
  const max = Math.max(...points.map((p) => p.oldest));
  return (
    <TimeLinesChart
      title={title}
      testId="chart-oldest-due"
      summary={`Now ${formatDuration(points[points.length - 1].oldest)}; peak ${formatDuration(max)} in the window.`}
      points={points}
      series={[{ key: "oldest", name: "Oldest due age", color: C.oldest }]}
      unit="duration"
    />
  );
}

export function DriftChart({ history }: { history: BacklogSnapshot[] }) {
  const points = toPoints(history).map((p) => ({ ...p, driftCount: p.drift ?? 0 }));
  const title = "Drift over time";
  if (points.length < 2)
    return (
      <ChartEmpty title={title} testId="chart-drift">
        {FILL_IN}
      </ChartEmpty>
    );
  return (
    <TimeLinesChart
      title={title}
      testId="chart-drift"
      summary={`Documents whose newest version is not the one search serves: ${points[points.length - 1].driftCount} now.`}
      points={points}
      series={[{ key: "driftCount", name: "Drifted documents", color: C.drift, step: true }]}
      unit="count"
    />
  );
}

export function LatencyChart({ history }: { history: BacklogSnapshot[] }) {
  const points = toPoints(history).filter((p) => p.latencyP50Seconds !== null && p.latencyP95Seconds !== null);
  const title = "Publish → searchable latency";
  if (points.length < 2)
    return (
      <ChartEmpty title={title} testId="chart-latency">
        Fills in as documents finish indexing: each snapshot records the p50 and p95 of tasks that finished in the 15
        minutes before.
      </ChartEmpty>
    );
  const last = points[points.length - 1];
  const peak = Math.max(...points.map((p) => p.latencyP95Seconds ?? 0));
  return (
    <TimeLinesChart
      title={title}
      testId="chart-latency"
      summary={`Now p50 ${formatDuration(last.latencyP50Seconds ?? 0)}, p95 ${formatDuration(last.latencyP95Seconds ?? 0)}; p95 peak ${formatDuration(peak)} in the window.`}
      points={points}
      series={[
        { key: "latencyP50Seconds", name: "p50", color: C.p50 },
        { key: "latencyP95Seconds", name: "p95", color: C.p95, dashed: true },
      ]}
      unit="duration"
    />
  );
}

type ErrorRow = { errorCode: string; dead: number; retryWait: number };

export function errorRows(errors: Overview["errors"]): ErrorRow[] {
  const by = new Map<string, ErrorRow>();
  for (const e of errors) {
    const row = by.get(e.errorCode) ?? { errorCode: e.errorCode, dead: 0, retryWait: 0 };
    if (e.status === "DEAD") row.dead += e.count;
    else row.retryWait += e.count;
    by.set(e.errorCode, row);
  }
  return [...by.values()].sort((a, b) => b.dead + b.retryWait - (a.dead + a.retryWait));
}

export function ErrorBreakdownChart({ errors }: { errors: Overview["errors"] }) {
  const rows = errorRows(errors);
  if (rows.length === 0)
    return (
      <ChartEmpty title="Errors by code" testId="chart-errors">
        No DEAD or retrying tasks carry an error right now.
      </ChartEmpty>
    );
  const height = Math.max(160, rows.length * 40 + 70);
  const summary = rows.map((r) => `${r.errorCode}: ${r.dead} dead, ${r.retryWait} retrying`).join("; ") + ".";
  return (
    <ChartCard title="Errors by code" testId="chart-errors" height={height} summary={summary}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart
          title="Errors by code"
          desc={summary}
          data={rows}
          layout="vertical"
          margin={{ top: 8, right: 16, bottom: 0, left: 8 }}
          barCategoryGap={8}
        >
          <CartesianGrid stroke={C.grid} strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} tick={AXIS_TICK} />
          <YAxis
            type="category"
            dataKey="errorCode"
            width={210}
            tick={{ ...AXIS_TICK, fontFamily: "var(--font-mono)" }}
          />
          <Tooltip {...TOOLTIP_STYLE} cursor={{ fill: C.cursor }} />
          <Legend wrapperStyle={{ color: "var(--text-2)" }} />
          <Bar dataKey="dead" name="Dead" stackId="err" fill={C.dead} isAnimationActive={false} />
          <Bar dataKey="retryWait" name="Retry wait" stackId="err" fill={C.retryWait} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
