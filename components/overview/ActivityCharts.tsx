"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { ACTIVITY_RANGES, ACTIVITY_RANGE_LIST, type ActivityRange } from "@/lib/operations/range";
import { formatClock } from "@/lib/ui/format";
import type { Activity } from "@/lib/ui/operator";
import { AXIS_TICK, C, ChartCard, ChartEmpty, TOOLTIP_STYLE } from "./OverviewCharts";

const SERIES = [
  { key: "SUCCEEDED", name: "Succeeded", color: C.succeeded },
  { key: "DEAD", name: "Dead", color: C.dead },
  { key: "RESOLVED", name: "Force-closed", color: C.drift },
  { key: "SUPERSEDED", name: "Superseded", color: C.pending },
] as const;

const day = new Intl.DateTimeFormat("en", { weekday: "short", hour: "2-digit", minute: "2-digit", hour12: false });
const full = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });

/** Axis ticks: the time of day within a day, the weekday and time over a week. */
export function tickFormatter(range: ActivityRange): (ms: number) => string {
  return range === "7d" ? (ms) => (Number.isFinite(ms) ? day.format(ms) : "") : formatClock;
}

const rate = (n: number) => (n >= 10 ? n.toFixed(0) : n >= 1 ? n.toFixed(1) : n === 0 ? "0" : n.toFixed(2));

/** 1 h / 24 h / 7 d: buttons that say which one is on (aria-pressed), not colour alone. */
export function RangePicker({
  value,
  onChange,
  busy,
}: {
  value: ActivityRange;
  onChange: (r: ActivityRange) => void;
  busy: boolean;
}) {
  return (
    <div className="range-picker">
      <span className="range-picker__label" id="range-picker-label">
        Time range
      </span>
      <div
        className="segmented"
        role="group"
        aria-labelledby="range-picker-label"
        data-testid="range-picker"
        aria-busy={busy || undefined}
      >
        {ACTIVITY_RANGE_LIST.map((r) => (
          <button
            key={r}
            type="button"
            className="btn btn--ghost btn--sm"
            aria-pressed={r === value}
            onClick={() => onChange(r)}
            data-testid={`range-${r}`}
          >
            {ACTIVITY_RANGES[r].label}
          </button>
        ))}
      </div>
    </div>
  );
}

/** Tasks finished per minute, stacked by outcome, one bar per bucket of the range. */
export function ThroughputChart({ activity, range }: { activity: Activity; range: ActivityRange }) {
  const title = "Throughput: tasks finished per minute";
  const points = activity.throughput.map((p) => ({ ...p, t: Date.parse(p.at) }));
  const t = activity.totals;
  const finished = t.SUCCEEDED + t.DEAD + t.RESOLVED + t.SUPERSEDED;
  const label = ACTIVITY_RANGES[range].label;
  if (finished === 0)
    return (
      <ChartEmpty title={title} testId="chart-throughput">
        No task finished in the last {label}.
      </ChartEmpty>
    );
  const peak = Math.max(...points.map((p) => p.SUCCEEDED + p.DEAD + p.RESOLVED + p.SUPERSEDED));
  const bucketMin = activity.bucketSeconds / 60;
  const summary = `Last ${label}: ${t.SUCCEEDED} succeeded, ${t.DEAD} dead, ${t.RESOLVED} force-closed, ${t.SUPERSEDED} superseded; peak ${rate(peak)} per minute (averaged over ${bucketMin >= 60 ? `${bucketMin / 60} h` : `${bucketMin} min`}).`;
  return (
    <ChartCard title={title} testId="chart-throughput" summary={summary} wide>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart
          title={title}
          desc={summary}
          data={points}
          margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
          barCategoryGap={1}
        >
          <CartesianGrid stroke={C.grid} strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="t" type="category" tickFormatter={tickFormatter(range)} tick={AXIS_TICK} minTickGap={32} />
          <YAxis tick={AXIS_TICK} width={48} tickFormatter={(v: number) => rate(v)} />
          <Tooltip
            {...TOOLTIP_STYLE}
            cursor={{ fill: C.cursor }}
            labelFormatter={(l) => (typeof l === "number" ? full.format(l) : String(l))}
            formatter={(v) => (typeof v === "number" ? `${rate(v)} / min` : String(v))}
          />
          <Legend wrapperStyle={{ color: "var(--text-2)" }} />
          {SERIES.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.name} stackId="outcome" fill={s.color} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
