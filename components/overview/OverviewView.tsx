"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { formatDuration, formatRatio } from "@/lib/ui/format";
import { OVERVIEW_POLL_MS, useOverview, useSearchParamsPatch } from "@/lib/ui/hooks";
import { DEFAULT_RANGE, isActivityRange, type ActivityRange } from "@/lib/operations/range";
import { useActivity, type Activity } from "@/lib/ui/operator";
import type { Overview } from "@/lib/ui/schemas";
import { describeTenants, type ScopedOverview } from "@/lib/ui/trust";
import { useViewer } from "../PrincipalContext";
import { RelativeTime } from "../RelativeTime";
import { BlockSkeleton, QueryErrorState, StaleDataBanner } from "../States";
import { BacklogChart, DriftChart, ErrorBreakdownChart, LatencyChart, OldestDueChart } from "./OverviewCharts";
import { RangePicker, ThroughputChart } from "./ActivityCharts";
import { ReconcilerCard } from "./ReconcilerCard";
import { QueueWaitsCard } from "./QueueWaitsCard";
import { ReadsStatus } from "./ReadsStatus";
import { PausePanel } from "../operations/PausePanel";
import { OpenMigrationsCard } from "../migrations/TenantsView";
import { FreshnessSloCard } from "../slo/FreshnessSloCard";
import "../access.css";

/** Thresholds for the warning colours (seconds). */
export const OLDEST_DUE_WARN_S = 60;
export const OLDEST_DUE_DANGER_S = 300;
export const DRIFT_WARN_S = 300;

type Tone = "ok" | "neutral" | "warn" | "danger";

const TONE_TAG: Record<Tone, string | null> = {
  ok: "OK",
  neutral: null,
  warn: "Watch",
  danger: "Action needed",
};

type KpiProps = {
  label: string;
  value: ReactNode;
  tone: Tone;
  sub?: ReactNode;
  testId: string;
  href?: string;
  hrefLabel?: string;
};

function Kpi({ label, value, tone, sub, testId, href, hrefLabel }: KpiProps) {
  const tag = TONE_TAG[tone];
  return (
    <div className={`kpi kpi--${tone}`} data-testid={testId} data-tone={tone}>
      <dt className="kpi__label">
        {label}
        {tag ? (
          <span className={`kpi__tag kpi__tag--${tone}`}>
            <span aria-hidden="true">{tone === "ok" ? "✓ " : "! "}</span>
            {tag}
          </span>
        ) : null}
      </dt>
      <dd className="kpi__body">
        <span className="kpi__value" data-testid={`${testId}-value`}>
          {value}
        </span>
        {sub ? <span className="kpi__sub">{sub}</span> : null}
        {href ? (
          <Link href={href} className="kpi__link">
            {hrefLabel ?? "Details"} →
          </Link>
        ) : null}
      </dd>
    </div>
  );
}

type Issue = { text: string; tone: "warn" | "danger"; href?: string };

/**
 * Everything the overview flags, worst first; an empty list means healthy. `fleet` is false for a
 * tenant-limited account, whose overview carries no workers: none listed then is no finding.
 */
export function fleetIssues(o: Overview, fleet = true): Issue[] {
  const out: Issue[] = [];
  const q = o.queue;
  if (fleet && o.workers.length === 0)
    out.push({ tone: "danger", text: "No live workers: nothing is being indexed.", href: "/workers" });
  if (q.leasesExpired > 0)
    out.push({
      tone: "danger",
      text: `${q.leasesExpired} running task${q.leasesExpired === 1 ? " has an" : "s have"} expired lease${q.leasesExpired === 1 ? "" : "s"} (worker stalled or died).`,
      href: "/tasks?status=RUNNING",
    });
  if (q.dead > 0)
    out.push({
      tone: "danger",
      text: `${q.dead} task${q.dead === 1 ? " is" : "s are"} DEAD and need${q.dead === 1 ? "s" : ""} an operator.`,
      href: "/tasks?status=DEAD",
    });
  if (q.oldestDueAgeSeconds !== null && q.oldestDueAgeSeconds > OLDEST_DUE_WARN_S)
    out.push({
      tone: q.oldestDueAgeSeconds > OLDEST_DUE_DANGER_S ? "danger" : "warn",
      text: `The oldest due task has waited ${formatDuration(q.oldestDueAgeSeconds)} for a worker.`,
      href: "/tasks?status=PENDING",
    });
  if (q.leasesExpiringSoon > 0)
    out.push({
      tone: "warn",
      text: `${q.leasesExpiringSoon} lease${q.leasesExpiringSoon === 1 ? " is" : "s are"} about to expire.`,
      href: "/tasks?status=RUNNING",
    });
  const stale = o.otherEmbeddingSpace;
  if (stale.count > 0) {
    const model = stale.model
      ? ` (search uses ${stale.model}${stale.dimensions ? `, ${stale.dimensions} dimensions` : ""})`
      : "";
    out.push({
      tone: "danger",
      text: `${stale.count} document${stale.count === 1 ? " is" : "s are"} invisible to search: built with another embedding model${model}. They need a rebuild; the reconciler queues it.`,
      href: "/documents?state=NOT_INDEXED",
    });
  }
  const unacked = o.drift.count - o.drift.acknowledged;
  if (unacked > 0 && o.drift.oldestAgeSeconds !== null && o.drift.oldestAgeSeconds > DRIFT_WARN_S)
    out.push({
      tone: "warn",
      text: `${unacked} document${unacked === 1 ? " is" : "s are"} not searchable at the newest version (oldest ${formatDuration(o.drift.oldestAgeSeconds)}).`,
      href: "/documents",
    });
  return out.sort((a, b) => (a.tone === b.tone ? 0 : a.tone === "danger" ? -1 : 1));
}

export function OverviewView() {
  const query = useOverview();
  const viewer = useViewer();
  const [sp, setParams] = useSearchParamsPatch();
  const rawRange = sp.get("range");
  const range: ActivityRange = isActivityRange(rawRange) ? rawRange : DEFAULT_RANGE;
  const activity = useActivity(range);
  // Until the first answer, the account's grant tells which overview is coming.
  const fleet = query.data ? isFleet(query.data, viewer.tenants) : viewer.tenants === null;

  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Overview</h1>
          <p className="page__lead">
            {fleet
              ? "Is the fleet healthy? Queue, failures, drift and latency at a glance."
              : `How are your tenants doing? Queue, failures, drift and latency in ${describeTenants(viewer.tenants)}.`}
          </p>
        </div>
        {query.data ? (
          <div className="overview-controls">
            <RangePicker
              value={range}
              onChange={(r) => setParams({ range: r === DEFAULT_RANGE ? "" : r })}
              busy={activity.isFetching}
            />
            <div className="toolbar__status">
              <span className={`live-dot${query.isFetching ? " live-dot--busy" : ""}`} aria-hidden="true" />
              <span className="muted">
                Updated <RelativeTime iso={query.data.generatedAt} /> · every {OVERVIEW_POLL_MS / 1000} s
              </span>
              <ReadsStatus reads={query.data.reads} />
            </div>
          </div>
        ) : null}
      </div>

      {query.isPending ? (
        <div className="kpis" aria-busy="true">
          <span className="visually-hidden" role="status">
            Loading overview…
          </span>
          {Array.from({ length: 9 }, (_, i) => (
            <div key={i} className="kpi">
              <BlockSkeleton lines={2} />
            </div>
          ))}
        </div>
      ) : query.isError && !query.data ? (
        <div className="card">
          <QueryErrorState title="Could not load the overview" query={query} />
        </div>
      ) : query.data ? (
        <>
          <StaleDataBanner query={query} />
          <PausePanel />
          <OverviewBody o={query.data} fleet={fleet} activity={activity.data} range={range} />
        </>
      ) : null}
    </div>
  );
}

/** A fleet-wide overview, or one counted over the caller's tenants (no workers, history or reconciler). */
function isFleet(o: ScopedOverview, tenants: string[] | null): boolean {
  return o.scope === "fleet" && tenants === null;
}

function OverviewBody({
  o,
  fleet,
  activity,
  range,
}: {
  o: ScopedOverview;
  fleet: boolean;
  activity: Activity | undefined;
  range: ActivityRange;
}) {
  // The charts show the chosen range once its answer is in (the overview itself carries 24 h).
  const history = activity && activity.range === range ? activity.history : o.history;
  const q = o.queue;
  const issues = fleetIssues(o, fleet);
  const worst = issues[0]?.tone;
  const unacked = o.drift.count - o.drift.acknowledged;
  const totalConcurrency = o.workers.reduce((n, w) => n + (w.concurrency ?? 0), 0);
  const lat = o.publishToSearchableSeconds;

  const oldestTone: Tone =
    q.oldestDueAgeSeconds === null
      ? "ok"
      : q.oldestDueAgeSeconds > OLDEST_DUE_DANGER_S
        ? "danger"
        : q.oldestDueAgeSeconds > OLDEST_DUE_WARN_S
          ? "warn"
          : "ok";

  return (
    <>
      <section
        className={`health health--${worst ?? "ok"}`}
        aria-label={fleet ? "Fleet health" : "Health of your tenants"}
        data-testid="fleet-health"
        data-healthy={issues.length === 0 ? "true" : "false"}
      >
        <p className="health__title" role="status" aria-live="polite">
          {issues.length === 0
            ? "✓ Healthy: the queue is moving and nothing needs an operator."
            : `${issues.length} thing${issues.length === 1 ? " needs" : "s need"} attention`}
        </p>
        {issues.length > 0 ? (
          <ul className="health__list">
            {issues.map((i) => (
              <li key={i.text} className={`health__item health__item--${i.tone}`}>
                <span className="health__sev">{i.tone === "danger" ? "Critical" : "Warning"}</span> {i.text}{" "}
                {i.href ? (
                  <Link href={i.href} className="health__link">
                    View
                  </Link>
                ) : null}
              </li>
            ))}
          </ul>
        ) : null}
      </section>

      <dl className="kpis" aria-label="Key figures">
        <Kpi
          label="Due tasks"
          testId="kpi-due"
          value={q.due}
          tone={fleet && q.due > 0 && o.workers.length === 0 ? "danger" : "neutral"}
          sub={`${q.waitingForRetry} waiting to retry later`}
          href="/tasks?status=PENDING"
          hrefLabel="Pending tasks"
        />
        <Kpi
          label="Oldest due"
          testId="kpi-oldest-due"
          value={q.oldestDueAgeSeconds === null ? "none" : formatDuration(q.oldestDueAgeSeconds)}
          tone={oldestTone}
          sub={
            q.oldestDueAgeSeconds === null
              ? "No task is waiting for a worker"
              : `Warn above ${formatDuration(OLDEST_DUE_WARN_S)}, critical above ${formatDuration(OLDEST_DUE_DANGER_S)}`
          }
        />
        <Kpi
          label="Running"
          testId="kpi-running"
          value={q.running}
          tone="neutral"
          sub={
            fleet
              ? `Capacity ${totalConcurrency} across ${o.workers.length} worker${o.workers.length === 1 ? "" : "s"}`
              : "Your tenants’ tasks in a worker’s hands"
          }
          href="/tasks?status=RUNNING"
          hrefLabel="Running tasks"
        />
        <Kpi
          label="Leases"
          testId="kpi-leases"
          value={`${q.leasesExpired} expired`}
          tone={q.leasesExpired > 0 ? "danger" : q.leasesExpiringSoon > 0 ? "warn" : "ok"}
          sub={`${q.leasesExpiringSoon} expiring soon`}
        />
        <Kpi
          label="Dead tasks"
          testId="kpi-dead"
          value={q.dead}
          tone={q.dead > 0 ? "danger" : "ok"}
          sub={q.dead > 0 ? "Retry or force-close them" : "Nothing has given up"}
          href={q.dead > 0 ? "/tasks?status=DEAD" : undefined}
          hrefLabel="Dead tasks"
        />
        <Kpi
          label="Drift"
          testId="kpi-drift"
          value={o.drift.count}
          tone={
            unacked > 0 && o.drift.oldestAgeSeconds !== null && o.drift.oldestAgeSeconds > DRIFT_WARN_S
              ? "warn"
              : "neutral"
          }
          sub={
            <>
              <span data-testid="kpi-drift-acknowledged">{o.drift.acknowledged} acknowledged</span>
              {o.drift.oldestAgeSeconds !== null ? ` · oldest ${formatDuration(o.drift.oldestAgeSeconds)}` : ""}
            </>
          }
        />
        <Kpi
          label="Publish → searchable"
          testId="kpi-latency"
          value={lat.p50 === null ? "—" : `p50 ${formatDuration(lat.p50)}`}
          tone="neutral"
          sub={
            lat.samples === 0
              ? "No finished indexing yet"
              : `p95 ${formatDuration(lat.p95)} · p99 ${formatDuration(lat.p99)} · ${lat.samples} ${lat.samples === 1 ? "sample" : "samples"}`
          }
        />
        <Kpi
          label="Embedding reuse"
          testId="kpi-reuse"
          value={formatRatio(o.embeddingReuseRate)}
          tone="neutral"
          sub={
            o.perTask.chunks === null
              ? "Share of chunks not re-embedded"
              : `Per task: ${o.perTask.chunks.toFixed(1)} chunks, ${(o.perTask.embeddingBatches ?? 0).toFixed(1)} embedding batches`
          }
        />
        {fleet ? (
          <Kpi
            label="Live workers"
            testId="kpi-workers"
            value={o.workers.length}
            tone={o.workers.length === 0 ? "danger" : "ok"}
            sub={
              o.workers.length === 0
                ? "Start one with `indexwright worker`"
                : `${o.workers.reduce((n, w) => n + w.currentTasks.length, 0)} task(s) in hand`
            }
            href="/workers"
            hrefLabel="Workers"
          />
        ) : null}
      </dl>

      <QueueWaitsCard queue={q} />

      <OpenMigrationsCard />

      <FreshnessSloCard />

      {fleet ? (
        <div className="charts">
          {activity ? <ThroughputChart activity={activity} range={range} /> : null}
          <BacklogChart history={history} />
          <OldestDueChart history={history} />
          <LatencyChart history={history} />
          <DriftChart history={history} />
          <ErrorBreakdownChart errors={o.errors} />
          <ReconcilerCard r={o.reconciler} />
        </div>
      ) : (
        <>
          <div className="note note--info scope-note" role="note" data-testid="scope-note">
            <span className="note__icon" aria-hidden="true">
              i
            </span>
            <p>
              Fleet-wide charts and workers are shown to all-tenant accounts. The figures above count only your
              tenants&rsquo; documents and tasks.
            </p>
          </div>
          <div className="charts">
            {activity ? <ThroughputChart activity={activity} range={range} /> : null}
            <ErrorBreakdownChart errors={o.errors} />
          </div>
        </>
      )}
    </>
  );
}
