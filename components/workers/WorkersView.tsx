"use client";

import Link from "next/link";
import { useId } from "react";
import { taskHref, type WorkerInfo } from "@/lib/ui/api";
import { formatDateTime, formatDuration } from "@/lib/ui/format";
import { WORKERS_POLL_MS, useNow, useWorkers } from "@/lib/ui/hooks";
import { QueryStates } from "../ListFrame";
import { RelativeTime } from "../RelativeTime";
import { EmptyState, StaleDataBanner, TableSkeleton } from "../States";
import { TableHead } from "../TableHead";
import { icons } from "../shell/icons";

/** Heartbeat age → label + tone. A worker counts as gone after ~60 s of silence (server side). */
export function heartbeatHealth(ageSeconds: number): { label: string; tone: "ok" | "warn" | "danger" } {
  if (ageSeconds <= 45) return { label: "fresh", tone: "ok" };
  if (ageSeconds <= 90) return { label: "late", tone: "warn" };
  return { label: "stale", tone: "danger" };
}

export function WorkersView() {
  const workers = useWorkers();
  const liveId = useId();
  const stoppedId = useId();
  const items = workers.data ?? [];
  const live = items.filter((w) => w.live);
  const gone = items.filter((w) => !w.live);

  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">Workers</h1>
          <p className="page__lead">Processes that claim and run indexing tasks, and what each is doing right now.</p>
        </div>
        <div className="toolbar__status">
          <span className={`live-dot${workers.isFetching ? " live-dot--busy" : ""}`} aria-hidden="true" />
          <span className="muted">Refreshes every {WORKERS_POLL_MS / 1000} s</span>
        </div>
      </div>

      <p className="visually-hidden" role="status" aria-live="polite">
        {workers.isPending
          ? "Loading workers…"
          : workers.data
            ? `${live.length} live worker${live.length === 1 ? "" : "s"}, ${gone.length} recently stopped.`
            : ""}
      </p>

      <StaleDataBanner query={workers} />

      <section className="card" aria-labelledby={liveId}>
        <h2 id={liveId} className="section-title card__title">
          Live <span className="count">{live.length}</span>
        </h2>
        <QueryStates
          query={workers}
          skeleton={<TableSkeleton rows={2} columns={7} label="Loading workers" />}
          errorTitle="Could not load workers"
          empty={live.length === 0}
          emptyState={
            <div className="banner banner--danger banner--flush" role="alert" data-testid="no-live-workers">
              <span>
                <strong>No live workers.</strong> Nothing is being indexed: published documents stay queued until a
                worker starts (<code>indexwright worker</code>).
              </span>
            </div>
          }
        >
          <WorkerTable items={live} live />
        </QueryStates>
      </section>

      <section className="card" aria-labelledby={stoppedId}>
        <h2 id={stoppedId} className="section-title card__title">
          Recently stopped <span className="count">{gone.length}</span>
        </h2>
        {workers.data && gone.length === 0 ? (
          <EmptyState icon={icons.workers} title="No stopped workers in the last 24 hours" />
        ) : workers.data ? (
          <WorkerTable items={gone} live={false} />
        ) : null}
      </section>
    </div>
  );
}

function WorkerTable({ items, live }: { items: WorkerInfo[]; live: boolean }) {
  const now = useNow(5_000);
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">
          {live ? "Live workers" : "Workers stopped or silent in the last 24 hours"}
        </caption>
        <TableHead
          columns={[
            "Worker",
            "Host",
            { label: "PID", className: "col-right" },
            { label: "Concurrency", className: "col-right" },
            "Current tasks",
            "Last heartbeat",
            live ? "Started" : "Stopped",
          ]}
        />
        <tbody>
          {items.map((w) => {
            const age = Math.max(0, (now - Date.parse(w.lastHeartbeatAt)) / 1000);
            const health = heartbeatHealth(age);
            return (
              <tr key={w.id} data-testid="worker-row" data-worker-id={w.id} data-live={w.live ? "true" : "false"}>
                <td className="mono">{w.id}</td>
                <td className="mono">{w.host || "—"}</td>
                <td className="col-right mono">{w.pid ?? "—"}</td>
                <td className="col-right mono">{w.concurrency ?? "—"}</td>
                <td>
                  {w.currentTasks.length === 0 ? (
                    <span className="muted">idle</span>
                  ) : (
                    <span className="chips">
                      {w.currentTasks.map((t) => (
                        <Link
                          key={t}
                          href={taskHref(t)}
                          className="chip chip--link mono"
                          data-testid="worker-task-link"
                        >
                          #{t}
                        </Link>
                      ))}
                    </span>
                  )}
                </td>
                <td className="nowrap">
                  {live ? (
                    <span
                      className={`pill pill--${health.tone} pill--tag-start`}
                      title={`${formatDuration(age)} since the last heartbeat`}
                    >
                      {health.label}
                    </span>
                  ) : null}{" "}
                  <RelativeTime iso={w.lastHeartbeatAt} />
                </td>
                <td className="nowrap" title={formatDateTime(live ? w.startedAt : (w.stoppedAt ?? w.lastHeartbeatAt))}>
                  {live ? (
                    <RelativeTime iso={w.startedAt} />
                  ) : w.stoppedAt ? (
                    <RelativeTime iso={w.stoppedAt} />
                  ) : (
                    <span className="text-warn">went silent</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
